"""Extension tools: called by the (scripted) model, pydantic parameters, progress, failures, overrides."""

from __future__ import annotations

from pathlib import Path

from atomic.core.engine.session_stats import last_assistant_text
from atomic.core.messages import ToolResultMessage
from tests.support import Recorder, module_of, write_extension

WEATHER = """
    from atomic.core.tools.base import ToolOutput

    CALLS = []

    def activate(atomic):
        async def execute(call_id, args, ctx):
            CALLS.append((call_id, args, str(ctx.cwd)))
            ctx.on_update(ToolOutput.text("looking up..."))
            return ToolOutput.text(f"Sunny in {args['city']}", details={"celsius": 21})

        atomic.register_tool(
            "weather",
            "Get the weather for a city.",
            {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
            execute,
            prompt_snippet="Look up the weather",
        )
"""


def tool_results(session) -> list[ToolResultMessage]:
    return [m for m in session.context_messages() if isinstance(m, ToolResultMessage)]


async def test_model_calls_an_extension_tool(make_session, ext_dir: Path, workdir: Path) -> None:
    path = write_extension(ext_dir, "weather.py", WEATHER)
    script = [
        {"toolCalls": [{"name": "weather", "arguments": {"city": "Oslo"}, "id": "w1"}]},
        {"text": "It is sunny."},
    ]
    session, provider, _ = await make_session(script, extensions=[str(path)])
    rec = Recorder(session)
    assert "weather" in session.toolset.active_tool_names
    assert "- weather: Look up the weather" in session.toolset.system_prompt
    await session.prompt("weather in Oslo?")
    await session.wait_idle()

    assert module_of(session, path).CALLS == [("w1", {"city": "Oslo"}, str(workdir.resolve()))]
    [result] = tool_results(session)
    assert result.tool_name == "weather" and not result.is_error
    assert result.content[0].text == "Sunny in Oslo" and result.details == {"celsius": 21}
    assert last_assistant_text(session.context_messages()) == "It is sunny."
    # The provider saw the tool's schema in the request.
    specs = {spec.name: spec for spec in provider.requests[0].tools}
    assert specs["weather"].parameters["required"] == ["city"]
    assert rec.of("tool_execution_end")[0]["result"]["content"][0]["text"] == "Sunny in Oslo"
    assert rec.of("tool_execution_update")[0]["partialResult"]["content"][0]["text"] == "looking up..."


PYDANTIC_TOOL = """
    from pydantic import BaseModel, Field

    SEEN = []

    class AddArgs(BaseModel):
        a: int = Field(description="first number")
        b: int = 0

    def activate(atomic):
        def execute(call_id, args, ctx):  # a plain function works too
            SEEN.append(args)
            return str(args.a + args.b)

        atomic.register_tool("add", "Add two numbers.", AddArgs, execute)
"""


async def test_pydantic_parameters_are_validated_into_the_model(make_session, ext_dir: Path) -> None:
    path = write_extension(ext_dir, "adder.py", PYDANTIC_TOOL)
    script = [
        {"toolCalls": [{"name": "add", "arguments": {"a": "2", "b": 3}}, {"name": "add", "arguments": {"b": 1}}]},
        {"text": "done"},
    ]
    session, provider, _ = await make_session(script, extensions=[str(path)])
    schema = session.toolset.tools["add"].parameters
    assert schema["properties"]["a"]["description"] == "first number" and schema["required"] == ["a"]
    await session.prompt("add")
    await session.wait_idle()

    seen = module_of(session, path).SEEN
    assert len(seen) == 1 and type(seen[0]).__name__ == "AddArgs" and seen[0].a == 2
    good, bad = tool_results(session)
    assert good.content[0].text == "5" and not good.is_error
    # Missing `a`: the model gets a readable error and the tool never ran.
    assert bad.is_error and "Invalid arguments for tool add" in bad.content[0].text and "a" in bad.content[0].text


BROKEN_TOOL = """
    def activate(atomic):
        async def execute(call_id, args, ctx):
            raise RuntimeError("database is down")

        atomic.register_tool("lookup", "Look something up.", None, execute)
"""


async def test_a_raising_tool_is_an_error_result_and_an_extension_error(make_session, ext_dir: Path) -> None:
    path = write_extension(ext_dir, "broken.py", BROKEN_TOOL)
    script = [{"toolCalls": [{"name": "lookup", "arguments": {}}]}, {"text": "sorry"}]
    session, _, _ = await make_session(script, extensions=[str(path)])
    rec = Recorder(session)
    await session.prompt("look it up")
    await session.wait_idle()

    [result] = tool_results(session)
    assert result.is_error and "RuntimeError: database is down" in result.content[0].text
    [error] = rec.of("extension_error")
    assert error == {
        "type": "extension_error",
        "extensionPath": str(path.resolve()),
        "event": "tool:lookup",
        "error": "RuntimeError: database is down",
    }
    assert last_assistant_text(session.context_messages()) == "sorry"


OVERRIDE_READ = """
    def activate(atomic):
        async def execute(call_id, args, ctx):
            return "read is disabled here"

        atomic.register_tool("read", "Read nothing.", {"type": "object", "properties": {}}, execute)
"""


async def test_same_name_overrides_a_builtin(make_session, ext_dir: Path, workdir: Path) -> None:
    (workdir / "a.txt").write_text("secret")
    path = write_extension(ext_dir, "noread.py", OVERRIDE_READ)
    script = [{"toolCalls": [{"name": "read", "arguments": {"path": "a.txt"}}]}, {"text": "ok"}]
    session, _, _ = await make_session(script, extensions=[str(path)])
    assert session.toolset.active_tool_names.count("read") == 1
    await session.prompt("read a.txt")
    await session.wait_idle()
    [result] = tool_results(session)
    assert result.content[0].text == "read is disabled here"


SLOW_TOOL = """
    import asyncio

    STATE = {"cancelled": False, "started": False}

    def activate(atomic):
        async def execute(call_id, args, ctx):
            STATE["started"] = True
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                STATE["cancelled"] = True
                raise
            return "never"

        atomic.register_tool("wait", "Wait a long time.", None, execute)
"""


async def test_abort_cancels_an_extension_tool(make_session, ext_dir: Path) -> None:
    from tests.support import wait_for

    path = write_extension(ext_dir, "slow.py", SLOW_TOOL)
    session, _, _ = await make_session([{"toolCalls": [{"name": "wait", "arguments": {}}]}], extensions=[str(path)])
    rec = Recorder(session)
    await session.prompt("wait")
    # tool_execution_start comes before the tool's coroutine first runs: wait until it is inside.
    await wait_for(lambda: module_of(session, path).STATE["started"])
    await session.abort()
    assert module_of(session, path).STATE["cancelled"] is True
    [result] = tool_results(session)
    assert result.is_error
    assert rec.of("extension_error") == []
