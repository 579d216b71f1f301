"""The `bash` and `abort_bash` commands: streamed deltas, results, cancellation, session ownership."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import time
from pathlib import Path
from typing import Any

import pytest

from tests.rpc.conftest import StartRpc
from tests.rpc.helpers import RecordingClient


def bash_updates(client: RecordingClient, request_id: str) -> list[dict[str, Any]]:
    return [e for e in client.events if e["type"] == "bash_execution_update" and e.get("id") == request_id]


def session_lines(path: str | Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def bash_entries(path: str | Path) -> list[dict[str, Any]]:
    return [e for e in session_lines(path)[1:]
            if e["type"] == "message" and e["message"]["role"] == "bashExecution"]


async def test_a_bash_update_is_the_event_in_protocol_order(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    await client.request({"id": "b7", "type": "bash", "command": "echo seven"})
    [update] = bash_updates(client, "b7")
    assert list(update.items()) == [("type", "bash_execution_update"), ("id", "b7"), ("channel", "stdout"), ("delta", "seven\n")]


async def test_bash_streams_ordered_deltas_and_responds(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    command = "echo one; sleep 0.05; echo warn >&2; sleep 0.05; echo two; echo three"
    response = await client.request({"id": "req-1", "type": "bash", "command": command})
    assert response["id"] == "req-1" and response["command"] == "bash" and response["success"] is True
    data = response["data"]
    assert set(data) == {"output", "exitCode", "cancelled", "truncated"}
    assert data["exitCode"] == 0 and data["cancelled"] is False and data["truncated"] is False
    assert "one" in data["output"] and "warn" in data["output"] and "three" in data["output"]
    updates = bash_updates(client, "req-1")
    assert updates, "no bash_execution_update events"
    for update in updates:
        assert set(update) == {"type", "id", "channel", "delta"}
        assert update["channel"] in ("stdout", "stderr")
    stdout = "".join(u["delta"] for u in updates if u["channel"] == "stdout")
    stderr = "".join(u["delta"] for u in updates if u["channel"] == "stderr")
    assert stdout == "one\ntwo\nthree\n"
    assert stderr == "warn\n"
    # Every delta precedes the terminal response.
    last_delta = max(i for i, m in enumerate(client.lines) if m.get("type") == "bash_execution_update")
    assert last_delta < client.index_of_response("req-1")


async def test_bash_nonzero_exit_is_a_normal_result(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    data = await client.call("bash", command="echo failing; exit 3")
    assert data["exitCode"] == 3 and data["cancelled"] is False
    assert "failing" in data["output"]


async def test_bash_result_is_stored_and_reaches_the_next_prompt(start_rpc: StartRpc) -> None:
    client = await start_rpc([{"text": "saw it"}])
    await client.call("bash", command="echo from-bash")
    messages = await client.get_messages()
    assert len(messages) == 1
    bash = messages[0]
    assert bash["role"] == "bashExecution"
    assert bash["command"] == "echo from-bash"
    assert bash["output"].strip() == "from-bash"
    assert bash["exitCode"] == 0 and bash["cancelled"] is False and bash["truncated"] is False
    assert isinstance(bash["timestamp"], int)
    # No event is emitted for the BashExecutionMessage itself.
    assert not [e for e in client.events if e["type"].startswith("message_")]
    await client.run_prompt("what ran?")
    roles = [m["role"] for m in await client.get_messages()]
    assert roles == ["bashExecution", "user", "assistant"]
    state = await client.get_state()
    assert len(bash_entries(state["sessionFile"])) == 1


async def test_bash_long_output_is_truncated_with_full_output_file(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    data = await client.call("bash", command="seq 1 6000")
    assert data["truncated"] is True
    # The tail is kept for the result: the last 2000 lines.
    assert data["output"].splitlines() == [str(n) for n in range(4001, 6001)]
    full = Path(data["fullOutputPath"])
    session_id = (await client.get_state())["sessionId"]
    assert full.parent.name == session_id
    assert full.parent.parent.name == f"atomic-{os.getuid()}"
    assert full.read_text().splitlines()[0] == "1"
    assert full.read_text().splitlines()[-1] == "6000"
    assert stat.S_IMODE(full.stat().st_mode) == 0o600
    assert stat.S_IMODE(full.parent.stat().st_mode) == 0o700


async def test_abort_bash_targeted_then_all(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    started = time.monotonic()
    first = asyncio.ensure_future(client.request({"id": "b1", "type": "bash", "command": "echo go; sleep 30"}))
    second = asyncio.ensure_future(client.request({"id": "b2", "type": "bash", "command": "echo go; sleep 30"}))
    await client.wait_for("bash_execution_update", predicate=lambda e: e.get("id") == "b1")
    await client.wait_for("bash_execution_update", predicate=lambda e: e.get("id") == "b2")
    cancel = await client.request({"id": "cancel-1", "type": "abort_bash", "requestId": "b1"})
    assert cancel == {"id": "cancel-1", "type": "response", "command": "abort_bash", "success": True}
    result = await asyncio.wait_for(first, 5)
    assert result["success"] is True and result["data"]["cancelled"] is True
    await asyncio.sleep(0.2)
    assert not second.done(), "abort_bash with a requestId cancelled another request"
    everything = await client.request({"id": "cancel-all", "type": "abort_bash"})
    assert everything["success"] is True
    result = await asyncio.wait_for(second, 5)
    assert result["data"]["cancelled"] is True
    assert time.monotonic() - started < 10
    # Exactly one terminal response per request.
    assert [r["id"] for r in client.responses if r["command"] == "bash"] == ["b1", "b2"]


async def test_abort_bash_with_unknown_id_still_answers(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    response = await client.request({"id": "c", "type": "abort_bash", "requestId": "nobody"})
    assert response["command"] == "abort_bash" and response["id"] == "c"
    assert response["success"] is True


@pytest.mark.parametrize("replace", ["new_session", "clone"])
async def test_bash_racing_session_replacement_lands_in_original_session_once(
    start_rpc: StartRpc, replace: str
) -> None:
    client = await start_rpc([{"text": "first answer"}])
    await client.run_prompt("before the race")
    original = (await client.get_state())["sessionFile"]
    bash = asyncio.ensure_future(
        client.request({"id": "race", "type": "bash", "command": "echo early; sleep 0.4; echo late"})
    )
    await client.wait_for("bash_execution_update", predicate=lambda e: e.get("id") == "race")
    assert (await client.call(replace)) == {"cancelled": False}
    replacement = (await client.get_state())["sessionFile"]
    assert replacement != original
    response = await asyncio.wait_for(bash, 10)
    assert response["success"] is True and response["data"]["cancelled"] is False
    assert "late" in response["data"]["output"]
    # Deltas after the replacement still stream under the original id.
    stdout = "".join(u["delta"] for u in bash_updates(client, "race") if u["channel"] == "stdout")
    assert stdout == "early\nlate\n"
    stored = bash_entries(original)
    assert len(stored) == 1
    assert stored[0]["message"]["command"] == "echo early; sleep 0.4; echo late"
    # The replacement session is not contaminated, in memory or on disk.
    carried = [] if replace == "new_session" else ["user", "assistant"]  # a clone starts with the history
    assert [m["role"] for m in await client.get_messages()] == carried
    await client.run_prompt("in the new session")
    assert bash_entries(replacement) == []
    assert [m["role"] for m in await client.get_messages()] == [*carried, "user", "assistant"]
    assert len(bash_entries(original)) == 1


async def test_bash_while_agent_streams_does_not_split_the_turn(start_rpc: StartRpc) -> None:
    client = await start_rpc([{"text": "slow streaming answer", "chunkSize": 2, "delayMs": 30}])
    await client.prompt("go")
    await client.wait_for("message_update")
    data = await client.call("bash", command="echo side")
    assert data["exitCode"] == 0
    await client.wait_for("agent_end")
    await client.wait_idle()
    roles = [m["role"] for m in await client.get_messages()]
    assert roles == ["user", "assistant", "bashExecution"]


async def test_closing_rpc_cancels_running_bash(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    session_file = (await client.get_state())["sessionFile"]
    pending = asyncio.ensure_future(client.request({"id": "long", "type": "bash", "command": "echo x; sleep 30"}))
    await client.wait_for("bash_execution_update", predicate=lambda e: e.get("id") == "long")
    started = time.monotonic()
    assert await client.close() == 0
    assert time.monotonic() - started < 8
    await asyncio.gather(pending, return_exceptions=True)
    # Exactly one terminal record for the request: the cancelled result.
    answers = [r for r in client.responses if r.get("id") == "long"]
    assert len(answers) == 1
    assert answers[0]["success"] is True and answers[0]["data"]["cancelled"] is True
    stored = bash_entries(session_file)
    assert len(stored) == 1 and stored[0]["message"]["cancelled"] is True
