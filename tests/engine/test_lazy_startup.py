"""Start-up imports the extension runtime and the MCP manager only when there is something to load.

Each case opens an engine in a fresh interpreter (the way a frontend starts), asks for what RPC
`get_state` answers, and reports which of those modules got imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

RUNTIME = ["atomic.core.extensions.runtime", "atomic.core.extensions.loader", "atomic.core.extensions.api"]
CONFIG = ["atomic.core.mcp.config"]
MCP = [*CONFIG, "atomic.core.mcp.manager", "atomic.core.mcp.connection", "atomic.core.mcp.tools"]

OPEN_AND_REPORT = """
import asyncio, json, sys
from pathlib import Path
from atomic.core.contract import open_engine
from atomic.core.engine.options import SessionOptions

async def main() -> None:
    engine = await open_engine(SessionOptions(cwd=Path.cwd(), provider="scripted", no_session=True))
    engine.state()
    trust = engine.trust.status(with_skipped=True)  # what get_state sends: the project scan runs
    watched = {watched}
    print(json.dumps({{
        "loaded": [m for m in watched if m in sys.modules],
        "skipped": [s.kind for s in trust.skipped or ()],
        "commands": [c.name for c in engine.commands()],
        "mcp": [s.name for s in engine.mcp.servers()],
    }}))

asyncio.run(main())
"""


def open_fresh(cwd: Path, agent_dir: Path) -> dict[str, list[str]]:
    code = OPEN_AND_REPORT.format(watched=RUNTIME + MCP)
    env = dict(os.environ, ATOMIC_CODING_AGENT_DIR=str(agent_dir))
    result = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    report: dict[str, list[str]] = json.loads(result.stdout.strip().splitlines()[-1])
    return report


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


EXTENSION = "def activate(atomic):\n    atomic.register_command('hello', lambda args, ctx: None)\n"


def test_nothing_to_load_imports_neither_the_extension_runtime_nor_mcp(
    workdir: Path, agent_dir: Path
) -> None:
    report = open_fresh(workdir, agent_dir)
    assert report["loaded"] == []
    assert report["commands"] == [] and report["mcp"] == []


def test_an_untrusted_project_is_scanned_without_loading_what_it_brings(workdir: Path, agent_dir: Path) -> None:
    write(workdir / ".atomic" / "extensions" / "local.py", EXTENSION)
    write(workdir / ".atomic" / "settings.json", json.dumps({"mcpServers": {"db": {"command": "db-server"}}}))
    report = open_fresh(workdir, agent_dir)
    assert report["skipped"] == ["extensions", "MCP servers", "settings"]
    # The scan parses the project's server list to name it; no server starts, no manager loads.
    assert report["loaded"] == CONFIG
    assert report["commands"] == [] and report["mcp"] == []


@pytest.mark.parametrize("where", ["extensions/hello.py", "mcp.json"])
def test_something_to_load_loads_its_machinery(workdir: Path, agent_dir: Path, where: str) -> None:
    if where.endswith(".py"):
        write(agent_dir / where, EXTENSION)
    else:
        write(agent_dir / where, json.dumps({"mcpServers": {"tiny": {"command": "no-such-server-xyz"}}}))
    report = open_fresh(workdir, agent_dir)
    if where.endswith(".py"):
        assert report["loaded"] == RUNTIME and report["commands"] == ["hello"]
    else:
        assert report["loaded"] == MCP and report["mcp"] == ["tiny"]
