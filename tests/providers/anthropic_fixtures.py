"""Small Anthropic Messages SSE replies, one per wire shape real servers send.

Written for these tests (ids, texts and numbers are made up); each reproduces the structure of a
kind of response seen from the real API or from gateways: block order, delta kinds, usage fields,
stop reasons and the extra fields servers add.
"""

from __future__ import annotations

import json
from typing import Any

from tests.providers.sse_server import Reply

Event = tuple[str | None, Any]

PING: Event = ("ping", {"type": "ping"})


def ev(data: dict[str, Any]) -> Event:
    return (data["type"], data)


def message_start(usage: dict[str, Any] | None = None, msg_id: str = "msg_fx01") -> Event:
    return ev({"type": "message_start", "message": {
        "id": msg_id, "type": "message", "role": "assistant", "model": "claude-test", "content": [],
        "stop_reason": None, "stop_sequence": None,
        "usage": usage if usage is not None else {
            "input_tokens": 21, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
            "output_tokens": 2, "service_tier": "standard"}}})


def block_start(index: int, block: dict[str, Any]) -> Event:
    return ev({"type": "content_block_start", "index": index, "content_block": block})


def delta(index: int, body: dict[str, Any]) -> Event:
    return ev({"type": "content_block_delta", "index": index, "delta": body})


def block_stop(index: int) -> Event:
    return ev({"type": "content_block_stop", "index": index})


def text_block(index: int, pieces: list[str], *, citations: list[dict[str, Any]] | None = None) -> list[Event]:
    start: dict[str, Any] = {"type": "text", "text": ""}
    if citations is not None:
        start = {"citations": [], "type": "text", "text": ""}
    events = [block_start(index, start)]
    events += [delta(index, {"type": "text_delta", "text": p}) for p in pieces]
    events += [delta(index, {"type": "citations_delta", "citation": c}) for c in citations or []]
    return [*events, block_stop(index)]


def thinking_block(index: int, pieces: list[str], signature: str) -> list[Event]:
    events = [block_start(index, {"type": "thinking", "thinking": "", "signature": ""})]
    events += [delta(index, {"type": "thinking_delta", "thinking": p}) for p in pieces]
    events.append(delta(index, {"type": "signature_delta", "signature": signature}))
    return [*events, block_stop(index)]


def redacted_block(index: int, data: str) -> list[Event]:
    return [block_start(index, {"type": "redacted_thinking", "data": data}), block_stop(index)]


def json_pieces(value: dict[str, Any], size: int = 7) -> list[str]:
    text = json.dumps(value)
    return [""] + [text[i : i + size] for i in range(0, len(text), size)]


def tool_block(index: int, call_id: str, name: str, arguments: dict[str, Any], *, kind: str = "tool_use",
               extra: dict[str, Any] | None = None) -> list[Event]:
    start = {"type": kind, "id": call_id, "name": name, "input": {}, **(extra or {})}
    events = [block_start(index, start)]
    events += [delta(index, {"type": "input_json_delta", "partial_json": p}) for p in json_pieces(arguments)]
    return [*events, block_stop(index)]


def whole_block(index: int, block: dict[str, Any]) -> list[Event]:
    """A block that arrives complete in its start event (server tool results)."""
    return [block_start(index, block), block_stop(index)]


def finish(stop_reason: str, usage: dict[str, Any] | None = None, **extra: Any) -> list[Event]:
    body = {"stop_reason": stop_reason, "stop_sequence": None, **extra}
    return [
        ev({"type": "message_delta", "delta": body, "usage": usage or {"output_tokens": 17}}),
        ev({"type": "message_stop"}),
    ]


def reply(*parts: Event | list[Event]) -> Reply:
    events: list[Event] = []
    for part in parts:
        events.extend(part if isinstance(part, list) else [part])
    return Reply(events=events)


# ----------------------------------------------------------------------------- the shapes

SIG_A = "EqQBCkYIBxgCKkB0ZXN0LXNpZ25hdHVyZS1h"
SIG_B = "EtABCkYICxgCKkB0ZXN0LXNpZ25hdHVyZS1i"


def plain_text() -> Reply:
    return reply(message_start(), block_start(0, {"type": "text", "text": ""}), PING,
                 delta(0, {"type": "text_delta", "text": "Olá! ("}),
                 delta(0, {"type": "text_delta", "text": "that is \"hi\")"}),
                 delta(0, {"type": "text_delta", "text": "\n\nOr simply: oi 👋"}),
                 block_stop(0), finish("end_turn"))


def text_thinking_text() -> Reply:
    return reply(message_start(), text_block(0, ["\n\n"]),
                 thinking_block(1, ["Two short", " names.", ""], SIG_A),
                 text_block(2, ["1. Pouch", "\n2. Beaky"]), finish("end_turn"))


def signed_empty_thinking() -> Reply:
    return reply(message_start(), thinking_block(0, [], SIG_B), text_block(1, []), finish("end_turn"))


def redacted_thinking() -> Reply:
    return reply(message_start(), redacted_block(0, "RWRhY3RlZC1vbmU="), PING, redacted_block(1, "RWRhY3RlZC10d28="),
                 text_block(2, ["I can't share", " that reasoning."]), finish("end_turn"))


def max_tokens() -> Reply:
    return reply(message_start(), text_block(0, ["The answer is", " long and"]), finish("max_tokens"))


def stop_sequence() -> Reply:
    return reply(message_start(), text_block(0, ["\ndef f():\n", "    return 1\n"]),
                 *finish("stop_sequence", stop_sequence="```"))


def gateway_usage() -> Reply:
    """A gateway: bare usage in message_start, the real input count only in message_delta."""
    return reply(message_start({"input_tokens": 40, "output_tokens": 1}),
                 text_block(0, ["p", "ong"]), finish("end_turn", {"input_tokens": 58, "output_tokens": 2}))


def code_execution_cached() -> Reply:
    """Server-side code execution (server_tool_use + its result block) with prompt-cache usage."""
    result = {"type": "bash_code_execution_tool_result", "tool_use_id": "srvtoolu_fx1", "content": {
        "type": "bash_code_execution_result", "stdout": "1\n4\n9\n", "stderr": "", "return_code": 0, "content": []}}
    return reply(
        message_start({"input_tokens": 3, "cache_creation_input_tokens": 2900, "cache_read_input_tokens": 0,
                       "output_tokens": 5}),
        tool_block(0, "srvtoolu_fx1", "bash_code_execution", {"command": "for n in 1 2 3; do echo $((n*n)); done"},
                   kind="server_tool_use"),
        whole_block(1, result),
        text_block(2, ["The squares are", " 1, 4 and 9."]),
        finish("end_turn", {"input_tokens": 7, "cache_creation_input_tokens": 3100, "cache_read_input_tokens": 5800,
                            "output_tokens": 150, "server_tool_use": {"web_search_requests": 0}},
               container={"id": "container_fx1", "expires_at": "2030-01-01T00:00:00Z"}))


def compaction_then_text() -> Reply:
    iterations = [
        {"type": "compaction", "input_tokens": 90, "output_tokens": 70, "cache_read_input_tokens": 50000},
        {"type": "message", "input_tokens": 160, "output_tokens": 6, "cache_read_input_tokens": 0},
    ]
    return reply(
        message_start({"input_tokens": 90, "cache_read_input_tokens": 50000, "cache_creation_input_tokens": 0,
                       "output_tokens": 4}),
        block_start(0, {"type": "compaction", "content": None}), PING,
        delta(0, {"type": "compaction_delta", "content": "Summary: the user pasted a long text."}),
        block_stop(0),
        text_block(1, ["Hello", "!"]),
        finish("end_turn", {"input_tokens": 160, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0,
                            "output_tokens": 6, "iterations": iterations}))


def mcp_blocks() -> Reply:
    result = {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_fx1", "is_error": False,
              "content": [{"type": "text", "text": "The repository is a small parser."}]}
    return reply(
        message_start(),
        thinking_block(0, ["I should ask", " the wiki server."], SIG_A),
        tool_block(1, "mcptoolu_fx1", "ask_question", {"repoName": "acme/parser", "question": "What is it?"},
                   kind="mcp_tool_use", extra={"server_name": "wiki"}),
        whole_block(2, result),
        text_block(3, ["It is ", "a small parser."]),
        finish("end_turn"))


def _search_result(tool_id: str, title: str) -> dict[str, Any]:
    return {"type": "web_search_tool_result", "tool_use_id": tool_id, "content": [
        {"type": "web_search_result", "title": title, "url": f"https://example.org/{tool_id}",
         "encrypted_content": "RW5jcnlwdGVkUGFnZQ==", "page_age": None}]}


def web_search() -> Reply:
    citation = {"type": "web_search_result_location", "cited_text": "Sunny, 21 C", "url": "https://example.org/a",
                "title": "Weather", "encrypted_index": "RW5jSW5kZXg="}
    return reply(
        message_start(),
        thinking_block(0, ["Search first."], SIG_B),
        tool_block(1, "srvtoolu_fxa", "web_search", {"query": "weather today"}, kind="server_tool_use"),
        whole_block(2, _search_result("srvtoolu_fxa", "Weather")),
        text_block(3, []),
        text_block(4, ["It is sunny, 21 C."], citations=[citation]),
        text_block(5, [" Enjoy."]),
        finish("end_turn", {"input_tokens": 900, "output_tokens": 40, "server_tool_use": {"web_search_requests": 1}}))


def paused_search() -> Reply:
    """A long server-tool turn the API pauses: the last search call has no result yet."""
    return reply(
        message_start(msg_id="msg_fx_paused"),
        thinking_block(0, ["Several searches."], SIG_A),
        text_block(1, []),
        tool_block(2, "srvtoolu_fxp1", "web_search", {"query": "first"}, kind="server_tool_use"),
        whole_block(3, _search_result("srvtoolu_fxp1", "First")),
        tool_block(4, "srvtoolu_fxp2", "web_search", {"query": "second"}, kind="server_tool_use"),
        finish("pause_turn"))


def continued_search() -> Reply:
    return reply(
        message_start(msg_id="msg_fx_continued"),
        whole_block(0, _search_result("srvtoolu_fxp2", "Second")),
        text_block(1, ["Both searches", " are done."]),
        finish("end_turn"))


def refusal() -> Reply:
    details = {"type": "refusal", "category": "cyber",
               "explanation": "This request was blocked under the usage policy.", "recommended_model": None}
    return reply(message_start(), PING, finish("refusal", {"output_tokens": 3}, stop_details=details))


def text_and_tool(arguments: dict[str, Any] | None = None) -> Reply:
    return reply(message_start(), text_block(0, ["Let me check", " the weather."]),
                 tool_block(1, "toolu_fx_w1", "weather", arguments or {"location": "Florence"},
                            extra={"caller": {"type": "direct"}}),
                 finish("tool_use"))


def parallel_tools_only() -> Reply:
    """Two calls with empty input: the input is `{}` and the only delta is an empty string."""
    events = [message_start()]
    for index, call_id in enumerate(("toolu_fx_p1", "toolu_fx_p2")):
        events += [block_start(index, {"type": "tool_use", "id": call_id, "name": "pick_name", "input": {},
                                       "caller": {"type": "direct"}}),
                   delta(index, {"type": "input_json_delta", "partial_json": ""}), block_stop(index)]
    return reply(*events, finish("tool_use"))


def parallel_tools_with_text() -> Reply:
    return reply(message_start(), text_block(0, []),
                 tool_block(1, "toolu_fx_add", "add", {"a": 2, "b": 3}),
                 tool_block(2, "toolu_fx_mul", "multiply", {"a": 2, "b": 3}), finish("tool_use"))


def thinking_then_tool_empty_input() -> Reply:
    return reply(message_start(), thinking_block(0, ["Call the tool", " first."], SIG_B),
                 block_start(1, {"type": "tool_use", "id": "toolu_fx_v", "name": "version", "input": {}}),
                 delta(1, {"type": "input_json_delta", "partial_json": ""}), block_stop(1),
                 finish("tool_use", {"output_tokens": 90, "output_tokens_details": {"thinking_tokens": 50}}))


def thinking_then_tool() -> Reply:
    return reply(message_start(), thinking_block(0, ["The user wants", " the weather."], SIG_A),
                 tool_block(1, "toolu_fx_t1", "weather", {"location": "Florence, Italy"},
                            extra={"caller": {"type": "direct"}}),
                 finish("tool_use", {"input_tokens": 400, "output_tokens": 110}))


def final_text(text: str = "Done.") -> Reply:
    return reply(message_start(msg_id="msg_fx_final"), text_block(0, [text]), finish("end_turn"))


def overloaded_midway() -> Reply:
    """A stream that starts, then the server sends an error event and closes the connection."""
    return reply(message_start(), thinking_block(0, ["Partial"], SIG_A), block_start(1, {"type": "text", "text": ""}),
                 ev({"type": "error", "error": {"details": None, "type": "overloaded_error", "message": "Overloaded"}}))


HTTP_400_BODY = {"type": "error", "request_id": "req_fx400", "error": {
    "type": "invalid_request_error", "message": "This model does not support effort level 'xhigh'."}}
