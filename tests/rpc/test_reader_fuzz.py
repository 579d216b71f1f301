"""Property test of the RPC reader: whatever the lines, no crash, one answer per line, valid files.

Lines are JSON commands with hostile values (lone surrogates, odd ids, wrong types), JSON that is
not a command, and arbitrary text. The server is driven in-process (see tests/rpc/inprocess.py).
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atomic.core.paths import agent_dir
from tests.rpc.inprocess import InProcessRpc

HOSTILE_CHARS = ["\ud800", "\udbff", "\udc00", "\udfff", "\u2028", "\u2029", "\x00", "\x0b", "\x85", "\xa0", "\ufeff"]
texts = st.lists(st.one_of(st.characters(), st.sampled_from(HOSTILE_CHARS)), max_size=12).map("".join)
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), texts,
)
json_values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                            st.dictionaries(texts, inner, max_size=3)), max_leaves=6)
COMMAND_TYPES = [
    "get_state", "prompt", "steer", "follow_up", "set_session_name", "get_tree", "get_entries",
    "get_messages", "set_label", "get_last_assistant_text", "navigate_tree", "new_session",
    "extension_ui_response", "get_session_stats", "not_a_command",
]
FIELDS = ["message", "name", "label", "since", "entryId", "targetId", "streamingBehavior", "images"]


@st.composite
def commands(draw: st.DrawFn) -> dict[str, Any]:
    command: dict[str, Any] = {}
    if draw(st.booleans()):
        command["id"] = draw(st.one_of(texts, st.integers(), st.floats(allow_nan=False), json_values))
    command["type"] = draw(st.one_of(st.sampled_from(COMMAND_TYPES), json_values))
    for name in draw(st.lists(st.sampled_from(FIELDS), max_size=3, unique=True)):
        command[name] = draw(st.one_of(texts, json_values))
    return command


@st.composite
def lines(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(["command", "command", "command", "json", "text", "blank"]))
    if kind == "command":
        text = json.dumps(draw(commands()), ensure_ascii=draw(st.booleans()))
    elif kind == "json":
        text = json.dumps(draw(json_values))
    elif kind == "text":
        text = draw(texts)
    else:
        text = "".join(draw(st.lists(st.sampled_from([" ", "\t", "\r"]), max_size=4)))
    # A raw surrogate goes over the pipe as the (invalid) bytes a careless client would write.
    return text.replace("\n", " ").encode("utf-8", errors="surrogatepass")


def _strict(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise ValueError(name)

    return json.loads(text, parse_constant=refuse)


def expected_ids(raw_lines: list[bytes]) -> tuple[int, Counter[str]]:
    """How many answers the lines need, and the ids those answers must carry."""
    answers = 0
    ids: Counter[str] = Counter()
    for raw in raw_lines:
        text = raw.decode("utf-8", errors="replace")
        if not text.strip(" \t\r"):
            continue
        answers += 1
        try:
            data = _strict(text)
        except (ValueError, RecursionError):
            continue
        if isinstance(data, dict) and "id" in data:
            ids[json.dumps(data["id"], sort_keys=True)] += 1
    return answers, ids


async def run_lines(raw_lines: list[bytes]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        cwd = Path(folder)
        rpc = await InProcessRpc.start(cwd, [])
        try:
            for raw in raw_lines:
                rpc.server.handle_line(raw)
            await asyncio.wait_for(rpc.settle(), 30)
        finally:
            await rpc.close()
        out = rpc.raw_lines()
        objects = [json.loads(line.decode("utf-8")) for line in out]  # strict UTF-8, valid JSON
        responses = [o for o in objects if o.get("type") == "response"]
        answers, ids = expected_ids(raw_lines)
        assert len(responses) == answers
        assert Counter(json.dumps(r["id"], sort_keys=True) for r in responses if "id" in r) == ids
        for session_file in (agent_dir() / "sessions").rglob("*.jsonl"):
            text = session_file.read_bytes().decode("utf-8")
            assert text.endswith("\n")
            for entry_line in text.split("\n")[:-1]:
                assert isinstance(json.loads(entry_line), dict)
            session_file.unlink()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(lines(), min_size=1, max_size=8))
def test_every_line_is_answered_once_and_files_stay_valid(raw_lines: list[bytes]) -> None:
    asyncio.run(run_lines(raw_lines))
