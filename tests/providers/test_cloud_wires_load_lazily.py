"""The cloud wires cost nothing until one is used: start-up, the first get_state and the model list
(which asks every cloud provider whether it has credentials) import neither botocore nor google-auth,
nor the new provider modules, even with credentials for all of them in the environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

OPEN_AND_REPORT = """
import asyncio, json, sys
from pathlib import Path
from atomic.core.contract import open_engine
from atomic.core.engine.options import SessionOptions

async def main() -> None:
    engine = await open_engine(SessionOptions(cwd=Path.cwd(), provider="scripted", no_session=True))
    engine.state()
    providers = sorted({m.provider for m in engine.models.available_models()})
    loaded = [m for m in sys.modules if m.startswith(("botocore", "google"))
              or m.startswith(("atomic.core.providers.google", "atomic.core.providers.bedrock",
                               "atomic.core.providers.azure", "atomic.core.providers.vertex"))]
    print(json.dumps({"loaded": sorted(loaded), "providers": providers}))

asyncio.run(main())
"""


def test_nothing_of_the_cloud_wires_loads_before_one_is_used(workdir: Path, agent_dir: Path) -> None:
    env = dict(
        os.environ,
        ATOMIC_CODING_AGENT_DIR=str(agent_dir),
        AWS_ACCESS_KEY_ID="AKIDEXAMPLE",
        AWS_SECRET_ACCESS_KEY="secret",
        GEMINI_API_KEY="g-key",
        GOOGLE_CLOUD_API_KEY="vertex-key",
        AZURE_OPENAI_API_KEY="azure-key",
    )
    result = subprocess.run([sys.executable, "-c", OPEN_AND_REPORT], cwd=workdir, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["loaded"] == []
    assert {"amazon-bedrock", "google", "google-vertex", "azure-openai-responses"} <= set(report["providers"])
