"""The first prompt of a fresh `atomic --mode rpc` process, on all three wire APIs.

Run: .venv/bin/python benchmarks/first_prompt_bench.py [--runs 5] [--delay 2.0] [--src DIR]

For each API (anthropic-messages, openai-completions, openai-responses) against a local SSE server
that answers at once, it starts the process, sends `get_state` at once, waits --delay seconds, sends
a `prompt` and prints (medians of --runs fresh processes):
- start -> first `get_state` response;
- `prompt` -> its response, and `prompt` -> the first `message_update` text delta;
- the slowest answer to a `get_state` sent every 20 ms while the first prompt runs, and also a run
  where the prompt comes right after the first answer (the warm-up still going on);
- peak RSS idle (before any prompt).
--src runs another checkout of the package (e.g. an older commit) with the same interpreter.
--pi PATH runs pi's `pi` command (installed apart from the project, e.g. `npm install
@mariozechner/pi-coding-agent@0.73.1` in a scratch folder) through exactly the same steps, each pi run
right after the Atomic run of the same API and delay, and prints pi's figures and Atomic's ratio to them:
the issue's targets are stated against pi on the same machine.
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

WORDS = [f"w{i} " for i in range(40)]


def sse(name: str | None, data: Any) -> str:
    text = data if isinstance(data, str) else json.dumps(data)
    return (f"event: {name}\n" if name else "") + f"data: {text}\n\n"


def completions_body() -> str:
    base = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "bench"}
    out = [sse(None, dict(base, choices=[{"index": 0, "delta": {"content": w}, "finish_reason": None}]))
           for w in WORDS]
    out.append(sse(None, dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": "stop"}],
                              usage={"prompt_tokens": 5, "completion_tokens": 40, "total_tokens": 45})))
    return "".join(out) + sse(None, "[DONE]")


def responses_body() -> str:
    seq = iter(range(1, 10_000))

    def ev(kind: str, **fields: Any) -> str:
        return sse(kind, {"type": kind, "sequence_number": next(seq), **fields})

    resp = {"id": "resp_1", "object": "response", "created_at": 0, "model": "bench", "output": []}
    item = {"type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress", "content": []}
    out = [ev("response.created", response=dict(resp, status="in_progress", usage=None)),
           ev("response.output_item.added", output_index=0, item=item),
           ev("response.content_part.added", item_id="msg_1", output_index=0, content_index=0,
              part={"type": "output_text", "text": "", "annotations": []})]
    out += [ev("response.output_text.delta", item_id="msg_1", output_index=0, content_index=0, delta=w, logprobs=[])
            for w in WORDS]
    done = dict(item, status="completed", content=[{"type": "output_text", "text": "".join(WORDS), "annotations": []}])
    out.append(ev("response.output_item.done", output_index=0, item=done))
    usage = {"input_tokens": 5, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 40,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 45}
    out.append(ev("response.completed", response=dict(resp, status="completed", usage=usage)))
    return "".join(out)


def anthropic_body() -> str:
    out = [sse("message_start", {"type": "message_start", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "bench", "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 5, "output_tokens": 1}}}),
        sse("content_block_start", {"type": "content_block_start", "index": 0,
                                    "content_block": {"type": "text", "text": ""}})]
    out += [sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                        "delta": {"type": "text_delta", "text": w}}) for w in WORDS]
    out += [sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
            sse("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                                  "usage": {"output_tokens": 40}}),
            sse("message_stop", {"type": "message_stop"})]
    return "".join(out)


BODIES = {"/chat/completions": completions_body(), "/responses": responses_body(), "/messages": anthropic_body()}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_args: object) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        data = next(body for suffix, body in BODIES.items() if self.path.endswith(suffix)).encode()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()


APIS = {"anthropic-messages": "bench-anthropic", "openai-completions": "bench-completions",
        "openai-responses": "bench-responses"}


def write_agent_dir(port: int) -> Path:
    agent = Path(tempfile.mkdtemp(prefix="atomic-first-prompt-"))
    providers = {
        # The Anthropic SDK adds /v1 itself; the OpenAI one expects it in the base URL.
        name: {"baseUrl": f"http://127.0.0.1:{port}" + ("" if api == "anthropic-messages" else "/v1"), "api": api, "apiKey": "bench-key",
               "models": [{"id": "bench-model", "contextWindow": 128000, "maxTokens": 4096}]}
        for api, name in APIS.items()
    }
    (agent / "models.json").write_text(json.dumps({"providers": providers}))
    return agent


def peak_rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


class Proc:
    def __init__(self, agent: Path, provider: str, src: str | None, pi: str | None = None) -> None:
        # Both agents read the same models.json from the same folder (pi's format is Atomic's).
        env = dict(os.environ, ATOMIC_CODING_AGENT_DIR=str(agent), PI_CODING_AGENT_DIR=str(agent))
        if src:
            env["PYTHONPATH"] = src
        program = [pi] if pi else [sys.executable, "-m", "atomic"]
        self.start = time.perf_counter()
        self.p = subprocess.Popen(
            [*program, "--mode", "rpc", "--provider", provider, "--model", "bench-model", "--no-session", "--no-tools"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=agent,
        )
        self.lines: list[tuple[float, dict[str, Any]]] = []
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.p.stdout
        for raw in self.p.stdout:
            now = time.perf_counter()
            with self.cond:
                self.lines.append((now, json.loads(raw)))
                self.cond.notify_all()

    def send(self, obj: dict[str, Any]) -> float:
        assert self.p.stdin
        self.p.stdin.write((json.dumps(obj) + "\n").encode())
        self.p.stdin.flush()
        return time.perf_counter()

    def wait_for(self, pred: Any, timeout: float = 30) -> float:
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for at, obj in self.lines:
                    if pred(obj):
                        return at
                if not self.cond.wait(max(deadline - time.monotonic(), 0)) and time.monotonic() > deadline:
                    raise TimeoutError("no such line")

    def close(self) -> None:
        assert self.p.stdin
        self.p.stdin.close()
        try:
            self.p.wait(60)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def is_response(rid: str) -> Any:
    return lambda o: o.get("type") == "response" and o.get("id") == rid


def is_delta(o: dict[str, Any]) -> bool:
    return o.get("type") == "message_update" and o.get("assistantMessageEvent", {}).get("type") == "text_delta"


def one_run(agent: Path, provider: str, delay: float, src: str | None, pi: str | None = None) -> dict[str, float]:
    proc = Proc(agent, provider, src, pi)
    proc.send({"id": "s0", "type": "get_state"})
    first_state = proc.wait_for(is_response("s0")) - proc.start
    time.sleep(delay)
    rss_idle = peak_rss_kb(proc.p.pid) / 1024
    sent = proc.send({"id": "p", "type": "prompt", "message": "hello"})
    polls: list[tuple[float, str]] = []
    stop = threading.Event()

    def poll() -> None:
        n = 0
        while not stop.is_set():
            n += 1
            polls.append((proc.send({"id": f"g{n}", "type": "get_state"}), f"g{n}"))
            time.sleep(0.02)

    poller = threading.Thread(target=poll)
    poller.start()
    acked = proc.wait_for(is_response("p"))
    delta = proc.wait_for(is_delta)
    proc.wait_for(lambda o: o.get("type") == "agent_end")
    stop.set()
    poller.join()
    worst = max(proc.wait_for(is_response(rid)) - at for at, rid in polls)
    proc.close()
    return {"state": first_state * 1000, "ack": (acked - sent) * 1000, "delta": (delta - sent) * 1000,
            "poll": worst * 1000, "rss": rss_idle}


def median(runs: list[dict[str, float]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def print_row(label: str, runs: list[dict[str, float]]) -> None:
    print(f"{label:20} start->get_state {median(runs, 'state'):5.0f} ms | "
          f"prompt->response {median(runs, 'ack'):5.1f} ms | prompt->first delta {median(runs, 'delta'):6.0f} ms | "
          f"slowest get_state during it {median(runs, 'poll'):5.1f} ms | idle RSS {median(runs, 'rss'):.1f} MB")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--delay", type=float, default=2.0, help="seconds between start and the prompt")
    parser.add_argument("--src", help="run the package from this folder instead (PYTHONPATH)")
    parser.add_argument("--api", action="append", choices=list(APIS), help="only these APIs")
    parser.add_argument("--pi", help="also run this `pi` command the same way, alternating with Atomic")
    parser.add_argument("--no-immediate", action="store_true", help="skip the runs with the prompt at once")
    args = parser.parse_args()
    import compileall

    if args.src:
        compileall.compile_dir(str(Path(args.src) / "atomic"), quiet=1)
    else:
        import atomic

        compileall.compile_dir(str(Path(atomic.__file__).parent), quiet=1)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    agent = write_agent_dir(server.server_address[1])
    for delay in (args.delay,) if args.no_immediate else (args.delay, 0.0):
        print(f"-- prompt sent {delay:.1f} s after the first get_state answer (medians of {args.runs} runs)")
        for api in args.api or list(APIS):
            runs: list[dict[str, float]] = []
            pi_runs: list[dict[str, float]] = []
            for _ in range(args.runs):
                runs.append(one_run(agent, APIS[api], delay, args.src))
                if args.pi:
                    pi_runs.append(one_run(agent, APIS[api], delay, None, args.pi))
            print_row(api, runs)
            if pi_runs:
                print_row("  pi", pi_runs)
                ratio = " | ".join(
                    f"{label} {median(runs, key) / median(pi_runs, key):.2f}x"
                    for key, label in (("state", "start->get_state"), ("delta", "prompt->first delta"))
                )
                print(f"  {'Atomic / pi':18} {ratio}")
    server.shutdown()


if __name__ == "__main__":
    main()
