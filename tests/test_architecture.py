"""The engine imports neither frontend; the RPC mode never loads Textual; SDKs load only when needed."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "atomic" / "core"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_core_imports_no_frontend_and_no_textual() -> None:
    offenders = []
    for path in CORE.rglob("*.py"):
        for name in _imports(path):
            if name.split(".")[0] in ("textual", "acp") or name.startswith(("atomic.tui", "atomic.rpc", "atomic.acp")):
                offenders.append(f"{path.relative_to(ROOT)} imports {name}")
    assert offenders == []


def test_rpc_imports_no_tui() -> None:
    offenders = [
        f"{p.relative_to(ROOT)} imports {n}"
        for p in (ROOT / "atomic" / "rpc").rglob("*.py")
        for n in _imports(p)
        if n.split(".")[0] == "textual" or n.startswith("atomic.tui")
    ]
    assert offenders == []


def test_frontends_import_no_other_frontend() -> None:
    others = {"rpc": ("atomic.tui", "atomic.acp"), "tui": ("atomic.rpc", "atomic.acp"), "acp": ("atomic.tui", "atomic.rpc")}
    offenders = [
        f"{p.relative_to(ROOT)} imports {n}"
        for frontend, forbidden in others.items()
        for p in (ROOT / "atomic" / frontend).rglob("*.py")
        for n in _imports(p)
        if n.startswith(forbidden) or (frontend != "tui" and n.split(".")[0] == "textual")
    ]
    assert offenders == []


def test_rpc_mode_startup_loads_neither_textual_nor_provider_sdks() -> None:
    code = (
        "import sys, asyncio\n"
        "from atomic.cli import build_parser, options_from_args\n"
        "from atomic.core.engine.factory import create_session\n"
        "import atomic.rpc.server\n"
        "args, _ = build_parser().parse_known_args(['--mode', 'rpc', '--provider', 'scripted', '--no-session'])\n"
        "asyncio.run(create_session(options_from_args(args, {})))\n"
        "loaded = [m for m in ('textual', 'anthropic', 'openai', 'rich', 'mcp', 'acp') if m in sys.modules]\n"
        "print(','.join(loaded))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""
