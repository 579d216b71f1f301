"""Discovery, --no-extensions, packages, load/activate failures, flags."""

from __future__ import annotations

from pathlib import Path

from atomic.core.engine.factory import create_session
from atomic.core.engine.options import SessionOptions
from atomic.core.engine.session_stats import last_assistant_text
from atomic.core.extensions.loader import load_extension
from atomic.core.extensions.runtime import ExtensionRuntime
from atomic.core.providers.scripted import ScriptedProvider
from tests.support import Recorder, module_of, write_extension

MARK = """
    def activate(atomic):
        atomic.register_command("{name}", lambda args, ctx: None, description="from {name}")
"""


def command_names(session) -> list[str]:
    return [item["name"] for item in session.extensions.command_items()]


async def test_discovers_agent_dir_and_project_extensions(make_session, agent_dir: Path, workdir: Path) -> None:
    write_extension(agent_dir / "extensions", "global_one.py", MARK.format(name="global"))
    package = agent_dir / "extensions" / "pkg"
    write_extension(package, "__init__.py", "from .helper import NAME\n\ndef activate(atomic):\n"
                    "    atomic.register_command(NAME, lambda args, ctx: None)\n")
    write_extension(package, "helper.py", "NAME = 'packaged'\n")
    write_extension(workdir / ".atomic" / "extensions", "local.py", MARK.format(name="project"))
    # Not extensions: private files, other suffixes, folders without __init__.py.
    write_extension(workdir / ".atomic" / "extensions", "_private.py", "raise SystemExit('must not load')\n")
    write_extension(workdir / ".atomic" / "extensions", "notes.txt", "hello")
    write_extension(workdir / ".atomic" / "extensions" / "plain_dir", "x.py", "raise SystemExit('no')\n")

    session, _, _ = await make_session(approve=True)  # project extensions load only in a trusted folder
    assert command_names(session) == ["global", "packaged", "project"]
    items = {i["name"]: i for i in session.extensions.command_items()}
    assert items["project"] == {
        "name": "project",
        "description": "from project",
        "source": "extension",
        "path": str((workdir / ".atomic" / "extensions" / "local.py").resolve()),
    }
    assert items["packaged"]["path"] == str(package.resolve())
    assert session.extensions.errors == []


async def test_no_extensions_skips_discovery_but_loads_explicit_paths(
    make_session, agent_dir: Path, workdir: Path, ext_dir: Path
) -> None:
    write_extension(agent_dir / "extensions", "global_one.py", MARK.format(name="global"))
    write_extension(workdir / ".atomic" / "extensions", "local.py", MARK.format(name="project"))
    explicit = write_extension(ext_dir, "explicit.py", MARK.format(name="explicit"))
    session, _, _ = await make_session(no_extensions=True, extensions=[str(explicit)])
    assert command_names(session) == ["explicit"]


async def test_no_extensions_alone_loads_nothing(make_session, agent_dir: Path) -> None:
    write_extension(agent_dir / "extensions", "global_one.py", MARK.format(name="global"))
    session, _, _ = await make_session(no_extensions=True)
    assert session.extensions is None


async def test_explicit_path_relative_to_cwd_and_loaded_once(make_session, workdir: Path) -> None:
    path = write_extension(workdir / ".atomic" / "extensions", "local.py", MARK.format(name="project"))
    session, _, _ = await make_session(extensions=[".atomic/extensions/local.py", str(path)])
    assert command_names(session) == ["project"]
    assert len(session.extensions.extensions) == 1


BROKEN_IMPORT = "import definitely_not_a_module_xyz\n"
BROKEN_ACTIVATE = """
    def activate(atomic):
        atomic.register_command("half", lambda args, ctx: None)
        raise RuntimeError("activate exploded")
"""
NO_ACTIVATE = "VALUE = 1\n"
ASYNC_OK = """
    import asyncio

    async def activate(atomic):
        await asyncio.sleep(0)
        atomic.register_command("fine", lambda args, ctx: None)
"""


async def test_failing_extensions_are_reported_and_the_rest_load(make_session, ext_dir: Path) -> None:
    bad_import = write_extension(ext_dir, "a_bad_import.py", BROKEN_IMPORT)
    bad_activate = write_extension(ext_dir, "b_bad_activate.py", BROKEN_ACTIVATE)
    no_activate = write_extension(ext_dir, "c_no_activate.py", NO_ACTIVATE)
    good = write_extension(ext_dir, "d_good.py", ASYNC_OK)
    missing = ext_dir / "missing.py"
    paths = [bad_import, bad_activate, no_activate, good, missing]
    session, _, _ = await make_session([{"text": "still here"}], extensions=[str(p) for p in paths])

    errors = {(Path(path).name, event): error for path, event, error in session.extensions.errors}
    assert errors[("a_bad_import.py", "load")].startswith("ModuleNotFoundError")
    assert errors[("b_bad_activate.py", "activate")] == "RuntimeError: activate exploded"
    assert "no activate" in errors[("c_no_activate.py", "load")]
    assert "not found" in errors[("missing.py", "load")]
    assert len(errors) == 4
    assert sum("b_bad_activate.py failed to activate" in w for w in session.startup_warnings) == 1
    assert "fine" in command_names(session)
    await session.prompt("hello")
    await session.wait_idle()
    assert last_assistant_text(session.context_messages()) == "still here"


async def test_load_errors_are_extension_error_events(make_session, ext_dir: Path) -> None:
    session, _, _ = await make_session()
    assert session.extensions is None  # nothing to load: no runtime was built
    runtime = ExtensionRuntime(session)
    session.extensions = runtime
    rec = Recorder(session)
    bad = write_extension(ext_dir, "bad.py", BROKEN_ACTIVATE)
    assert await load_extension(runtime, bad.resolve()) is False
    assert rec.of("extension_error") == [
        {
            "type": "extension_error",
            "extensionPath": str(bad.resolve()),
            "event": "activate",
            "error": "RuntimeError: activate exploded",
        }
    ]


async def test_two_files_with_the_same_name_stay_separate(make_session, agent_dir: Path, workdir: Path) -> None:
    first = write_extension(agent_dir / "extensions", "same.py", "X = 'global'\ndef activate(atomic): pass\n")
    second = write_extension(workdir / ".atomic" / "extensions", "same.py", "X = 'project'\ndef activate(atomic): pass\n")
    session, _, _ = await make_session(approve=True)
    assert module_of(session, first).X == "global"
    assert module_of(session, second).X == "project"


FLAGS = """
    VALUES = {}

    def activate(atomic):
        atomic.register_flag("plan", default=False, description="plan mode")
        atomic.register_flag("depth", default=2)
        atomic.register_flag("label", default="none")
        atomic.register_command(
            "show", lambda args, ctx: VALUES.update(
                plan=atomic.get_flag("plan"), depth=atomic.get_flag("depth"), label=atomic.get_flag("label")
            )
        )
"""


async def test_flags_take_cli_values_typed_like_their_defaults(make_session, ext_dir: Path) -> None:
    path = write_extension(ext_dir, "flags.py", FLAGS)
    session, _, _ = await make_session(extensions=[str(path)], extension_flags={"plan": True, "depth": "5"})
    await session.prompt("/show")
    assert module_of(session, path).VALUES == {"plan": True, "depth": 5, "label": "none"}
    names = [f["name"] for f in session.extensions.flag_items()]
    assert names == ["plan", "depth", "label"]


async def test_flags_defaults_without_cli_values(make_session, ext_dir: Path) -> None:
    path = write_extension(ext_dir, "flags.py", FLAGS)
    session, _, _ = await make_session(extensions=[str(path)], extension_flags={"plan": "false"})
    await session.prompt("/show")
    assert module_of(session, path).VALUES == {"plan": False, "depth": 2, "label": "none"}


async def test_flags_reach_an_extension_that_trusting_the_project_loads_later(workdir: Path) -> None:
    path = write_extension(workdir / ".atomic" / "extensions", "flags.py", FLAGS)
    options = SessionOptions(cwd=workdir, scripted=ScriptedProvider([]), extension_flags={"plan": True, "depth": "5"})
    session = await create_session(options)
    try:
        assert session.trust.decision.undecided
        assert session.extensions is None  # nothing loadable yet: no runtime, the flags wait in the options
        await session.trust.apply(session.trust.decision.trusted_once())
        await session.prompt("/show")
        assert module_of(session, path).VALUES == {"plan": True, "depth": 5, "label": "none"}
    finally:
        await session.shutdown()
