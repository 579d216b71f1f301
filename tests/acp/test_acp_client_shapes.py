"""What real ACP clients send and read: Toad's blob images, replayed diffs, coalesced chunks, errors."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, text_block
from acp.schema import BlobResourceContents, EmbeddedResourceContentBlock

from atomic.acp.chunks import ChunkCoalescer
from tests.acp.conftest import acp_agent
from tests.conftest import ScriptWriter

PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="


def stored_lines(agent_dir: Path) -> str:
    return "\n".join(p.read_text() for p in agent_dir.rglob("*.jsonl"))


async def test_a_blob_image_from_toad_reaches_the_model_as_an_image(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path
) -> None:
    script = write_script([{"text": "I see a pixel."}])
    # Toad's @-mention of a binary file: an embedded resource with a blob and (here) no mime type.
    image = EmbeddedResourceContentBlock(type="resource", resource=BlobResourceContents(
        uri=f"file://{project}/pixel.png", blob=PIXEL))
    other = EmbeddedResourceContentBlock(type="resource", resource=BlobResourceContents(
        uri=f"file://{project}/data.bin", blob=base64.b64encode(b"\0\1").decode(), mime_type="application/x-bin"))
    async with acp_agent(acp_env, script) as (conn, _client, _process):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("what is this?"), image, other])
    stored = stored_lines(Path(acp_env["ATOMIC_CODING_AGENT_DIR"]))
    assert f'"data":"{PIXEL}"' in stored and '"mimeType":"image/png"' in stored
    assert "data.bin is not supported" in stored


async def test_load_replays_writes_and_edits_with_diffs_under_their_ids(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path
) -> None:
    script = write_script([
        {"toolCalls": [{"name": "write", "id": "w1", "arguments": {"path": "a.txt", "content": "one\ntwo\n"}}]},
        {"toolCalls": [{"name": "edit", "id": "e1", "arguments": {
            "path": "a.txt", "edits": [{"oldText": "two", "newText": "three"}]}}]},
        {"text": "Done."},
    ])
    async with acp_agent(acp_env, script, "--permission-mode", "yolo") as (conn, live, _process):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("write and edit")])
    live_diffs = {u.tool_call_id: u.content[0] for u in live.of_kind("tool_call_update")
                  if u.content and u.content[0].type == "diff"}
    assert set(live_diffs) == {"w1", "e1"}
    async with acp_agent(acp_env, write_script([])) as (conn, client, _process):
        await conn.initialize(protocol_version=1)
        await conn.load_session(cwd=str(project), session_id=session.session_id, mcp_servers=[])
    calls = {c.tool_call_id: c for c in client.of_kind("tool_call")}
    path = str(project / "a.txt")
    [written] = calls["w1"].content
    assert (written.type, written.path, written.old_text, written.new_text) == ("diff", path, None, "one\ntwo\n")
    [edited] = calls["e1"].content
    assert (edited.type, edited.path, edited.old_text, edited.new_text) == ("diff", path, "two", "three")
    assert live_diffs["e1"].path == edited.path and calls["e1"].kind == "edit"


async def test_provider_error_message_is_the_json_rpc_message(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path
) -> None:
    script = write_script([{"error": "400 prompt is too long: 250000 tokens > 200000 maximum", "kind": "fatal"}])
    async with acp_agent(acp_env, script) as (conn, _client, _process):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        with pytest.raises(RequestError) as caught:
            await conn.prompt(session_id=session.session_id, prompt=[text_block("hi")])
    error = caught.value.to_error_obj()
    assert error["code"] == -32603
    assert "prompt is too long" in error["message"] and "Internal error" not in error["message"]
    assert "prompt is too long" in error["data"]["details"]


async def test_a_long_streamed_answer_arrives_in_few_chunks_with_the_exact_text(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path
) -> None:
    answer = "".join(chr(ord("a") + i % 26) for i in range(999))
    script = write_script([{"thinking": "hmm " * 50, "text": answer, "chunkSize": 1, "delayMs": 1}])
    async with acp_agent(acp_env, script) as (conn, client, _process):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("talk")])
    assert client.text() == answer
    assert client.text("agent_thought_chunk") == "hmm " * 50
    # 999 one-character deltas over at least a second: no more than one chunk per 25 ms.
    assert len(client.of_kind("agent_message_chunk")) < 999 // 4


async def test_the_coalescer_sends_the_first_delta_at_once_and_keeps_order() -> None:
    sent: list[Any] = []
    chunks = ChunkCoalescer(sent.append, interval_s=3600)
    chunks.add("text", "He")
    assert [u.content.text for u in sent] == ["He"]  # the first delta does not wait
    chunks.add("text", "llo")
    chunks.add("text", " world")
    assert len(sent) == 1  # joined while the interval runs
    chunks.add("thought", "hmm")  # a change of kind sends the pending text first
    chunks.flush()
    assert [(u.session_update, u.content.text) for u in sent] == [
        ("agent_message_chunk", "He"), ("agent_message_chunk", "llo world"), ("agent_thought_chunk", "hmm")]
    chunks.close()
    await asyncio.sleep(0)
