"""Whether this machine can sandbox a command, found out once per process by trying it.

Linux needs bubblewrap and unprivileged user namespaces (a distribution may switch them off, or an
AppArmor rule may refuse them to bubblewrap): the probe runs the real launcher on `true` with a new
network namespace, which is the surest test. macOS needs /usr/bin/sandbox-exec. `ATOMIC_BWRAP` names
the bubblewrap binary when it is not on PATH (an empty or missing path means "no bubblewrap").
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass

from atomic.core.sandbox.seatbelt import SANDBOX_EXEC

BWRAP_ENV = "ATOMIC_BWRAP"
_PROBE_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Support:
    """What the OS offers: `launcher` is the program that sandboxes (None: unavailable, see `reason`)."""

    platform: str  # "linux", "darwin" or another sys.platform
    launcher: str | None
    reason: str = ""

    @property
    def available(self) -> bool:
        return self.launcher is not None


def find_bwrap() -> str | None:
    named = os.environ.get(BWRAP_ENV)
    if named is not None:
        return named if named and os.access(named, os.X_OK) else None
    return shutil.which("bwrap")


def _probe_linux() -> Support:
    bwrap = find_bwrap()
    if bwrap is None:
        return Support("linux", None, "bubblewrap (bwrap) is not installed")
    argv = [bwrap, "--unshare-user", "--disable-userns", "--cap-drop", "ALL", "--unshare-net"]
    argv += ["--ro-bind", "/", "/", "--", "/bin/sh", "-c", "exit 0"]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=_PROBE_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return Support("linux", None, f"bubblewrap could not start: {exc}")
    if done.returncode != 0:
        why = done.stderr.decode(errors="replace").strip().splitlines()
        detail = why[-1] if why else f"exit code {done.returncode}"
        return Support("linux", None, f"bubblewrap cannot create namespaces here ({detail})")
    return Support("linux", bwrap)


def probe_support() -> Support:
    if sys.platform.startswith("linux"):
        return _probe_linux()
    if sys.platform == "darwin":
        if os.access(SANDBOX_EXEC, os.X_OK):
            return Support("darwin", SANDBOX_EXEC)
        return Support("darwin", None, f"{SANDBOX_EXEC} is missing")
    return Support(sys.platform, None, f"no sandbox is implemented for {sys.platform}")


class SupportProbe:
    """Runs the probe in a thread from construction (it overlaps start-up); `result()` waits for it."""

    def __init__(self) -> None:
        self._done = threading.Event()
        self._support: Support | None = None
        threading.Thread(target=self._run, name="atomic-sandbox-probe", daemon=True).start()

    def _run(self) -> None:
        try:
            self._support = probe_support()
        except Exception as exc:  # a probe must never take the session down
            self._support = Support(sys.platform, None, f"the sandbox probe failed: {exc}")
        finally:
            self._done.set()

    def result(self) -> Support:
        self._done.wait()
        assert self._support is not None
        return self._support


_shared: SupportProbe | None = None
_shared_lock = threading.Lock()


def shared_probe() -> SupportProbe:
    """The process's one probe (the answer does not change while Atomic runs)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = SupportProbe()
        return _shared
