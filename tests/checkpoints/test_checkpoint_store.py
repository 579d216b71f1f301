"""The store and the scan alone: git's ignore rules, a changed file of the same size caught right
after a checkpoint, pruning by age, and a damaged copy reported rather than written back."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from atomic.core.checkpoints.coverage import walk
from atomic.core.checkpoints.restore import restore
from atomic.core.checkpoints.snapshot import Snapshotter
from atomic.core.checkpoints.store import CheckpointMissing, CheckpointStore
from tests.checkpoints.helpers import git


def covered(root: Path) -> list[str]:
    return sorted(found.relative for found in walk(str(root)))


def test_coverage_follows_gits_ignore_rules(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "sub" / "deep").mkdir(parents=True)
    (repo / "build").mkdir()
    git(repo, "init", "-q")
    (repo / ".gitignore").write_text("build/\n*.log\n!keep.log\n")
    (repo / ".git" / "info" / "exclude").write_text("secret.txt\n")
    (repo / "sub" / ".atomicignore").write_text("deep/*.tmp\n")
    (repo / "sub" / ".gitignore").write_text("!late.log\n")
    for name in ("a.txt", "build/out.o", "x.log", "keep.log", "secret.txt", "sub/deep/a.tmp", "sub/deep/b.txt",
                 "sub/late.log"):
        (repo / name).write_text(name)
    os.symlink("a.txt", repo / "link")
    assert covered(repo) == [
        ".gitignore", "a.txt", "keep.log", "link", "sub/.atomicignore", "sub/.gitignore", "sub/deep/b.txt",
        "sub/late.log",
    ]
    # From a subfolder, the rules above it (and info/exclude) still apply.
    (repo / "sub" / "secret.txt").write_text("s")
    (repo / "sub" / "y.log").write_text("y")
    assert covered(repo / "sub") == [".atomicignore", ".gitignore", "deep/b.txt", "late.log"]


def test_a_folder_outside_any_repository_uses_its_own_ignore_files_only(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("*.txt\n")  # above the project, no repository: not applied
    project = tmp_path / "project"
    project.mkdir()
    (project / "a.txt").write_text("a")
    (project / ".atomicignore").write_text("*.bin\n")
    (project / "b.bin").write_text("b")
    assert covered(project) == [".atomicignore", "a.txt"]


def test_a_quick_same_size_change_after_a_checkpoint_is_not_missed(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    target = project / "f.txt"
    target.write_text("aaaa")
    store = CheckpointStore(tmp_path / "store")
    snapshotter = Snapshotter(str(project), store, 1 << 20)
    first = snapshotter.scan(keep=True)
    stat = target.stat()
    target.write_text("bbbb")
    # Same size and the same timestamps: only the racy rule makes the next scan read it again.
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    second = snapshotter.scan(keep=True)
    assert first.files["f.txt"].digest != second.files["f.txt"].digest


def test_a_new_process_starts_from_the_newest_checkpoint(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    old = time.time() - 3600
    for index in range(5):
        path = project / f"f{index}.txt"
        path.write_text(str(index))
        os.utime(path, (old, old))
    snapshotter = Snapshotter(str(project), CheckpointStore(tmp_path / "store"), 1 << 20)
    snapshotter.scan(keep=True)
    (project / "f1.txt").unlink()
    second = snapshotter.scan(keep=True)
    assert sorted(second.files) == ["f0.txt", "f2.txt", "f3.txt", "f4.txt"]
    # A new process seeds its cache from the newest checkpoint on disk.
    fresh = Snapshotter(str(project), CheckpointStore(tmp_path / "store"), 1 << 20)
    assert fresh.scan(keep=False).files == second.files


def test_pruning_removes_old_checkpoints_and_the_copies_only_they_use(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "shared.txt").write_text("in both")
    (project / "old.txt").write_text("only in the old one")
    store = CheckpointStore(tmp_path / "store")
    snapshotter = Snapshotter(str(project), store, 1 << 20)
    old = snapshotter.scan(keep=True)
    (project / "old.txt").unlink()
    new = snapshotter.scan(keep=True)
    month_ago = time.time() - 31 * 86400
    manifest = store.manifests / f"{old.checkpoint_id}.ckpt"
    os.utime(manifest, (month_ago, month_ago))

    assert store.prune(30, force=True) == 1
    fresh = CheckpointStore(store.root)
    try:
        fresh.load_manifest(old.checkpoint_id)
        raise AssertionError("the old checkpoint should be gone")
    except CheckpointMissing:
        pass
    assert fresh.read_object(new.files["shared.txt"].digest) == b"in both"
    assert not fresh.has_object(old.files["old.txt"].digest)
    # Once a day at most.
    assert store.prune(30) == 0


def test_a_damaged_copy_is_reported_not_written(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "f.txt").write_text("original")
    store = CheckpointStore(tmp_path / "store")
    snapshotter = Snapshotter(str(project), store, 1 << 20)
    target = snapshotter.scan(keep=True)
    for pack in store.packs.glob("*.pack"):
        pack.write_bytes(b"X" * pack.stat().st_size)
    (project / "f.txt").write_text("changed!")
    current = snapshotter.scan(keep=True)
    outcome = restore(str(project), CheckpointStore(store.root), target, current)
    assert outcome.restored == [] and [p for p, _ in outcome.skipped] == ["f.txt"]
    assert "damaged" in outcome.skipped[0][1]
    assert (project / "f.txt").read_text() == "changed!"


def test_only_the_read_only_built_ins_skip_the_checkpoint() -> None:
    from atomic.core.checkpoints.manager import may_change_files
    from atomic.core.tools.base import Tool
    from atomic.core.tools.registry import BUILTIN_TOOL_NAMES, create_builtin_tools

    tools = {tool.name: tool for tool in create_builtin_tools(BUILTIN_TOOL_NAMES)}
    assert {name for name, tool in tools.items() if may_change_files(tool)} == {"bash", "write", "edit", "task"}
    assert not any(may_change_files(tools[name]) for name in ("read", "grep", "find", "ls", "todo", "web_fetch"))

    class ExtensionRead(Tool):  # an extension's tool named like a built-in is not the built-in
        name = "read"

    assert may_change_files(ExtensionRead())
    from atomic.core.mcp.tools import McpToolSearch  # loaded once MCP servers are configured

    assert not may_change_files(McpToolSearch(list, lambda _names: None))


def test_a_folder_with_too_many_files_gets_no_checkpoints(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from atomic.core.checkpoints import snapshot

    project = tmp_path / "p"
    project.mkdir()
    for index in range(4):
        (project / f"f{index}").write_text("x")
    monkeypatch.setattr(snapshot, "MAX_FILES", 3)
    with pytest.raises(snapshot.TooManyFiles):
        Snapshotter(str(project), CheckpointStore(tmp_path / "store"), 1 << 20).scan(keep=True)
    assert not (tmp_path / "store" / "manifests").exists()
