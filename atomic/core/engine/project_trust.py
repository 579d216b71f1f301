"""`ProjectTrust`: the project trust decision as the single switch for everything a project brings.

The factory decides once, before anything project-side loads (`ProjectTrust.decide_at_start`); an
interactive frontend that asks the user later applies the answer with `decide`, which saves it in
trust.json and loads (or stops using) the project's settings, templates, skills, context files,
extensions and MCP servers.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from atomic.core.extensions.host import ExtensionHost
from atomic.core.project_offer import ProjectOffer, project_offer
from atomic.core.trust import HOW_TO_TRUST, TrustDecision, TrustStore, resolve_trust

if TYPE_CHECKING:
    from atomic.core.engine.options import SessionOptions
    from atomic.core.extensions.runtime import ExtensionRuntime
    from atomic.core.mcp.manager import McpManager
    from atomic.core.settings import SettingsManager

# How a user answers the project trust question: save yes/no, yes for this run, or forget the saved answer.
TrustChoice = Literal["trust", "deny", "once", "forget"]


class TrustHost(ExtensionHost, Protocol):
    """What switching the project's resources on and off needs from the session around it."""

    @property
    def settings_manager(self) -> SettingsManager: ...

    extensions: ExtensionRuntime | None
    mcp: McpManager | None
    mcp_notice_sink: Callable[[str], None] | None


class ProjectTrust:
    """The decision in effect for the working folder, and what follows from it."""

    def __init__(self, host: TrustHost, options: SessionOptions, decision: TrustDecision) -> None:
        self._host = host
        self._options = options
        self.decision = decision
        # What the project brings that was not loaded; looked up once per decision (None: not yet).
        self._skipped: ProjectOffer | None = None

    @staticmethod
    def decide_at_start(
        settings: SettingsManager, options: SessionOptions, cwd: Path, agent_dir: Path
    ) -> TrustDecision:
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

    @property
    def trusted(self) -> bool:
        return self.decision.trusted

    # -------------------------------------------------------------- what the project brings

    def start_mcp(self) -> None:
        """Start the configured MCP servers in the background (the project's only when trusted).
        The configuration is parsed only when some place may hold a server, and the manager (with
        what it imports) loads only when one does."""
        host, options = self._host, self._options
        if options.tools == []:  # --no-tools: no tools at all, MCP's included
            return
        from atomic.core.mcp.sources import any_configured

        user_settings = host.settings_manager.global_raw()
        project_settings = host.settings_manager.project_raw()
        extra = options.mcp_servers
        if not any_configured(
            host.cwd, host.agent_dir, user_settings=user_settings, project_settings=project_settings, extra=extra
        ):
            return
        from atomic.core.mcp.config import load_mcp_config

        config = load_mcp_config(
            host.cwd, host.agent_dir, user_settings=user_settings, project_settings=project_settings,
            project_trusted=self.trusted, extra=extra,
        )
        if not (config.servers or config.untrusted or config.disabled or config.problems):
            return
        from atomic.core.mcp.manager import create_mcp_manager

        manager = create_mcp_manager(config, host.cwd, host.agent_dir, host.settings_manager)
        self._set_mcp(manager)
        manager.start()

    def _set_mcp(self, manager: McpManager | None) -> None:
        host = self._host
        host.mcp = manager
        if manager is not None:
            from atomic.core.extensions.ui import ExtensionUI

            # A server's questions use the same dialogs as extensions (TUI, RPC extension_ui_request).
            manager.set_dialogs(ExtensionUI(host.extension_ui, "mcp"))
            if host.mcp_notice_sink is not None:
                manager.set_notice_sink(host.mcp_notice_sink)

    def _extension_runtime(self) -> ExtensionRuntime:
        """The session's extension runtime, built on first need: a start that finds no extension
        never imports the runtime, and `extensions` None means "none loaded"."""
        host = self._host
        if host.extensions is None:
            from atomic.core.extensions.runtime import ExtensionRuntime

            host.extensions = ExtensionRuntime(host, flag_values=dict(self._options.extension_flags))
        assert host.extensions is not None
        return host.extensions

    async def start_extensions(self) -> None:
        """Load the extensions found at start (global, the project's when trusted, `-e` paths), then
        run `session_start`. Nothing found and nothing asked for: no runtime, nothing imported."""
        options = self._options
        if options.no_extensions and not options.extensions:
            return
        from atomic.core.extensions.discovery import extension_paths

        paths, problems = extension_paths(
            self._host.cwd, self._host.agent_dir, list(options.extensions), options.no_extensions,
            include_project=self.trusted,
        )
        if not (paths or problems):
            return
        from atomic.core.extensions.loader import load_extensions

        await load_extensions(self._extension_runtime(), paths, problems)

    def skipped(self) -> ProjectOffer:
        """What the project would bring but did not load (empty when trusted). Looked up once per
        decision: `get_state` may be called after every prompt and the folders do not need re-walking."""
        if self._skipped is None:
            self._skipped = ProjectOffer() if self.trusted else self.project_resources()
        return self._skipped

    def project_resources(self) -> ProjectOffer:
        """Everything the folder brings, loaded or not (the /trust screen lists it)."""
        return project_offer(self._host.cwd, self._host.agent_dir)

    def saved_here(self) -> bool:
        """True when trust.json holds a decision for this very folder (so it can be forgotten)."""
        saved = TrustStore(self._host.agent_dir).lookup(self._host.cwd)
        return saved is not None and saved[0] == self._host.cwd.resolve()

    def loaded_extensions(self) -> list[str]:
        """File names of the loaded extensions the project folder brings (`.atomic/extensions/`): they
        keep running after trust is withdrawn, until Atomic restarts."""
        from atomic.core.extensions.discovery import project_extension_paths

        runtime = self._host.extensions
        if runtime is None:
            return []
        project = {str(path.resolve()) for path in project_extension_paths(self._host.cwd)}
        return [Path(e.path).name for e in runtime.extensions if e.path in project]

    def untrusted_notice(self) -> str | None:
        """The one line a non-interactive mode prints when `ask` left the folder undecided and it
        brings something; None otherwise (an explicit "no" is not announced)."""
        if not self.decision.undecided:
            return None
        offer = self.skipped()
        if offer.empty:
            return None
        names = [s.name for s in offer.mcp_servers]
        detail = f" (MCP: {', '.join(names)})" if names else ""
        return (
            f"this folder is not trusted, so its project resources were not loaded: {', '.join(offer.skipped())}"
            f"{detail}. To use them, {HOW_TO_TRUST}."
        )

    # -------------------------------------------------------------- changing the decision

    async def decide(self, choice: TrustChoice) -> TrustDecision:
        """Apply the user's answer: save it (except "once"), then load or stop using what the
        project brings. Raises OSError or ValueError when trust.json could not be written (nothing
        changed)."""
        host = self._host
        folder = host.cwd.resolve()
        store = TrustStore(host.agent_dir)
        if choice in ("trust", "deny"):
            store.save(folder, choice == "trust")
        elif choice == "forget":
            store.forget(folder)
        if choice == "once":
            new = self.decision.trusted_once()
        elif choice == "forget":
            setting = host.settings_manager.global_raw().get("defaultProjectTrust")
            new = resolve_trust(folder, host.agent_dir, setting=setting if isinstance(setting, str) else None)
        else:
            new = TrustDecision(folder, choice == "trust", "saved", decided_by=folder)
        await self.apply(new)
        return new

    async def apply(self, decision: TrustDecision) -> None:
        """Use `decision` from now on: reload the project's settings, resources and MCP servers to match.

        Extensions already imported cannot be unloaded: a project that stops being trusted keeps
        them until the next start (the TUI says so)."""
        host, options = self._host, self._options
        was_trusted = self.trusted
        self.decision = decision
        self._skipped = None
        host.settings_manager.set_project_trusted(decision.trusted)
        toolset = host.toolset
        if toolset.resources is not None:
            toolset.resources.include_project = decision.trusted
            toolset.resources.reload()
        if not options.no_context_files:
            from atomic.core.resources.context_files import load_context_files

            toolset.set_context_files(load_context_files(host.cwd, host.agent_dir, include_project=decision.trusted))
        toolset.refresh_system_prompt()
        if decision.trusted == was_trusted:
            return
        if options.tools != []:
            if host.mcp is not None:
                await host.mcp.shutdown()
                self._set_mcp(None)
            self.start_mcp()
        if decision.trusted and not options.no_extensions:
            await self._load_project_extensions()

    async def _load_project_extensions(self) -> None:
        from atomic.core.extensions.discovery import project_extension_paths

        host = self._host
        loaded = {ext.path for ext in host.extensions.extensions} if host.extensions is not None else set()
        new = [path.resolve() for path in project_extension_paths(host.cwd)]
        new = [path for path in new if str(path) not in loaded]
        if new:
            from atomic.core.extensions.loader import load_extension

            runtime = self._extension_runtime()
            for path in new:
                await load_extension(runtime, path)

