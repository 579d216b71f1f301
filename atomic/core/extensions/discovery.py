"""Where extensions are: a listing of paths, nothing imported or run.

Kept apart from the loader so that start-up (and the project scan behind `get_state`) can ask
"is there anything to load?" without importing the extension runtime and API: a start with no
extension never imports them (docs/performance.md, "Start-up").
"""

from __future__ import annotations

from pathlib import Path


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
