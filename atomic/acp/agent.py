"""The ACP agent: protocol methods mapped onto engine sessions, one engine session per ACP session."""

from __future__ import annotations

import asyncio
import dataclasses
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, RequestError
from acp.schema import (
    AgentCapabilities,
    AuthenticateResponse,
    AuthMethodAgent,
    CloseSessionResponse,
    EnvVarAuthMethod,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    ResumeSessionResponse,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SessionResumeCapabilities,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    TerminalAuthMethod,
)

from atomic import __version__
from atomic.acp.client_files import ClientFiles
from atomic.acp.config import apply_option, apply_thinking_level, config_options, thinking_modes
from atomic.acp.prompt_blocks import flatten_prompt
from atomic.acp.replay import replay
from atomic.acp.session_bridge import SessionBridge
from atomic.core.contract import (
    Engine,
    PromptRejected,
    SessionOptions,
    StartupError,
    find_session_file,
    has_usable_model,
    list_session_summaries,
    open_engine,
    parse_acp_servers,
    session_folder,
)

ACP_PROTOCOL_VERSION = 1


def _log(text: str) -> None:
    print(f"atomic acp: {text}", file=sys.stderr, flush=True)


class AtomicAcpAgent:
    def __init__(self, template: SessionOptions) -> None:
        # CLI flags given to `atomic --mode acp` apply to every session; cwd and the file vary.
        self.template = template
        self.conn: Any = None
        self.sessions: dict[str, SessionBridge] = {}
        self.client_fs: Any = None  # the client's fs capabilities from initialize

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    # ------------------------------------------------------------------ setup

    async def initialize(self, protocol_version: int, client_capabilities: Any = None, client_info: Any = None,
                         **_kwargs: Any) -> InitializeResponse:
        self.client_fs = client_capabilities.fs if client_capabilities is not None else None
        return InitializeResponse(
            protocol_version=min(protocol_version, ACP_PROTOCOL_VERSION, PROTOCOL_VERSION),
            agent_info=Implementation(name="atomic", title="Atomic", version=__version__),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(image=True, embedded_context=True),
                mcp_capabilities=McpCapabilities(http=True),
                session_capabilities=SessionCapabilities(
                    list=SessionListCapabilities(),
                    resume=SessionResumeCapabilities(),
                    close=SessionCloseCapabilities(),
                ),
            ),
            auth_methods=[] if await asyncio.to_thread(self._has_usable_model) else _login_methods(),
        )

    def _has_usable_model(self) -> bool:
        if self.template.provider == "scripted" or self.template.scripted is not None:
            return True
        return has_usable_model(self.template.agent_dir)

    async def authenticate(self, method_id: str, **_kwargs: Any) -> AuthenticateResponse:
        return AuthenticateResponse()

    # ------------------------------------------------------------------ sessions

    async def _open(
        self, cwd: str, *, session_file: Path | None = None, mcp_servers: list[Any] | None = None
    ) -> SessionBridge:
        folder = Path(cwd)
        if not folder.is_absolute() or not folder.is_dir():
            raise RequestError.invalid_params({"details": f"cwd must be an existing absolute folder: {cwd}"})
        # The editor's MCP servers join the user's own; like them, they need no project trust.
        servers, problems = parse_acp_servers(
            [s.model_dump(mode="json", by_alias=True, exclude_none=True) for s in mcp_servers or []]
        )
        for problem in problems:
            _log(problem)
        options = dataclasses.replace(
            self.template, cwd=folder, session=str(session_file) if session_file else None,
            continue_recent=False, fork=None, default_permission_mode="ask",
            mcp_servers=[*self.template.mcp_servers, *servers],
        )
        try:
            engine = await open_engine(options)
        except StartupError as exc:
            raise RequestError.internal_error({"details": str(exc)}) from exc
        for warning in engine.startup_warnings:
            _log(warning)
        notice = engine.untrusted_notice()
        if notice is not None:
            _log(notice)
        # Each MCP server that fails to start is named in one stderr line (stdout is the protocol's).
        engine.set_mcp_notice_sink(_log)
        if self.client_fs is not None and (self.client_fs.read_text_file or self.client_fs.write_text_file):
            engine.set_editor_files(ClientFiles(
                self.conn, engine.session_id, folder.resolve(),
                can_read=bool(self.client_fs.read_text_file), can_write=bool(self.client_fs.write_text_file),
            ))
        bridge = SessionBridge(self.conn, engine, engine.session_id)
        self.sessions[bridge.session_id] = bridge
        return bridge

    def _bridge(self, session_id: str) -> SessionBridge:
        bridge = self.sessions.get(session_id)
        if bridge is None:
            raise RequestError.invalid_params({"details": f"Unknown session {session_id}"})
        return bridge

    def _find_file(self, cwd: str, session_id: str) -> Path:
        path = find_session_file(session_id, session_folder(Path(cwd), self.template.session_dir))
        if path is None:
            raise RequestError.invalid_params({"details": f"No stored session {session_id}"})
        return path

    def _announce(self, bridge: SessionBridge) -> None:
        bridge.send_commands()
        bridge.send_usage()

    async def new_session(self, cwd: str, mcp_servers: list[Any] | None = None, **_kwargs: Any) -> NewSessionResponse:
        bridge = await self._open(cwd, mcp_servers=mcp_servers)
        self._announce(bridge)
        return NewSessionResponse(session_id=bridge.session_id, modes=thinking_modes(bridge.engine),
                                  config_options=config_options(bridge.engine))

    async def load_session(self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None,
                           **_kwargs: Any) -> LoadSessionResponse:
        await self._drop(session_id)
        bridge = await self._open(cwd, session_file=self._find_file(cwd, session_id), mcp_servers=mcp_servers)
        replay(bridge)
        self._announce(bridge)
        await bridge.flush()
        return LoadSessionResponse(modes=thinking_modes(bridge.engine), config_options=config_options(bridge.engine))

    async def resume_session(self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None,
                             **_kwargs: Any) -> ResumeSessionResponse:
        bridge = self.sessions.get(session_id)
        if bridge is None:
            bridge = await self._open(cwd, session_file=self._find_file(cwd, session_id), mcp_servers=mcp_servers)
            self._announce(bridge)
        return ResumeSessionResponse(modes=thinking_modes(bridge.engine), config_options=config_options(bridge.engine))

    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None,
                            **_kwargs: Any) -> ListSessionsResponse:
        found = await asyncio.to_thread(
            list_session_summaries, session_folder(Path(cwd), self.template.session_dir) if cwd else None
        )
        return ListSessionsResponse(sessions=[
            SessionInfo(
                session_id=info.id, cwd=info.cwd, title=info.name or info.first_message or None,
                updated_at=datetime.fromtimestamp(info.modified, UTC).isoformat().replace("+00:00", "Z"),
            )
            for info in found
        ])

    async def _drop(self, session_id: str) -> None:
        bridge = self.sessions.pop(session_id, None)
        if bridge is not None:
            await bridge.engine.shutdown()
            await bridge.close()

    async def close_session(self, session_id: str, **_kwargs: Any) -> CloseSessionResponse:
        self._bridge(session_id)
        await self._drop(session_id)
        return CloseSessionResponse()

    async def shutdown(self) -> None:
        for session_id in list(self.sessions):
            await self._drop(session_id)

    # ------------------------------------------------------------------ settings

    async def set_config_option(self, config_id: str, session_id: str, value: str | bool,
                                **_kwargs: Any) -> SetSessionConfigOptionResponse:
        bridge = self._bridge(session_id)
        apply_option(bridge.engine, config_id, value)
        return SetSessionConfigOptionResponse(config_options=config_options(bridge.engine))

    async def set_session_mode(self, session_id: str, mode_id: str, **_kwargs: Any) -> SetSessionModeResponse:
        apply_thinking_level(self._bridge(session_id).engine, mode_id)
        return SetSessionModeResponse()

    # ------------------------------------------------------------------ prompting

    async def prompt(self, session_id: str, prompt: list[Any], **_kwargs: Any) -> PromptResponse:
        bridge = self._bridge(session_id)
        async with bridge.prompt_lock:
            bridge.cancelled = False
            text, images = flatten_prompt(prompt)
            engine = bridge.engine
            if await self._builtin_command(bridge, text):
                await bridge.flush()
                return PromptResponse(stop_reason="end_turn")
            settled = bridge.expect_settle()
            try:
                await engine.prompt(text, images, source="acp")
            except PromptRejected as exc:
                raise RequestError.invalid_request({"details": str(exc)}) from exc
            if engine.is_streaming:
                await settled
            await bridge.flush()
            reason, error = bridge.stop_reason()
            if error is not None:
                raise RequestError.internal_error({"details": error})
            return PromptResponse(stop_reason=reason)

    async def _builtin_command(self, bridge: SessionBridge, text: str) -> bool:
        engine: Engine = bridge.engine
        word, _, rest = text.strip().partition(" ")
        if word == "/compact":
            try:
                await engine.compact()
            except Exception as exc:
                raise RequestError.internal_error({"details": str(exc)}) from exc
            bridge.send_usage()
            return True
        if word == "/name" and rest.strip():
            engine.set_session_name(rest.strip())
            return True
        return False

    async def cancel(self, session_id: str, **_kwargs: Any) -> None:
        bridge = self.sessions.get(session_id)
        if bridge is None:
            return
        bridge.cancelled = True
        await bridge.engine.abort(continue_queue=False)


def _login_methods() -> list[EnvVarAuthMethod | TerminalAuthMethod | AuthMethodAgent]:
    """What the client can run in a terminal to give Atomic a model: the guided start, and each
    subscription login (`atomic --login <provider>`: the device code or browser address is shown there)."""
    from atomic.core.contract import subscription_logins

    methods: list[EnvVarAuthMethod | TerminalAuthMethod | AuthMethodAgent] = [
        TerminalAuthMethod(
            id="atomic-login", name="Log in to a model provider", type="terminal", args=[],
            description="Opens Atomic in a terminal; its guided start stores a key with /login.",
        )
    ]
    for login in subscription_logins():
        methods.append(TerminalAuthMethod(
            id=f"login-{login.provider}", name=f"Log in with {login.display_name}", type="terminal",
            args=["--login", login.provider], description=login.title,
        ))
    return methods
