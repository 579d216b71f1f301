"""Opening an AgentSession from SessionOptions: settings, session file, model, tools, resources."""

from __future__ import annotations

from pathlib import Path

from atomic.core.engine.errors import StartupError
from atomic.core.engine.model_selection import SCRIPTED_PROVIDER, scripted_model
from atomic.core.engine.options import SessionOptions
from atomic.core.engine.session import AgentSession
from atomic.core.paths import agent_dir as default_agent_dir
from atomic.core.paths import default_session_dir
from atomic.core.permissions import parse_mode
from atomic.core.permissions.rule_files import rule_problems
from atomic.core.private_files import ensure_private_dir
from atomic.core.sandbox.policy import parse_sandbox_mode
from atomic.core.sandbox.probe import shared_probe
from atomic.core.session.listing import find_session, list_sessions
from atomic.core.session.store import SessionFileError, SessionStore
from atomic.core.settings import SettingsManager


def _session_dir(options: SessionOptions, settings: SettingsManager, cwd: Path) -> Path | None:
    if options.no_session:
        return None
    return default_session_dir(cwd, options.session_dir, settings.settings.session_dir)


def _open_store(options: SessionOptions, session_dir: Path | None, cwd: Path) -> tuple[SessionStore, bool]:
    """The session to start with, and whether it was resumed (its model and level come back)."""
    lookup_dir = session_dir or default_session_dir(cwd)
    if options.fork:
        source_path = find_session(options.fork, lookup_dir)
        if source_path is None:
            raise StartupError(f"No session found for --fork {options.fork}")
        source = SessionStore.open(source_path)
        store = SessionStore.create(session_dir or lookup_dir, cwd, str(source_path))
        for record in source.path_to():
            store.append_existing(dict(record.data))
        store.flush()
        return store, True
    if options.session:
        path = find_session(options.session, lookup_dir)
        if path is None:
            raise StartupError(f"No session found for --session {options.session}")
        return SessionStore.open(path, cwd), True
    if options.continue_recent and session_dir is not None:
        for info in list_sessions(session_dir):
            try:
                # A damaged file opens too (recovered, with a backup): only an unreadable one is passed over.
                return SessionStore.open(info.path, cwd), True
            except SessionFileError:
                continue
    return SessionStore.create(session_dir, cwd), False


def _choose_model(session: AgentSession, options: SessionOptions) -> str | None:
    """Pick the starting model. Returns a thinking level requested by a `model:level` pattern."""
    from atomic.core.models.resolver import (
        ModelResolutionError,
        choose_initial_model,
        resolve_model,
        resolve_scoped_models,
    )

    settings = session.settings
    models = session.models
    if options.scripted is not None:
        models.start_with(models.use_scripted(options.scripted))
        return None
    wants_scripted = (options.provider or "").lower() == SCRIPTED_PROVIDER or (options.model or "").startswith(
        "scripted"
    )
    if wants_scripted:
        model = models.find_model(SCRIPTED_PROVIDER, "scripted-model") or scripted_model()
        models.add_extra_model(model)
        models.start_with(model)
        return None
    warnings: list[str] = []
    patterns = options.scoped_models or settings.enabled_models or []
    if patterns:
        models.set_scoped(resolve_scoped_models(models.registry, patterns, warnings=warnings))
    session.startup_warnings.extend(warnings)
    scoped = models.scoped
    level = None
    try:
        blocked = None
        if not (options.model or options.provider or scoped):
            blocked = models.block_on_saved_default(settings.default_provider, settings.default_model)
        if options.model:
            resolved = resolve_model(models.registry, options.model, provider=options.provider)
            models.start_with(resolved.model)
            level = resolved.thinking_level
        elif blocked is not None:
            session.startup_warnings.append(blocked)
            models.start_with(None)  # never another model in its place
        else:
            chosen = choose_initial_model(
                models.registry,
                cli_provider=options.provider,
                default_provider=settings.default_provider,
                default_model=settings.default_model,
                scoped=scoped,
            )
            models.start_with(chosen)
            if chosen is not None and scoped and chosen.key == scoped[0][0].key:
                level = scoped[0][1]
    except ModelResolutionError as exc:
        raise StartupError(str(exc)) from exc
    if options.api_key:
        if models.model is None:
            raise StartupError("--api-key needs a model: pass --model (or --provider)")
        models.registry.set_runtime_api_key(models.model.provider, options.api_key)
    return level


def _load_resources(session: AgentSession, options: SessionOptions) -> None:
    from atomic.core.resources.context_files import load_context_files
    from atomic.core.resources.input_expansion import ResourceCatalog
    from atomic.core.resources.system_prompt import build_system_prompt
    from atomic.core.tools.registry import DEFAULT_TOOL_NAMES, create_builtin_tools

    names = options.tools if options.tools is not None else list(DEFAULT_TOOL_NAMES)
    try:
        tools = create_builtin_tools(names)
    except ValueError as exc:
        raise StartupError(str(exc)) from exc
    trusted = session.trust.trusted
    if any(tool.name == "task" for tool in tools):
        from atomic.core.engine.subagent_setup import build_subagents
        from atomic.core.tools.task import TaskTool

        session.subagents = build_subagents(session, include_project=trusted)
        agents = list(session.subagents.agents.values())
        tools = [TaskTool(agents) if tool.name == "task" else tool for tool in tools]
    toolset = session.toolset
    toolset.install_tools(tools)
    catalog = ResourceCatalog(
        session.cwd,
        session.agent_dir,
        prompt_template_paths=options.prompt_templates,
        skill_paths=options.skills,
        no_prompt_templates=options.no_prompt_templates,
        no_skills=options.no_skills,
        include_project=trusted,
    )
    context_files = (
        [] if options.no_context_files else load_context_files(session.cwd, session.agent_dir, include_project=trusted)
    )
    session.startup_warnings.extend(str(d) for d in catalog.diagnostics)

    def rebuild() -> str:
        tools_now = toolset.active_tools()
        return build_system_prompt(
            cwd=session.cwd,
            agent_dir=session.agent_dir,
            tools=[(t.name, t.prompt_snippet or t.description.split("\n")[0]) for t in tools_now],
            context_files=toolset.context_files,
            skills=catalog.skills,
            custom_prompt=options.system_prompt,
            append_prompts=options.append_system_prompt,
            read_tool_active="read" in toolset.active_tool_names,
            include_project=session.trust.trusted,
        )

    toolset.use_resources(catalog, context_files, rebuild)


async def create_session(options: SessionOptions) -> AgentSession:
    cwd = options.cwd.resolve()
    agent = options.agent_dir or default_agent_dir()
    ensure_private_dir(agent)
    # The sandbox's probe runs a process: started first, it overlaps the rest of start-up.
    shared_probe()
    from atomic.core.engine.project_trust import ProjectTrust

    # Trust is decided first: until then (and when untrusted) the project's settings file is not merged.
    settings = SettingsManager(agent, cwd)
    trust = ProjectTrust.decide_at_start(settings, options, cwd, agent)
    session_dir = _session_dir(options, settings, cwd)
    try:
        store, resumed = _open_store(options, session_dir, cwd)
    except StartupError:
        raise
    except Exception as exc:
        raise StartupError(str(exc)) from exc
    session = AgentSession(
        cwd=cwd, agent_dir=agent, settings=settings, store=store, session_dir=session_dir, options=options, trust=trust
    )
    session.startup_warnings.extend(settings.errors)
    session.startup_warnings.extend(rule_problems(settings))
    session.startup_warnings.extend(store.warnings)
    session.startup_warnings.extend(session.models.registry.errors)
    level = _choose_model(session, options)
    try:
        session.permissions.mode = parse_mode(
            options.permission_mode or settings.settings.permission_mode or options.default_permission_mode
        )
    except ValueError as exc:
        raise StartupError(str(exc)) from exc
    _warm_shell_grammar(session)
    if options.sandbox_mode is not None:
        try:
            session.sandbox.mode_override = parse_sandbox_mode(options.sandbox_mode)
        except ValueError as exc:
            raise StartupError(str(exc)) from exc
    _load_resources(session, options)
    session.trust.start_mcp()
    session.reload_context()
    if resumed:
        session.restore_model_from_session()
        session.queue_journal.restore(session.store.records, session.queue_changed)
        if session.model is not None:
            # The resumed session's own model is used, not the saved default.
            session.models.clear_block()
    if session.model is not None:
        wanted = options.thinking or level
        if wanted is None and not (resumed and session.models.thinking_level != "off"):
            wanted = session.models.saved_level_for(session.model) or settings.settings.default_thinking_level or "medium"
        if wanted is not None:
            session.models.start_level(wanted)
        if not resumed or not store.records:
            session.models.record_current()
    await session.trust.start_extensions()
    if options.name:
        session.files.set_session_name(options.name)
    _sweep_old_temp_trees(session.store.session_id)
    return session


def _warm_shell_grammar(session: AgentSession) -> None:
    """Where bash calls will be judged (any mode but yolo, or rules), load the grammar in a daemon
    thread so the first approval does not wait for it."""
    if session.permissions.mode == "yolo" and not session.permissions.all_rules().deny:
        return
    import threading

    from atomic.core.permissions.shell_parse import warm_up

    threading.Thread(target=warm_up, name="atomic-shell-grammar", daemon=True).start()


def _sweep_old_temp_trees(live_session_id: str) -> None:
    """Delete bash spill trees older than 30 days, off the startup path (in a worker thread)."""
    import asyncio

    from atomic.core.temp_output import sweep_stale_session_dirs

    def sweep() -> None:
        try:
            sweep_stale_session_dirs({live_session_id})
        except OSError:
            pass

    asyncio.get_running_loop().run_in_executor(None, sweep)
