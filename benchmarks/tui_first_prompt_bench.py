"""TUI key echo during the first prompt, with a real provider (issue 12: < 50 ms).

Run: .venv/bin/python benchmarks/tui_first_prompt_bench.py [--runs 5] [--api anthropic-messages ...]
     [--delay 0] [--gap-ms 25] [--interval-ms 30] [--src DIR]

Method
- A local HTTP server speaks the SSE wire of each API (the bodies of first_prompt_bench.py: 40 text
  deltas), sending one event every --gap-ms, so the reply streams for about a second.
- Each run is a fresh interpreter (the provider's modules and the turn's validators are not loaded
  yet, as for a user's first prompt): it opens `AtomicApp` with that provider under `App.run_test`
  (headless, 120x35), waits --delay seconds after the engine is on screen (0: the provider warm-up
  the app starts then is still running), types `hello` and Enter, then types a key every
  --interval-ms until the run has ended.
- Echo: as in tui_bench.py, `App._display` is wrapped so each frame is also rendered to terminal
  segments; a key's echo time runs from posting its `Key` event to the end of the first frame whose
  editor holds the new text. The next key is posted once the echo is painted, after the interval.
  Enter's figure is until the frame with the emptied editor (the prompt taken in).
- Printed per API, over all runs: echo while typing the prompt (the warm-up thread running), while
  the prompt waits for its first delta (the rest of the warm-up, the request), while the reply
  streams; Enter; Enter -> the engine's first `message_update`; and the event-loop lag (how late a
  10 ms ticker wakes up) from the first key to the end of the run.
"""

from __future__ import annotations

import argparse
import asyncio
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

# The script's own folder is first on sys.path (first_prompt_bench's bodies); the package is the
# installed one, or --src's (PYTHONPATH), never this checkout forced ahead of it.
from first_prompt_bench import APIS, BODIES, write_agent_dir

GAP_S = 0.025


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def summary(label: str, values_ms: list[float], target: float | None = None) -> None:
    if not values_ms:
        print(f"  {label:<36} no samples")
        return
    med, top, worst = statistics.median(values_ms), p95(values_ms), max(values_ms)
    verdict = ""
    if target is not None:
        verdict = "  OK" if worst < target else f"  MISSED (target < {target:g} ms)"
    print(f"  {label:<36} median {med:7.2f} ms   p95 {top:7.2f} ms   max {worst:7.2f} ms   n={len(values_ms)}{verdict}")


class SlowHandler(BaseHTTPRequestHandler):
    """Answers like first_prompt_bench's server, one SSE event every GAP_S seconds."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *_args: object) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        body = next(body for suffix, body in BODIES.items() if self.path.endswith(suffix))
        events = [event + "\n\n" for event in body.split("\n\n") if event]
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(sum(len(e.encode()) for e in events)))
        self.end_headers()
        for event in events:
            self.wfile.write(event.encode())
            self.wfile.flush()
            time.sleep(GAP_S)


# ---------------------------------------------------------------------------------------------- the child


class EchoProbe:
    """Times each key from its `Key` event to the painted frame whose editor shows `expected`."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.expected: str | None = None
        self.sent_at = 0.0
        self.painted = asyncio.Event()
        self.elapsed_ms = 0.0
        original_display = app._display

        def display(screen: Any, renderable: Any) -> None:
            original_display(screen, renderable)
            if renderable is not None and hasattr(renderable, "render_segments"):
                renderable.render_segments(app.console)  # what the real driver does with a frame
            if self.expected is not None and app.editor.text == self.expected:
                self.elapsed_ms = (time.perf_counter() - self.sent_at) * 1000
                self.expected = None
                self.painted.set()

        app._display = display

    async def press(self, key: str, character: str | None, expected: str) -> float:
        """Post one key and wait (up to 10 s) until its effect is painted; its latency in ms."""
        from textual import events

        self.painted.clear()
        self.expected = expected
        self.sent_at = time.perf_counter()
        self.app.post_message(events.Key(key, character))
        await asyncio.wait_for(self.painted.wait(), 10)
        return self.elapsed_ms


async def child_run(provider: str, delay: float, interval: float) -> dict[str, Any]:
    import atomic
    from atomic.core.engine.options import SessionOptions
    from atomic.core.events import AgentEnd, MessageUpdate
    from atomic.tui.app import AtomicApp

    result: dict[str, Any] = {"typing": [], "waiting": [], "streaming": [], "lags": [], "package": str(Path(atomic.__file__).parent)}
    with tempfile.TemporaryDirectory() as tmp:
        options = SessionOptions(cwd=Path(tmp), provider=provider, model="bench-model", no_session=True)
        app = AtomicApp(options, cursor_blink=False)
        async with app.run_test(size=(120, 35)) as pilot:
            await pilot.pause()
            engine = app.engine
            assert engine is not None
            marks: dict[str, float] = {}
            ended = asyncio.Event()

            def on_event(event: Any) -> None:
                if type(event) is MessageUpdate and "delta" not in marks:
                    marks["delta"] = time.perf_counter()
                elif type(event) is AgentEnd:
                    ended.set()

            engine.subscribe(on_event)
            probe = EchoProbe(app)
            await asyncio.sleep(delay)
            stop = asyncio.Event()
            lagging = asyncio.create_task(loop_lag(stop, result["lags"]))
            for char in "hello":
                result["typing"].append(await probe.press(char, char, app.editor.text + char))
            marks["enter"] = time.perf_counter()
            result["enter"] = await probe.press("enter", "\r", "")
            index = 0
            while not ended.is_set():
                await asyncio.sleep(interval)
                if len(app.editor.text) > 60:
                    app.editor.clear_all()
                    await pilot.pause()
                char = "abcdefghij"[index % 10]
                index += 1
                phase = "streaming" if "delta" in marks else "waiting"
                result[phase].append(await probe.press(char, char, app.editor.text + char))
            stop.set()
            await lagging
            result["first_delta"] = (marks["delta"] - marks["enter"]) * 1000 if "delta" in marks else None
    return result


async def loop_lag(stop: asyncio.Event, out: list[float], tick: float = 0.01) -> None:
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        before = loop.time()
        await asyncio.sleep(tick)
        out.append(max(0.0, (loop.time() - before - tick) * 1000))


# ---------------------------------------------------------------------------------------------- the parent


def run_child(agent: Path, provider: str, args: argparse.Namespace) -> dict[str, Any]:
    env = dict(os.environ, ATOMIC_CODING_AGENT_DIR=str(agent))
    if args.src:
        env["PYTHONPATH"] = args.src
    env.pop("NO_COLOR", None)
    env.pop("TEXTUAL_THEME", None)
    command = [sys.executable, __file__, "--child", provider, "--delay", str(args.delay),
               "--interval-ms", str(args.interval_ms)]
    done = subprocess.run(command, env=env, cwd=agent, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"the child failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--api", action="append", choices=list(APIS), help="only these APIs")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds between the engine on screen and typing")
    parser.add_argument("--gap-ms", type=float, default=25.0, help="the server's pause between SSE events")
    parser.add_argument("--interval-ms", type=float, default=30.0, help="pause between a key's echo and the next key")
    parser.add_argument("--src", help="run the package from this folder instead (PYTHONPATH), e.g. an old checkout")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(child_run(args.child, args.delay, args.interval_ms / 1000))))
        return
    global GAP_S
    GAP_S = args.gap_ms / 1000
    server = ThreadingHTTPServer(("127.0.0.1", 0), SlowHandler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    agent = write_agent_dir(server.server_address[1])
    print(f"Typing during the first prompt: a fresh process per run, {args.runs} runs per API, typing "
          f"{args.delay:.1f} s after the engine is on screen, server gap {args.gap_ms:g} ms")
    for api in args.api or list(APIS):
        runs = [run_child(agent, APIS[api], args) for _ in range(args.runs)]
        print(f"{api} (package: {runs[0]['package']})")
        summary("echo, typing the prompt (warm-up on)", [v for r in runs for v in r["typing"]], 50)
        summary("echo, Enter → first delta", [v for r in runs for v in r["waiting"]], 50)
        summary("echo, while the reply streams", [v for r in runs for v in r["streaming"]], 50)
        summary("Enter → editor emptied, painted", [r["enter"] for r in runs], 50)
        summary("Enter → first delta (event)", [r["first_delta"] for r in runs if r["first_delta"] is not None])
        summary("event-loop lag (10 ms ticker)", [v for r in runs for v in r["lags"]])
        worst = [max(r["lags"]) for r in runs if r["lags"]]
        print(f"  worst loop lag per run: {', '.join(f'{v:.0f}' for v in worst)} ms; "
              f"median of the runs' worst {statistics.median(worst):.0f} ms")
    server.shutdown()


if __name__ == "__main__":
    main()
