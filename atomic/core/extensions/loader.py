"""Extension discovery and loading.

Extensions are Python files (`name.py`) or packages (a folder with `__init__.py`) found in
`<agentDir>/extensions/` and `<cwd>/.atomic/extensions/`, plus paths given with `-e/--extension`
(which load even under `--no-extensions`). Each is imported from its path under a unique module
name and its `activate(atomic)` (sync or async) is called with its own `ExtensionAPI`. An extension
that fails to import or activate is reported (an `extension_error` event and a startup warning)
and the others load regardless.
"""

from __future__ import annotations

import importlib.util
import inspect
import re
import sys
from pathlib import Path
from types import ModuleType

from atomic.core.extensions.api import ExtensionAPI, LoadedExtension
from atomic.core.extensions.runtime import ExtensionRuntime

MODULE_PREFIX = "atomic_extension_"
_module_counter = 0


def _is_extension(path: Path) -> bool:
    if path.name.startswith((".", "_")):
        return False
    if path.is_file():
        return path.suffix == ".py"
    return path.is_dir() and (path / "__init__.py").is_file()


def discover_in(directory: Path) -> list[Path]:
    """Extensions directly inside `directory`, sorted by name (missing folder: none)."""
    if not directory.is_dir():
        return []
    return sorted((p for p in directory.iterdir() if _is_extension(p)), key=lambda p: p.name)


def _resolve_explicit(raw: str, cwd: Path) -> Path:
    path = Path(raw).expanduser()
    return path if path.is_absolute() else cwd / path


def project_extension_paths(cwd: Path) -> list[Path]:
    """The project's own extensions (`.atomic/extensions/`): loaded only in a trusted project."""
    return discover_in(cwd / ".atomic" / "extensions")


def extension_paths(
    cwd: Path, agent_dir: Path, explicit: list[str], no_discovery: bool, *, include_project: bool = True
) -> tuple[list[Path], list[tuple[str, str]]]:
    """Every extension to load, in order (global, project, explicit), without duplicates,
    plus (path, problem) for explicit paths that cannot be loaded. Explicit paths are the
    user's own choice and load whatever the project's trust."""
    candidates: list[Path] = []
    problems: list[tuple[str, str]] = []
    if not no_discovery:
        candidates.extend(discover_in(agent_dir / "extensions"))
        if include_project:
            candidates.extend(project_extension_paths(cwd))
    for raw in explicit:
        path = _resolve_explicit(raw, cwd)
        if path.is_dir() and not (path / "__init__.py").is_file():
            # A folder of extensions given explicitly: load what is inside it.
            found = discover_in(path)
            if not found:
                problems.append((str(path), f"Extension folder {path} holds no .py files or packages"))
            candidates.extend(found)
        elif path.exists():
            candidates.append(path)
        else:
            problems.append((str(path), f"Extension not found: {path}"))
    seen: set[Path] = set()
    unique: list[Path] = []
    for path in candidates:
        key = path.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(key)
    return unique, problems


def _module_name(path: Path) -> str:
    global _module_counter
    _module_counter += 1
    stem = re.sub(r"\W", "_", path.stem if path.is_file() else path.name)
    return f"{MODULE_PREFIX}{_module_counter}_{stem}"


def import_extension(path: Path, module_name: str) -> ModuleType:
    """Import a file or package from its path; the module is in sys.modules while it executes
    (so a package's relative imports work) and removed again if it fails."""
    if path.is_dir():
        spec = importlib.util.spec_from_file_location(
            module_name, path / "__init__.py", submodule_search_locations=[str(path)]
        )
    else:
        spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module


async def load_extension(runtime: ExtensionRuntime, path: Path) -> bool:
    """Import and activate one extension. False (after reporting) when it failed."""
    path_text = str(path)
    module_name = _module_name(path)
    try:
        module = import_extension(path, module_name)
    except Exception as exc:
        _fail(runtime, path_text, "load", f"{type(exc).__name__}: {exc}")
        return False
    activate = getattr(module, "activate", None)  # foreign: the extension's own module
    if not callable(activate):
        _fail(runtime, path_text, "load", "Extension has no activate(atomic) function")
        return False
    api = ExtensionAPI(runtime, path_text)
    runtime.extensions.append(LoadedExtension(path_text, module_name, api, module))
    try:
        result = activate(api)
        if inspect.isawaitable(result):
            await result
    except Exception as exc:
        _fail(runtime, path_text, "activate", f"{type(exc).__name__}: {exc}")
        return False
    return True


def _fail(runtime: ExtensionRuntime, path: str, event: str, error: str) -> None:
    runtime.report_error(path, event, error)
    runtime.session.startup_warnings.append(f"Extension {path} failed to {event}: {error}")


async def load_extensions(runtime: ExtensionRuntime, explicit: list[str], no_discovery: bool) -> None:
    """Discover, import and activate extensions into `runtime` (already installed on its session,
    so extensions see it while they activate); then the `session_start` hook runs."""
    session = runtime.session
    paths, problems = extension_paths(
        session.cwd,
        session.agent_dir,
        explicit,
        no_discovery,
        include_project=session.project_trust is not None and session.project_trust.trusted,
    )
    for path_text, problem in problems:
        runtime.report_error(path_text, "load", problem)
        session.startup_warnings.append(problem)
    for path in paths:
        await load_extension(runtime, path)
    if session.hooks.has("session_start"):
        await session.hooks.emit("session_start", {"reason": "startup", "previousSessionFile": None})
