"""The editor's files through ACP `fs/read_text_file` and `fs/write_text_file`, for paths in the session's folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from atomic.core.contract import ToolError


class ClientFiles:
    def __init__(self, conn: Any, session_id: str, root: Path, *, can_read: bool, can_write: bool) -> None:
        self.conn = conn
        self.session_id = session_id
        self.root = root
        self.can_read = can_read
        self.can_write = can_write

    def covers(self, path: Path) -> bool:
        # Outside the session's folder the local disk is the truth (Gemini CLI draws the same line).
        return self.can_read and self.can_write and path.is_relative_to(self.root)

    async def read_text(self, path: Path) -> str:
        try:
            response = await self.conn.read_text_file(session_id=self.session_id, path=str(path))
        except Exception as exc:
            raise ToolError(f"Could not read {path} through the editor: {_message(exc)}") from None
        return str(response.content)

    async def write_text(self, path: Path, text: str) -> None:
        try:
            await self.conn.write_text_file(session_id=self.session_id, path=str(path), content=text)
        except Exception as exc:
            raise ToolError(f"Could not write {path} through the editor: {_message(exc)}") from None


def _message(exc: Exception) -> str:
    return str(exc) or type(exc).__name__
