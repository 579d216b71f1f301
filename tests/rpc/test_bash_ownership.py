"""A direct bash request belongs to the session (and branch) it started in, even after the active
session was replaced and the original one reopened while it ran."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from tests.rpc.conftest import StartRpc
from tests.rpc.helpers import RecordingClient

SLOW = "echo early; sleep 0.6; echo late"


def entries_of(path: str | Path) -> list[dict[str, Any]]:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines[1:] if line.strip()]


def bash_ids(entries: list[dict[str, Any]]) -> list[str]:
    return [e["id"] for e in entries if e["type"] == "message" and e["message"]["role"] == "bashExecution"]


async def start_slow_bash(client: RecordingClient, request_id: str) -> asyncio.Future[dict[str, Any]]:
    pending = asyncio.ensure_future(client.request({"id": request_id, "type": "bash", "command": SLOW}))
    await client.wait_for("bash_execution_update", predicate=lambda e: e.get("id") == request_id)
    return pending


async def test_bash_finishing_after_switching_back_is_stored_once_in_the_reopened_session(
    start_rpc: StartRpc,
) -> None:
    client = await start_rpc([{"text": "first answer"}, {"text": "second answer"}])
    await client.run_prompt("before the bash")
    original = (await client.get_state())["sessionFile"]
    leaf_before = (await client.call("get_entries"))["leafId"]
    pending = await start_slow_bash(client, "own")
    assert (await client.call("new_session")) == {"cancelled": False}
    assert (await client.call("switch_session", sessionPath=original)) == {"cancelled": False}
    response = await asyncio.wait_for(pending, 10)
    assert response["success"] is True and "late" in response["data"]["output"]

    # The live view of the session sees the entry, as the new leaf, on the branch it started on.
    listing = await client.call("get_entries")
    [bash_id] = bash_ids(listing["entries"])
    assert listing["leafId"] == bash_id
    bash_entry = next(e for e in listing["entries"] if e["id"] == bash_id)
    assert bash_entry["parentId"] == leaf_before
    assert [m["role"] for m in await client.get_messages()] == ["user", "assistant", "bashExecution"]

    # The next prompt continues from it: the user message is the bash entry's child.
    await client.run_prompt("and now?")
    on_disk = entries_of(original)
    assert bash_ids(on_disk) == [bash_id]
    user = [e for e in on_disk if e["type"] == "message" and e["message"]["role"] == "user"][-1]
    assert user["parentId"] == bash_id
    roles = [m["role"] for m in await client.get_messages()]
    assert roles == ["user", "assistant", "bashExecution", "user", "assistant"]


async def test_bash_finishing_in_another_session_follows_what_the_reopened_original_appended(
    start_rpc: StartRpc,
) -> None:
    client = await start_rpc([{"text": "one"}, {"text": "two"}])
    await client.run_prompt("first")
    original = (await client.get_state())["sessionFile"]
    pending = await start_slow_bash(client, "away")
    await client.call("new_session")
    await client.call("switch_session", sessionPath=original)
    await client.run_prompt("second, while the bash runs")
    leaf_of_original = (await client.call("get_entries"))["leafId"]
    await client.call("new_session")
    other = (await client.get_state())["sessionFile"]
    response = await asyncio.wait_for(pending, 10)
    assert response["success"] is True

    # Stored once in the original, after what was appended there meanwhile (not as a sibling).
    on_disk = entries_of(original)
    [bash_id] = bash_ids(on_disk)
    assert next(e for e in on_disk if e["id"] == bash_id)["parentId"] == leaf_of_original
    assert await client.get_messages() == []
    assert other is None or not Path(other).exists() or bash_ids(entries_of(other)) == []

    await client.call("switch_session", sessionPath=original)
    roles = [m["role"] for m in await client.get_messages()]
    assert roles == ["user", "assistant", "user", "assistant", "bashExecution"]


async def test_bash_finishing_while_the_reopened_session_streams_waits_for_the_turn(start_rpc: StartRpc) -> None:
    client = await start_rpc([{"text": "one"}, {"text": "a slow streaming answer", "chunkSize": 1, "delayMs": 40}])
    await client.run_prompt("first")
    original = (await client.get_state())["sessionFile"]
    pending = await start_slow_bash(client, "mid")
    await client.call("new_session")
    await client.call("switch_session", sessionPath=original)
    start = len(client.events)
    await client.prompt("stream for a while")
    response = await asyncio.wait_for(pending, 10)
    assert response["success"] is True
    await client.wait_for("agent_end", after=start)
    await client.wait_idle()
    roles = [m["role"] for m in await client.get_messages()]
    assert roles == ["user", "assistant", "user", "assistant", "bashExecution"]
    assert len(bash_ids(entries_of(original))) == 1
