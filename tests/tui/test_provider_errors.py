"""Provider errors in the app: a short human message, the raw body on expansion, visible and cancellable
retry countdowns, and recovery without any key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from atomic.tui.app import AtomicApp
from atomic.tui.conversation import AssistantText
from atomic.tui.error_view import ProviderErrorView
from atomic.tui.provider_errors import describe_error
from tests.tui.helpers import make_app, type_text, wait_for

OVERLOADED = '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
BAD_REQUEST = '400 {"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: must be at most 8192"}}'


def retry_settings(agent_dir: Path, delay_ms: int) -> None:
    (agent_dir / "settings.json").write_text(json.dumps({"retry": {"baseDelayMs": delay_ms, "maxRetries": 3}}))


def error_views(app: AtomicApp) -> list[ProviderErrorView]:
    return list(app.conversation.query(ProviderErrorView))


async def send(pilot: Any, text: str) -> None:
    await type_text(pilot, text)
    await pilot.press("enter")


def test_describe_error_says_what_happened_and_what_to_do() -> None:
    overloaded = describe_error(OVERLOADED, "anthropic")
    assert overloaded.summary == "Anthropic is overloaded (529)"
    assert overloaded.advice == "Try again in a moment."
    assert overloaded.raw == OVERLOADED
    auth = describe_error('401 {"error":{"message":"invalid x-api-key"}}', "anthropic", env_var="ANTHROPIC_API_KEY")
    assert auth.summary == "Anthropic rejected the API key (401): invalid x-api-key"
    assert "/login" in auth.advice and "$ANTHROPIC_API_KEY" in auth.advice
    limited = describe_error('429 {"error":{"message":"Rate limit reached for gpt-4o"}}', "openai")
    assert limited.summary.startswith("OpenAI is rate limiting requests (429)")
    bad = describe_error(BAD_REQUEST, "anthropic")
    assert bad.summary == "Anthropic rejected the request (400): max_tokens: must be at most 8192"
    overflow = describe_error("400 prompt is too long: 250000 tokens > 200000 maximum", "anthropic", "claude-x")
    assert "context window" in overflow.summary and "/compact" in overflow.advice
    offline = describe_error("Connection error: [Errno 111] Connection refused", "openai")
    assert offline.summary == "Could not reach OpenAI (connection error)"
    other = describe_error("something odd", "my-proxy")
    assert other.summary == "my-proxy error: something odd"


async def test_a_provider_error_is_short_and_the_raw_body_shows_on_expansion(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [{"error": BAD_REQUEST, "kind": "fatal", "status": 400}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "hi")
        await wait_for(lambda: bool(error_views(app)) and not app.engine.is_streaming, pilot)
        await pilot.pause()
        (view,) = error_views(app)
        summary = str(view._summary.render())
        assert summary == "✗ The scripted provider rejected the request (400): max_tokens: must be at most 8192"
        assert "invalid_request_error" not in summary
        assert not view._raw.display
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert view._raw.display
        raw = str(view._raw.render())
        assert raw.startswith("400\n{") and '"type": "invalid_request_error"' in raw
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert not view._raw.display
        await pilot.click(ProviderErrorView)
        await pilot.pause()
        assert view._raw.display


async def test_a_transient_error_recovers_without_any_key(tmp_path: Path, agent_dir: Path) -> None:
    retry_settings(agent_dir, 50)
    script = [{"error": OVERLOADED, "kind": "transient", "status": 529}, {"text": "recovered reply"}]
    app = make_app(tmp_path / "p", script)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "hi")
        await wait_for(lambda: app.engine.last_assistant_text() == "recovered reply", pilot)
        await wait_for(lambda: not app.engine.is_streaming, pilot)
        await pilot.pause()
        (view,) = error_views(app)
        assert view.state == "recovered"
        assert "Recovered on retry 1" in str(view._advice.render())
        assert not app.working.has_class("-active")
        assert not app.input_flow.retrying
        # The editor still takes the next message at once.
        await send(pilot, "next")
        await wait_for(lambda: app.engine.last_assistant_text() == "You said: next", pilot)


async def test_retry_countdown_is_visible_and_esc_cancels_it(tmp_path: Path, agent_dir: Path) -> None:
    retry_settings(agent_dir, 30_000)
    script = [{"error": OVERLOADED, "kind": "transient", "status": 529}, {"text": "not used"}]
    app = make_app(tmp_path / "p", script)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "hi")
        await wait_for(lambda: app.input_flow.retrying, pilot)
        await pilot.pause()
        status = str(app.working.render())
        assert "Retrying in 30s (1/3)" in status and "The scripted provider is overloaded (529)" in status
        assert "esc to cancel" in status
        # The countdown ticks every second (the app's clock is fixed at 0 in tests: move it on).
        app.working.clock = lambda: 12.0
        app.working.tick()
        assert "Retrying in 18s (1/3)" in str(app.working.render())
        (view,) = error_views(app)
        assert view.state == "retrying"
        await pilot.press("escape")
        await wait_for(lambda: not app.engine.is_streaming, pilot)
        await pilot.pause()
        assert view.state == "cancelled"
        assert "Retry cancelled" in str(view._advice.render())
        assert not app.working.has_class("-active")
        await send(pilot, "again")
        await wait_for(lambda: app.engine.last_assistant_text() == "not used", pilot)


async def test_esc_aborts_the_retried_attempt_itself(tmp_path: Path, agent_dir: Path) -> None:
    retry_settings(agent_dir, 10)
    script = [{"error": OVERLOADED, "kind": "transient", "status": 529}, {"text": "slow…", "hang": True}]
    app = make_app(tmp_path / "p", script)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "hi")
        await wait_for(lambda: any("slow" in b.text_so_far for b in app.conversation.query(AssistantText)), pilot)
        assert not app.input_flow.retrying
        await pilot.press("escape")
        await wait_for(lambda: not app.engine.is_streaming, pilot)


async def test_retries_that_all_fail_say_so(tmp_path: Path, agent_dir: Path) -> None:
    retry_settings(agent_dir, 1)
    failure = {"error": OVERLOADED, "kind": "transient", "status": 529}
    app = make_app(tmp_path / "p", [failure, failure, failure, failure])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "hi")
        await wait_for(lambda: bool(error_views(app)) and error_views(app)[0].state == "gave_up", pilot)
        (view,) = error_views(app)  # one view for the whole series
        assert "Gave up after 3 retries. Try again in a moment." in str(view._advice.render())
