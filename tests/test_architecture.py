"""The architecture's rules, each a sentence, each kept by a test (docs/architecture.md, "Guards").

Imports are read from the source with `ast`: imports inside functions and under `if TYPE_CHECKING:` count.
Where the code does not yet keep a rule, the test names the known violations and asserts that what it finds
EQUALS that set: a fixed violation must be removed from the set, and no new one can appear.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "atomic"
CORE = PACKAGE / "core"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES: dict[str, Path] = {_module_name(path): path for path in PACKAGE.rglob("*.py")}


def _parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _imports(path: Path) -> set[str]:
    """Every module named by an import anywhere in the file (`from a import b` gives `a.b` when that is a module)."""
    names: set[str] = set()
    for node in ast.walk(_parse(path)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                names.add(submodule if submodule in MODULES else node.module)
    return names


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


# ------------------------------------------------------------------------------------------ layering


def test_core_imports_no_frontend_and_no_textual() -> None:
    """The engine is reachable without any frontend: atomic/core imports neither rpc, tui, acp nor Textual."""
    offenders = []
    for path in CORE.rglob("*.py"):
        for name in _imports(path):
            if name.split(".")[0] in ("textual", "acp") or name.startswith(("atomic.tui", "atomic.rpc", "atomic.acp")):
                offenders.append(f"{_rel(path)} imports {name}")
    assert offenders == []


def test_rpc_imports_no_tui() -> None:
    """The RPC frontend never loads the TUI or Textual."""
    offenders = [
        f"{_rel(p)} imports {n}"
        for p in (PACKAGE / "rpc").rglob("*.py")
        for n in _imports(p)
        if n.split(".")[0] == "textual" or n.startswith("atomic.tui")
    ]
    assert offenders == []


def test_frontends_import_no_other_frontend() -> None:
    """Each frontend talks to the engine alone: tui, rpc and acp never import each other (only tui imports Textual)."""
    others = {"rpc": ("atomic.tui", "atomic.acp"), "tui": ("atomic.rpc", "atomic.acp"), "acp": ("atomic.tui", "atomic.rpc")}
    offenders = [
        f"{_rel(p)} imports {n}"
        for frontend, forbidden in others.items()
        for p in (PACKAGE / frontend).rglob("*.py")
        for n in _imports(p)
        if n.startswith(forbidden) or (frontend != "tui" and n.split(".")[0] == "textual")
    ]
    assert offenders == []


def test_the_layers_below_the_engine_do_not_import_it() -> None:
    """The loop, providers, tools, session store and compaction know nothing of atomic.core.engine."""
    below = ("agent", "providers", "tools", "session", "compaction")
    offenders = [
        f"{_rel(p)} imports {n}"
        for layer in below
        for p in (CORE / layer).rglob("*.py")
        for n in _imports(p)
        if n == "atomic.core.engine" or n.startswith("atomic.core.engine.")
    ]
    assert offenders == []


def test_the_loop_imports_neither_the_engine_nor_the_extensions() -> None:
    """The agent loop runs on the values and callables of its AgentConfig: atomic/core/agent imports neither atomic.core.engine nor atomic.core.extensions."""
    offenders = [
        f"{_rel(p)} imports {n}"
        for p in (CORE / "agent").rglob("*.py")
        for n in _imports(p)
        if n.startswith(("atomic.core.engine", "atomic.core.extensions"))
    ]
    assert offenders == []


def test_rpc_handlers_spell_no_camel_case_key() -> None:
    """camelCase is written in rpc/wire.py only: rpc/handlers.py holds no camelCase string literal."""
    path = PACKAGE / "rpc" / "handlers.py"
    camel = re.compile(r"^[a-z]+[A-Z][A-Za-z0-9]*$")
    found = [
        node.value
        for node in ast.walk(_parse(path))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and camel.match(node.value)
    ]
    assert found == []


# ------------------------------------------------------------------------------------------ two layers


def _forwards(method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """True when the method's body (after its docstring) only calls one attribute's method with the
    method's own arguments: `return self.part.name(a, b=b)`, awaited or not."""
    body = list(method.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], (ast.Return, ast.Expr)) or body[0].value is None:
        return False
    value = body[0].value
    call = value.value if isinstance(value, ast.Await) else value
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
        return False
    owner = call.func.value
    if not (isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name) and owner.value.id == "self"):
        return False
    params = [a.arg for a in (*method.args.posonlyargs, *method.args.args, *method.args.kwonlyargs)][1:]
    passed = [a.id for a in call.args if isinstance(a, ast.Name)]
    passed += [k.arg for k in call.keywords if k.arg and isinstance(k.value, ast.Name) and k.value.id == k.arg]
    return len(passed) == len(call.args) + len(call.keywords) and sorted(passed) == sorted(params)


def _forwarding_methods(path: Path, class_name: str) -> set[str]:
    [cls] = [n for n in _parse(path).body if isinstance(n, ast.ClassDef) and n.name == class_name]
    return {n.name for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and _forwards(n)}


def test_agent_session_has_no_forwarding_methods() -> None:
    """AgentSession keeps the run: none of its methods only hands its own arguments on to one component's method."""
    assert _forwarding_methods(CORE / "engine" / "session.py", "AgentSession") == set()


def write_sample(tmp_path: Path, source: str) -> Path:
    """A module for a finder's own test."""
    sample = tmp_path / "sample.py"
    sample.write_text(source, encoding="utf-8")
    return sample


def test_the_forwarding_finder_sees_forwards_and_only_forwards(tmp_path: Path) -> None:
    sample = write_sample(
        tmp_path,
        "class S:\n"
        "    def a(self, x, y=1):\n"
        "        'Doc.'\n"
        "        return self.part.a(x, y=y)\n"
        "    async def b(self):\n"
        "        await self.part.b()\n"
        "    def c(self, x):\n"
        "        return self.part.c(x, 2)\n"
        "    def d(self, x):\n"
        "        self.part.d(x)\n"
        "        self.other()\n"
        "    @property\n"
        "    def e(self):\n"
        "        return self.part.e\n"
        "    def f(self, x):\n"
        "        return self.g(x)\n",
    )
    assert _forwarding_methods(sample, "S") == {"a", "b"}


# ------------------------------------------------------------------------------------------ import cycles

# Each entry is one strongly connected component of the import graph (sorted module names).
KNOWN_CYCLES: set[tuple[str, ...]] = set()


def _import_graph() -> dict[str, list[str]]:
    return {name: sorted(n for n in _imports(path) if n in MODULES and n != name) for name, path in MODULES.items()}


def _import_cycles(graph: dict[str, list[str]]) -> set[tuple[str, ...]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: set[tuple[str, ...]] = set()
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.add(tuple(sorted(component)))
    return cycles


def test_no_import_cycles_among_atomic_modules() -> None:
    """No two atomic modules import each other, directly or through others (type-only imports included)."""
    assert _import_cycles(_import_graph()) == KNOWN_CYCLES


def test_the_cycle_finder_finds_cycles_and_only_cycles() -> None:
    graph = {"a": ["b"], "b": ["c"], "c": ["a", "d"], "d": ["e"], "e": ["d"], "f": ["a"]}
    assert _import_cycles(graph) == {("a", "b", "c"), ("d", "e")}
    assert _import_cycles({"a": ["b"], "b": []}) == set()


# ------------------------------------------------------------------------------------------ typed session


def _is_any(annotation: ast.expr | None) -> bool:
    """`Any`, `typing.Any`, `"Any"`, `Any | None` and `Optional[Any]`."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return False
    if isinstance(annotation, ast.Name):
        return annotation.id == "Any"
    if isinstance(annotation, ast.Attribute):
        return annotation.attr == "Any"
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        sides = (annotation.left, annotation.right)
        others = [side for side in sides if not _is_any(side)]
        return len(others) < 2 and all(isinstance(side, ast.Constant) and side.value is None for side in others)
    if isinstance(annotation, ast.Subscript) and isinstance(annotation.value, ast.Name):
        return annotation.value.id == "Optional" and _is_any(annotation.slice)
    return False


def _names_session_or_engine(name: str) -> bool:
    lowered = name.lower()
    return "session" in lowered or "engine" in lowered


def _any_typed_sessions(path: Path, rel: str) -> Iterator[str]:
    for node in ast.walk(_parse(path)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            every = [*args.posonlyargs, *args.args, *args.kwonlyargs, *(a for a in (args.vararg, args.kwarg) if a)]
            for arg in every:
                if _names_session_or_engine(arg.arg) and _is_any(arg.annotation):
                    yield f"{rel}: {node.name}({arg.arg})"
            if _names_session_or_engine(node.name) and _is_any(node.returns):
                yield f"{rel}: {node.name}() -> Any"
        elif isinstance(node, ast.AnnAssign):
            target = node.target
            name = target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else ""
            if _names_session_or_engine(name) and _is_any(node.annotation):
                yield f"{rel}: {name}"


def _found_in(frontends: tuple[str, ...], finder: Callable[[Path, str], Iterator[str]]) -> set[str]:
    return {hit for frontend in frontends for path in (PACKAGE / frontend).rglob("*.py") for hit in finder(path, _rel(path))}


KNOWN_ANY_SESSIONS: set[str] = set()


def test_no_session_or_engine_is_typed_any_in_the_frontends() -> None:
    """Frontends see a typed engine: no parameter, attribute, variable or return in atomic/tui or atomic/rpc whose
    name holds "session" or "engine" is annotated `Any`."""
    assert _found_in(("tui", "rpc"), _any_typed_sessions) == KNOWN_ANY_SESSIONS


def test_the_any_finder_sees_every_kind_of_annotation(tmp_path: Path) -> None:
    sample = write_sample(
        tmp_path,
        "from typing import Any, Optional\n"
        "def f(session: Any, engine: 'Any | None' = None, other: Any = 1) -> None: ...\n"
        "def get_session() -> Optional[Any]: ...\n"
        "class A:\n"
        "    def __init__(self) -> None:\n"
        "        self.session: Any = None\n"
        "        self.sessions: list[Any] = []\n",
    )
    hits = {hit.split(": ", 1)[1] for hit in _any_typed_sessions(sample, "sample.py")}
    assert hits == {"f(session)", "f(engine)", "get_session() -> Any", "session"}


def _is_any_sink(node: ast.AST) -> bool:
    """`Callable[[Any], None]` (also written `collections.abc.Callable`, `typing.Callable` or as a string)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and "Callable" in node.value:
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return False
    if not isinstance(node, ast.Subscript):
        return False
    callee = node.value
    name = callee.id if isinstance(callee, ast.Name) else callee.attr if isinstance(callee, ast.Attribute) else ""
    params = node.slice
    if name != "Callable" or not isinstance(params, ast.Tuple) or len(params.elts) != 2:
        return False
    args, returns = params.elts
    return (isinstance(args, ast.List) and len(args.elts) == 1 and _is_any(args.elts[0])
            and isinstance(returns, ast.Constant) and returns.value is None)


def _any_sinks(path: Path, rel: str) -> Iterator[str]:
    for node in ast.walk(_parse(path)):
        if isinstance(node, ast.expr) and _is_any_sink(node):
            yield f"{rel}:{node.lineno}"


KNOWN_ANY_SINKS: set[str] = set()


def test_no_callable_taking_any_in_the_tui_or_acp() -> None:
    """Events, updates and results are handed on typed: no `Callable[[Any], None]` in atomic/tui or atomic/acp."""
    assert _found_in(("tui", "acp"), _any_sinks) == KNOWN_ANY_SINKS


def test_the_any_sink_finder_sees_each_spelling(tmp_path: Path) -> None:
    sample = write_sample(
        tmp_path,
        "import typing\n"
        "from collections.abc import Callable\n"
        "from typing import Any\n"
        "a: Callable[[Any], None]\n"
        "b: 'Callable[[Any], None]'\n"
        "c: typing.Callable[[typing.Any], None]\n"
        "d: Callable[[int], None]\n"
        "e: Callable[[Any], int]\n"
        "f: Callable[[Any, Any], None]\n",
    )
    assert [int(hit.rsplit(":", 1)[1]) for hit in _any_sinks(sample, "sample.py")] == [4, 5, 6]


# ------------------------------------------------------------------------------------------ no getattr


def _reflective_calls(path: Path) -> Iterator[str]:
    """Each getattr/hasattr call without a comment saying "foreign" on its line or the line above, named by file,
    enclosing function and the call's source (stable when lines move)."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    tree = ast.parse(source)
    scopes: list[tuple[int, int, str]] = [
        (node.lineno, node.end_lineno or node.lineno, node.name)
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    ]
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")):
            continue
        nearby = lines[max(node.lineno - 2, 0) : node.end_lineno or node.lineno]
        if any("#" in line and "foreign" in line.split("#", 1)[1] for line in nearby):
            continue
        inner = [name for start, end, name in scopes if start <= node.lineno <= end]
        where = inner[-1] if inner else "<module>"
        yield f"{_rel(path)}: {where}: {ast.unparse(node)}"


KNOWN_REFLECTION: set[str] = set()


def test_no_getattr_or_hasattr_on_our_own_objects() -> None:
    """Our own objects are typed, so code names their attributes: getattr/hasattr in atomic/ only on foreign objects
    (an SDK's exception, an imported module, a user's extension), each with a comment that says "foreign"."""
    found = {hit for path in PACKAGE.rglob("*.py") for hit in _reflective_calls(path)}
    assert found == KNOWN_REFLECTION


# ------------------------------------------------------------------------------------------ lazy loading


def test_rpc_mode_startup_loads_neither_textual_nor_provider_sdks() -> None:
    """Starting the RPC mode loads neither Textual nor a vendor library (providers load lazily, off the event loop)."""
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
