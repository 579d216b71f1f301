"""The project trust decision as the single switch for everything a project brings.

The factory decides once, before anything project-side loads (`decide_project_trust`); an interactive
frontend that asks the user later applies the answer with `apply_project_trust`, which loads (or
stops using) the project's settings, templates, skills, context files, extensions and MCP servers.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from atomic.core.project_offer import ProjectOffer, project_offer
from atomic.core.trust import HOW_TO_TRUST, ProjectTrust, resolve_trust

if TYPE_CHECKING:
    from atomic.core.engine.options import SessionOptions
    from atomic.core.engine.session import AgentSession
    from atomic.core.extensions.runtime import ExtensionRuntime
    from atomic.core.settings import SettingsManager


def decide_project_trust(
    settings: SettingsManager, options: SessionOptions, cwd: Path, agent_dir: Path
) -> ProjectTrust:
    """Decide from the flag, the user's own `defaultProjectTrust` and trust.json; merge the project's
    settings file only when the answer is yes."""
    setting = settings.global_raw().get("defaultProjectTrust")
    trust = resolve_trust(
        cwd,
        agent_dir,
        setting=setting if isinstance(setting, str) else None,
        approve=options.approve,
    )
    settings.set_project_trusted(trust.trusted)
    return trust


def start_mcp(session: AgentSession, options: SessionOptions) -> None:
    """Start the configured MCP servers in the background (the project's only when trusted).
    The configuration is parsed only when some place may hold a server, and the manager (with
    what it imports) loads only when one does."""
    if session.project_trust is None or options.tools == []:  # --no-tools: no tools at all, MCP's included
        return
    from atomic.core.mcp.sources import any_configured

    user_settings = session.settings_manager.global_raw()
    project_settings = session.settings_manager.project_raw()
    if not any_configured(
        session.cwd,
        session.agent_dir,
        user_settings=user_settings,
        project_settings=project_settings,
        extra=options.mcp_servers,
    ):
        return
    from atomic.core.mcp.config import load_mcp_config

    config = load_mcp_config(
        session.cwd,
        session.agent_dir,
        user_settings=user_settings,
        project_settings=project_settings,
        project_trusted=session.project_trust.trusted,
        extra=options.mcp_servers,
    )
    if not (config.servers or config.untrusted or config.disabled or config.problems):
        return
    from atomic.core.mcp.manager import create_mcp_manager

    manager = create_mcp_manager(config, session.cwd, session.agent_dir, session.settings_manager)
    session.set_mcp(manager)
    manager.start()


def _extension_runtime(session: AgentSession, options: SessionOptions) -> ExtensionRuntime:
    """The session's extension runtime, built on first need: a start that finds no extension
    never imports the runtime, and `session.extensions` None means "none loaded"."""
    if session.extensions is None:
        from atomic.core.extensions.runtime import ExtensionRuntime

        session.attach_extensions(ExtensionRuntime(session, flag_values=dict(options.extension_flags)))
    assert session.extensions is not None
    return session.extensions


async def start_extensions(session: AgentSession, options: SessionOptions) -> None:
    """Load the extensions found at start (global, the project's when trusted, `-e` paths), then
    run `session_start`. Nothing found and nothing asked for: no runtime, nothing imported."""
    if options.no_extensions and not options.extensions:
        return
    from atomic.core.extensions.discovery import extension_paths

    trusted = session.project_trust is not None and session.project_trust.trusted
    paths, problems = extension_paths(
        session.cwd, session.agent_dir, list(options.extensions), options.no_extensions, include_project=trusted
    )
    if not (paths or problems):
        return
    from atomic.core.extensions.loader import load_extensions

    await load_extensions(_extension_runtime(session, options), paths, problems)


def skipped_offer(session: AgentSession) -> ProjectOffer:
    """What the project would bring but did not load (empty when trusted). Looked up once per
    decision: `get_state` may be called after every prompt and the folders do not need re-walking."""
    if session.project_skipped is None:
        trust = session.project_trust
        trusted = trust is not None and trust.trusted
        session.remember_skipped(ProjectOffer() if trusted else project_offer(session.cwd, session.agent_dir))
    assert session.project_skipped is not None
    return session.project_skipped


def untrusted_notice(session: AgentSession, offer: ProjectOffer | None = None) -> str | None:
    """The one line a non-interactive mode prints when `ask` left the folder undecided and it
    brings something; None otherwise (an explicit "no" is not announced)."""
    trust = session.project_trust
    if trust is None or not trust.undecided:
        return None
    offer = offer if offer is not None else skipped_offer(session)
    if offer.empty:
        return None
    names = [s.name for s in offer.mcp_servers]
    detail = f" (MCP: {', '.join(names)})" if names else ""
    return (
        f"this folder is not trusted, so its project resources were not loaded: {', '.join(offer.skipped())}"
        f"{detail}. To use them, {HOW_TO_TRUST}."
    )


async def apply_project_trust(session: AgentSession, options: SessionOptions, trust: ProjectTrust) -> None:
    """Use `trust` from now on: reload the project's settings, resources and MCP servers to match.

    Extensions already imported cannot be unloaded: a project that stops being trusted keeps
    them until the next start (the TUI says so)."""
    was_trusted = session.project_trust is not None and session.project_trust.trusted
    session.set_project_trust(trust)
    session.settings_manager.set_project_trusted(trust.trusted)
    if session.resources is not None:
        session.resources.include_project = trust.trusted
        session.resources.reload()
    if not options.no_context_files:
        from atomic.core.resources.context_files import load_context_files

        session.set_context_files(load_context_files(session.cwd, session.agent_dir, include_project=trust.trusted))
    session.refresh_system_prompt()
    if trust.trusted == was_trusted:
        return
    if options.tools != []:
        if session.mcp is not None:
            await session.mcp.shutdown()
            session.set_mcp(None)
        start_mcp(session, options)
    if trust.trusted and not options.no_extensions:
        from atomic.core.extensions.discovery import project_extension_paths

        loaded = {ext.path for ext in session.extensions.extensions} if session.extensions is not None else set()
        new = [path.resolve() for path in project_extension_paths(session.cwd)]
        new = [path for path in new if str(path) not in loaded]
        if new:
            from atomic.core.extensions.loader import load_extension

            runtime = _extension_runtime(session, options)
            for path in new:
                await load_extension(runtime, path)
