"""RpcClient: drive `atomic --mode rpc` from Python (used by the project's own RPC tests).

    async with RpcClient(args=["--provider", "scripted", "--no-session"], env=...) as client:
        await client.prompt("hello")
        events = await client.wait_for("agent_end")
        text = await client.get_last_assistant_text()
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


class RpcError(Exception):
    def __init__(self, command: str, message: str) -> None:
        super().__init__(f"{command}: {message}")
        self.command = command
        self.message = message


class RpcClient:
    def __init__(
        self,
        args: list[str] | None = None,
        *,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        command: list[str] | None = None,
    ) -> None:
        self.args = list(args or [])
        self.cwd = cwd
        self.env = env
        self.command = command or [sys.executable, "-m", "atomic", "--mode", "rpc"]
        self.process: asyncio.subprocess.Process | None = None
        self.events: list[dict[str, Any]] = []
        self.responses: list[dict[str, Any]] = []
        self.stderr_lines: list[str] = []
        self._ids = itertools.count(1)
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._event_waiters: list[tuple[Callable[[dict[str, Any]], bool], asyncio.Future[dict[str, Any]]]] = []
        self._reader: asyncio.Task[None] | None = None
        self._stderr_reader: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> RpcClient:
        env = dict(os.environ if self.env is None else self.env)
        self.process = await asyncio.create_subprocess_exec(
            *self.command,
            *self.args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=str(self.cwd) if self.cwd else None,
            env=env,
            limit=1 << 28,
        )
        self._reader = asyncio.ensure_future(self._read_stdout())
        self._stderr_reader = asyncio.ensure_future(self._read_stderr())
        return self

    async def __aenter__(self) -> RpcClient:
        return await self.start()

    async def __aexit__(self, *_exc: Any) -> None:
        await self.close()

    async def close(self, timeout: float = 10.0) -> int | None:
        """Close stdin (the server shuts down cleanly on EOF) and wait for the exit code."""
        if self.process is None:
            return None
        if self.process.stdin and not self.process.stdin.is_closing():
            self.process.stdin.close()
        try:
            code = await asyncio.wait_for(self.process.wait(), timeout)
        except TimeoutError:
            self.process.kill()
            code = await self.process.wait()
        for task in (self._reader, self._stderr_reader):
            if task is not None:
                await asyncio.gather(task, return_exceptions=True)
        return code

    # ------------------------------------------------------------------ reading

    async def _read_stdout(self) -> None:
        assert self.process and self.process.stdout
        while True:
            line = await self.process.stdout.readline()
            if not line:
                break
            try:
                message = json.loads(line)
            except ValueError:
                continue
            self._dispatch(message)
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(ConnectionError("atomic rpc process closed its output"))
        for _predicate, future in self._event_waiters:
            if not future.done():
                future.set_exception(ConnectionError("atomic rpc process closed its output"))

    async def _read_stderr(self) -> None:
        assert self.process and self.process.stderr
        while True:
            line = await self.process.stderr.readline()
            if not line:
                break
            self.stderr_lines.append(line.decode("utf-8", errors="replace").rstrip("\n"))

    def _dispatch(self, message: dict[str, Any]) -> None:
        if message.get("type") == "response":
            self.responses.append(message)
            request_id = message.get("id")
            future = self._waiting.pop(str(request_id), None) if request_id is not None else None
            if future is not None and not future.done():
                future.set_result(message)
            return
        self.events.append(message)
        for entry in list(self._event_waiters):
            predicate, future = entry
            if not future.done() and predicate(message):
                future.set_result(message)
                self._event_waiters.remove(entry)

    # ------------------------------------------------------------------ sending

    def send_raw(self, line: str | bytes) -> None:
        assert self.process and self.process.stdin
        data = line.encode("utf-8") if isinstance(line, str) else line
        self.process.stdin.write(data)

    async def request(self, command: dict[str, Any], timeout: float = 30.0) -> dict[str, Any]:
        """Send a command with a fresh id and return its full response (success or not)."""
        request_id = str(command.get("id") or f"req-{next(self._ids)}")
        command = {**command, "id": request_id}
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = future
        self.send_raw(json.dumps(command) + "\n")
        assert self.process and self.process.stdin
        await self.process.stdin.drain()
        return await asyncio.wait_for(future, timeout)

    async def call(self, command_type: str, timeout: float = 30.0, **fields: Any) -> Any:
        """Send a command and return its `data`; raise RpcError when `success` is false."""
        response = await self.request({"type": command_type, **fields}, timeout)
        if not response.get("success"):
            raise RpcError(command_type, str(response.get("error")))
        return response.get("data")

    # ------------------------------------------------------------------ events

    async def wait_for(
        self, event_type: str, timeout: float = 30.0, predicate: Callable[[dict[str, Any]], bool] | None = None,
        *, after: int = 0,
    ) -> dict[str, Any]:
        """The first event of that type (from index `after` of `events`), waiting if needed."""

        def matches(event: dict[str, Any]) -> bool:
            return event.get("type") == event_type and (predicate is None or predicate(event))

        for event in self.events[after:]:
            if matches(event):
                return event
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._event_waiters.append((matches, future))
        return await asyncio.wait_for(future, timeout)

    # ------------------------------------------------------------------ typed helpers

    async def prompt(self, message: str, **fields: Any) -> Any:
        return await self.call("prompt", message=message, **fields)

    async def steer(self, message: str) -> Any:
        return await self.call("steer", message=message)

    async def follow_up(self, message: str) -> Any:
        return await self.call("follow_up", message=message)

    async def abort(self) -> Any:
        return await self.call("abort")

    async def get_state(self) -> dict[str, Any]:
        return await self.call("get_state")

    async def get_messages(self) -> list[dict[str, Any]]:
        return (await self.call("get_messages"))["messages"]

    async def get_last_assistant_text(self) -> str | None:
        return (await self.call("get_last_assistant_text"))["text"]

    async def run_prompt(self, message: str, timeout: float = 30.0) -> dict[str, Any]:
        """Send a prompt and wait for its `agent_end`."""
        start = len(self.events)
        await self.prompt(message)
        return await self.wait_for("agent_end", timeout, after=start)
