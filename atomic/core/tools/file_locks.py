"""Per-file serialisation for the tools that change files.

Tool calls of one assistant turn may run concurrently; two edits of the same file must not both read
the old content and then overwrite each other. Locks are keyed by the resolved real path (so a symlink
and its target share one) and live only while someone holds or waits for them.
"""

from __future__ import annotations

import asyncio
import os
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

_locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()


@asynccontextmanager
async def file_mutation_lock(path: Path) -> AsyncIterator[None]:
    key = os.path.realpath(path)
    lock = _locks.get(key)
    if lock is None:
        lock = asyncio.Lock()
        _locks[key] = lock
    # `lock` is a strong reference for as long as this block runs, keeping the entry alive.
    async with lock:
        yield
