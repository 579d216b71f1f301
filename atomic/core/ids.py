"""Identifiers and timestamps used in session files."""

from __future__ import annotations

import os
import time
import uuid
from datetime import UTC, datetime


def uuid7() -> str:
    """A time-ordered UUID (version 7): sessions sort by creation time."""
    ms = int(time.time() * 1000)
    rand = int.from_bytes(os.urandom(10), "big")
    value = (ms & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76
    value |= ((rand >> 62) & 0xFFF) << 64
    value |= 0b10 << 62
    value |= rand & ((1 << 62) - 1)
    return str(uuid.UUID(int=value))


def short_id() -> str:
    return uuid.uuid4().hex[:8]


def iso_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def file_stamp(iso: str | None = None) -> str:
    """An ISO time safe in file names: `:` and `.` become `-`."""
    return (iso or iso_now()).replace(":", "-").replace(".", "-")
