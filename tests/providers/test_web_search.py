"""The `webSearch` setting: the provider's own search tool is offered, and the sources of a reply are
read from the blocks the provider sent (kept with the message, so resumed sessions show them too)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from atomic.core.messages import AssistantMessage, ProviderBlock, TextContent
from atomic.core.providers.anthropic_request import build_params
from atomic.core.providers.openai_responses import build_body
from atomic.core.web_sources import web_sources
from tests.providers import anthropic_fixtures as fx
from tests.providers.conftest import make_model, make_request
from tests.providers.sse_server import ScriptedServer
from tests.providers.test_anthropic_wire_shapes import atomic_turn


def test_anthropic_offers_its_search_tool_only_when_asked() -> None:
    model = make_model("http://127.0.0.1:1", id="claude-test")
    plain = build_params(make_request(model))
    assert "tools" not in plain
    params = build_params(make_request(model, web_search=True))
    assert params["tools"][0]["type"] == "web_search_20250305" and params["tools"][0]["name"] == "web_search"
    assert params["tools"][-1]["cache_control"] == {"type": "ephemeral"}


def test_responses_offers_its_search_tool_and_asks_for_the_sources() -> None:
    model = make_model("http://127.0.0.1:1", id="gpt-test", api="openai-responses", reasoning=True)
    body = build_body(make_request(model, web_search=True))
    assert {"type": "web_search"} in body["tools"]
    assert body["include"] == ["reasoning.encrypted_content", "web_search_call.action.sources"]
    assert "web_search" not in json.dumps(build_body(make_request(model)))


async def test_the_sources_of_a_searched_reply(server: ScriptedServer) -> None:
    message, _updates = await atomic_turn(server, fx.web_search())
    assert message.text().strip() == "It is sunny, 21 C. Enjoy."
    assert [(s.title, s.url) for s in web_sources(message)] == [("Weather", "https://example.org/srvtoolu_fxa")]
    # The blocks go into the stored message: the sources come back with the session.
    stored = AssistantMessage.model_validate(message.to_wire())
    assert [s.url for s in web_sources(stored)] == ["https://example.org/srvtoolu_fxa"]


def test_responses_sources_and_citations_are_read_once_each() -> None:
    call: dict[str, Any] = {"type": "web_search_call", "id": "ws_1", "status": "completed",
                            "action": {"type": "search", "query": "q", "sources": [
                                {"type": "url", "url": "https://a.example/"}, {"type": "url", "url": "https://b.example/"}]}}
    cited: dict[str, Any] = {"type": "message", "content": [{"type": "output_text", "text": "x", "annotations": [
        {"type": "url_citation", "url": "https://a.example/", "title": "A"}]}]}
    message = AssistantMessage(content=[TextContent(text="x")],
                               provider_blocks=[ProviderBlock(position=0, data=call), ProviderBlock(position=1, data=cited)])
    assert [s.url for s in web_sources(message)] == ["https://a.example/", "https://b.example/"]


async def test_the_tui_names_the_sources_under_the_reply(tmp_path: Path) -> None:
    from atomic.tui.conversation import NoteMessage
    from tests.tui.helpers import make_app, wait_for

    block = fx._search_result("srvtoolu_x", "Release notes")
    stored = AssistantMessage(content=[TextContent(text="Version 2 is out.")], stop_reason="stop",
                              provider_blocks=[ProviderBlock(position=0, data=block)])
    app = make_app(tmp_path / "project")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(lambda: app.engine is not None and app.session_ready, pilot)
        app.renderer.render_history([stored])
        await pilot.pause(0.1)
        notes = [str(n.render()) for n in app.query(NoteMessage)]
        assert any("Sources:" in n and "Release notes — https://example.org/srvtoolu_x" in n for n in notes)
