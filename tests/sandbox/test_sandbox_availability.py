"""A machine without the sandbox's OS support: `available: false` in get_state, the user told once, and
the model's commands still run (unsandboxed). Simulated by pointing ATOMIC_BWRAP at nothing."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from atomic.core.sandbox.control import SandboxControl
from atomic.core.sandbox.probe import Support
from tests.rpc.test_cli_modes import run_atomic
from tests.sandbox.conftest import bash_calls, results


async def test_print_mode_says_once_on_stderr_that_there_is_no_sandbox(workdir: Path, write_script: Any) -> None:
    env = dict(os.environ, ATOMIC_BWRAP="/nonexistent/bwrap")
    script = write_script(bash_calls("echo one > one.txt", "echo two > two.txt"))
    code, _out, err = await run_atomic(["-p", "go", "--provider", "scripted"], workdir, env, script)
    assert code == 0, err
    assert err.count("The sandbox is not available here") == 1 and "bubblewrap (bwrap) is not installed" in err
    assert (workdir / "one.txt").exists() and (workdir / "two.txt").exists()
    code, _out, err = await run_atomic(["-p", "go", "--provider", "scripted", "--sandbox", "off"], workdir, env,
                                       write_script([{"text": "hi"}]))
    assert "sandbox" not in err, "nothing to tell with the sandbox off"


async def test_the_notice_is_given_once_per_session(make_session: Any, workdir: Path) -> None:
    session, _provider, _rec = await make_session(bash_calls("echo hi"))
    session.sandbox = SandboxControl(
        lambda: session.settings.sandbox, workdir, support=lambda: Support("linux", None, "simulated")
    )
    first = session.sandbox.unavailable_notice()
    assert first is not None and "simulated" in first and session.sandbox.unavailable_notice() is None
    await session.prompt("go")
    await session.wait_idle()
    assert results(session)[0][1].strip() == "hi"
    assert session.sandbox.status().available is False
