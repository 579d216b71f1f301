"""Session backup before a compaction entry, and the boundary message the model sees."""

from __future__ import annotations

import os
import stat
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from atomic.core.compaction.backup import backup_session_file, backup_timestamp
from atomic.core.compaction.context import (
    boundary_message,
    compaction_summary_to_user_message,
    compaction_summary_to_user_text,
)
from atomic.core.messages import CompactionSummaryMessage

MOMENT = datetime(2026, 6, 6, 1, 2, 3, 45_678, tzinfo=UTC)


def _session(tmp_path: Path) -> Path:
    path = tmp_path / "2026-06-06T00-00-00-000Z_abc.jsonl"
    path.write_bytes(b'{"type":"session"}\n{"type":"message"}\n' + bytes(range(256)))
    return path


def test_timestamp_is_dashed_utc_iso_with_milliseconds() -> None:
    assert backup_timestamp(MOMENT) == "2026-06-06T01-02-03-045Z"
    shifted = MOMENT.astimezone(timezone(timedelta(hours=5)))
    assert backup_timestamp(shifted) == "2026-06-06T01-02-03-045Z"


def test_backup_is_a_private_byte_identical_copy_beside_the_session(tmp_path: Path) -> None:
    session = _session(tmp_path)
    backup = backup_session_file(session, now=MOMENT)
    assert backup == tmp_path / "2026-06-06T00-00-00-000Z_abc.jsonl.2026-06-06T01-02-03-045Z.compact.bak"
    assert backup.read_bytes() == session.read_bytes()
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600


def test_backup_mode_is_0600_even_with_a_permissive_umask(tmp_path: Path) -> None:
    session = _session(tmp_path)
    previous = os.umask(0)
    try:
        backup = backup_session_file(session, now=MOMENT)
    finally:
        os.umask(previous)
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600


def test_backups_in_the_same_millisecond_do_not_overwrite(tmp_path: Path) -> None:
    session = _session(tmp_path)
    first = backup_session_file(session, now=MOMENT)
    session.write_text("changed\n")
    second = backup_session_file(session, now=MOMENT)
    assert first != second
    assert second.name.endswith("2026-06-06T01-02-03-046Z.compact.bak")
    assert first.read_bytes() != second.read_bytes() and second.read_text() == "changed\n"


def test_default_time_is_now(tmp_path: Path) -> None:
    backup = backup_session_file(_session(tmp_path))
    assert backup.name.startswith("2026-06-06T00-00-00-000Z_abc.jsonl.")
    assert backup.name.endswith("Z.compact.bak")


def test_missing_session_raises_and_leaves_no_backup(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        backup_session_file(tmp_path / "nope.jsonl", now=MOMENT)
    assert list(tmp_path.iterdir()) == []


def test_boundary_message_and_user_framing() -> None:
    message = boundary_message("[User]: hi\n(filtered 3 lines)", 1234)
    assert isinstance(message, CompactionSummaryMessage)
    assert message.summary == "[User]: hi\n(filtered 3 lines)" and message.tokens_before == 1234
    text = compaction_summary_to_user_text(message)
    assert text == compaction_summary_to_user_text(message.summary)
    assert text.endswith("<compacted-history>\n[User]: hi\n(filtered 3 lines)\n</compacted-history>")
    assert "(filtered N lines)" in text.split("\n")[0]
    user = compaction_summary_to_user_message(message)
    assert user.content == text and user.timestamp == message.timestamp
