"""Extension loading (where they are found: extensions/discovery.py).

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


async def load_extensions(runtime: ExtensionRuntime, paths: list[Path], problems: list[tuple[str, str]]) -> None:
    """Import and activate the extensions `discovery.extension_paths` found, into `runtime` (already
    installed on its session, so extensions see it while they activate); then the `session_start`
    hook runs."""
    session = runtime.session
    for path_text, problem in problems:
        runtime.report_error(path_text, "load", problem)
        session.startup_warnings.append(problem)
    for path in paths:
        await load_extension(runtime, path)
    if session.hooks.has("session_start"):
        await session.hooks.emit("session_start", {"reason": "startup", "previousSessionFile": None})
