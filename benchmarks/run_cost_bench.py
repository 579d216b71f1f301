"""What a whole run costs in CPU, Atomic beside OpenAI's Codex CLI, against one local model server.

Run: .venv/bin/python benchmarks/run_cost_bench.py [--runs 7] [--codex PATH] [--only NAME ...] [--src DIR]
     [--before DIR] [--tui-idle S]

--before DIR adds Atomic from an older checkout (e.g. `git archive <commit> atomic | tar -x -C DIR`)
as a third agent in the same alternation, for before/after figures under the same load.

Codex is installed apart from the project, for measuring only, e.g.
`mkdir -p /tmp/codex && cd /tmp/codex && npm install @openai/codex@0.169.0` (then
--codex /tmp/codex/node_modules/.bin/codex). Both agents talk openai-responses to the same
server on 127.0.0.1, which this script starts. The workloads:

- hi:     `-p "say hi"`, spawn -> exit, a 40-delta reply;
- long:   the same with a 20,000-delta reply;
- tools:  three tool calls then an answer (Atomic: read, bash, edit; Codex has no read or edit
          function tool here, so its three calls are shell commands that read, run and edit);
- resume: a 2,000-message session resumed and one answer;
- tui:    the interactive app under a pty, spawn -> ready, then 5 s idle (--tui-idle); "idle" is
          the % of a core it used over the last 4 s of that (/proc ticks: 0.25 % is one tick).

Every figure is the CPU (user + sys) of the whole process tree (wait4's rusage, which counts
children the agent waited for), runs of the two agents alternating so that both see the same
machine load. It prints medians and Atomic / Codex ratios, and the load average before and after.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import select
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

SHORT_WORDS = [f"w{i} " for i in range(40)]
LONG_DELTAS = 20_000
HISTORY_MESSAGES = 2_000
TUI_IDLE_SECONDS = 5.0


def sse(kind: str, data: dict[str, Any]) -> bytes:
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode()


class Stream:
    """One openai-responses SSE reply."""

    def __init__(self) -> None:
        self.seq = 0
        self.parts: list[bytes] = []

    def ev(self, kind: str, **fields: Any) -> None:
        self.seq += 1
        self.parts.append(sse(kind, {"type": kind, "sequence_number": self.seq, **fields}))

    def body(self) -> bytes:
        return b"".join(self.parts)


RESPONSE = {"id": "resp_1", "object": "response", "created_at": 0, "model": "bench-model"}
USAGE = {"input_tokens": 5, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 40,
         "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 45}


def text_reply(deltas: list[str]) -> bytes:
    s = Stream()
    item = {"type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress", "content": []}
    s.ev("response.created", response=dict(RESPONSE, status="in_progress", output=[], usage=None))
    s.ev("response.output_item.added", output_index=0, item=item)
    s.ev("response.content_part.added", item_id="msg_1", output_index=0, content_index=0,
         part={"type": "output_text", "text": "", "annotations": []})
    for d in deltas:
        s.ev("response.output_text.delta", item_id="msg_1", output_index=0, content_index=0, delta=d, logprobs=[])
    text = "".join(deltas)
    s.ev("response.output_text.done", item_id="msg_1", output_index=0, content_index=0, text=text, logprobs=[])
    done = dict(item, status="completed", content=[{"type": "output_text", "text": text, "annotations": []}])
    s.ev("response.output_item.done", output_index=0, item=done)
    s.ev("response.completed", response=dict(RESPONSE, status="completed", output=[done], usage=USAGE))
    return s.body()


def call_reply(n: int, name: str, arguments: dict[str, Any]) -> bytes:
    s = Stream()
    args = json.dumps(arguments)
    item = {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "name": name, "arguments": "",
            "status": "in_progress"}
    s.ev("response.created", response=dict(RESPONSE, status="in_progress", output=[], usage=None))
    s.ev("response.output_item.added", output_index=0, item=item)
    s.ev("response.function_call_arguments.delta", item_id=f"fc_{n}", output_index=0, delta=args)
    s.ev("response.function_call_arguments.done", item_id=f"fc_{n}", output_index=0, arguments=args)
    done = dict(item, arguments=args, status="completed")
    s.ev("response.output_item.done", output_index=0, item=done)
    s.ev("response.completed", response=dict(RESPONSE, status="completed", output=[done], usage=USAGE))
    return s.body()


HI = text_reply(SHORT_WORDS)
LONG = text_reply([f"d{i % 10} " for i in range(LONG_DELTAS)])


def shell_call(tool: dict[str, Any], n: int, command: str) -> bytes:
    """Codex's shell tool: whichever of its spellings this version offers."""
    props = (tool.get("parameters") or {}).get("properties", {})
    if "cmd" in props:
        return call_reply(n, tool["name"], {"cmd": command})
    if props.get("command", {}).get("type") == "array":
        return call_reply(n, tool["name"], {"command": ["bash", "-lc", command]})
    return call_reply(n, tool["name"], {"command": command})


def tool_step(body: dict[str, Any], workdir: str) -> bytes:
    """The next reply of the three-tool workload, from how many tool results the request carries."""
    done = sum(1 for item in body.get("input", []) if isinstance(item, dict)
               and item.get("type") in ("function_call_output", "custom_tool_call_output"))
    if done >= 3:
        return HI
    tools = {t.get("name"): t for t in body.get("tools", []) if isinstance(t, dict)}
    target = f"{workdir}/notes.txt"
    if "read" in tools:
        steps = [("read", {"path": target}), ("bash", {"command": "echo ran"}),
                 ("edit", {"path": target, "edits": [{"oldText": "alpha", "newText": "beta"}]})]
        name, arguments = steps[done]
        return call_reply(done, name, arguments)
    shell = next((t for n, t in tools.items() if n in ("shell", "exec_command", "shell_command", "local_shell")), None)
    if shell is None:
        raise RuntimeError(f"no shell tool among {sorted(tools)}")
    commands = [f"cat {target}", "echo ran", f"sed -i s/alpha/beta/ {target}"]
    return shell_call(shell, done, commands[done])


class Server:
    mode = "hi"
    workdir = ""
    unknown: set[str] = set()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_args: object) -> None:
        pass

    def _send(self, status: int, data: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def do_GET(self) -> None:
        Server.unknown.add(f"GET {self.path}")
        self._send(200, b'{"object": "list", "data": [], "models": []}', "application/json")

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length", 0)))
        if not self.path.endswith("/responses"):
            Server.unknown.add(f"POST {self.path}")
            self._send(404, b"{}", "application/json")
            return
        body = json.loads(raw or b"{}")
        if Server.mode == "tools":
            data = tool_step(body, Server.workdir)
        else:
            data = LONG if Server.mode == "long" else HI
        self._send(200, data, "text/event-stream")


# ------------------------------------------------------------------------------------------ the agents


def cpu_of(process: subprocess.Popen[bytes], timeout: float = 120) -> float:
    """user + sys of the process and the children it waited for; kills it past the timeout."""
    deadline = time.monotonic() + timeout
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            process.returncode = os.waitstatus_to_exitcode(status)
            return usage.ru_utime + usage.ru_stime
        if time.monotonic() > deadline:
            process.kill()
        time.sleep(0.005)


class Agent:
    name = ""

    def __init__(self, port: int, root: Path) -> None:
        self.port = port
        self.root = root

    def env(self) -> dict[str, str]:
        raise NotImplementedError

    def print_cmd(self, prompt: str) -> list[str]:
        raise NotImplementedError

    def resume_cmd(self, prompt: str) -> list[str]:
        raise NotImplementedError

    def tui_cmd(self) -> list[str]:
        raise NotImplementedError

    def ready_marker(self) -> bytes:
        raise NotImplementedError

    def prepare_resume(self, cwd: Path) -> None:
        raise NotImplementedError

    def run(self, argv: list[str], cwd: Path) -> float:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=self.env(), cwd=cwd)
        out: list[bytes] = []
        threading.Thread(target=lambda: out.append(p.stdout.read() if p.stdout else b""), daemon=True).start()
        threading.Thread(target=lambda: out.append(p.stderr.read() if p.stderr else b""), daemon=True).start()
        cpu = cpu_of(p)
        if p.returncode != 0:
            time.sleep(0.1)
            raise RuntimeError(f"{self.name} exited {p.returncode}: {b' '.join(out)[-2000:].decode(errors='replace')}")
        return cpu


class Atomic(Agent):
    name = "Atomic"

    def __init__(self, port: int, root: Path, src: str | None, name: str = "Atomic") -> None:
        super().__init__(port, root)
        self.name = name
        self.src = src
        self.agent_dir = root / f"{name}-agent"
        self.agent_dir.mkdir()
        provider = {"baseUrl": f"http://127.0.0.1:{port}/v1", "api": "openai-responses", "apiKey": "bench-key",
                    "models": [{"id": "bench-model", "contextWindow": 128000, "maxTokens": 4096}]}
        (self.agent_dir / "models.json").write_text(json.dumps({"providers": {"bench": provider}}))
        self.session_file = root / f"{name}-resume.jsonl"

    def env(self) -> dict[str, str]:
        env = dict(os.environ, ATOMIC_CODING_AGENT_DIR=str(self.agent_dir), HOME=str(self.root / "home"),
                   TERM="xterm-256color")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        if self.src:
            env["PYTHONPATH"] = self.src
        return env

    def base(self) -> list[str]:
        return [sys.executable, "-m", "atomic", "--provider", "bench", "--model", "bench-model"]

    def print_cmd(self, prompt: str) -> list[str]:
        return [*self.base(), "-p", prompt]

    def resume_cmd(self, prompt: str) -> list[str]:
        return [*self.base(), "--session", str(self.session_file), "-p", prompt]

    def tui_cmd(self) -> list[str]:
        return self.base()

    def ready_marker(self) -> bytes:
        return b"bench-model"

    def prepare_resume(self, cwd: Path) -> None:
        header = {"type": "session", "version": 3, "id": "bench-resume", "timestamp": "2026-01-01T00:00:00.000Z",
                  "cwd": str(cwd)}
        # Written the way Atomic writes them (compact JSON), which its loader reads on a fast path.
        lines = [json.dumps(header, separators=(",", ":"))]
        parent = None
        for index in range(HISTORY_MESSAGES):
            if index % 2 == 0:
                message: dict[str, Any] = {"role": "user", "content": f"Question {index}: how does part {index} work?",
                                           "timestamp": 1767225600000 + index}
            else:
                message = {"role": "assistant", "content": [{"type": "text", "text": f"Part {index} reads and writes."}],
                           "api": "openai-responses", "provider": "bench", "model": "bench-model",
                           "usage": {"input": 10, "output": 20, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 30,
                                     "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
                           "stopReason": "stop", "timestamp": 1767225600000 + index}
            entry = {"type": "message", "id": f"e{index:06d}", "parentId": parent,
                     "timestamp": "2026-01-01T00:00:00.000Z", "message": message}
            lines.append(json.dumps(entry, separators=(",", ":")))
            parent = entry["id"]
        self.pristine = "\n".join(lines) + "\n"

    def reset_resume(self) -> None:
        self.session_file.write_text(self.pristine)


class Codex(Agent):
    name = "Codex"

    def __init__(self, port: int, root: Path, binary: str) -> None:
        super().__init__(port, root)
        self.binary = binary
        self.home = root / "codex-home"
        self.home.mkdir()
        self.session_id = ""

    def write_config(self, cwd: Path) -> None:
        (self.home / "config.toml").write_text(
            'model = "bench-model"\nmodel_provider = "bench"\ncheck_for_update_on_startup = false\n'
            'approval_policy = "never"\nsandbox_mode = "danger-full-access"\n'
            "[model_providers.bench]\nname = \"bench\"\n"
            f'base_url = "http://127.0.0.1:{self.port}/v1"\nwire_api = "responses"\nenv_key = "BENCH_KEY"\n'
            "[analytics]\nenabled = false\n[feedback]\nenabled = false\n"
            f'[projects."{cwd}"]\ntrust_level = "trusted"\n'
        )

    def env(self) -> dict[str, str]:
        return dict(os.environ, CODEX_HOME=str(self.home), HOME=str(self.root / "home"), BENCH_KEY="bench-key",
                    TERM="xterm-256color")

    def print_cmd(self, prompt: str) -> list[str]:
        return [self.binary, "exec", "--skip-git-repo-check", prompt]

    def resume_cmd(self, prompt: str) -> list[str]:
        return [self.binary, "exec", "--skip-git-repo-check", "resume", self.session_id, prompt]

    def tui_cmd(self) -> list[str]:
        return [self.binary]

    def ready_marker(self) -> bytes:
        # The composer: typing works from here (the header's model name follows later).
        return b"Ask Codex"

    def prepare_resume(self, cwd: Path) -> None:
        """Runs Codex once, then grows the rollout it wrote to the same 2,000 messages."""
        self.run(self.print_cmd("say hi"), cwd)
        rollouts = sorted((self.home / "sessions").rglob("rollout-*.jsonl"), key=lambda p: p.stat().st_mtime)
        self.rollout = rollouts[-1]
        lines = [json.loads(line) for line in self.rollout.read_text().splitlines() if line.strip()]
        meta = next(line for line in lines if line.get("type") == "session_meta")
        self.session_id = meta["payload"]["id"]
        stamp = meta.get("timestamp", "2026-01-01T00:00:00.000Z")
        history: list[dict[str, Any]] = []
        for index in range(HISTORY_MESSAGES):
            role = "user" if index % 2 == 0 else "assistant"
            text = f"Question {index}: how does part {index} work?" if role == "user" else f"Part {index} reads and writes."
            kind = "input_text" if role == "user" else "output_text"
            history.append({"timestamp": stamp, "type": "response_item",
                            "payload": {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}})
        first = next(i for i, line in enumerate(lines) if line.get("type") == "response_item")
        grown = lines[:first] + history + lines[first:]
        self.pristine = "\n".join(json.dumps(line) for line in grown) + "\n"

    def reset_resume(self) -> None:
        self.rollout.write_text(self.pristine)


def tui_run(agent: Agent, cwd: Path) -> tuple[float, float, float]:
    """(CPU to ready, CPU of the whole run: ready + TUI_IDLE_SECONDS idle, % of a core in the last
    4 s: steady idle, after what ready started has settled) under a 120x35 pty."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 35, 120, 0, 0))
    p = subprocess.Popen(agent.tui_cmd(), stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=agent.env(),
                         start_new_session=True)
    os.close(slave)
    seen = b""
    ready_cpu = float("nan")
    deadline = time.monotonic() + 30
    ready_at = 0.0
    settled: tuple[float, float] | None = None
    try:
        while time.monotonic() < deadline:
            if ready_at and settled is None and time.monotonic() - ready_at >= TUI_IDLE_SECONDS - 4.0:
                settled = (time.monotonic(), proc_cpu(p.pid))
            if ready_at and time.monotonic() - ready_at >= TUI_IDLE_SECONDS:
                break
            readable, _, _ = select.select([master], [], [], 0.05)
            if not readable:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            # Terminal queries (cursor position, colours) get an answer, as a terminal would give.
            if b"\x1b[6n" in chunk:
                os.write(master, b"\x1b[1;1R")
            if b"\x1b]10;?" in chunk:
                os.write(master, b"\x1b]10;rgb:ffff/ffff/ffff\x1b\\")
            if b"\x1b]11;?" in chunk:
                os.write(master, b"\x1b]11;rgb:0000/0000/0000\x1b\\")
            if not ready_at:
                seen += chunk
                if agent.ready_marker() in seen:
                    ready_at = time.monotonic()
                    ready_cpu = proc_cpu(p.pid)
        idle = float("nan")
        if settled is not None:
            idle = (proc_cpu(p.pid) - settled[1]) / (time.monotonic() - settled[0]) * 100
    finally:
        os.kill(p.pid, 9)
        total = cpu_of(p)
        os.close(master)
    if not ready_at:
        raise RuntimeError(f"{agent.name}'s TUI never showed {agent.ready_marker()!r}: {seen[-500:]!r}")
    return ready_cpu, total, idle


def proc_cpu(pid: int) -> float:
    """CPU so far of a live process and its reaped children, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return sum(int(f) for f in fields[11:15]) / ticks


# ------------------------------------------------------------------------------------------ the runs


def workload(name: str, agent: Agent, cwd: Path) -> dict[str, float]:
    if name == "hi":
        Server.mode = "hi"
        return {"cpu": agent.run(agent.print_cmd("say hi"), cwd)}
    if name == "long":
        Server.mode = "long"
        return {"cpu": agent.run(agent.print_cmd("say hi"), cwd)}
    if name == "tools":
        Server.mode = "tools"
        (cwd / "notes.txt").write_text("alpha\n")
        cpu = agent.run(agent.print_cmd("read notes.txt, run a command, then edit it"), cwd)
        if (cwd / "notes.txt").read_text() != "beta\n":
            raise RuntimeError(f"{agent.name} did not make the edit")
        return {"cpu": cpu}
    if name == "resume":
        Server.mode = "hi"
        if isinstance(agent, (Atomic, Codex)):
            agent.reset_resume()
        return {"cpu": agent.run(agent.resume_cmd("say hi"), cwd)}
    Server.mode = "hi"
    ready, total, idle = tui_run(agent, cwd)
    return {"cpu": total, "ready": ready, "idle": idle}


WORKLOADS = ["hi", "long", "tools", "resume", "tui"]


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> None:
    global TUI_IDLE_SECONDS
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--codex", help="the codex command (installed apart from the project)")
    parser.add_argument("--only", action="append", choices=WORKLOADS, help="only these workloads")
    parser.add_argument("--src", help="run Atomic from this checkout instead (PYTHONPATH)")
    parser.add_argument("--before", help="also run Atomic from this older checkout, alternating (\"before\")")
    parser.add_argument("--tui-idle", type=float, default=5.0,
                        help="seconds the TUI stays open after ready (idle is measured over the last 4)")
    args = parser.parse_args()
    TUI_IDLE_SECONDS = max(args.tui_idle, 4.0)
    import compileall

    import atomic

    compileall.compile_dir(str(Path(args.src or Path(atomic.__file__).parent.parent) / "atomic"), quiet=1)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    root = Path(tempfile.mkdtemp(prefix="run-cost-"))
    cwd = root / "project"
    cwd.mkdir()
    (root / "home").mkdir()
    Server.workdir = str(cwd)
    agents: list[Agent] = [Atomic(port, root, args.src)]
    if args.before:
        compileall.compile_dir(str(Path(args.before) / "atomic"), quiet=1)
        agents.append(Atomic(port, root, args.before, name="before"))
    if args.codex:
        codex = Codex(port, root, args.codex)
        codex.write_config(cwd)
        agents.append(codex)
    print(f"load before: {load()}  runs: {args.runs}  cwd: {cwd}")
    names = args.only or WORKLOADS
    if "resume" in names:
        for agent in agents:
            agent.prepare_resume(cwd)
    for name in names:
        results: dict[str, list[dict[str, float]]] = {a.name: [] for a in agents}
        for _ in range(args.runs):
            for agent in agents:
                results[agent.name].append(workload(name, agent, cwd))
        medians = {a: {k: statistics.median(r[k] for r in runs) for k in runs[0]} for a, runs in results.items()}
        line = f"{name:7}"
        for agent_name, figures in medians.items():
            extra = ""
            if "ready" in figures:
                extra = f" (ready {figures['ready']:.3f} s, idle {figures['idle']:.2f} % of a core)"
            line += f" | {agent_name} {figures['cpu']:.3f} s{extra}"
        if "before" in medians:
            line += f" | Atomic / before {medians['Atomic']['cpu'] / medians['before']['cpu']:.2f}x"
        if "Codex" in medians:
            line += f" | ratio {medians['Atomic']['cpu'] / medians['Codex']['cpu']:.2f}x"
            if "ready" in medians["Atomic"]:
                line += f" (ready {medians['Atomic']['ready'] / medians['Codex']['ready']:.2f}x)"
        print(line, flush=True)
    print(f"load after: {load()}")
    if Server.unknown:
        print("requests answered with a stub:", ", ".join(sorted(Server.unknown)))
    server.shutdown()
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
