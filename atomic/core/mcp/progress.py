"""Whether a starting MCP server is still getting somewhere, so a prompt knows to keep waiting.

A server that imports a large runtime prints nothing for seconds but burns CPU; one that hangs
(waits on a lock, a network that never answers) does neither. A prompt waits for a starting server
only while one of its signs moves: the process's CPU time, its stderr log, messages or HTTP answers.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def process_cpu_ticks(pid: int | None) -> int | None:
    """User + system CPU time of a process in clock ticks (Linux /proc), or None where unknown."""
    if pid is None:
        return None
    with contextlib.suppress(OSError, ValueError, IndexError):
        raw = Path(f"/proc/{pid}/stat").read_text()
        # The command name (field 2) may hold spaces: the fields after it follow the last ")".
        fields = raw[raw.rindex(")") + 2 :].split()
        return int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])
    return None


def file_size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0
