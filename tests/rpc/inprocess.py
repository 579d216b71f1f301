"""An RpcServer driven in-process: lines go to `handle_line`, stdout is a byte buffer.

Much faster than a subprocess, so property tests can run many examples; the framing of stdin
itself (splitting on newlines) is covered by the subprocess tests.
"""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

from atomic.core.contract import Engine
from atomic.core.engine.factory import create_session
from atomic.core.engine.options import SessionOptions
from atomic.core.engine.session import AgentSession
from atomic.core.providers.scripted import ScriptedProvider
from atomic.rpc.server import RpcServer


class InProcessRpc:
    def __init__(self, session: AgentSession, options: SessionOptions, provider: ScriptedProvider | None = None) -> None:
        # Tests look inside the engine (`self.session`); the server sees only the contract.
        self.session = session
        self.provider = provider
        self.stdout = io.BytesIO()
        self.server = RpcServer(Engine(session, options), self.stdout)

    @classmethod
    async def start(cls, cwd: Path, responses: list[dict[str, Any]] | None = None, **options: Any) -> InProcessRpc:
        provider = ScriptedProvider(responses or [])
        session_options = SessionOptions(cwd=cwd, scripted=provider, **options)
        session = await create_session(session_options)
        return cls(session, session_options, provider)

    async def send(self, *lines: str | bytes) -> None:
        """Hand each line (without its newline) to the server, then wait until all are answered."""
        for line in lines:
            self.server.handle_line(line.encode("utf-8", errors="surrogatepass") if isinstance(line, str) else line)
        await self.settle()

    async def settle(self) -> None:
        while self.server.tasks:
            await asyncio.gather(*list(self.server.tasks), return_exceptions=True)
        await self.session.wait_idle()
        while self.server.tasks:
            await asyncio.gather(*list(self.server.tasks), return_exceptions=True)
        self.server.out.flush()

    def raw_lines(self) -> list[bytes]:
        data = self.stdout.getvalue()
        assert data == b"" or data.endswith(b"\n")
        return data.split(b"\n")[:-1]

    def objects(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.raw_lines()]

    def responses(self) -> list[dict[str, Any]]:
        return [o for o in self.objects() if o.get("type") == "response"]

    async def close(self) -> None:
        await self.server.shutdown()
