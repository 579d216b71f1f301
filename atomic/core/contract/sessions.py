"""What a frontend may ask before (or without) an open engine: stored sessions, usable models.

ACP lists and finds sessions for `session/list` and `session/load` before it opens an engine, and
offers a login method only when no model has a key.
"""

from __future__ import annotations

from pathlib import Path

from atomic.core.records import SessionSummary


def session_folder(cwd: Path, flag: str | None = None, setting: str | None = None) -> Path:
    """Where the sessions of `cwd` are stored (`flag`: --session-dir; `setting`: sessionDir)."""
    from atomic.core.paths import default_session_dir

    return default_session_dir(cwd, flag, setting)


def list_session_summaries(folder: Path | None) -> list[SessionSummary]:
    """Stored sessions, newest first: those in `folder`, or every folder's when None."""
    from atomic.core.session.listing import list_all_sessions, list_sessions

    return list_all_sessions() if folder is None else list_sessions(folder)


def find_session_file(ref: str, folder: Path) -> Path | None:
    """A session file by path, or by id prefix (in `folder` first, then every folder); None if absent."""
    from atomic.core.session.listing import find_session

    return find_session(ref, folder)


def has_usable_model(agent_dir: Path | None = None) -> bool:
    """True when some model has a key (reads models.json, auth.json and the environment)."""
    from atomic.core.auth import AuthStorage
    from atomic.core.models.registry import ModelRegistry
    from atomic.core.paths import agent_dir as default_agent_dir

    directory = agent_dir or default_agent_dir()
    return bool(ModelRegistry(directory, AuthStorage(directory), None).available_models())
