"""What writing the session durably costs the first prompt.

Run: .venv/bin/python benchmarks/session_fsync_bench.py [--runs 15] [--dir FOLDER]

Two measurements, each with the real fsync and with fsync replaced by a no-op (the difference is what
durability costs), in a folder on the disk under test (--dir; default a temp folder):
- in process: creating a session file with its first message (temp file, fsync, rename, fsync of the
  folder) and appending one more message (write, fsync), medians over --runs;
- `atomic --mode rpc --provider scripted` in a fresh process: `prompt` -> its response (the user
  message is written and fsynced before the response) and `prompt` -> `agent_end` (the assistant
  message too), medians over --runs processes. The no-fsync variant starts the same CLI with
  `os.fsync` replaced before Atomic is imported.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

NO_FSYNC = "import os; os.fsync = lambda fd: None; from atomic.cli import main; raise SystemExit(main())"
WITH_FSYNC = "from atomic.cli import main; raise SystemExit(main())"


def in_process(folder: Path, runs: int, fsync: bool) -> tuple[float, float]:
    from atomic.core.session import file_writes
    from atomic.core.session.store import SessionStore

    real = os.fsync
    if not fsync:
        file_writes.os.fsync = lambda fd: None  # type: ignore[assignment]
    creates: list[float] = []
    appends: list[float] = []
    try:
        for index in range(runs):
            store = SessionStore.create(folder / f"in-process-{fsync}-{index}", folder)
            store.append("model_change", provider="scripted", modelId="scripted-model")
            started = time.perf_counter()
            store.append("message", message={"role": "user", "content": "first prompt", "timestamp": 1})
            creates.append(time.perf_counter() - started)
            started = time.perf_counter()
            store.append("message", message={"role": "user", "content": "second", "timestamp": 2})
            appends.append(time.perf_counter() - started)
    finally:
        file_writes.os.fsync = real  # type: ignore[assignment]
    return statistics.median(creates) * 1000, statistics.median(appends) * 1000


def _send(process: subprocess.Popen[bytes], line: dict[str, object]) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps(line).encode() + b"\n")
    process.stdin.flush()


def _until(process: subprocess.Popen[bytes], key: str, value: str) -> None:
    assert process.stdout is not None
    while json.loads(process.stdout.readline()).get(key) != value:
        pass


def first_prompt(folder: Path, runs: int, fsync: bool) -> tuple[float, float]:
    responses: list[float] = []
    ends: list[float] = []
    script = folder / "script.json"
    script.write_text(json.dumps([{"text": "An answer of a few words."}] * 2), encoding="utf-8")
    for index in range(runs):
        cwd = folder / f"rpc-{fsync}-{index}"
        cwd.mkdir()
        env = dict(os.environ, ATOMIC_SCRIPT=str(script), ATOMIC_CODING_AGENT_DIR=str(cwd / "agent"))
        process = subprocess.Popen(
            [sys.executable, "-c", WITH_FSYNC if fsync else NO_FSYNC, "--mode", "rpc", "--provider", "scripted",
             "--session-dir", str(cwd / "sessions")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=cwd, env=env,
        )
        assert process.stdin is not None and process.stdout is not None
        _send(process, {"id": "s", "type": "get_state"})
        _until(process, "id", "s")
        time.sleep(0.3)  # past the start-up work that follows the first answer
        started = time.perf_counter()
        _send(process, {"id": "p", "type": "prompt", "message": "first prompt"})
        _until(process, "id", "p")
        responses.append(time.perf_counter() - started)
        _until(process, "type", "agent_end")
        ends.append(time.perf_counter() - started)
        process.stdin.close()
        process.wait(10)
    return statistics.median(responses) * 1000, statistics.median(ends) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--dir", type=Path, default=None, help="a folder on the disk to measure")
    args = parser.parse_args()
    base = args.dir or Path(tempfile.mkdtemp())
    base.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=base) as tmp:
        folder = Path(tmp)
        print(f"folder: {folder}")
        for fsync in (True, False):
            label = "fsync  " if fsync else "no-op  "
            create, append = in_process(folder, args.runs, fsync)
            response, end = first_prompt(folder, args.runs, fsync)
            print(f"{label} create+first message {create:6.2f} ms   append {append:6.2f} ms   "
                  f"prompt->response {response:6.1f} ms   prompt->agent_end {end:6.1f} ms")


if __name__ == "__main__":
    main()
