"""Crash-safe file writes: write a temp file beside the target, fsync, then rename over it.

Also the one way Atomic turns an object into a JSON line for a file or a pipe (`json_line`): compact,
UTF-8, and never failing on lone UTF-16 surrogates (see `escape_surrogates`).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape_one(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def escape_surrogates(json_text: str) -> str:
    """Replace each lone surrogate in JSON text by its `\\uXXXX` escape.

    A lone surrogate (from `"\\ud800"` in a JSON request, a torn emoji pair, a surrogateescape'd
    file name) cannot be encoded as UTF-8. In JSON text it can only sit inside a string, where the
    escape means exactly the same character, so the text is kept as it was and the line stays valid
    UTF-8 and valid JSON; reading it back gives the same string.
    """
    return _SURROGATE.sub(_escape_one, json_text)


def json_text(obj: Any) -> str:
    """Compact JSON (no spaces, non-ASCII kept as is) that is always encodable as UTF-8."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = escape_surrogates(text)
    return text


def encode_json_text(text: str) -> bytes:
    """UTF-8 bytes of JSON text, escaping lone surrogates instead of failing."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return escape_surrogates(text).encode("utf-8")


def write_atomic(path: Path, data: str | bytes, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # Encoded before the temp file exists: text that cannot be encoded never leaves a file behind.
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=str(path.parent), prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(raw)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """An exclusive advisory lock on `<path>.lock`, held for the block."""
    lock_path = path.with_name(path.name + ".lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
