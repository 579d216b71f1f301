"""The contract package hands out every name it promises, but loads the records (and the other
rarely needed modules) only when a frontend first asks for them: the RPC server's first answer
does not pay for defining them (docs/performance.md, "Start-up")."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import atomic.core.contract as contract

# Modules the first `get_state` of `atomic --mode rpc` must not import.
NOT_AT_START_UP = ("atomic.core.records", "atomic.core.contract.sessions")


def test_every_exported_name_resolves_to_its_definition() -> None:
    for name in contract.__all__:
        value = vars(contract)[name] if name in vars(contract) else contract.__getattr__(name)
        assert value is not None, name
        if isinstance(value, type) and value.__module__.startswith("atomic."):
            assert vars(sys.modules[value.__module__])[value.__name__] is value, name


def test_the_type_checking_imports_are_the_lazy_table() -> None:
    """What mypy sees under TYPE_CHECKING is exactly `_LAZY` (each name from the module it loads from)."""
    tree = ast.parse(Path(contract.__file__).read_text(encoding="utf-8"))
    [guarded] = [n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING"]
    seen = {
        alias.name: node.module
        for node in guarded.body if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert seen == contract._LAZY
    assert set(contract._LAZY) <= set(contract.__all__)


def test_a_lazy_name_is_the_same_object_as_in_its_module() -> None:
    from atomic.core.contract import SessionStats, list_session_summaries
    from atomic.core.contract.sessions import list_session_summaries as defined_function
    from atomic.core.records import SessionStats as defined

    assert SessionStats is defined
    assert list_session_summaries is defined_function


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        contract.__getattr__("NoSuchRecord")
    except AttributeError as exc:
        assert "NoSuchRecord" in str(exc)
    else:
        raise AssertionError("no AttributeError")


def test_the_first_rpc_answer_does_not_load_the_records(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from atomic.cli import main\n"
        "code = main(['--mode', 'rpc', '--provider', 'scripted', '--no-session'])\n"
        f"print('LOADED', [m for m in {NOT_AT_START_UP!r} if m in sys.modules], file=sys.stderr)\n"
    )
    env = dict(os.environ, ATOMIC_CODING_AGENT_DIR=str(tmp_path / "agent"))
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=json.dumps({"id": "1", "type": "get_state"}) + "\n",
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60,
    )
    answer = json.loads(done.stdout.splitlines()[0])
    assert answer["command"] == "get_state" and answer["success"] is True
    assert "LOADED []" in done.stderr, done.stderr
