"""The engine's shape: behaviour lives in components, every AgentSession attribute is declared in __init__."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SESSION = ROOT / "atomic" / "core" / "engine" / "session.py"


def _self_assignments(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    names = set()
    for node in ast.walk(function):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                names.add(target.attr)
    return names


def test_no_method_anywhere_annotates_self_as_the_session() -> None:
    """No method outside AgentSession annotates `self` as the session (`def f(self: AgentSession)`)."""
    offenders = []
    for path in (ROOT / "atomic").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.args.args:
                first = node.args.args[0]
                if first.arg == "self" and first.annotation is not None and "Session" in ast.unparse(first.annotation):
                    offenders.append(f"{path.relative_to(ROOT)}: {node.name}")
    assert offenders == []


def test_agent_session_has_no_bases_and_declares_every_attribute_in_init() -> None:
    tree = ast.parse(SESSION.read_text(encoding="utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "AgentSession")
    assert cls.bases == []
    methods = [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    declared = _self_assignments(next(m for m in methods if m.name == "__init__"))
    later = {name for m in methods if m.name != "__init__" for name in _self_assignments(m)}
    assert later - declared == set()
    # The components are there, each built once in __init__.
    assert {"files", "models", "toolset", "compaction", "bash", "owned_messages", "permission_modes"} <= declared
