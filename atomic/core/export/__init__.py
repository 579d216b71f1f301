"""HTML export of a session's active branch (the `export_html` command, `/export`, `--export`)."""

from atomic.core.export.html_export import (
    EMPTY_ERROR,
    IN_MEMORY_ERROR,
    default_export_path,
    export_session_html,
    write_session_html,
)

__all__ = [
    "EMPTY_ERROR",
    "IN_MEMORY_ERROR",
    "default_export_path",
    "export_session_html",
    "write_session_html",
]
