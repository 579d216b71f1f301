"""CPU per streamed delta for the three HTTP APIs (Anthropic Messages, OpenAI Chat Completions and
Responses), at two reply lengths, optionally beside pi.

Run: .venv/bin/python benchmarks/stream_bench.py [--api messages completions responses]
     [--deltas 20000 200000] [--runs 3] [--pi PATH]

A local server (in this process) sends one reply of N small text deltas as fast as it can, in the
real wire shape of the API; `atomic --mode rpc` (a child process) streams it through the provider
and the engine and writes every `message_update`. The figure is the child's CPU time (user +
system, from /proc) between the first `text_delta` it wrote and `agent_end`, divided by N, so
start-up is not counted. The median of --runs is printed per API and length.
--print measures print mode instead (`-p "stream please"`, spawn -> exit): the CPU (user + system,
wait4's rusage) of a run of N deltas minus that of a 10-delta run, divided by N - 10; nothing is
written per delta there.
--pi PATH runs pi's `pi` command (installed apart from the project, e.g. `npm install
@mariozechner/pi-coding-agent@0.73.1` in a scratch folder) the same way, each pi run right after the
Atomic run of the same API and length, and prints Atomic / pi. Use it with --print: pi's RPC
`message_update` carries the whole partial message, so its RPC output grows with the square of
the reply (13.7 MB for 2,000 deltas) and a long reply cannot be measured that way.
Targets: issue 12, <= 30 us per delta and the same at 200k deltas as at 20k; issue 29, <= pi's.
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
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from anthropic_bench import reply_body as messages_body

_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def completions_body(deltas: int) -> bytes:
    base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": "bench"}
    frames = [f"data: {json.dumps(dict(base, choices=[{'index': 0, 'delta': {'role': 'assistant', 'content': ''}}]))}\n\n"]
    for i in range(deltas):
        chunk = dict(base, choices=[{"index": 0, "delta": {"content": f"w{i % 10} "}, "finish_reason": None}])
        frames.append(f"data: {json.dumps(chunk)}\n\n")
    end = dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": "stop"}])
    frames.append(f"data: {json.dumps(end)}\n\n")
    usage = {"prompt_tokens": 10, "completion_tokens": deltas, "total_tokens": deltas + 10}
    frames.append(f"data: {json.dumps(dict(base, choices=[], usage=usage))}\n\ndata: [DONE]\n\n")
    return "".join(frames).encode()


def responses_body(deltas: int) -> bytes:
    response = {"id": "resp_1", "object": "response", "status": "in_progress", "model": "bench", "output": []}
    item = {"id": "msg_1", "type": "message", "status": "in_progress", "content": [], "role": "assistant"}
    events: list[dict[str, object]] = [
        {"type": "response.created", "response": response},
        {"type": "response.in_progress", "response": response},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.content_part.added", "item_id": "msg_1", "output_index": 0, "content_index": 0,
         "part": {"type": "output_text", "annotations": [], "text": ""}},
    ]
    text = []
    for i in range(deltas):
        piece = f"w{i % 10} "
        text.append(piece)
        events.append({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0,
                       "content_index": 0, "delta": piece, "logprobs": [], "obfuscation": "abc"})
    full = "".join(text)
    done_item = dict(item, status="completed", content=[{"type": "output_text", "annotations": [], "text": full}])
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": deltas,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": deltas + 10}
    events += [
        {"type": "response.output_text.done", "item_id": "msg_1", "output_index": 0, "content_index": 0, "text": full},
        {"type": "response.output_item.done", "output_index": 0, "item": done_item},
        {"type": "response.completed", "response": dict(response, status="completed", output=[done_item], usage=usage)},
    ]
    frames = []
    for sequence, event in enumerate(events):
        event["sequence_number"] = sequence
        frames.append(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n")
    return "".join(frames).encode()


BODIES = {"messages": messages_body, "completions": completions_body, "responses": responses_body}


class Server:
    def __init__(self) -> None:
        self.body = b""
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_args: object) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", 0)))
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("connection", "close")
                self.end_headers()
                self.wfile.write(owner.body)
                self.wfile.flush()
                self.close_connection = True

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def port(self) -> int:
        return int(self.httpd.server_address[1])


def write_agent_dir(port: int) -> Path:
    agent = Path(tempfile.mkdtemp(prefix="atomic-stream-bench-"))
    providers = {
        f"bench-{api}": {
            "baseUrl": f"http://127.0.0.1:{port}/v1",
            "api": f"openai-{api}",
            "apiKey": "bench-key",
            "models": [{"id": "bench-model", "contextWindow": 128000, "maxTokens": 4096}],
        }
        for api in ("completions", "responses")
    }
    # The Messages path (v1/messages) is appended to the base URL.
    providers["bench-messages"] = {
        "baseUrl": f"http://127.0.0.1:{port}", "api": "anthropic-messages", "apiKey": "bench-key",
        "models": [{"id": "bench-model", "contextWindow": 200000, "maxTokens": 4096}],
    }
    (agent / "models.json").write_text(json.dumps({"providers": providers}))
    return agent


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS  # utime + stime


SRC: str | None = None  # --src: another checkout, run through PYTHONPATH


def spawn(agent: Path, api: str, pi: str | None, mode: list[str], pipes: bool) -> subprocess.Popen[bytes]:
    # Both agents read the same models.json from the same folder (pi's format is Atomic's).
    env = dict(os.environ, ATOMIC_CODING_AGENT_DIR=str(agent), PI_CODING_AGENT_DIR=str(agent))
    if SRC and not pi:
        env["PYTHONPATH"] = SRC
    program = [pi] if pi else [sys.executable, "-m", "atomic"]
    stream = subprocess.PIPE if pipes else subprocess.DEVNULL
    # Started in the agent folder: `-m atomic` puts the working folder first on sys.path.
    return subprocess.Popen(
        [*program, *mode, "--provider", f"bench-{api}", "--model", "bench-model", "--no-session"],
        stdin=stream, stdout=stream, stderr=subprocess.DEVNULL, env=env, cwd=agent,
    )


def one_run(agent: Path, api: str, pi: str | None = None) -> tuple[int, float]:
    proc = spawn(agent, api, pi, ["--mode", "rpc"], pipes=True)
    assert proc.stdin and proc.stdout
    proc.stdin.write(b'{"id":"p","type":"prompt","message":"stream please"}\n')
    proc.stdin.flush()
    count = 0
    start = end = 0.0
    for line in proc.stdout:
        if b'"text_delta"' in line:
            count += 1
            if count == 1:
                start = cpu_seconds(proc.pid)
        elif b'"agent_end"' in line:
            end = cpu_seconds(proc.pid)
            break
    proc.stdin.close()
    proc.wait()
    return count, end - start


def print_run(agent: Path, api: str, pi: str | None) -> float:
    """CPU seconds of one `-p` run, spawn to exit."""
    proc = spawn(agent, api, pi, ["-p", "stream please"], pipes=False)
    _pid, _status, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    return usage.ru_utime + usage.ru_stime


def per_delta(agent: Path, server: Server, api: str, deltas: int, pi: str | None, printing: bool) -> tuple[int, float]:
    """(deltas seen, CPU per delta in us) of one run."""
    if not printing:
        count, seconds = one_run(agent, api, pi)
        return count, seconds / max(count, 1) * 1e6
    server.body = BODIES[api](10)
    base = print_run(agent, api, pi)
    server.body = BODIES[api](deltas)
    return deltas, (print_run(agent, api, pi) - base) / (deltas - 10) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--api", nargs="+", default=list(BODIES), choices=list(BODIES))
    parser.add_argument("--deltas", nargs="+", type=int, default=[20000, 200000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--src", help="run the package from this folder instead (PYTHONPATH)")
    parser.add_argument("--pi", help="also run this `pi` command the same way, alternating with Atomic")
    parser.add_argument("--print", action="store_true", help="print mode, spawn -> exit, instead of RPC")
    args = parser.parse_args()
    global SRC
    SRC = args.src
    server = Server()
    agent = write_agent_dir(server.port)
    print(f"load average {os.getloadavg()[0]:.1f}")
    for api in args.api:
        for deltas in args.deltas:
            server.body = BODIES[api](deltas)
            figures: dict[str, list[float]] = {"atomic": [], "pi": []}
            for _ in range(args.runs):
                for name, program in (("atomic", None), ("pi", args.pi)):
                    if name == "pi" and not program:
                        continue
                    count, micros = per_delta(agent, server, api, deltas, program, args.print)
                    if count != deltas:
                        print(f"{name} {api} {deltas}: {count} deltas arrived", file=sys.stderr)
                    figures[name].append(micros)
            for name, runs in figures.items():
                if runs:
                    print(f"{name:<6} {api:<12} {deltas:>7} deltas: {statistics.median(runs):5.1f} us/delta "
                          f"(runs: {', '.join(f'{f:.1f}' for f in runs)})")
            if figures["pi"]:
                print(f"       Atomic / pi: {statistics.median(figures['atomic']) / statistics.median(figures['pi']):.2f}x")
    print(f"load average {os.getloadavg()[0]:.1f}")
    server.httpd.shutdown()


if __name__ == "__main__":
    main()
