"""The byte layout of stdout lines, which clients rely on to route big lines by their prefix.

Compact JSON (no spaces, non-ASCII as is); events begin with `{"type":`; responses begin with
`id` (when the request had one), then `type`, `command`, `success`, and end with `error` or `data`.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.rpc.inprocess import InProcessRpc


def canonical(line: bytes) -> bytes:
    return json.dumps(json.loads(line), ensure_ascii=False, separators=(",", ":")).encode("utf-8")


async def test_responses_and_events_keep_their_byte_layout(tmp_path: Path) -> None:
    rpc = await InProcessRpc.start(tmp_path, [
        {"toolCalls": [{"name": "bash", "arguments": {"command": "echo hé"}}]}, {"text": "done ✓"},
    ])
    try:
        await rpc.send('{"id":"p","type":"prompt","message":"go ünïcode"}')
        await rpc.send(
            '{"id":"s","type":"get_state"}',
            '{"id":"m","type":"get_messages"}',
            '{"id":"e","type":"get_entries"}',
            '{"id":"t","type":"get_tree"}',
            '{"id":"n","type":"set_session_name","name":"x"}',
            '{"type":"get_last_assistant_text"}',
            "not json",
        )
    finally:
        await rpc.close()
    lines = rpc.raw_lines()
    assert lines
    for line in lines:
        assert canonical(line) == line, line[:200]
        if line.startswith(b'{"id":'):
            obj = json.loads(line)
            assert list(obj)[:4] == ["id", "type", "command", "success"]
            assert list(obj)[4:] in ([], ["data"], ["error"])
        elif json.loads(line)["type"] == "response":
            obj = json.loads(line)
            assert line.startswith(b'{"type":"response","command":')
            assert list(obj)[:3] == ["type", "command", "success"]
        else:
            assert line.startswith(b'{"type":"')
    by_id = {json.loads(line).get("id"): line for line in lines if line.startswith(b'{"id":')}
    assert by_id["s"].startswith(b'{"id":"s","type":"response","command":"get_state","success":true,"data":{')
    assert by_id["e"].startswith(b'{"id":"e","type":"response","command":"get_entries","success":true,'
                                 b'"data":{"entries":[{"type":"model_change","id":"')
    assert by_id["t"].startswith(b'{"id":"t","type":"response","command":"get_tree","success":true,'
                                 b'"data":{"tree":[{"entry":{"type":"model_change","id":"')
    assert by_id["n"] == b'{"id":"n","type":"response","command":"set_session_name","success":true}'
    assert b'"go \xc3\xbcn\xc3\xafcode"' in by_id["m"]
    assert any(line.startswith(b'{"type":"response","command":"parse","success":false,"error":"Failed to parse')
               for line in lines)
