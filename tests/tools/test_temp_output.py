from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from atomic.core import temp_output
from atomic.core.temp_output import SpillFile, session_temp_dir, sweep_stale_session_dirs, temp_root


def mode_of(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_tree_and_file_permissions(private_tempdir: Path) -> None:
    folder = session_temp_dir("abc-123")
    assert folder == private_tempdir / f"atomic-{os.getuid()}" / "abc-123"
    assert mode_of(folder.parent) == 0o700 and mode_of(folder) == 0o700
    spill = SpillFile.create("abc-123", "atomic-bash-x.log")
    assert spill is not None
    spill.write("hello\n")
    spill.close()
    assert spill.path.read_text() == "hello\n"
    assert mode_of(spill.path) == 0o600


def test_session_id_cannot_escape_the_tree(private_tempdir: Path) -> None:
    folder = session_temp_dir("../../etc")
    assert folder is not None and folder.parent == temp_root()


def test_symlinked_root_is_refused(private_tempdir: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "attacker"
    elsewhere.mkdir(mode=0o700)
    temp_root().symlink_to(elsewhere)
    assert session_temp_dir("s") is None
    assert SpillFile.create("s", "f.log") is None
    assert list(elsewhere.iterdir()) == []


def test_symlinked_session_folder_and_file_are_refused(private_tempdir: Path, tmp_path: Path) -> None:
    session_temp_dir("ok")
    target = tmp_path / "target"
    target.mkdir()
    (temp_root() / "evil").symlink_to(target)
    assert session_temp_dir("evil") is None
    (temp_root() / "ok" / "f.log").symlink_to(tmp_path / "victim.txt")
    assert SpillFile.create("ok", "f.log") is None
    assert not (tmp_path / "victim.txt").exists()


def test_loose_own_folder_is_tightened(private_tempdir: Path) -> None:
    root = temp_root()
    root.mkdir(mode=0o777)
    os.chmod(root, 0o777)
    assert session_temp_dir("s") is not None
    assert mode_of(root) == 0o700


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to create a folder owned by someone else")
def test_folder_owned_by_another_user_is_refused(private_tempdir: Path) -> None:
    root = temp_root()
    root.mkdir(mode=0o700)
    os.chown(root, 12345, 12345)
    assert session_temp_dir("s") is None


def test_persisted_output_cap(private_tempdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(temp_output, "MAX_PERSISTED_BYTES", 10)
    spill = SpillFile.create("s", "cap.log")
    assert spill is not None
    spill.write("12345678")
    spill.write("abcdef")
    spill.write("never written")
    spill.close()
    assert spill.capped and spill.bytes_written == 10
    assert spill.path.read_text() == "12345678ab\n[Output truncated: persisted-output cap of 10 bytes reached]\n"


def test_real_cap_is_64_mib() -> None:
    assert temp_output.MAX_PERSISTED_BYTES == 67108864


def test_sweep_removes_only_stale_dead_sessions(private_tempdir: Path, tmp_path: Path) -> None:
    old_time = time.time() - 31 * 24 * 3600
    for name in ("stale", "live-but-old", "fresh"):
        spill = SpillFile.create(name, "out.log")
        assert spill is not None
        spill.write("x")
        spill.close()
        if name != "fresh":
            os.utime(spill.path, (old_time, old_time))
            os.utime(spill.path.parent, (old_time, old_time))
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    os.utime(outside / "keep.txt", (old_time, old_time))
    (temp_root() / "linked").symlink_to(outside)

    removed = sweep_stale_session_dirs({"live-but-old"})
    assert removed == [temp_root() / "stale"]
    assert sorted(p.name for p in temp_root().iterdir()) == ["fresh", "linked", "live-but-old"]
    assert (outside / "keep.txt").exists()
