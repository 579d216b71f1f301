"""Session commands and the session files they leave on disk."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

from tests.rpc.conftest import StartRpc
from tests.rpc.helpers import RecordingClient
from tests.rpc.test_state_and_models import write_models_json

ISO = "2026-01-02T03:04:05.000Z"


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def user_entry(entry_id: str, parent: str | None, text: str) -> dict[str, Any]:
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": ISO,
            "message": {"role": "user", "content": text, "timestamp": 1767323045000}}


def assistant_entry(entry_id: str, parent: str | None, text: str) -> dict[str, Any]:
    return {
        "type": "message", "id": entry_id, "parentId": parent, "timestamp": ISO,
        "message": {
            "role": "assistant", "content": [{"type": "text", "text": text}], "api": "scripted",
            "provider": "scripted", "model": "scripted-model",
            "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
                      "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
            "stopReason": "stop", "timestamp": 1767323045000,
        },
    }


def header(session_id: str, cwd: Path) -> dict[str, Any]:
    return {"type": "session", "version": 3, "id": session_id, "timestamp": ISO, "cwd": str(cwd)}


def write_session(path: Path, lines: list[dict[str, Any]], tail: str = "") -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines) + tail, encoding="utf-8")
    return path


async def two_prompts(client: RecordingClient) -> None:
    await client.run_prompt("first question")
    await client.run_prompt("second question")


# ---------------------------------------------------------------------------- files on disk


async def test_session_file_header_and_entries(start_rpc: StartRpc, work_dir: Path, agent_dir: Path) -> None:
    client = await start_rpc([{"text": "hello back"}])
    state = await client.get_state()
    await client.run_prompt("hello")
    path = Path(state["sessionFile"])
    encoded = "--" + str(work_dir.resolve()).strip("/").replace("/", "-") + "--"
    assert path.parent == agent_dir / "sessions" / encoded
    assert path.name.endswith(f"_{state['sessionId']}.jsonl")
    lines = read_jsonl(path)
    head = lines[0]
    assert head["type"] == "session" and head["version"] == 3
    assert head["id"] == state["sessionId"]
    assert head["cwd"] == str(work_dir.resolve())
    assert isinstance(head["timestamp"], str) and "parentSession" not in head
    entries = lines[1:]
    previous = None
    for entry in entries:
        assert {"type", "id", "parentId", "timestamp"} <= set(entry)
        assert entry["parentId"] == previous  # one linear chain
        previous = entry["id"]
    assert [e["type"] for e in entries] == ["model_change", "thinking_level_change", "message", "message"]
    assert entries[0]["provider"] == "scripted" and entries[0]["modelId"] == "scripted-model"
    assert [e["message"]["role"] for e in entries[2:]] == ["user", "assistant"]
    assert len({e["id"] for e in entries}) == len(entries)


async def test_session_dir_flag(start_rpc: StartRpc, tmp_path: Path) -> None:
    target = tmp_path / "my-sessions"
    client = await start_rpc(None, "--session-dir", str(target))
    await client.run_prompt("store me here")
    state = await client.get_state()
    assert Path(state["sessionFile"]).parent == target
    assert Path(state["sessionFile"]).exists()


async def test_killed_mid_stream_file_reopens_with_the_prompt(start_rpc: StartRpc) -> None:
    client = await start_rpc([{"text": "never completes", "hang": True}])
    path = (await client.get_state())["sessionFile"]
    await client.prompt("do not lose me")
    await client.wait_for("message_update", predicate=lambda e: e["assistantMessageEvent"]["type"] == "text_delta")
    assert client.process is not None
    os.kill(client.process.pid, signal.SIGKILL)
    assert await client.close() == -signal.SIGKILL
    lines = read_jsonl(path)
    assert any(e.get("message", {}).get("content") == "do not lose me" for e in lines[1:])
    reopened = await start_rpc([{"text": "back again"}], "--session", path)
    messages = await reopened.get_messages()
    assert messages[0]["role"] == "user" and messages[0]["content"] == "do not lose me"
    await reopened.run_prompt("continue")
    assert await reopened.get_last_assistant_text() == "back again"
    read_jsonl(path)  # still valid JSON lines throughout


async def test_torn_last_line_opens_is_kept_in_a_backup_and_appends_follow_the_rest(
    start_rpc: StartRpc, tmp_path: Path, work_dir: Path
) -> None:
    torn = '{"type":"message","id":"u9","parentId":"a1","timestamp":"2026-01-02T03:04:05.000Z","mess'
    path = write_session(
        tmp_path / "torn.jsonl",
        [header("0000-torn", work_dir), user_entry("u1", None, "kept question"), assistant_entry("a1", "u1", "kept")],
        tail=torn,
    )
    damaged = path.read_bytes()
    client = await start_rpc([{"text": "appended answer"}])
    assert await client.call("switch_session", sessionPath=str(path)) == {"cancelled": False}
    assert [m["role"] for m in await client.get_messages()] == ["user", "assistant"]
    state = await client.get_state()
    assert state["sessionFile"] == str(path)
    backups = list(tmp_path.glob("torn.jsonl.*.damaged"))
    assert [b.read_bytes() for b in backups] == [damaged]  # the torn line is kept, beside the file...
    assert state["sessionRecovery"]["backupFile"] == str(backups[0])
    await client.run_prompt("after the tear")
    raw_lines = path.read_text(encoding="utf-8").split("\n")
    assert torn not in raw_lines  # ...and the file goes on without it, every line whole
    appended = [json.loads(line) for line in raw_lines[3:] if line]
    assert appended, "nothing appended"
    assert appended[0]["parentId"] == "a1"
    assert [e["message"]["role"] for e in appended if e["type"] == "message"] == ["user", "assistant"]
    assert await client.get_last_assistant_text() == "appended answer"


async def test_torn_last_line_is_reported_on_open(start_rpc: StartRpc, tmp_path: Path, work_dir: Path) -> None:
    path = write_session(
        tmp_path / "torn-open.jsonl",
        [header("0000-torn2", work_dir), user_entry("u1", None, "kept")],
        tail='{"type":"mess',
    )
    client = await start_rpc(None, "--session", str(path))
    assert [m["content"] for m in await client.get_messages()] == ["kept"]
    assert (await client.call("get_entries"))["leafId"] == "u1"
    await client.close()
    assert any("torn" in line and "torn-open.jsonl" in line for line in client.stderr_lines)


async def test_ten_thousand_entry_file_get_entries_since_near_end(
    start_rpc: StartRpc, tmp_path: Path, work_dir: Path
) -> None:
    # About 50 MB: 10,000 entries of ~5 KB each, as the session-tree issue describes.
    padding = "x" * 5000
    path = tmp_path / "big.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        handle.write(json.dumps(header("0000-big", work_dir)) + "\n")
        parent = None
        for index in range(10_000):
            entry_id = f"e{index:05d}"
            make = user_entry if index % 2 == 0 else assistant_entry
            kind = "question" if index % 2 == 0 else "answer"
            handle.write(json.dumps(make(entry_id, parent, f"{kind} {index} {padding}")) + "\n")
            parent = entry_id
    assert path.stat().st_size > 50_000_000
    started = time.monotonic()
    client = await start_rpc(None, "--session", str(path))
    data = await client.call("get_entries", since="e09996")
    assert time.monotonic() - started < 10
    assert [e["id"] for e in data["entries"]] == ["e09997", "e09998", "e09999"]
    assert data["entries"][0]["message"]["content"][0]["text"].startswith("answer 9997 ")
    assert data["leafId"] == "e09999"
    # Later cursor reads touch only the tail: each one is quick.
    for cursor, expected in (("e09990", 9), ("e09998", 1), ("e09999", 0)):
        started = time.monotonic()
        tail = await client.call("get_entries", since=cursor)
        assert time.monotonic() - started < 0.5
        assert [e["id"] for e in tail["entries"]] == [f"e{i:05d}" for i in range(10_000 - expected, 10_000)]
    assert (await client.get_state())["messageCount"] == 10_000
    assert await client.get_last_assistant_text() == f"answer 9999 {padding}"
    everything = await client.call("get_entries")
    assert len(everything["entries"]) == 10_000
    assert everything["entries"][0]["id"] == "e00000"


# ---------------------------------------------------------------------------- new / switch


async def test_new_session_gives_fresh_session(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    await client.run_prompt("old conversation")
    before = await client.get_state()
    response = await client.request({"id": "ns", "type": "new_session"})
    assert response == {"id": "ns", "type": "response", "command": "new_session", "success": True,
                        "data": {"cancelled": False}}
    after = await client.get_state()
    assert after["sessionId"] != before["sessionId"]
    assert after["sessionFile"] != before["sessionFile"]
    assert after["messageCount"] == 0
    assert await client.get_messages() == []
    assert await client.call("get_last_assistant_text") == {"text": None}
    assert after["model"]["id"] == before["model"]["id"]


async def test_new_session_with_parent_session_header(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    await client.run_prompt("parent talk")
    parent = (await client.get_state())["sessionFile"]
    assert (await client.call("new_session", parentSession=parent)) == {"cancelled": False}
    await client.run_prompt("child talk")
    child = (await client.get_state())["sessionFile"]
    assert read_jsonl(child)[0]["parentSession"] == parent


async def test_switch_session_restores_messages_model_and_thinking(
    start_rpc: StartRpc, agent_dir: Path
) -> None:
    write_models_json(agent_dir)
    client = await start_rpc()
    await client.call("set_model", provider="local", modelId="plain-model")
    await client.call("bash", command="echo in-session-a")  # a message, so the file is written
    first = (await client.get_state())["sessionFile"]
    await client.call("new_session")
    await client.call("set_model", provider="scripted", modelId="scripted-model")
    await client.call("set_thinking_level", level="low")
    await client.run_prompt("in session b")
    second = (await client.get_state())["sessionFile"]

    response = await client.request({"id": "sw", "type": "switch_session", "sessionPath": first})
    assert response == {"id": "sw", "type": "response", "command": "switch_session", "success": True,
                        "data": {"cancelled": False}}
    state = await client.get_state()
    assert state["sessionFile"] == first
    assert (state["model"]["provider"], state["model"]["id"]) == ("local", "plain-model")
    assert state["thinkingLevel"] == "off"
    assert [m["role"] for m in await client.get_messages()] == ["bashExecution"]

    await client.call("switch_session", sessionPath=second)
    state = await client.get_state()
    assert (state["model"]["provider"], state["model"]["id"]) == ("scripted", "scripted-model")
    assert state["thinkingLevel"] == "low"
    assert [m["role"] for m in await client.get_messages()] == ["user", "assistant"]


async def test_switch_session_to_missing_file_fails(start_rpc: StartRpc, tmp_path: Path) -> None:
    client = await start_rpc()
    before = await client.get_state()
    response = await client.request({"type": "switch_session", "sessionPath": str(tmp_path / "nope.jsonl")})
    assert response["success"] is False and response["command"] == "switch_session"
    assert response["error"]
    assert (await client.get_state())["sessionId"] == before["sessionId"]


# ---------------------------------------------------------------------------- fork / clone


async def test_get_fork_messages_and_fork(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    await two_prompts(client)
    original = await client.get_state()
    forkable = (await client.call("get_fork_messages"))["messages"]
    assert [m["text"] for m in forkable] == ["first question", "second question"]
    assert all(set(m) == {"entryId", "text"} for m in forkable)

    response = await client.request({"id": "fk", "type": "fork", "entryId": forkable[1]["entryId"]})
    assert response == {"id": "fk", "type": "response", "command": "fork", "success": True,
                        "data": {"text": "second question", "cancelled": False}}
    forked = await client.get_state()
    assert forked["sessionId"] != original["sessionId"]
    # The fork holds the path up to just before the chosen user message.
    messages = await client.get_messages()
    assert [(m["role"], m.get("content") if m["role"] == "user" else None) for m in messages] == [
        ("user", "first question"), ("assistant", None)
    ]
    lines = read_jsonl(forked["sessionFile"])
    assert lines[0]["parentSession"] == original["sessionFile"]
    assert lines[0]["id"] == forked["sessionId"]
    # The original file is untouched by the fork.
    assert sum(1 for e in read_jsonl(original["sessionFile"]) if e["type"] == "message") == 4


async def test_fork_at_first_message_gives_an_empty_child(start_rpc: StartRpc) -> None:
    client = await start_rpc([{"text": "r1"}, {"text": "r2"}])
    await two_prompts(client)
    original = await client.get_state()
    first_id = (await client.call("get_fork_messages"))["messages"][0]["entryId"]
    assert await client.call("fork", entryId=first_id) == {"text": "first question", "cancelled": False}
    forked = await client.get_state()
    assert await client.get_messages() == []
    assert read_jsonl(forked["sessionFile"])[0]["parentSession"] == original["sessionFile"]
    await client.run_prompt("a different first question")
    assert [m["role"] for m in await client.get_messages()] == ["user", "assistant"]


async def test_fork_rejects_unknown_and_non_user_entries(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    await client.run_prompt("only question")
    entries = (await client.call("get_entries"))["entries"]
    assistant_id = next(e["id"] for e in entries if e["type"] == "message" and e["message"]["role"] == "assistant")
    for entry_id in ("no-such-entry", assistant_id):
        response = await client.request({"type": "fork", "entryId": entry_id})
        assert response["success"] is False and response["command"] == "fork" and response["error"]


async def test_clone_copies_active_branch_into_new_file(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    await two_prompts(client)
    original = await client.get_state()
    original_entries = (await client.call("get_entries"))["entries"]
    response = await client.request({"id": "cl", "type": "clone"})
    assert response == {"id": "cl", "type": "response", "command": "clone", "success": True,
                        "data": {"cancelled": False}}
    cloned = await client.get_state()
    assert cloned["sessionId"] != original["sessionId"]
    assert cloned["sessionFile"] != original["sessionFile"]
    lines = read_jsonl(cloned["sessionFile"])
    assert lines[0]["parentSession"] == original["sessionFile"]
    assert [e["id"] for e in lines[1:]] == [e["id"] for e in original_entries]
    assert cloned["messageCount"] == original["messageCount"] == 4
    await client.run_prompt("only in the clone")
    assert sum(1 for e in read_jsonl(original["sessionFile"]) if e["type"] == "message") == 4


# ---------------------------------------------------------------------------- entries / tree / labels


async def test_get_entries_since_cursor_and_unknown_cursor(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    empty = await client.call("get_entries")
    assert empty["leafId"] == (empty["entries"][-1]["id"] if empty["entries"] else None)
    await client.run_prompt("one")
    data = await client.call("get_entries")
    entries = data["entries"]
    assert all(e["type"] != "session" for e in entries)
    assert data["leafId"] == entries[-1]["id"]
    cursor = entries[1]["id"]
    since = await client.call("get_entries", since=cursor)
    assert since["entries"] == entries[2:]
    assert since["leafId"] == data["leafId"]
    at_end = await client.call("get_entries", since=data["leafId"])
    assert at_end["entries"] == []
    bad = await client.request({"id": "ge", "type": "get_entries", "since": "missing-id"})
    assert bad["success"] is False and bad["id"] == "ge" and bad["command"] == "get_entries"
    assert bad["error"]


async def test_get_tree_linear_session(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    await client.run_prompt("q")
    entries = (await client.call("get_entries"))["entries"]
    tree = await client.call("get_tree")
    assert len(tree["tree"]) == 1
    node, depth_ids = tree["tree"][0], []
    while True:
        assert set(node) <= {"entry", "children", "label", "labelTimestamp"}
        depth_ids.append(node["entry"]["id"])
        if not node["children"]:
            break
        assert len(node["children"]) == 1
        node = node["children"][0]
    assert depth_ids == [e["id"] for e in entries]
    assert tree["leafId"] == entries[-1]["id"]


def branched_session(path: Path, cwd: Path) -> Path:
    """u1 -> a1 -> {u2 -> a2 (abandoned), u3 -> a3 (active)}, labels on u1 and a3, one orphan."""
    return write_session(path, [
        header("0000-branch", cwd),
        user_entry("u1", None, "root question"),
        assistant_entry("a1", "u1", "root answer"),
        user_entry("u2", "a1", "abandoned question"),
        assistant_entry("a2", "u2", "abandoned answer"),
        {"type": "label", "id": "l1", "parentId": "a2", "timestamp": "2026-01-02T03:05:00.000Z",
         "targetId": "u1", "label": "start"},
        user_entry("o1", "gone", "orphaned question"),
        user_entry("u3", "a1", "active question"),
        assistant_entry("a3", "u3", "active answer"),
        {"type": "label", "id": "l2", "parentId": "a3", "timestamp": "2026-01-02T03:06:00.000Z",
         "targetId": "a3", "label": "good"},
    ])


async def test_get_tree_branches_labels_and_orphans(start_rpc: StartRpc, tmp_path: Path, work_dir: Path) -> None:
    path = branched_session(tmp_path / "branched.jsonl", work_dir)
    client = await start_rpc(None, "--session", str(path))
    tree = await client.call("get_tree")
    roots = {node["entry"]["id"]: node for node in tree["tree"]}
    assert set(roots) == {"u1", "o1"}  # the orphan is a root of its own
    u1 = roots["u1"]
    assert u1["label"] == "start" and u1["labelTimestamp"] == "2026-01-02T03:05:00.000Z"
    a1 = u1["children"][0]
    assert a1["entry"]["id"] == "a1" and "label" not in a1
    assert [child["entry"]["id"] for child in a1["children"]] == ["u2", "u3"]
    u3 = a1["children"][1]
    a3 = u3["children"][0]
    assert a3["label"] == "good"
    assert tree["leafId"] == "l2"
    # get_entries keeps abandoned branches; get_messages is just the active branch.
    ids = [e["id"] for e in (await client.call("get_entries"))["entries"]]
    assert ids == ["u1", "a1", "u2", "a2", "l1", "o1", "u3", "a3", "l2"]
    texts = [m["content"] if m["role"] == "user" else m["content"][0]["text"] for m in await client.get_messages()]
    assert texts == ["root question", "root answer", "active question", "active answer"]
    forkable = [m["entryId"] for m in (await client.call("get_fork_messages"))["messages"]]
    assert forkable == ["u1", "u3"]


async def test_clone_keeps_labels_of_the_copied_path(start_rpc: StartRpc, tmp_path: Path, work_dir: Path) -> None:
    path = branched_session(tmp_path / "branched.jsonl", work_dir)
    client = await start_rpc(None, "--session", str(path))
    await client.call("clone")
    cloned = read_jsonl((await client.get_state())["sessionFile"])
    assert cloned[0]["parentSession"] == str(path)
    copied = [e["id"] for e in cloned[1:] if e["type"] == "message"]
    assert copied == ["u1", "a1", "u3", "a3"]  # the abandoned branch and the orphan stay behind
    labels = {e["targetId"]: e["label"] for e in cloned[1:] if e["type"] == "label"}
    assert labels == {"u1": "start", "a3": "good"}
    tree = await client.call("get_tree")
    assert tree["tree"][0]["label"] == "start"


async def test_prompt_after_switch_continues_from_the_leaf(
    start_rpc: StartRpc, tmp_path: Path, work_dir: Path
) -> None:
    path = write_session(tmp_path / "linear.jsonl", [
        header("0000-linear", work_dir), user_entry("u1", None, "q1"), assistant_entry("a1", "u1", "r1"),
    ])
    client = await start_rpc([{"text": "r2"}])
    await client.call("switch_session", sessionPath=str(path))
    await client.run_prompt("q2")
    appended = [e for e in read_jsonl(path)[3:] if e["type"] == "message"]
    assert appended[0]["parentId"] == "a1"
    assert appended[1]["parentId"] == appended[0]["id"]


# ---------------------------------------------------------------------------- export


async def test_export_html_default_and_custom_path(start_rpc: StartRpc, tmp_path: Path) -> None:
    client = await start_rpc([{"text": "the answer is forty-two"}])
    await client.run_prompt("marker-question <script>alert(1)</script>")
    default = await client.call("export_html")
    exported = Path(default["path"])
    assert exported.exists() and exported.suffix == ".html"
    html = exported.read_text(encoding="utf-8")
    assert "marker-question" in html and "the answer is forty-two" in html
    assert "<script>alert(1)</script>" not in html
    target = tmp_path / "out" / "session.html"
    target.parent.mkdir()
    custom = await client.request({"id": "ex", "type": "export_html", "outputPath": str(target)})
    assert custom == {"id": "ex", "type": "response", "command": "export_html", "success": True,
                      "data": {"path": str(target)}}
    assert "forty-two" in target.read_text(encoding="utf-8")


async def test_export_html_without_session_fails(start_rpc: StartRpc) -> None:
    client = await start_rpc(None, "--no-session")
    await client.run_prompt("in memory only")
    response = await client.request({"type": "export_html"})
    assert response["success"] is False and response["command"] == "export_html" and response["error"]


async def test_session_prefix_lookup(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    await client.run_prompt("find me by id")
    session_id = (await client.get_state())["sessionId"]
    await client.close()
    reopened = await start_rpc(None, "--session", session_id[:13])
    state = await reopened.get_state()
    assert state["sessionId"] == session_id
    assert (await reopened.get_messages())[0]["content"] == "find me by id"


async def test_continue_flag_opens_newest_session(start_rpc: StartRpc) -> None:
    first = await start_rpc()
    await first.run_prompt("remember this")
    session_id = (await first.get_state())["sessionId"]
    await first.close()
    again = await start_rpc(None, "--continue")
    assert (await again.get_state())["sessionId"] == session_id
    assert (await again.get_messages())[0]["content"] == "remember this"


async def test_fork_flag_copies_session_into_a_new_file(start_rpc: StartRpc) -> None:
    first = await start_rpc()
    await first.run_prompt("original talk")
    source = await first.get_state()
    await first.close()
    forked = await start_rpc(None, "--fork", source["sessionFile"])
    state = await forked.get_state()
    assert state["sessionId"] != source["sessionId"]
    assert (await forked.get_messages())[0]["content"] == "original talk"
    await forked.run_prompt("continue in the fork")
    assert read_jsonl(state["sessionFile"])[0]["parentSession"] == source["sessionFile"]


async def test_session_name_survives_reopen_and_switch(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    await client.run_prompt("named talk")
    await client.call("set_session_name", name="feature-x")
    named = (await client.get_state())["sessionFile"]
    assert [e["name"] for e in read_jsonl(named) if e["type"] == "session_info"] == ["feature-x"]
    await client.call("new_session")
    assert "sessionName" not in await client.get_state()
    await client.call("switch_session", sessionPath=named)
    assert (await client.get_state())["sessionName"] == "feature-x"
    await client.close()
    reopened = await start_rpc(None, "--session", named)
    assert (await reopened.get_state())["sessionName"] == "feature-x"


async def test_no_session_mode_keeps_everything_in_memory(start_rpc: StartRpc, agent_dir: Path) -> None:
    client = await start_rpc(None, "--no-session")
    await client.run_prompt("ephemeral one")
    await client.run_prompt("ephemeral two")
    entries = (await client.call("get_entries"))["entries"]
    assert sum(1 for e in entries if e["type"] == "message") == 4
    assert (await client.call("get_tree"))["leafId"] == entries[-1]["id"]
    first_user = (await client.call("get_fork_messages"))["messages"][1]["entryId"]
    assert (await client.call("fork", entryId=first_user))["text"] == "ephemeral two"
    assert "sessionFile" not in await client.get_state()
    assert len(await client.get_messages()) == 2
    assert not (agent_dir / "sessions").exists() or not any((agent_dir / "sessions").rglob("*.jsonl"))


async def test_import_label_and_navigate_tree_extras(start_rpc, work_dir) -> None:
    client = await start_rpc([{"text": "one"}, {"text": "two"}])
    await client.run_prompt("first")
    await client.run_prompt("second")
    state = await client.get_state()
    original = state["sessionFile"]
    forks = (await client.call("get_fork_messages"))["messages"]
    data = await client.call("navigate_tree", targetId=forks[1]["entryId"])
    assert data == {"cancelled": False, "editorText": "second"}
    assert [m["role"] for m in await client.get_messages()] == ["user", "assistant"]
    await client.call("set_label", entryId=forks[0]["entryId"], label="start")
    tree = (await client.call("get_tree"))["tree"]
    assert tree[0]["entry"]["type"] == "model_change"
    labelled = []
    stack = list(tree)
    while stack:
        node = stack.pop()
        if node.get("label"):
            labelled.append((node["entry"]["id"], node["label"]))
        stack.extend(node["children"])
    assert labelled == [(forks[0]["entryId"], "start")]
    assert (await client.call("import_session", inputPath=original)) == {"cancelled": False}
    imported = await client.get_state()
    assert imported["sessionFile"] != original and imported["sessionId"] != state["sessionId"]
    # The import keeps every branch and the position (after the label, on the first branch).
    assert [m["role"] for m in await client.get_messages()] == ["user", "assistant"]
    entries = (await client.call("get_entries"))["entries"]
    assert sum(e["type"] == "message" and e["message"]["role"] == "user" for e in entries) == 2
    response = await client.request({"type": "import_session", "inputPath": str(work_dir / "missing.jsonl")})
    assert response["success"] is False and "missing.jsonl" in response["error"]
