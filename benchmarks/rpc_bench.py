"""RPC mode figures: start-up to first response, memory, and streaming throughput.

Run: .venv/bin/python benchmarks/rpc_bench.py [--deltas 20000] [--runs 5]   (PYTHONPATH=<old checkout> for another version)

Prints
- time from process start to the first `get_state` response (median of --runs), and the CPU time the
  process used until then (the figure to compare on a busy machine);
- peak RSS (VmHWM) idle after start-up, and after one streamed prompt;
- streamed deltas per second for one reply of N small text deltas that a local OpenAI-compatible
  server sends as fast as it can (the `openai-completions` provider through the official SDK).
Targets (issue 2): first response < 250 ms, idle RSS < 60 MB, deltas/s at least the TypeScript agent's.
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


def make_handler(deltas: int) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_args: object) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", 0))
            self.rfile.read(length)
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("connection", "close")
            self.end_headers()
            chunks = []
            base = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "bench"}
            for i in range(deltas):
                body = dict(base, choices=[{"index": 0, "delta": {"content": f"w{i % 10} "}, "finish_reason": None}])
                chunks.append(f"data: {json.dumps(body)}\n\n")
            end = dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": "stop"}],
                       usage={"prompt_tokens": 10, "completion_tokens": deltas, "total_tokens": deltas + 10})
            chunks.append(f"data: {json.dumps(end)}\n\ndata: [DONE]\n\n")
            self.wfile.write("".join(chunks).encode())
            self.wfile.flush()
            self.close_connection = True

    return Handler


def start_server(deltas: int) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(deltas))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def write_agent_dir(port: int) -> Path:
    agent = Path(tempfile.mkdtemp(prefix="atomic-bench-"))
    models = {
        "providers": {
            "bench": {
                "baseUrl": f"http://127.0.0.1:{port}/v1",
                "api": "openai-completions",
                "apiKey": "bench-key",
                "models": [{"id": "bench-model", "contextWindow": 128000, "maxTokens": 4096}],
            }
        }
    }
    (agent / "models.json").write_text(json.dumps(models))
    return agent


def peak_rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def spawn(agent: Path) -> subprocess.Popen[bytes]:
    env = dict(os.environ, ATOMIC_CODING_AGENT_DIR=str(agent))
    # Started in the agent folder: `-m atomic` puts the working folder first on sys.path, so a
    # checkout as the working folder would shadow PYTHONPATH (how an older checkout is run).
    return subprocess.Popen(
        [sys.executable, "-m", "atomic", "--mode", "rpc", "--provider", "bench", "--model", "bench-model",
         "--no-session"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=agent,
    )


def cpu_ms(pid: int) -> float:
    """User + system CPU the process has used so far (all its threads), from /proc."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rfind(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def first_response_ms(agent: Path) -> tuple[float, float]:
    """Wall time and the process's CPU time from start to the first `get_state` answer."""
    start = time.perf_counter()
    proc = spawn(agent)
    assert proc.stdin and proc.stdout
    proc.stdin.write(b'{"id":"s","type":"get_state"}\n')
    proc.stdin.flush()
    proc.stdout.readline()
    elapsed = (time.perf_counter() - start) * 1000
    cpu = cpu_ms(proc.pid)
    proc.stdin.close()
    proc.wait()
    return elapsed, cpu


def precompile() -> None:
    """Byte-compile the package first, as a regular install does; otherwise (and with
    PYTHONDONTWRITEBYTECODE set) every start-up would include compiling the sources."""
    import compileall

    import atomic

    compileall.compile_dir(str(Path(atomic.__file__).parent), quiet=1)
    for folder in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        if folder and (Path(folder) / "atomic").is_dir():
            compileall.compile_dir(str(Path(folder) / "atomic"), quiet=1)


def main() -> None:
    precompile()
    parser = argparse.ArgumentParser()
    parser.add_argument("--deltas", type=int, default=20000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    server = start_server(args.deltas)
    agent = write_agent_dir(server.server_address[1])

    figures = [first_response_ms(agent) for _ in range(args.runs)]
    times = [wall for wall, _cpu in figures]
    print(f"first get_state response: median {statistics.median(times):.0f} ms "
          f"(min {min(times):.0f}, max {max(times):.0f}, {args.runs} runs); "
          f"CPU until then median {statistics.median(cpu for _wall, cpu in figures):.0f} ms")

    proc = spawn(agent)
    assert proc.stdin and proc.stdout
    proc.stdin.write(b'{"id":"s","type":"get_state"}\n')
    proc.stdin.flush()
    proc.stdout.readline()
    time.sleep(0.3)
    print(f"peak RSS idle: {peak_rss_kb(proc.pid) / 1024:.1f} MB")

    proc.stdin.write(b'{"id":"p","type":"prompt","message":"stream please"}\n')
    proc.stdin.flush()
    count = 0
    first = last = 0.0
    while True:
        line = proc.stdout.readline()
        if not line:
            break
        if b'"text_delta"' in line:
            count += 1
            last = time.perf_counter()
            if count == 1:
                first = last
        elif b'"agent_end"' in line:
            break
    rss_after = peak_rss_kb(proc.pid)
    proc.stdin.close()
    proc.wait()
    seconds = max(last - first, 1e-9)
    print(f"streamed {count} deltas in {seconds:.2f} s: {count / seconds:,.0f} deltas/s")
    print(f"peak RSS after one prompt: {rss_after / 1024:.1f} MB")
    server.shutdown()


if __name__ == "__main__":
    main()
