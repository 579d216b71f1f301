"""RPC mode in an undecided folder: nothing of the project loads, one stderr line, get_state says why."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tests.rpc.conftest import StartRpc


def bring_things(work_dir: Path) -> None:
    (work_dir / ".atomic" / "prompts").mkdir(parents=True)
    (work_dir / ".atomic" / "prompts" / "review.md").write_text("Review $1.\n")
    (work_dir / ".atomic" / "extensions").mkdir()
    (work_dir / ".atomic" / "extensions" / "mark.py").write_text(
        "from pathlib import Path\nPath(__file__).with_name('IMPORTED').write_text('x')\ndef activate(atomic): pass\n"
    )
    (work_dir / "AGENTS.md").write_text("project rules")


async def test_undecided_folder_is_announced_once_and_in_get_state(start_rpc: StartRpc, work_dir: Path) -> None:
    bring_things(work_dir)
    client = await start_rpc()
    state = await client.get_state()
    trust = state["projectTrust"]
    assert trust["trusted"] is False and trust["source"] == "undecided"
    kinds = {group["kind"]: group["items"] for group in trust["skipped"]}
    assert kinds["extensions"] == [str((work_dir / ".atomic" / "extensions" / "mark.py").resolve())]
    assert kinds["prompt templates"] and kinds["context files"]
    assert "--approve" in trust["howToTrust"]
    commands = (await client.call("get_commands"))["commands"]
    assert not any(c["name"] == "review" for c in commands)  # everything else works
    await client.run_prompt("hello")
    await asyncio.sleep(0.2)
    lines = [line for line in client.stderr_lines if "not trusted" in line]
    assert len(lines) == 1 and "1 extension" in lines[0] and "--approve" in lines[0]
    assert not (work_dir / ".atomic" / "extensions" / "IMPORTED").exists()


async def test_approved_folder_loads_and_says_nothing(start_rpc: StartRpc, work_dir: Path) -> None:
    bring_things(work_dir)
    client = await start_rpc(None, "--approve")
    trust = (await client.get_state())["projectTrust"]
    assert trust == {"trusted": True, "source": "flag", "cwd": str(work_dir.resolve()), "skipped": []}
    commands = (await client.call("get_commands"))["commands"]
    assert any(c["name"] == "review" for c in commands)
    assert (work_dir / ".atomic" / "extensions" / "IMPORTED").exists()
    assert not [line for line in client.stderr_lines if "not trusted" in line]


async def test_trust_is_not_taken_from_the_projects_settings(start_rpc: StartRpc, work_dir: Path) -> None:
    bring_things(work_dir)
    (work_dir / ".atomic" / "settings.json").write_text(json.dumps({"defaultProjectTrust": "always"}))
    client = await start_rpc()
    assert (await client.get_state())["projectTrust"]["trusted"] is False
    assert not (work_dir / ".atomic" / "extensions" / "IMPORTED").exists()
