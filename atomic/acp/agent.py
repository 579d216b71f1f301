"""The ACP agent: protocol methods mapped onto engine sessions, one engine session per ACP session."""

from __future__ import annotations

import asyncio
import dataclasses
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from acp import helpers
from acp.schema import (
    AuthenticateResponse,
    ClientCapabilities,
    CloseSessionResponse,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    ResumeSessionResponse,
    SessionInfo,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
)

from atomic.acp.client_files import ClientFiles
from atomic.acp.client_terminal import ClientTerminal
from atomic.acp.config import apply_mode, apply_option, approval_modes, config_options
from atomic.acp.errors import internal_error, invalid_params, invalid_request
from atomic.acp.handshake import initialize_result, login_methods
from atomic.acp.mcp_commands import run_mcp_command
from atomic.acp.prompt_blocks import flatten_prompt
from atomic.acp.replay import replay
from atomic.acp.rewind_commands import rewind_command
from atomic.acp.session_bridge import SessionBridge
from atomic.acp.ui_dialogs import AcpDialogs
from atomic.core.contract import (
    COMPACT,
    NAME,
    Engine,
    PromptRejected,
    SessionOptions,
    StartupError,
    find_session_file,
    list_session_summaries,
    open_engine,
    parse_acp_servers,
    session_folder,
)


def _log(text: str) -> None:
    print(f"atomic acp: {text}", file=sys.stderr, flush=True)


class AtomicAcpAgent:
    def __init__(self, template: SessionOptions) -> None:
        # CLI flags given to `atomic --mode acp` apply to every session; cwd and the file vary.
        self.template = template
        self.conn: Any = None
        self.sessions: dict[str, SessionBridge] = {}
        self.client_fs: Any = None  # the client's fs capabilities from initialize
        self.client_elicits = False  # whether the client offers form elicitation
        self.client_terminals = False  # whether the client offers terminal/*
        self.dialogs: dict[str, AcpDialogs] = {}

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    # ------------------------------------------------------------------ setup

    async def initialize(self, protocol_version: int, client_capabilities: Any = None, client_info: Any = None,
                         **_kwargs: Any) -> InitializeResponse:
        self._remember(client_capabilities)
        methods = await asyncio.to_thread(login_methods, self.template)
        return InitializeResponse.model_validate(initialize_result(protocol_version, methods))

    def remember_client(self, params: dict[str, Any]) -> None:
        """The client's capabilities from an `initialize` the stdin pump answered (handshake.py)."""
        raw = params.get("clientCapabilities")
        try:
            capabilities = ClientCapabilities.model_validate(raw) if isinstance(raw, dict) else None
        except ValueError:
            capabilities = None
        self._remember(capabilities)

    def _remember(self, client_capabilities: Any) -> None:
        self.client_fs = client_capabilities.fs if client_capabilities is not None else None
        elicitation = client_capabilities.elicitation if client_capabilities is not None else None
        self.client_elicits = elicitation is not None and elicitation.form is not None
        self.client_terminals = bool(client_capabilities is not None and client_capabilities.terminal)

    async def authenticate(self, method_id: str, **_kwargs: Any) -> AuthenticateResponse:
        return AuthenticateResponse()

    # ------------------------------------------------------------------ sessions

    async def _open(
        self, cwd: str, *, session_file: Path | None = None, mcp_servers: list[Any] | None = None
    ) -> SessionBridge:
        folder = Path(cwd)
        if not folder.is_absolute() or not folder.is_dir():
            raise invalid_params(f"cwd must be an existing absolute folder: {cwd}")
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
            raise internal_error(str(exc)) from exc
        for warning in engine.startup_warnings:
            _log(warning)
        notice = engine.trust.untrusted_notice()
        if notice is not None:
            _log(notice)
        # Each MCP server that fails to start is named in one stderr line (stdout is the protocol's).
        engine.mcp.set_notice_sink(_log)
        if self.client_fs is not None and (self.client_fs.read_text_file or self.client_fs.write_text_file):
            engine.set_editor_files(ClientFiles(
                self.conn, engine.session_id, folder.resolve(),
                can_read=bool(self.client_fs.read_text_file), can_write=bool(self.client_fs.write_text_file),
            ))
        bridge = SessionBridge(self.conn, engine, engine.session_id)
        if self.client_terminals and engine.settings.acp.client_terminal:
            bridge.terminal = ClientTerminal(self.conn, engine.session_id, bridge.send)
            engine.set_editor_terminal(bridge.terminal)
        self.sessions[bridge.session_id] = bridge
        self.dialogs[bridge.session_id] = AcpDialogs(self.conn, engine, bridge.session_id,
                                                     can_elicit=self.client_elicits)
        return bridge

    def _bridge(self, session_id: str) -> SessionBridge:
        bridge = self.sessions.get(session_id)
        if bridge is None:
            raise invalid_params(f"Unknown session {session_id}")
        return bridge

    def _find_file(self, cwd: str, session_id: str) -> Path:
        path = find_session_file(session_id, session_folder(Path(cwd), self.template.session_dir))
        if path is None:
            raise invalid_params(f"No stored session {session_id}")
        return path

    def _announce(self, bridge: SessionBridge) -> None:
        bridge.send_commands()
        bridge.send_usage()
        bridge.background(self._announce_mcp_prompts(bridge))

    async def _announce_mcp_prompts(self, bridge: SessionBridge) -> None:
        # MCP servers connect after the session opens; their prompts become commands then.
        if await bridge.engine.mcp.wait_started() and self.sessions.get(bridge.session_id) is bridge:
            bridge.send_commands()

    async def new_session(self, cwd: str, mcp_servers: list[Any] | None = None, **_kwargs: Any) -> NewSessionResponse:
        bridge = await self._open(cwd, mcp_servers=mcp_servers)
        self._announce(bridge)
        return NewSessionResponse(session_id=bridge.session_id, modes=approval_modes(bridge.engine),
                                  config_options=config_options(bridge.engine))

    async def load_session(self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None,
                           **_kwargs: Any) -> LoadSessionResponse:
        await self._drop(session_id)
        bridge = await self._open(cwd, session_file=self._find_file(cwd, session_id), mcp_servers=mcp_servers)
        replay(bridge)
        self._announce(bridge)
        await bridge.flush()
        return LoadSessionResponse(modes=approval_modes(bridge.engine), config_options=config_options(bridge.engine))

    async def resume_session(self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None,
                             **_kwargs: Any) -> ResumeSessionResponse:
        bridge = self.sessions.get(session_id)
        if bridge is None:
            bridge = await self._open(cwd, session_file=self._find_file(cwd, session_id), mcp_servers=mcp_servers)
            self._announce(bridge)
        return ResumeSessionResponse(modes=approval_modes(bridge.engine), config_options=config_options(bridge.engine))

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
        dialogs = self.dialogs.pop(session_id, None)
        if dialogs is not None:
            dialogs.close()
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
        apply_mode(self._bridge(session_id).engine, mode_id)
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
                raise invalid_request(str(exc)) from exc
            if engine.is_streaming:
                await settled
            await bridge.flush()
            reason, error = bridge.stop_reason()
            if error is not None:
                raise internal_error(error)
            return PromptResponse(stop_reason=reason)

    async def _builtin_command(self, bridge: SessionBridge, text: str) -> bool:
        engine: Engine = bridge.engine
        word, _, rest = text.strip().partition(" ")
        if word == f"/{COMPACT.name}":
            try:
                await engine.compact()
            except Exception as exc:
                raise internal_error(str(exc)) from exc
            bridge.send_usage()
            return True
        if word == f"/{NAME.name}" and rest.strip():
            engine.sessions.set_session_name(rest.strip())
            return True
        if (reply := await rewind_command(engine, word, rest)) is not None:
            bridge.send(helpers.update_agent_message_text(reply))
            return True
        if word == "/mcp":
            await run_mcp_command(bridge, rest)
            return True
        return False

    async def cancel(self, session_id: str, **_kwargs: Any) -> None:
        bridge = self.sessions.get(session_id)
        if bridge is None:
            return
        bridge.cancelled = True
        await bridge.engine.abort(continue_queue=False)
