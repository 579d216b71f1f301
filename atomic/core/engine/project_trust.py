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
    """Start the configured MCP servers in the background (the project's only when trusted)."""
    if session.project_trust is None or options.tools == []:  # --no-tools: no tools at all, MCP's included
        return
    from atomic.core.mcp import create_mcp_manager

    manager = create_mcp_manager(
        session.cwd, session.agent_dir, session.settings_manager, session.project_trust, extra=options.mcp_servers
    )
    if manager is not None:
        session.set_mcp(manager)
        manager.start()


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
    if trust.trusted and session.extensions is not None and not options.no_extensions:
        from atomic.core.extensions.loader import load_extension, project_extension_paths

        loaded = {ext.path for ext in session.extensions.extensions}
        for path in project_extension_paths(session.cwd):
            if str(path.resolve()) not in loaded:
                await load_extension(session.extensions, path.resolve())
