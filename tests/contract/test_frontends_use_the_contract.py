"""The RPC and ACP frontends reach the engine only through `atomic.core.contract` (plus the typed
event and message modules the contract includes); the TUI joins this list once it is switched over."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Part of the contract (see the atomic.core.contract docstring), or a justified exception:
# atomic_io.encode_json_text is the byte encoding RPC shares with the session file writer.
ALLOWED = frozenset({
    "atomic.core.contract",
    "atomic.core.events",
    "atomic.core.messages",
    "atomic.core.atomic_io",
})


def _core_imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            if node.module == "atomic.core":
                found.update(f"atomic.core.{alias.name}" for alias in node.names)
            elif node.module.startswith("atomic.core."):
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("atomic.core."))
    return found


@pytest.mark.parametrize("frontend", ["rpc", "acp"])
def test_frontend_imports_only_the_contract(frontend: str) -> None:
    outside = {
        f"{path.relative_to(ROOT)}: {module}"
        for path in sorted((ROOT / "atomic" / frontend).rglob("*.py"))
        for module in _core_imports(path)
        if module not in ALLOWED
    }
    assert sorted(outside) == []


def test_the_check_sees_imports_inside_functions(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("def f():\n    from atomic.core.session.store import SessionStore\n", encoding="utf-8")
    assert _core_imports(source) == {"atomic.core.session.store"}
