"""The `atomic` command line: parse flags, then run the TUI, the RPC server, or print/json mode."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import types
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atomic import __version__

if TYPE_CHECKING:
    from atomic.core.contract import Engine


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="atomic",
        description="Atomic: a coding agent for the terminal. With no --mode it opens the interactive app.",
    )
    add = parser.add_argument
    add("messages", nargs="*", help="prompt text (in print mode, the messages to send in order)")
    add("--mode", choices=["text", "json", "rpc", "acp"], default=None,
        help="output mode: text (default), json, rpc, or acp (the Agent Client Protocol, for editors)")
    add("-p", "--print", action="store_true", help="answer the prompt, print the final reply and exit")
    add("-v", "--version", action="version", version=f"atomic {__version__}")
    sessions = parser.add_argument_group("sessions")
    sessions.add_argument("-c", "--continue", dest="continue_recent", action="store_true",
                          help="continue the newest session of this folder")
    sessions.add_argument("-r", "--resume", action="store_true", help="pick a session to resume (interactive)")
    sessions.add_argument("--session", help="open a session file (path or id prefix)")
    sessions.add_argument("--fork", help="copy a session (path or id prefix) into a new session here")
    sessions.add_argument("--session-dir", help="where session files are kept")
    sessions.add_argument("--no-session", action="store_true", help="keep the session in memory only")
    sessions.add_argument("-n", "--name", help="initial session name")
    sessions.add_argument("--export", nargs="+", metavar="FILE", help="export a session file to HTML and exit")
    models = parser.add_argument_group("models")
    models.add_argument("--provider", help="provider name (e.g. anthropic, openai, openrouter, scripted)")
    models.add_argument("--model", help="model id, provider/id, or a pattern, optionally with :level")
    models.add_argument("--api-key", help="API key for the selected model's provider (this run only)")
    models.add_argument("--thinking", help="thinking level: off, minimal, low, medium, high, xhigh, max")
    models.add_argument("--models", help="comma-separated models that Ctrl+P / cycle_model walk through")
    models.add_argument("--list-models", nargs="?", const="", default=None, metavar="SEARCH",
                        help="list models (optionally filtered; with --provider, one provider's) and exit")
    models.add_argument("--list-providers", action="store_true", help="list every provider and whether it is set up")
    models.add_argument("--json", action="store_true", help="with --list-models / --list-providers: JSON output")
    models.add_argument("--refresh-models", action="store_true",
                        help="fetch the current models.dev catalog into the agent dir and use it from then on")
    models.add_argument("--login", metavar="PROVIDER",
                        help="log in to a provider (GitHub Copilot, ChatGPT subscription, or store an API key)")
    res = parser.add_argument_group("tools and resources")
    res.add_argument("-t", "--tools", help="comma-separated tools to enable (read,bash,edit,write,grep,find,ls)")
    res.add_argument("-nt", "--no-tools", action="store_true", help="disable all tools")
    res.add_argument("-e", "--extension", action="append", default=[], help="load a Python extension (repeatable)")
    res.add_argument("-ne", "--no-extensions", action="store_true", help="do not discover extensions")
    res.add_argument("--skill", action="append", default=[], help="load a skill file or folder (repeatable)")
    res.add_argument("-ns", "--no-skills", action="store_true", help="do not discover skills")
    res.add_argument("--prompt-template", action="append", default=[], help="load a prompt template (repeatable)")
    res.add_argument("-np", "--no-prompt-templates", action="store_true", help="do not discover prompt templates")
    res.add_argument("-nc", "--no-context-files", action="store_true", help="skip AGENTS.md / CLAUDE.md")
    res.add_argument("--system-prompt", help="replace the system prompt (text or a file)")
    res.add_argument("--append-system-prompt", action="append", default=[], help="append to the system prompt")
    trust = res.add_mutually_exclusive_group()
    trust.add_argument("-a", "--approve", dest="approve", action="store_const", const=True, default=None,
                       help="trust this project for this run (its .mcp.json servers may start)")
    trust.add_argument("-na", "--no-approve", dest="approve", action="store_const", const=False,
                       help="do not trust this project for this run")
    # The engine's PERMISSION_MODES, spelled out so parsing the flags imports no engine module
    # (tests/rpc/test_plan_mode_rpc.py keeps the two lists equal).
    res.add_argument("--permission-mode", choices=["ask", "accept-edits", "yolo", "plan"], default=None,
                     help="which tool calls need your approval: ask (bash, write, edit, MCP), accept-edits "
                     "(bash, MCP), yolo (none; the default outside ACP) or plan (read-only until you "
                     "approve the model's plan)")
    res.add_argument("--sandbox", dest="sandbox_mode", choices=["workspace-write", "read-only", "off"], default=None,
                     help="where the model's commands may write: workspace-write (the project, temp, "
                     "sandbox.writableRoots; the default), read-only (temp only) or off (no sandbox)")
    res.add_argument("-nbt", "--no-builtin-tools", action="store_true",
                     help="disable the built-in tools (extension tools stay)")
    compat = parser.add_argument_group("pi compatibility")
    compat.add_argument("--import-pi", action="store_true",
                        help="copy models, settings, auth, prompt templates and skills from pi's agent dir, then exit")
    # Programs written for pi pass these; Atomic accepts them so they keep working (see IGNORED_PI_FLAGS).
    compat.add_argument("--no-themes", action="store_true", help=argparse.SUPPRESS)
    compat.add_argument("--theme", action="append", default=[], help=argparse.SUPPRESS)
    compat.add_argument("--verbose", action="store_true", help=argparse.SUPPRESS)
    compat.add_argument("--offline", action="store_true", help=argparse.SUPPRESS)
    return parser


# pi flags that mean nothing to Atomic: (argparse dest, flag, why it is ignored).
IGNORED_PI_FLAGS = (
    ("no_themes", "--no-themes", "Atomic has no theme files (themes are set with /settings)"),
    ("theme", "--theme", "Atomic has no theme files (themes are set with /settings)"),
    ("verbose", "--verbose", "Atomic prints its start-up warnings in every mode"),
    ("offline", "--offline", "Atomic makes no network calls besides the model provider's"),
)


def ignored_pi_flag_notes(args: argparse.Namespace) -> list[str]:
    return [
        f"note: {flag} is accepted for pi compatibility and ignored: {why}"
        for dest, flag, why in IGNORED_PI_FLAGS
        if vars(args).get(dest)
    ]


def options_from_args(args: argparse.Namespace, extra_flags: dict[str, Any]) -> Any:
    from atomic.core.engine.options import SessionOptions

    tools = None
    if args.no_tools or args.no_builtin_tools:
        tools = []
    elif args.tools:
        tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    return SessionOptions(
        cwd=Path.cwd(),
        provider=args.provider,
        model=args.model,
        thinking=args.thinking,
        api_key=args.api_key,
        scoped_models=[m.strip() for m in args.models.split(",")] if args.models else None,
        no_session=args.no_session,
        session_dir=args.session_dir,
        session=args.session,
        continue_recent=args.continue_recent,
        fork=args.fork,
        name=args.name,
        tools=tools,
        system_prompt=args.system_prompt,
        append_system_prompt=args.append_system_prompt,
        no_context_files=args.no_context_files,
        no_extensions=args.no_extensions,
        extensions=args.extension,
        no_skills=args.no_skills,
        skills=args.skill,
        no_prompt_templates=args.no_prompt_templates,
        prompt_templates=args.prompt_template,
        extension_flags=extra_flags,
        approve=args.approve,
        permission_mode=args.permission_mode,
        sandbox_mode=args.sandbox_mode,
    )


def _split_unknown(unknown: list[str]) -> tuple[dict[str, Any], str | None]:
    """Unknown `--flag [value]` pairs go to extensions; an unknown short option is an error."""
    flags: dict[str, Any] = {}
    i = 0
    while i < len(unknown):
        item = unknown[i]
        if item.startswith("--"):
            name, _, value = item[2:].partition("=")
            if not value and i + 1 < len(unknown) and not unknown[i + 1].startswith("-"):
                value = unknown[i + 1]
                i += 1
            flags[name] = value or True
        elif item.startswith("-"):
            return flags, f"Unknown option: {item}"
        i += 1
    return flags, None


def skip_pydantic_plugin_scan() -> None:
    """pydantic looks for plugins (package entry points) when it builds its first validator, which
    imports importlib.metadata, email, zipfile and csv and reads every installed package's metadata:
    tens of milliseconds of each start-up. Atomic uses no pydantic plugin, so the command line hands
    pydantic an empty plugin list instead (library use of the package is not affected)."""
    if "pydantic.plugin._loader" in sys.modules:
        return
    loader = types.ModuleType("pydantic.plugin._loader")
    loader.get_plugins = lambda: ()  # type: ignore[attr-defined]
    sys.modules["pydantic.plugin._loader"] = loader


def main(argv: list[str] | None = None) -> int:
    skip_pydantic_plugin_scan()
    words = sys.argv[1:] if argv is None else argv
    if words[:1] == ["mcp"]:
        from atomic.mcp_login import run as run_mcp_command

        return run_mcp_command(words[1:])
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    extra_flags, error = _split_unknown(unknown)
    if error:
        print(f"Error: {error}", file=sys.stderr)
        return 1
    if args.thinking:
        from atomic.core.providers.base import THINKING_LEVELS

        if args.thinking not in THINKING_LEVELS:
            print(f"Error: invalid --thinking {args.thinking!r}; use one of {', '.join(THINKING_LEVELS)}",
                  file=sys.stderr)
            return 1
    for note in ignored_pi_flag_notes(args):
        print(note, file=sys.stderr)
    if args.import_pi:
        return _import_pi()
    if args.login or args.list_providers or args.refresh_models or args.list_models is not None:
        from atomic import cli_catalog

        if args.login:
            return cli_catalog.login(args.login)
        if args.refresh_models:
            return cli_catalog.refresh(args.json)
        if args.list_providers:
            return cli_catalog.list_providers(args.json)
        return cli_catalog.list_models(args.list_models or "", args.provider, args.json)
    if args.export:
        return _export(args.export)
    conflicting = [args.session, args.continue_recent, args.resume, args.no_session]
    if args.fork and any(conflicting):
        print("Error: --fork cannot be combined with --session, --continue, --resume or --no-session",
              file=sys.stderr)
        return 1
    options = options_from_args(args, extra_flags)
    mode = args.mode
    if mode == "rpc":
        if args.resume:
            print("Error: --resume needs the interactive picker; in RPC mode use --session <path|id>",
                  file=sys.stderr)
            return 1
        return _run_async(_rpc(options))
    if mode == "acp":
        from atomic.acp.server import serve

        return _run_async(serve(options))
    if args.print or mode in ("text", "json") or not sys.stdin.isatty():
        return _run_async(_print_mode(options, args.messages, json_mode=mode == "json"))
    from atomic.tui.app import run_tui

    return run_tui(options, initial_message=" ".join(args.messages) or None, resume=args.resume)


def _run_async(coro: Any) -> int:
    try:
        return asyncio.run(coro)
    except KeyboardInterrupt:
        return 130


async def _open(options: Any) -> Engine | None:
    from atomic.core.contract import StartupError, open_engine

    try:
        return await open_engine(options)
    except StartupError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return None


def _notices_to_stderr(engine: Engine) -> None:
    """Non-interactive modes: MCP start failures and what an undecided project left out, one line each on stderr."""
    notice = engine.trust.untrusted_notice()
    if notice is not None:
        print(f"atomic: {notice}", file=sys.stderr, flush=True)
    sandbox_notice = engine.sandbox_notice()
    if sandbox_notice is not None:
        print(f"atomic: {sandbox_notice}", file=sys.stderr, flush=True)
    engine.mcp.set_notice_sink(lambda line: print(f"atomic: {line}", file=sys.stderr, flush=True))


async def _rpc(options: Any) -> int:
    engine = await _open(options)
    if engine is None:
        return 1
    _notices_to_stderr(engine)
    from atomic.rpc.server import run_rpc

    return await run_rpc(engine)


async def _print_mode(options: Any, messages: list[str], *, json_mode: bool) -> int:
    from atomic.core.contract import PromptRejected
    from atomic.core.messages import AssistantMessage

    piped = "" if sys.stdin.isatty() else sys.stdin.read()
    if piped.strip():
        messages = [piped.rstrip("\n") + ("\n\n" + messages[0] if messages else "")] + messages[1:]
    if not messages:
        print("Error: no prompt given. Usage: atomic -p \"your question\"", file=sys.stderr)
        return 1
    engine = await _open(options)
    if engine is None:
        return 1
    _notices_to_stderr(engine)
    if json_mode:
        print(json.dumps(engine.session_header()), flush=True)
        engine.subscribe(lambda event: print(json.dumps(event.to_wire(), ensure_ascii=False), flush=True))
    for text in messages:
        try:
            await engine.prompt(text, source="print")
        except PromptRejected as exc:
            print(f"Error: {exc}", file=sys.stderr)
            return 1
        await engine.wait_idle()
    last = next((m for m in reversed(engine.messages()) if isinstance(m, AssistantMessage)), None)
    await engine.shutdown()
    if last is None:
        return 1
    if last.stop_reason in ("error", "aborted"):
        print(f"Error: {last.error_message or last.stop_reason}", file=sys.stderr)
        return 1
    if not json_mode:
        print(last.text())
    return 0


def _import_pi() -> int:
    from atomic.core.paths import agent_dir
    from atomic.core.pi_import import run_import

    lines, code = run_import(agent_dir())
    for line in lines:
        print(line)
    return code


def _export(paths: list[str]) -> int:
    from atomic.core.export import write_session_html
    from atomic.core.session.store import SessionStore

    source = Path(paths[0])
    out = Path(paths[1]) if len(paths) > 1 else Path.cwd() / f"atomic-session-{source.stem}.html"
    try:
        store = SessionStore.open(source)
        write_session_html(out, header=store.header, entries=store.entries_since(None), leaf_id=store.leaf_id)
    except Exception as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    print(f"Exported to: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
