"""The Anthropic provider's hot path never imports the `anthropic` SDK (1.8 s of CPU), and its
HTTP pool is reused across turns."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from atomic.core.providers.anthropic_messages import AnthropicMessagesProvider, http_pool
from tests.providers import anthropic_fixtures as fx
from tests.providers.conftest import collect, make_model, make_request
from tests.providers.sse_server import ScriptedServer


def test_warm_up_and_a_streamed_turn_load_no_sdk(server: ScriptedServer) -> None:
    server.replies.append(fx.text_and_tool())
    code = textwrap.dedent(f"""
        import asyncio, sys
        from atomic.core.messages import UserMessage
        from atomic.core.model_types import Model
        from atomic.core.providers.anthropic_messages import AnthropicMessagesProvider, warm_up
        from atomic.core.providers.base import StreamRequest

        warm_up()
        model = Model(id="claude-test", api="anthropic-messages", provider="t", base_url={server.url!r})
        request = StreamRequest(model=model, system_prompt="", messages=[UserMessage(content="hi")], api_key="k")

        async def main():
            return [type(e).__name__ async for e in AnthropicMessagesProvider().stream(request)]

        kinds = asyncio.run(main())
        print(kinds[-1], sorted(m for m in sys.modules if m == "anthropic" or m.startswith(("anthropic.", "openai"))))
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Done []"


async def test_turns_share_one_connection_pool(server: ScriptedServer) -> None:
    server.replies += [fx.final_text("one"), fx.final_text("two")]
    model = make_model(server.url)
    await collect(AnthropicMessagesProvider(), make_request(model))
    pool = http_pool()
    await collect(AnthropicMessagesProvider(), make_request(model))
    assert http_pool() is pool
    assert len(server.requests) == 2
