"""Finding sessions on disk. Listing reads each file's header and a little of its start, never whole files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atomic.core.paths import agent_dir
from atomic.core.session.recovery import ID_IN_NAME as _ID_IN_NAME
from atomic.core.session.tree import first_user_text, session_name

if TYPE_CHECKING:
    from atomic.core.records import SessionSummary

_PEEK_BYTES = 64 * 1024


def _entries(lines: list[str]) -> list[dict[str, Any]]:
    """The entry dicts among `lines`; unreadable ones (the peek's cut last line) are skipped."""
    out: list[dict[str, Any]] = []
    for line in lines:
        try:
            data = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(data, dict):
            out.append(data)
    return out


def read_session_info(path: Path) -> SessionSummary | None:
    """What a listing shows of one file; None when it is not a session at all.

    A file whose first line is not a session header but that holds entries is listed too (its id
    from its name, as opening it would make up): it was damaged, and opening it recovers it.
    """
    from atomic.core.records import SessionSummary

    try:
        stat = path.stat()
        with path.open("rb") as handle:
            head = handle.read(_PEEK_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None
    lines = head.split("\n")
    try:
        header = json.loads(lines[0])
    except (ValueError, RecursionError):
        header = None
    if isinstance(header, dict) and header.get("type") == "session":
        entries = _entries(lines[1:])
    else:
        entries = [e for e in _entries(lines) if isinstance(e.get("id"), str) and e.get("type") != "session"]
        if not entries:
            return None
        named = _ID_IN_NAME.search(path.stem)
        header = {"id": named.group(1) if named else path.stem}
    return SessionSummary(
        path=path,
        id=str(header.get("id", "")),
        cwd=str(header.get("cwd", "")),
        created=str(header.get("timestamp", "")),
        modified=stat.st_mtime,
        size=stat.st_size,
        first_message=first_user_text(entries),
        name=session_name(entries),
    )


def list_sessions(folder: Path) -> list[SessionSummary]:
    """Sessions in one folder, newest first."""
    if not folder.is_dir():
        return []
    infos = [info for p in folder.glob("*.jsonl") if (info := read_session_info(p))]
    infos.sort(key=lambda i: i.modified, reverse=True)
    return infos


def list_all_sessions() -> list[SessionSummary]:
    root = agent_dir() / "sessions"
    infos: list[SessionSummary] = []
    if root.is_dir():
        for folder in root.iterdir():
            infos.extend(list_sessions(folder))
    infos.sort(key=lambda i: i.modified, reverse=True)
    return infos


def find_session(ref: str, folder: Path) -> Path | None:
    """A path (contains a separator or ends with .jsonl) or a session-id prefix: this folder first, then all."""
    if "/" in ref or "\\" in ref or ref.endswith(".jsonl"):
        path = Path(ref).expanduser()
        return path if path.exists() else None
    for infos in (list_sessions(folder), list_all_sessions()):
        matches = [i for i in infos if i.id.startswith(ref)]
        if matches:
            return matches[0].path
    return None
