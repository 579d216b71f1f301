"""Rich's markdown (markdown-it, pygments' lexers) loads with the first reply drawn, not with the app."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

MARKDOWN = ["rich.markdown", "markdown_it", "atomic.tui.chat_markdown"]

OPEN_THEN_REPLY = """
import asyncio, json, sys
from pathlib import Path
from tests.tui.helpers import make_app, submit, wait_for

async def main() -> None:
    app = make_app(Path.cwd() / "p", [{{"text": "# Title\\n\\n```python\\nprint(1)\\n```\\n"}}])
    report = {{}}
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(lambda: app.session_ready, pilot)
        await pilot.pause(0.1)
        report["ready"] = [m for m in {watched} if m in sys.modules]
        await submit(pilot, "hello")
        await wait_for(lambda: len(app.engine.messages()) == 2 and not app.engine.is_streaming, pilot)
        await pilot.pause(0.2)
        report["replied"] = [m for m in {watched} if m in sys.modules]
    print(json.dumps(report))

asyncio.run(main())
"""


def test_an_empty_conversation_does_not_load_markdown_and_a_reply_does(workdir: Path, agent_dir: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, ATOMIC_CODING_AGENT_DIR=str(agent_dir), PYTHONPATH=str(root))
    code = OPEN_THEN_REPLY.format(watched=MARKDOWN)
    result = subprocess.run([sys.executable, "-c", code], cwd=workdir, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report == {"ready": [], "replied": MARKDOWN}
