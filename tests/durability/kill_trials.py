"""Kill `atomic --mode rpc` with SIGKILL around its first prompt and check what it had acknowledged.

One trial starts a real `python -m atomic --mode rpc --provider scripted` in its own folder, sends a
prompt (at once, or after a `get_state` answer), and kills the process at one chosen point: a random
moment after the prompt was sent (start-up, before the response), the prompt's response, the user's
`message_end`, the k-th streamed `message_update`, the assistant's `message_end`, the start of the
bash tool call, the tool result's `message_end`, or `agent_end`. Whatever had reached stdout before the
process died was told to the client, so the checks are:

- a `prompt` response with `success: true` means the prompt's user message is in the session file;
- every `message_end` means that message (the same JSON) is in the file;
- the file, when one exists, opens again (its first line a session header afterwards) and answers
  `get_state` with itself as the session file.

Run as a script to count failures without asserting (the number of trials and parallel processes are
flags): `python -m tests.durability.kill_trials --trials 200`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PROMPT_TEXT = "Please look at the folder, then summarise what you found."
# The first answer streams a little text and calls bash (which prints, sleeps and prints again);
# the second streams a longer text in small chunks, so kills land inside streams and tool calls.
SCRIPT: list[dict[str, Any]] = [
    {
        "text": "Let me look at the folder first.",
        "chunkSize": 4,
        "toolCalls": [{"name": "bash", "arguments": {"command": "echo one; sleep 0.01; echo two"}}],
    },
    {"text": "The folder holds one file. " * 6, "chunkSize": 6},
]

# (trigger, count): kill once the count-th line of this kind has been read; "send" kills a random
# number of milliseconds after the prompt was written, "response" on the prompt's response.
KILL_POINTS: list[tuple[str, int]] = [
    ("send", 0),
    ("response", 1),
    ("message_end", 1),
    ("message_update", 1),
    ("message_update", 3),
    ("message_end", 2),
    ("tool_execution_start", 1),
    ("message_end", 3),
    ("message_update", 12),
    ("message_end", 4),
    ("agent_end", 1),
    ("steer", 1),
    ("follow_up", 1),
]
# "steer" / "follow_up": once the first answer streams, that command is sent, and the kill comes on
# its response; its message must then be in the file or in the queue journal beside it.
QUEUED_TEXT = "Also mention the file sizes."
LINE_TIMEOUT_S = 60.0
# Every this many trials, a new interpreter (`python -m atomic`) instead of a preloaded fork.
FRESH_EVERY = 20


@dataclass
class TrialResult:
    index: int
    point: str
    prompt_first: bool
    lines: list[dict[str, Any]] = field(default_factory=list)
    session_file: Path | None = None
    problems: list[str] = field(default_factory=list)
    stderr: str = ""
    seconds: float = 0.0


def atomic_command() -> list[str]:
    return [sys.executable, "-m", "atomic", "--mode", "rpc"]


def trial_env(base: dict[str, str], script: Path, agent_dir: Path) -> dict[str, str]:
    env = dict(base)
    env["ATOMIC_SCRIPT"] = str(script)
    env["ATOMIC_CODING_AGENT_DIR"] = str(agent_dir)
    env["ATOMIC_TEST"] = "1"
    return env


def session_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.jsonl")) if folder.is_dir() else []


def stored_messages(path: Path) -> list[dict[str, Any]]:
    """The messages of a session file's readable message entries, in file order."""
    out: list[dict[str, Any]] = []
    for line in path.read_text(encoding="utf-8", errors="replace").split("\n"):
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and entry.get("type") == "message" and isinstance(entry.get("message"), dict):
            out.append(entry["message"])
    return out


def first_line_is_header(path: Path) -> bool:
    first = path.read_bytes().split(b"\n", 1)[0]
    try:
        header = json.loads(first)
    except ValueError:
        return False
    return isinstance(header, dict) and header.get("type") == "session"


async def _read_until(
    stdout: asyncio.StreamReader, lines: list[dict[str, Any]], trigger: str, count: int, command: str = "prompt"
) -> None:
    seen = 0
    while True:
        raw = await asyncio.wait_for(stdout.readline(), LINE_TIMEOUT_S)
        if not raw:
            return
        try:
            message = json.loads(raw)
        except ValueError:
            continue
        lines.append(message)
        kind = message.get("type")
        if trigger == "response" and kind == "response" and message.get("command") == command:
            return
        if kind == trigger:
            seen += 1
            if seen >= count:
                return


async def _drain(stdout: asyncio.StreamReader, lines: list[dict[str, Any]]) -> None:
    """Read what the dead process had already written: the client was told that too."""
    for raw in (await stdout.read()).split(b"\n"):
        try:
            lines.append(json.loads(raw))
        except ValueError:
            continue


class Child:
    """One Atomic process of a trial: its pid, stdout and stderr readers and a way to write its stdin."""

    def __init__(self, pid: int, stdin_fd: int, stdout: asyncio.StreamReader, stderr: asyncio.StreamReader) -> None:
        self.pid = pid
        self.stdin_fd = stdin_fd
        self.stdout = stdout
        self.stderr = stderr
        self.process: asyncio.subprocess.Process | None = None

    def write(self, data: bytes) -> None:
        with contextlib.suppress(OSError):
            os.write(self.stdin_fd, data)

    def close_stdin(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.stdin_fd)

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)

    async def wait(self) -> None:
        """Until the process has exited (its stdout is closed; a subprocess is also reaped)."""
        if self.process is not None:
            await self.process.wait()


async def _reader(fd: int) -> asyncio.StreamReader:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 26)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(fd, "rb", buffering=0))
    return reader


class Launcher:
    """Starts trial processes: forked from a preloaded `forker.py`, or (`fresh`) as new interpreters."""

    def __init__(self) -> None:
        self._control: socket.socket | None = None
        self._forker: asyncio.subprocess.Process | None = None
        self._lock = asyncio.Lock()

    async def start(self) -> None:
        ours, theirs = socket.socketpair()
        self._forker = await asyncio.create_subprocess_exec(
            sys.executable, str(Path(__file__).with_name("forker.py")), str(theirs.fileno()),
            pass_fds=(theirs.fileno(),), stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
        )
        theirs.close()
        ours.setblocking(False)
        self._control = ours

    async def stop(self) -> None:
        if self._control is not None:
            self._control.close()
        if self._forker is not None:
            with contextlib.suppress(ProcessLookupError):
                self._forker.kill()
            await self._forker.wait()

    async def spawn(self, argv: list[str], cwd: Path, env: dict[str, str], *, fresh: bool = False) -> Child:
        if fresh or self._control is None:
            process = await asyncio.create_subprocess_exec(
                *atomic_command(), *argv,
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                cwd=str(cwd), env=env,
            )
            assert process.stdin is not None and process.stdout is not None and process.stderr is not None
            stdin_fd = os.dup(process.stdin.get_extra_info("pipe").fileno())
            process.stdin.close()
            child = Child(process.pid, stdin_fd, process.stdout, process.stderr)
            child.process = process
            return child
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        body = json.dumps({"argv": ["--mode", "rpc", *argv], "cwd": str(cwd), "env": env}).encode()
        loop = asyncio.get_running_loop()
        async with self._lock:
            socket.send_fds(self._control, [body], [in_r, out_w, err_w])
            answer = b""
            while not answer.endswith(b"\n"):
                chunk = await loop.sock_recv(self._control, 256)
                if not chunk:
                    raise ConnectionError("the forker stopped")
                answer += chunk
        for fd in (in_r, out_w, err_w):
            os.close(fd)
        pid = json.loads(answer)["pid"]
        return Child(pid, in_w, await _reader(out_r), await _reader(err_r))


async def run_trial(
    index: int, root: Path, base_env: dict[str, str], seed: int, launcher: Launcher, reopener: Reopener
) -> TrialResult:
    rng = random.Random(seed * 7919 + index)
    trigger, count = KILL_POINTS[index % len(KILL_POINTS)]
    prompt_first = (index // len(KILL_POINTS)) % 2 == 0
    fresh = index % FRESH_EVERY == 0
    result = TrialResult(index, f"{trigger}#{count}", prompt_first)
    folder = root / f"trial-{index}"
    cwd, sessions, agent = folder / "project", folder / "sessions", folder / "agent"
    cwd.mkdir(parents=True)
    agent.mkdir()
    script = folder / "script.json"
    script.write_text(json.dumps(SCRIPT), encoding="utf-8")
    argv = ["--provider", "scripted", "--session-dir", str(sessions), "--permission-mode", "yolo"]
    child = await launcher.spawn(argv, cwd, trial_env(base_env, script, agent), fresh=fresh)
    prompt = json.dumps({"id": "p1", "type": "prompt", "message": PROMPT_TEXT}).encode() + b"\n"
    try:
        if not prompt_first:
            child.write(b'{"id":"s0","type":"get_state"}\n')
            await _read_until(child.stdout, result.lines, "response", 0, "get_state")
        child.write(prompt)
        if trigger == "send":
            await asyncio.sleep(rng.uniform(0, 0.4 if prompt_first else 0.05))
        elif trigger in ("steer", "follow_up"):
            await _read_until(child.stdout, result.lines, "message_update", 1)
            child.write(json.dumps({"id": "q1", "type": trigger, "message": QUEUED_TEXT}).encode() + b"\n")
            await _read_until(child.stdout, result.lines, "response", 0, trigger)
            if rng.random() < 0.5:
                await asyncio.sleep(rng.uniform(0, 0.003))
        else:
            await _read_until(child.stdout, result.lines, trigger, count)
            # Sometimes a little later: "right after" covers the next few steps too.
            if rng.random() < 0.5:
                await asyncio.sleep(rng.uniform(0, 0.003))
    except (TimeoutError, ConnectionError) as exc:
        result.problems.append(f"no {trigger} line: {type(exc).__name__}")
    finally:
        child.kill()
    await _drain(child.stdout, result.lines)
    result.stderr = (await child.stderr.read()).decode("utf-8", errors="replace")
    child.close_stdin()
    await child.wait()
    header_ok = _check_file(result, sessions)
    if result.session_file is not None:
        if problem := await reopener.check(result.session_file):
            result.problems.append(f"reopen by switch_session: {problem}")
        if (fresh or not header_ok) and (problem := await reopen_answers_state(result.session_file, base_env,
                                                                                  agent, launcher)):
            result.problems.append(f"reopen by --session: {problem}")
    return result


def _check_file(result: TrialResult, sessions: Path) -> bool:
    """Record what the file lacks of what was acknowledged; False when its first line is not a header."""
    files = session_files(sessions)
    if len(files) > 1:
        result.problems.append(f"{len(files)} session files")
    result.session_file = files[0] if files else None
    acknowledged = any(
        m.get("type") == "response" and m.get("command") == "prompt" and m.get("success") for m in result.lines
    )
    ended = [m["message"] for m in result.lines if m.get("type") == "message_end"]
    if result.session_file is None:
        if acknowledged:
            result.problems.append("prompt acknowledged, no session file")
        if ended:
            result.problems.append(f"{len(ended)} message_end sent, no session file")
        return True
    stored = stored_messages(result.session_file)
    header_ok = first_line_is_header(result.session_file)
    if not header_ok:
        result.problems.append("first line is not a session header")
    user_texts = [m.get("content") for m in stored if m.get("role") == "user"]
    if acknowledged and not any(PROMPT_TEXT in json.dumps(text) for text in user_texts):
        result.problems.append("prompt acknowledged but not in the file")
    for message in ended:
        if message not in stored:
            result.problems.append(f"{message.get('role')} message_end sent but not in the file")
    queued = any(
        m.get("type") == "response" and m.get("command") in ("steer", "follow_up") and m.get("success")
        for m in result.lines
    )
    journal = result.session_file.with_name(result.session_file.name + ".queue")
    waiting = journal.read_text(encoding="utf-8") if journal.exists() else ""
    if queued and not (any(QUEUED_TEXT in json.dumps(text) for text in user_texts) or QUEUED_TEXT in waiting):
        result.problems.append("queued message acknowledged but neither in the file nor in its queue journal")
    return header_ok


async def _answer(child: Child, request_id: str) -> dict[str, Any] | None:
    while True:
        raw = await asyncio.wait_for(child.stdout.readline(), LINE_TIMEOUT_S)
        if not raw:
            return None
        with contextlib.suppress(ValueError):
            message = json.loads(raw)
            if message.get("type") == "response" and message.get("id") == request_id:
                return dict(message)


def _state_problem(answer: dict[str, Any] | None, path: Path) -> str | None:
    if answer is None or not answer.get("success"):
        return f"no get_state answer: {answer}"
    if answer["data"].get("sessionFile") != str(path):
        return f"get_state names {answer['data'].get('sessionFile')}"
    return None


async def reopen_answers_state(path: Path, base_env: dict[str, str], agent_dir: Path, launcher: Launcher) -> str | None:
    """Start `atomic --mode rpc --session <path>`: None when it answers get_state for that file, else why not."""
    env = dict(base_env)
    env["ATOMIC_CODING_AGENT_DIR"] = str(agent_dir)
    env["ATOMIC_TEST"] = "1"
    env.pop("ATOMIC_SCRIPT", None)
    child = await launcher.spawn(["--provider", "scripted", "--session", str(path)], path.parent, env)
    child.write(b'{"id":"s","type":"get_state"}\n')
    try:
        answer = await _answer(child, "s")
        problem = _state_problem(answer, path)
        if answer is None:
            problem = f"{problem}: {(await child.stderr.read()).decode(errors='replace')[-300:]}"
        return problem
    finally:
        child.kill()
        child.close_stdin()
        await child.wait()


class Reopener:
    """One `atomic --mode rpc` that opens each trial's file with `switch_session` and answers get_state.

    Cheaper than a process per file; every few trials (and for every file whose first line is not a
    header) the file is opened by a new process with `--session` as well.
    """

    def __init__(self, launcher: Launcher, base_env: dict[str, str], agent_dir: Path) -> None:
        self.launcher = launcher
        self.base_env = base_env
        self.agent_dir = agent_dir
        self.child: Child | None = None
        self._lock = asyncio.Lock()
        self._ids = 0

    async def check(self, path: Path) -> str | None:
        async with self._lock:
            if self.child is None:
                env = dict(self.base_env)
                env["ATOMIC_CODING_AGENT_DIR"] = str(self.agent_dir)
                env.pop("ATOMIC_SCRIPT", None)
                self.agent_dir.mkdir(parents=True, exist_ok=True)
                self.child = await self.launcher.spawn(["--provider", "scripted", "--no-session"], self.agent_dir, env)
            self._ids += 1
            switch, state = f"w{self._ids}", f"s{self._ids}"
            self.child.write(json.dumps({"id": switch, "type": "switch_session", "sessionPath": str(path)}).encode()
                             + b"\n" + json.dumps({"id": state, "type": "get_state"}).encode() + b"\n")
            switched = await _answer(self.child, switch)
            if switched is None or not switched.get("success"):
                return f"switch_session failed: {switched}"
            problem = _state_problem(await _answer(self.child, state), path)
            # A restored queue would follow this process to the next file: it is emptied here.
            self.child.write(json.dumps({"id": f"c{self._ids}", "type": "clear_queue"}).encode() + b"\n")
            await _answer(self.child, f"c{self._ids}")
            return problem

    async def stop(self) -> None:
        if self.child is not None:
            self.child.close_stdin()
            self.child.kill()
            await self.child.wait()


class CpuHogs:
    """Busy processes beside the trials (CPU contention), stopped by `stop`."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.processes: list[asyncio.subprocess.Process] = []

    async def start(self) -> None:
        for _ in range(self.count):
            self.processes.append(
                await asyncio.create_subprocess_exec(sys.executable, "-c", "while True: pass")
            )

    async def stop(self) -> None:
        for process in self.processes:
            if process.returncode is None:
                process.kill()
            await process.wait()


async def run_trials(
    root: Path, trials: int, parallel: int, base_env: dict[str, str], seed: int = 0, hogs: int = 2
) -> list[TrialResult]:
    """Run `trials` trials, `parallel` at a time, with `hogs` busy processes beside them."""
    cpu = CpuHogs(hogs)
    launcher = Launcher()
    await launcher.start()
    reopener = Reopener(launcher, base_env, root / "reopener")
    await cpu.start()
    gate = asyncio.Semaphore(parallel)

    async def one(index: int) -> TrialResult:
        async with gate:
            started = time.perf_counter()
            result = await run_trial(index, root, base_env, seed, launcher, reopener)
            result.seconds = time.perf_counter() - started
            return result

    try:
        return list(await asyncio.gather(*(one(i) for i in range(trials))))
    finally:
        await cpu.stop()
        await reopener.stop()
        await launcher.stop()


def main() -> None:
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--parallel", type=int, default=6)
    parser.add_argument("--hogs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        started = time.perf_counter()
        results = asyncio.run(run_trials(root, args.trials, args.parallel, dict(os.environ), args.seed, args.hogs))
        elapsed = time.perf_counter() - started
        bad = [r for r in results if r.problems]
        for result in bad:
            print(f"trial {result.index} ({result.point}, prompt first: {result.prompt_first}): {result.problems}")
        slowest = sorted(results, key=lambda r: r.seconds)[-5:]
        print("slowest:", [(r.index, r.point, round(r.seconds, 2)) for r in slowest])
        print(f"{len(bad)} of {len(results)} trials lost data or left a file that does not open ({elapsed:.1f} s)")


if __name__ == "__main__":
    main()
