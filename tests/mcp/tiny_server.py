"""A small MCP server written with the official SDK, run by the tests as a real subprocess.

    python tiny_server.py                      stdio
    python tiny_server.py --http PORT          streamable HTTP on 127.0.0.1:PORT
    python tiny_server.py --sse PORT           the older SSE transport on 127.0.0.1:PORT
    python tiny_server.py --exit               exits at once (a server that dies on start)
    python tiny_server.py --garbage            prints junk on stdout and never answers
    python tiny_server.py --slow-start SECONDS waits before serving
    python tiny_server.py --many N             N extra tools with long descriptions (tool search)
    python tiny_server.py --unauthorized PORT  an HTTP endpoint that answers every request with 401

The `grow` and `shrink` tools change the tool list at runtime and send `tools/list_changed`.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time

# Checked before the SDK import so these servers misbehave at once.
if "--exit" in sys.argv:
    print("tiny: exiting on purpose", file=sys.stderr)
    sys.exit(2)
if "--garbage" in sys.argv:
    print("this is not json-rpc", flush=True)
    time.sleep(3600)

from typing import Literal  # noqa: E402

from mcp.server.mcpserver import Context, MCPServer  # noqa: E402
from mcp.types import Annotations, ImageContent, TextContent, ToolExecution  # noqa: E402
from pydantic import BaseModel, Field  # noqa: E402

server = MCPServer("tiny")
# A 1x1 transparent PNG.
PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def echo(text: str) -> str:
    """Echo the text back, with the server's environment marker."""
    return f"{text} [{os.environ.get('TINY_MARK', '-')}] pid={os.getpid()}"


@server.tool()
async def sleep(seconds: float) -> str:
    """Sleep, then answer."""
    await asyncio.sleep(seconds)
    return "slept"


@server.tool()
def die() -> str:
    """Exit the server process in the middle of the call."""
    os._exit(3)


@server.tool()
def fail(message: str) -> str:
    """Report a tool error."""
    from mcp.server.mcpserver.exceptions import ToolError

    raise ToolError(message)


@server.tool()
def picture() -> list[TextContent | ImageContent]:
    """Return a caption and an image."""
    return [TextContent(type="text", text="a pixel"), ImageContent(type="image", data=PIXEL, mimeType="image/png")]


@server.tool()
def weather(city: str) -> dict[str, object]:
    """Structured weather for a city."""
    return {"city": city, "celsius": 21}


@server.tool()
async def grow(name: str, ctx: Context) -> str:
    """Add a tool named `extra_<name>` at runtime and tell the client (notifications/tools/list_changed)."""

    def extra(value: str) -> str:
        return f"{name} says {value}"

    server.add_tool(extra, name=f"extra_{name}", description=f"Added at runtime by grow({name}).")
    await ctx.session.send_tool_list_changed()
    return f"added extra_{name}"


@server.tool()
async def shrink(name: str, ctx: Context) -> str:
    """Remove a tool at runtime and tell the client."""
    server.remove_tool(name)
    await ctx.session.send_tool_list_changed()
    return f"removed {name}"


@server.tool()
async def exit_soon(delay: float) -> str:
    """Answer, then exit with code 4 after `delay` seconds (a server that dies while idle)."""

    async def later() -> None:
        await asyncio.sleep(delay)
        print("tiny: leaving while idle", file=sys.stderr, flush=True)
        os._exit(4)

    asyncio.get_running_loop().create_task(later())
    return "bye soon"


@server.tool()
async def steps(count: int, ctx: Context, pause: float = 0.0) -> str:
    """Report progress `count` times and log each step (notifications/progress and /message)."""
    for step in range(1, count + 1):
        await ctx.report_progress(step, count, f"step {step}")
        await ctx.info(f"did step {step}")
        await asyncio.sleep(pause)
    return f"{count} steps"


class Profile(BaseModel):
    name: str = Field(description="Your name")
    age: int = Field(ge=0, le=150)
    color: Literal["red", "green"] = "red"
    subscribe: bool = False


@server.tool()
async def ask(ctx: Context) -> str:
    """Ask the user for a profile (elicitation, form mode)."""
    result = await ctx.elicit("Who are you?", schema=Profile)
    if result.action != "accept":
        return f"action={result.action}"
    data = result.data
    return f"accept name={data.name} age={data.age} color={data.color} subscribe={data.subscribe}"


@server.tool()
async def sample(ctx: Context) -> str:
    """Ask the client's model for a completion (sampling)."""
    from mcp.types import SamplingMessage

    try:
        await ctx.session.create_message(
            messages=[SamplingMessage(role="user", content=TextContent(type="text", text="hi"))], max_tokens=5)
    except Exception as exc:  # noqa: BLE001
        return f"sampling failed: {exc}"
    return "sampling worked"


@server.tool()
async def roots(ctx: Context) -> str:
    """The client's roots."""
    listed = await ctx.session.list_roots()
    return " ".join(str(r.uri) for r in listed.roots)


@server.tool()
def forget_sessions() -> str:
    """Forget every HTTP session, as a restarted server would (the next request gets 404)."""
    server.session_manager._server_instances.clear()
    return "forgotten"


@server.tool()
def big(lines: int, width: int = 10) -> list[TextContent | ImageContent]:
    """Return `lines` numbered lines of `width` characters each, then an image."""
    text = "\n".join(f"{i:06d} " + "x" * width for i in range(1, lines + 1))
    return [TextContent(type="text", text=text), ImageContent(type="image", data=PIXEL, mimeType="image/png")]


@server.tool()
def annotated() -> list[TextContent]:
    """One block for the model, one only for the user."""
    return [
        TextContent(type="text", text="for the model", annotations=Annotations(audience=["assistant"])),
        TextContent(type="text", text="for the user only", annotations=Annotations(audience=["user"])),
    ]


@server.tool()
def tasky() -> str:
    """A tool that can only run as an MCP task."""
    return "never called"


_plain_list_tools = server.list_tools


async def _list_tools_with_tasks():  # noqa: ANN202
    tools = await _plain_list_tools()
    for tool in tools:
        if tool.name == "tasky":
            tool.execution = ToolExecution(task_support="required")
    return tools


server.list_tools = _list_tools_with_tasks  # type: ignore[method-assign]


@server.resource("tiny://notes/today", name="today", description="Today's notes", mime_type="text/plain")
def notes_today() -> str:
    return "buy milk\ncall the plumber"


@server.resource("tiny://pixel.png", name="pixel", mime_type="image/png")
def pixel_resource() -> bytes:
    import base64

    return base64.b64decode(PIXEL)


@server.prompt(description="Review a file with a focus")
def review(path: str, focus: str = "bugs") -> str:
    return f"Please review {path}, looking for {focus}."


def add_many(count: int) -> None:
    filler = "This tool belongs to a very large server and its description is deliberately long. " * 20
    def make(number: int):  # noqa: ANN202
        def handler(value: str) -> str:
            return f"bulk {number}: {value}"

        return handler

    for i in range(count):
        handler = make(i)
        server.add_tool(handler, name=f"bulk_{i}", description=f"Bulk tool number {i}. {filler}")


def run_unauthorized(port: int) -> None:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def deny(_request: object) -> JSONResponse:
        return JSONResponse({"error": "invalid_token"}, status_code=401,
                            headers={"WWW-Authenticate": 'Bearer error="invalid_token"'})

    app = Starlette(routes=[Route("/mcp", deny, methods=["GET", "POST", "DELETE"])])
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def main(argv: list[str]) -> None:
    if "--slow-start" in argv:
        time.sleep(float(argv[argv.index("--slow-start") + 1]))
    if "--many" in argv:
        add_many(int(argv[argv.index("--many") + 1]))
    print("tiny: ready", file=sys.stderr, flush=True)
    if "--unauthorized" in argv:
        run_unauthorized(int(argv[argv.index("--unauthorized") + 1]))
    elif "--http" in argv:
        port = int(argv[argv.index("--http") + 1])
        server.run("streamable-http", host="127.0.0.1", port=port)
    elif "--sse" in argv:
        port = int(argv[argv.index("--sse") + 1])
        server.run("sse", host="127.0.0.1", port=port)
    else:
        server.run()


if __name__ == "__main__":
    main(sys.argv[1:])
