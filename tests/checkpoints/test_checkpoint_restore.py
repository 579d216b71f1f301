"""Checkpoints on a real session (scripted provider): taken before a prompt's first writing tool
call, restored with bash-made changes, created files removed, deleted ones back, ignored files
and the user's repository untouched, refused while running, and undone."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from atomic.core.checkpoints import entries
from atomic.core.checkpoints.records import CheckpointError
from tests.checkpoints.helpers import bash_call, git, prompt_and_wait, tree_of, write_call
from tests.conftest import SessionMaker
from tests.support import user_texts


async def test_a_prompt_that_writes_gets_one_checkpoint_before_its_changes(
    make_session: SessionMaker, workdir: Path
) -> None:
    (workdir / "a.txt").write_text("one\n")
    script = [bash_call("echo two > a.txt; echo new > b.txt"), write_call("c.txt", "see"), {"text": "done"}]
    session, _provider, recorder = await make_session(script)
    await prompt_and_wait(session, "change things")

    recorded = entries.recorded(session.store)
    assert len(recorded) == 1
    user_id = next(r.id for r in session.store.records if entries.is_user_message(r))
    assert recorded[0].entry_id == user_id and recorded[0].kind == "prompt"
    assert recorder.of("checkpoint_created") == [
        {"type": "checkpoint_created", "checkpointId": recorded[0].checkpoint_id, "entryId": user_id}
    ]
    diff = await session.checkpoints.diff(recorded[0].checkpoint_id)
    assert {(f.path, f.status) for f in diff.files} == {
        ("a.txt", "modified"),
        ("b.txt", "added"),
        ("c.txt", "added"),
    }
    assert "-one\n+two\n" in diff.diff
    # The checkpoint entry never reaches the model or get_messages.
    assert user_texts(session.context_messages()) == ["change things"]
    assert all(item.wire.get("customType") is None for item in session.context_items)


async def test_restore_undoes_bash_changes_creations_and_deletions(make_session: SessionMaker, workdir: Path) -> None:
    (workdir / "src").mkdir()
    (workdir / "src" / "keep.py").write_text("print('v1')\n")
    (workdir / "gone.txt").write_text("bye\n")
    (workdir / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(workdir / "run.sh", 0o755)
    before = tree_of(workdir)
    command = (
        "echo \"print('v2')\" > src/keep.py; rm gone.txt; mkdir -p new/deeper; echo x > new/deeper/made.txt;"
        " chmod 600 run.sh"
    )
    session, _provider, _recorder = await make_session([bash_call(command), {"text": "ok"}])
    await prompt_and_wait(session, "mess it up")
    assert not (workdir / "gone.txt").exists()

    [checkpoint] = entries.recorded(session.store)
    result = await session.checkpoints.restore(checkpoint.checkpoint_id)

    assert tree_of(workdir) == before
    assert not (workdir / "new").exists()  # the folders left empty went too
    assert os.stat(workdir / "run.sh").st_mode & 0o777 == 0o755
    assert sorted(result.restored) == ["gone.txt", "run.sh", "src/keep.py"]
    assert result.deleted == ("new/deeper/made.txt",)
    assert result.skipped == ()
    # A restore adds no message.
    assert user_texts(session.context_messages()) == ["mess it up"]


async def test_ignored_files_are_left_alone(make_session: SessionMaker, workdir: Path) -> None:
    (workdir / ".gitignore").write_text("*.log\nbuild/\n")
    (workdir / ".atomicignore").write_text("scratch.txt\n")
    (workdir / "app.log").write_text("old log\n")
    (workdir / "tracked.txt").write_text("v1\n")
    command = "echo new log > app.log; mkdir build; echo o > build/out.o; echo s > scratch.txt; echo v2 > tracked.txt"
    session, _provider, _recorder = await make_session([bash_call(command), {"text": "ok"}])
    await prompt_and_wait(session, "go")
    [checkpoint] = entries.recorded(session.store)
    result = await session.checkpoints.restore(checkpoint.checkpoint_id)

    assert (workdir / "tracked.txt").read_text() == "v1\n"
    assert (workdir / "app.log").read_text() == "new log\n"
    assert (workdir / "build" / "out.o").read_text() == "o\n"
    assert (workdir / "scratch.txt").read_text() == "s\n"
    assert result.restored == ("tracked.txt",) and result.deleted == ()


async def test_the_users_repository_is_never_touched(make_session: SessionMaker, workdir: Path) -> None:
    git(workdir, "init", "-q")
    git(workdir, "config", "user.email", "u@example.com")
    git(workdir, "config", "user.name", "U")
    (workdir / "f.txt").write_text("committed\n")
    git(workdir, "add", "f.txt")
    git(workdir, "commit", "-qm", "first")
    (workdir / "f.txt").write_text("stashed\n")
    git(workdir, "stash", "-q")
    (workdir / "staged.txt").write_text("staged\n")
    git(workdir, "add", "staged.txt")
    (workdir / "f.txt").write_text("dirty\n")

    def repo_state() -> dict[str, Any]:
        dot_git = workdir / ".git"
        return {
            "status": git(workdir, "status", "--porcelain=v1", "--untracked-files=all"),
            "head": git(workdir, "rev-parse", "HEAD"),
            "refs": git(workdir, "for-each-ref"),
            "stash": git(workdir, "stash", "list"),
            "index": (dot_git / "index").read_bytes(),
            "config": (dot_git / "config").read_bytes(),
            "hooks": sorted(p.name for p in (dot_git / "hooks").iterdir()),
            "files": sorted(str(p.relative_to(dot_git)) for p in dot_git.rglob("*")),
        }

    before = repo_state()
    session, _provider, _recorder = await make_session([bash_call("echo agent > f.txt; echo n > n.txt"), {"text": "ok"}])
    await prompt_and_wait(session, "go")
    [checkpoint] = entries.recorded(session.store)
    await session.checkpoints.restore(checkpoint.checkpoint_id)

    assert repo_state() == before
    assert (workdir / "f.txt").read_text() == "dirty\n"
    # Nothing of the store lives in the project.
    assert sorted(p.name for p in workdir.iterdir()) == [".git", "f.txt", "staged.txt"]


async def test_a_folder_that_is_not_a_repository_works_the_same(make_session: SessionMaker, workdir: Path) -> None:
    (workdir / "notes.md").write_text("# v1\n")
    session, _provider, _recorder = await make_session([write_call("notes.md", "# v2\n"), {"text": "ok"}])
    await prompt_and_wait(session, "edit the notes")
    [checkpoint] = entries.recorded(session.store)
    await session.checkpoints.restore(checkpoint.checkpoint_id)
    assert (workdir / "notes.md").read_text() == "# v1\n"
    assert not (workdir / ".git").exists()


async def test_a_restore_is_undone_by_its_undo_checkpoint(make_session: SessionMaker, workdir: Path) -> None:
    (workdir / "a.txt").write_text("before\n")
    session, _provider, recorder = await make_session([bash_call("echo after > a.txt; echo b > b.txt"), {"text": "ok"}])
    await prompt_and_wait(session, "go")
    after = tree_of(workdir)
    [checkpoint] = entries.recorded(session.store)
    result = await session.checkpoints.restore(checkpoint.checkpoint_id)
    assert (workdir / "a.txt").read_text() == "before\n"

    listed = await session.checkpoints.listed()
    assert [(c.kind, c.entry_id) for c in listed][-1] == ("restore", None)
    assert listed[-1].checkpoint_id == result.undo_checkpoint_id
    assert recorder.of("checkpoint_created")[-1] == {
        "type": "checkpoint_created",
        "checkpointId": result.undo_checkpoint_id,
        "entryId": None,
    }
    await session.checkpoints.restore(result.undo_checkpoint_id)
    assert tree_of(workdir) == after


async def test_restore_is_refused_while_the_agent_runs_and_for_unknown_ids(
    make_session: SessionMaker, workdir: Path
) -> None:
    (workdir / "a.txt").write_text("x\n")
    session, _provider, _recorder = await make_session([bash_call("echo y > a.txt"), {"text": "ok"}, {"hang": True}])
    await prompt_and_wait(session, "first")
    [checkpoint] = entries.recorded(session.store)
    await session.prompt("second")
    await asyncio.sleep(0.05)
    assert session.is_streaming
    with pytest.raises(CheckpointError, match="abort first"):
        await session.checkpoints.restore(checkpoint.checkpoint_id)
    assert (workdir / "a.txt").read_text() == "y\n"
    await session.abort()
    running_bash = asyncio.ensure_future(session.bash.run("sleep 5"))
    await asyncio.sleep(0.05)
    with pytest.raises(CheckpointError, match="bash command runs: abort first"):
        await session.checkpoints.restore(checkpoint.checkpoint_id)
    session.bash.abort()
    await running_bash
    with pytest.raises(CheckpointError, match="Unknown checkpoint"):
        await session.checkpoints.restore("not-a-checkpoint")
    with pytest.raises(CheckpointError, match="Unknown checkpoint"):
        await session.checkpoints.restore("../../etc")


async def test_a_file_that_cannot_be_written_is_listed_and_the_rest_restored(
    make_session: SessionMaker, workdir: Path
) -> None:
    # The checkpoint has a file `logs`; the run replaces it with a folder holding an ignored file,
    # which a restore must not delete, so `logs` cannot be written back (whatever the user's rights).
    (workdir / ".gitignore").write_text("*.log\n")
    (workdir / "logs").write_text("a file\n")
    (workdir / "other.txt").write_text("v1\n")
    command = "rm logs; mkdir logs; echo kept > logs/run.log; echo v2 > other.txt"
    session, _provider, _recorder = await make_session([bash_call(command), {"text": "ok"}])
    await prompt_and_wait(session, "go")
    [checkpoint] = entries.recorded(session.store)
    result = await session.checkpoints.restore(checkpoint.checkpoint_id)

    assert [s.path for s in result.skipped] == ["logs"]
    assert "cannot write" in result.skipped[0].reason
    assert result.restored == ("other.txt",)
    assert (workdir / "other.txt").read_text() == "v1\n"
    assert (workdir / "logs" / "run.log").read_text() == "kept\n"
    assert not [p for p in workdir.iterdir() if "atomic-restore" in p.name]


async def test_large_files_are_skipped_listed_and_never_touched(make_session: SessionMaker, workdir: Path) -> None:
    (workdir / "big.bin").write_bytes(b"x" * 2048)
    (workdir / "small.txt").write_text("s1\n")
    session, _provider, _recorder = await make_session(
        [bash_call("echo changed > big.bin; echo s2 > small.txt"), {"text": "ok"}]
    )
    session.settings_manager.update({"checkpoints.maxFileBytes": 1024})
    await prompt_and_wait(session, "go")
    [checkpoint] = entries.recorded(session.store)
    result = await session.checkpoints.restore(checkpoint.checkpoint_id)
    assert (workdir / "small.txt").read_text() == "s1\n"
    assert (workdir / "big.bin").read_text() == "changed\n"
    assert result.restored == ("small.txt",)


async def test_disabled_checkpoints_record_nothing_and_commands_say_so(
    make_session: SessionMaker, workdir: Path
) -> None:
    session, _provider, _recorder = await make_session([bash_call("echo x > a.txt"), {"text": "ok"}])
    session.settings_manager.update({"checkpoints.enabled": False})
    await prompt_and_wait(session, "go")
    assert entries.recorded(session.store) == []
    with pytest.raises(CheckpointError, match="disabled"):
        await session.checkpoints.listed()


async def test_a_run_that_only_reads_records_no_checkpoint(make_session: SessionMaker, workdir: Path) -> None:
    (workdir / "a.txt").write_text("x\n")
    script = [
        {"toolCalls": [{"name": "read", "arguments": {"path": "a.txt"}}]},
        {"text": "ok"},
        write_call("a.txt", "y\n"),
        {"text": "written"},
    ]
    session, _provider, _recorder = await make_session(script)
    await prompt_and_wait(session, "look")
    assert entries.recorded(session.store) == []
    await prompt_and_wait(session, "now write")
    listed = await session.checkpoints.listed()
    assert [(c.text, c.files, c.kind) for c in listed] == [("now write", 1, "prompt")]
    # Code before the read-only prompt is the state the next checkpoint recorded.
    look = next(r.id for r in session.store.records if entries.is_user_message(r))
    assert session.checkpoints.checkpoint_for_prompt(look) == listed[0].checkpoint_id


async def test_a_restore_never_writes_through_a_folder_swapped_for_a_link(
    make_session: SessionMaker, workdir: Path, tmp_path: Path
) -> None:
    # The hostile run replaces src/ with a link to a folder outside the project and hides the link
    # from checkpoints with an ignore rule; restoring src/keep.py must not land outside.
    outside = tmp_path / "outside"
    outside.mkdir()
    (workdir / "src").mkdir()
    (workdir / "src" / "keep.py").write_text("mine\n")
    command = f"rm -r src; ln -s {outside} src; echo src > .gitignore"
    session, _provider, _recorder = await make_session([bash_call(command), {"text": "ok"}])
    await prompt_and_wait(session, "go")
    [checkpoint] = entries.recorded(session.store)
    result = await session.checkpoints.restore(checkpoint.checkpoint_id)

    assert list(outside.iterdir()) == []
    assert [(s.path, s.reason) for s in result.skipped] == [("src/keep.py", "not written: src is a symbolic link")]
    assert result.deleted == (".gitignore",)


async def test_atomics_own_files_are_never_covered_when_they_lie_in_the_project(agent_dir: Path) -> None:
    from atomic.core.engine.factory import create_session
    from atomic.core.engine.options import SessionOptions
    from atomic.core.providers.scripted import ScriptedProvider

    home = agent_dir.parent.parent  # a session started in the home folder holds ~/.atomic/agent
    provider = ScriptedProvider([bash_call("echo x > made.txt"), {"text": "ok"}, bash_call("echo y > more.txt"),
                                 {"text": "ok"}])
    session = await create_session(SessionOptions(cwd=home, scripted=provider))
    try:
        await prompt_and_wait(session, "first")
        await prompt_and_wait(session, "second")
        assert session.store.path is not None and session.store.path.exists()
        [first, _second] = entries.recorded(session.store)
        diff = await session.checkpoints.diff(first.checkpoint_id)
        assert [f.path for f in diff.files] == ["made.txt", "more.txt"]
        await session.checkpoints.restore(first.checkpoint_id)
        assert session.store.path.exists() and not (home / "made.txt").exists()
    finally:
        await session.shutdown()


async def test_a_steering_message_that_writes_gets_its_own_checkpoint(make_session: SessionMaker, workdir: Path) -> None:
    (workdir / "a.txt").write_text("0\n")
    script = [
        {"match": "first", **bash_call("sleep 0.3; echo 1 > a.txt")},
        {"match": "steer", **bash_call("echo 2 > a.txt")},
        {"match": "steer", "text": "done"},
    ]
    session, _provider, _recorder = await make_session(script)
    await session.prompt("first prompt")
    await asyncio.sleep(0.1)
    await session.steer("steer it")
    await session.wait_idle()
    users = [r.id for r in session.store.records if entries.is_user_message(r)]
    recorded = entries.recorded(session.store)
    assert [c.entry_id for c in recorded] == users and len(users) == 2
    # The steering prompt's checkpoint holds the files as its run found them.
    await session.checkpoints.restore(recorded[1].checkpoint_id)
    assert (workdir / "a.txt").read_text() == "1\n"
    await session.checkpoints.restore(recorded[0].checkpoint_id)
    assert (workdir / "a.txt").read_text() == "0\n"
