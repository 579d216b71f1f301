"""Anthropic Messages figures: CPU per streamed delta and the first prompt of a fresh process.

Run: .venv/bin/python benchmarks/anthropic_bench.py [--deltas 20000 200000] [--runs 3] [--delay 2.0]

A local server speaks the Anthropic Messages SSE wire (one text block of N small deltas, sent as
fast as the socket takes them); `atomic --mode rpc` streams from it through the anthropic-messages
provider. Prints, as medians of --runs:
- CPU per delta: the RPC process's user+system CPU from the first `text_delta` line to
  `agent_end`, divided by the number of deltas (the whole pipeline: SSE parsing, the assembler,
  event fan-out and the JSON lines written), for each --deltas size. Target (issue 12): <= 30 us,
  the same for 20k and 200k deltas.
- first prompt: a fresh process answers `get_state`, waits --delay seconds, gets a `prompt`;
  the time from writing the prompt to reading its first `message_update`, and the time a
  `get_state` sent right after the prompt takes to be answered. Target: <= pi's ~0.08 s; < 50 ms.
The machine is shared: repeat and compare medians.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def sse(data: dict[str, Any]) -> str:
    return f"event: {data['type']}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def reply_body(deltas: int) -> bytes:
    start = {
        "type": "message_start",
        "message": {"id": "msg_bench", "type": "message", "role": "assistant", "model": "bench-model",
                    "content": [], "stop_reason": None, "stop_sequence": None,
                    "usage": {"input_tokens": 12, "cache_read_input_tokens": 0,
                              "cache_creation_input_tokens": 0, "output_tokens": 1}},
    }
    parts = [sse(start), sse({"type": "content_block_start", "index": 0,
                              "content_block": {"type": "text", "text": ""}})]
    for i in range(deltas):
        parts.append(sse({"type": "content_block_delta", "index": 0,
                          "delta": {"type": "text_delta", "text": f"w{i % 10} "}}))
    parts.append(sse({"type": "content_block_stop", "index": 0}))
    parts.append(sse({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                      "usage": {"output_tokens": deltas}}))
    parts.append(sse({"type": "message_stop"}))
    return "".join(parts).encode()


class Server:
    """Serves the reply for the size set in `deltas` (bodies are built once per size)."""

    def __init__(self) -> None:
        self.deltas = 10
        self.bodies: dict[int, bytes] = {}
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_args: object) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", 0)))
                body = owner.bodies.get(owner.deltas)
                if body is None:
                    body = owner.bodies[owner.deltas] = reply_body(owner.deltas)
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                try:
                    self.wfile.write(body)
                    self.wfile.flush()
                except OSError:  # the client went away (a process that ended early)
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def port(self) -> int:
        return int(self.httpd.server_address[1])


def write_agent_dir(port: int) -> Path:
    agent = Path(tempfile.mkdtemp(prefix="atomic-anthropic-bench-"))
    models = {
        "providers": {
            "bench": {
                "baseUrl": f"http://127.0.0.1:{port}",
                "api": "anthropic-messages",
                "apiKey": "bench-key",
                "models": [{"id": "bench-model", "contextWindow": 200000, "maxTokens": 4096}],
            }
        }
    }
    (agent / "models.json").write_text(json.dumps(models))
    return agent


PRELOAD = ""
SRC: str | None = None  # --src: another checkout, run through PYTHONPATH


def spawn(agent: Path) -> subprocess.Popen[bytes]:
    env = dict(os.environ, ATOMIC_CODING_AGENT_DIR=str(agent))
    if SRC:
        env["PYTHONPATH"] = SRC
    args = ["--mode", "rpc", "--provider", "bench", "--model", "bench-model", "--no-session"]
    if PRELOAD:
        # Run this before the CLI starts: what a finished provider warm-up leaves loaded.
        code = f"import sys, runpy\n{PRELOAD}\nsys.argv[1:] = {args!r}\nrunpy.run_module('atomic', run_name='__main__')"
        command = [sys.executable, "-c", code]
    else:
        command = [sys.executable, "-m", "atomic", *args]
    # Started in the agent folder: `-m atomic` puts the working folder first on sys.path.
    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=agent)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def send(proc: subprocess.Popen[bytes], command: dict[str, Any]) -> None:
    assert proc.stdin
    proc.stdin.write(json.dumps(command).encode() + b"\n")
    proc.stdin.flush()


def ready(proc: subprocess.Popen[bytes]) -> None:
    assert proc.stdout
    send(proc, {"id": "s", "type": "get_state"})
    proc.stdout.readline()


def stop(proc: subprocess.Popen[bytes]) -> None:
    assert proc.stdin
    proc.stdin.close()
    proc.wait()


def first_prompt(agent: Path, delay: float) -> tuple[float, float]:
    proc = spawn(agent)
    assert proc.stdout
    ready(proc)
    time.sleep(delay)
    start = time.perf_counter()
    send(proc, {"id": "p", "type": "prompt", "message": "hello"})
    send(proc, {"id": "g", "type": "get_state"})
    state_ms = first_delta_s = 0.0
    while True:
        line = proc.stdout.readline()
        if not line:
            break
        if b'"id":"g"' in line and not state_ms:
            state_ms = (time.perf_counter() - start) * 1000
        if b'"message_update"' in line and not first_delta_s:
            first_delta_s = time.perf_counter() - start
        if b'"agent_end"' in line:
            break
    stop(proc)
    return first_delta_s, state_ms


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--deltas", type=int, nargs="*", default=[20000, 200000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--delay", type=float, default=2.0)
    parser.add_argument("--skip-first-prompt", action="store_true")
    parser.add_argument("--preload", default="", help="Python statements run before the CLI, e.g. a warm-up")
    parser.add_argument("--src", help="run the package from this folder instead (PYTHONPATH)")
    args = parser.parse_args()
    global SRC
    SRC = args.src
    global PRELOAD
    PRELOAD = args.preload
    server = Server()
    agent = write_agent_dir(server.port)

    for size in args.deltas:
        figures = []
        for _ in range(args.runs):
            figures.append(cpu_per_delta(server, agent, size))
        per = [f for f, _ in figures]
        print(f"{size:>7} deltas: CPU per delta median {statistics.median(per):.1f} us "
              f"(runs: {', '.join(f'{p:.1f}' for p in per)}; deltas seen {figures[0][1]})")

    if not args.skip_first_prompt:
        server.deltas = 10
        results = [first_prompt(agent, args.delay) for _ in range(args.runs)]
        deltas_s = [r[0] for r in results]
        states = [r[1] for r in results]
        print(f"first prompt {args.delay:.0f} s after start -> first message_update: median "
              f"{statistics.median(deltas_s):.3f} s (runs: {', '.join(f'{d:.3f}' for d in deltas_s)})")
        print(f"get_state sent with the first prompt answered after: median {statistics.median(states):.1f} ms "
              f"(runs: {', '.join(f'{s:.1f}' for s in states)})")
    server.httpd.shutdown()


def cpu_per_delta(server: Server, agent: Path, size: int) -> tuple[float, int]:
    """CPU per delta of one `size`-delta reply, after a 10-delta prompt has loaded everything."""
    server.deltas = 10
    proc = spawn(agent)
    assert proc.stdout
    ready(proc)
    send(proc, {"id": "w", "type": "prompt", "message": "warm up"})
    while b'"agent_end"' not in proc.stdout.readline():
        pass
    server.deltas = size
    send(proc, {"id": "p", "type": "prompt", "message": "stream please"})
    count = 0
    cpu_first = 0.0
    while True:
        line = proc.stdout.readline()
        if not line:
            break
        if b'"text_delta"' in line:
            count += 1
            if count == 1:
                cpu_first = cpu_seconds(proc.pid)
        elif b'"agent_end"' in line:
            break
    used = cpu_seconds(proc.pid) - cpu_first
    stop(proc)
    return used / max(count - 1, 1) * 1e6, count


if __name__ == "__main__":
    main()
