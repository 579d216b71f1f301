"""TUI figures: time to first paint, keypress echo latency and frame time (streaming, long session).

Run: .venv/bin/python benchmarks/tui_bench.py [--runs 5] [--kb 200] [--entries 5000] [--skip-paint]

Method
- First paint (out of process): `python -m atomic --provider scripted` is started under a pseudo-terminal
  (120x35) with a fresh agent dir. The clock starts just before the process is spawned; "first frame" stops
  when the terminal output first contains the editor's rounded border (`╭`: the first full screen has been
  written, and typing already works), "engine ready" when the footer shows the model name (`scripted-model`).
  Median and p95 over --runs starts.
  An in-process breakdown follows: importing atomic.tui.app, and AtomicApp construction to the end of
  `on_mount` (session created, history rendered) under `App.run_test`.
- Keypress echo (in process, `App.run_test`, headless): `App._display` is wrapped so that each frame is
  also turned into terminal bytes (`render_segments`, the work a real driver does) and timed. A key event
  is posted to the app the way the driver posts it; the clock stops at the end of the first frame in which
  the editor holds the new character. Keys are sent every ~40 ms while the scenario runs.
- Frame time: the duration of each screen update (`Screen._on_timer_update`: layout when needed, compositor
  update, segment rendering), plus the event-loop lag (how late a 10 ms ticker wakes up), which is what delays a keypress.
- Opening the long session: from AtomicApp() to the first frame with its history, split into the engine's
  create_session (timed in place) and the rest (app, history widgets, layout, paint).
- Scenarios: (a) a ~50,000-token reply (~200 KB of markdown: headings, prose, lists, code fences, tables)
  streamed by the scripted provider in 32-char chunks with a 1 ms delay; (b) a 5,000-entry session
  (2,500 user + 2,500 assistant messages) opened with SessionOptions(session=path).
Targets (issue 7): first paint < 400 ms, keypress echo < 16 ms in both scenarios.
Typing while the first prompt runs on a real provider (issue 12, < 50 ms) is measured by
benchmarks/tui_first_prompt_bench.py, with the same echo method in a fresh process per run.
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import json
import os
import pty
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))] if ordered else float("nan")


def summary(label: str, values_ms: list[float], target: float | None = None) -> None:
    if not values_ms:
        print(f"  {label:<34} no samples")
        return
    med, top, worst = statistics.median(values_ms), p95(values_ms), max(values_ms)
    verdict = ""
    if target is not None:
        verdict = "  OK" if top < target else f"  MISSED (target < {target:g} ms)"
    print(f"  {label:<34} median {med:7.2f} ms   p95 {top:7.2f} ms   max {worst:7.2f} ms   n={len(values_ms)}{verdict}")


# ---------------------------------------------------------------------------------------------- first paint


def first_paint_once(cwd: Path) -> tuple[float, float]:
    """(ms to the first frame showing the editor box, ms to the footer showing the model: engine ready)."""
    agent_dir = tempfile.mkdtemp(prefix="atomic-bench-agent-")
    env = dict(os.environ, ATOMIC_CODING_AGENT_DIR=agent_dir, TERM="xterm-256color", COLUMNS="120", LINES="35")
    env.pop("NO_COLOR", None)
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 35, 120, 0, 0))
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "atomic", "--provider", "scripted"],
        stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env, start_new_session=True,
    )
    os.close(slave)
    seen = b""
    painted = ready = float("nan")
    deadline = started + 15
    try:
        while time.perf_counter() < deadline:
            ready, _, _ = select.select([master], [], [], 0.05)
            if not ready:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            seen += chunk
            now = (time.perf_counter() - started) * 1000
            if painted != painted and "╭".encode() in seen:
                painted = now
            if b"scripted-model" in seen:
                ready = now
                break
    finally:
        process.terminate()
        try:
            process.wait(timeout=3)
        except subprocess.TimeoutExpired:
            process.kill()
        os.close(master)
    return painted, ready


def bench_first_paint(runs: int) -> None:
    print("First paint: `python -m atomic --provider scripted` under a 120x35 pty")
    with tempfile.TemporaryDirectory() as cwd:
        first_paint_once(Path(cwd))  # warm the OS file cache and .pyc files
        results = [first_paint_once(Path(cwd)) for _ in range(runs)]
    summary("spawn → first frame (editor box)", [p for p, _ in results], 400)
    summary("spawn → engine ready (model shown)", [r for _, r in results])
    code = (
        "import time; t=time.perf_counter(); import atomic.tui.app; "
        "print((time.perf_counter()-t)*1000)"
    )
    imports = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT).stdout) for _ in range(runs)]
    summary("import atomic.tui.app", imports)


def _interpreter_start() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return (time.perf_counter() - started) * 1000


async def bench_mount(runs: int) -> None:
    from atomic.core.engine.options import SessionOptions
    from atomic.tui.app import AtomicApp

    times: list[float] = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["ATOMIC_CODING_AGENT_DIR"] = str(Path(tmp) / "agent")
            started = time.perf_counter()
            app = AtomicApp(SessionOptions(cwd=Path(tmp), provider="scripted"), cursor_blink=False)
            async with app.run_test(size=(120, 35)) as pilot:
                await pilot.pause()
                times.append((time.perf_counter() - started) * 1000)
    summary("AtomicApp() → mounted (run_test)", times)
    summary("python -c pass (interpreter)", [_interpreter_start() for _ in range(runs)])


# ---------------------------------------------------------------------------------------------- latency harness


class FrameProbe:
    """Wraps App._display: times every frame and notices when the editor shows what was typed."""

    def __init__(self, app: Any, render: bool = True) -> None:
        """`render=False`: another wrapper of App._display renders the frame's segments already."""
        self.app = app
        self.frames_ms: list[float] = []
        self.echo_ms: list[float] = []
        self.pending: tuple[float, str] | None = None  # (sent at, editor text expected)
        original_display = app._display
        screen = app.screen
        original_frame = screen._on_timer_update

        def display(screen: Any, renderable: Any) -> None:
            original_display(screen, renderable)
            if render and renderable is not None and hasattr(renderable, "render_segments"):
                renderable.render_segments(app.console)  # what the real driver does with a frame
            if self.pending is not None and app.editor.text == self.pending[1]:
                self.echo_ms.append((time.perf_counter() - self.pending[0]) * 1000)
                self.pending = None

        def frame() -> None:
            started = time.perf_counter()
            original_frame()
            self.frames_ms.append((time.perf_counter() - started) * 1000)

        app._display = display
        screen._on_timer_update = frame
        screen._update_timer._callback = frame

    async def type_keys(self, stop: asyncio.Event, interval: float = 0.04, limit: int = 400) -> None:
        from textual import events

        app = self.app
        for index in range(limit):
            if stop.is_set():
                break
            if len(app.editor.text) > 60:
                app.editor.clear_all()
                await asyncio.sleep(interval)
            char = "abcdefghij"[index % 10]
            self.pending = (time.perf_counter(), app.editor.text + char)
            app.post_message(events.Key(char, char))
            await asyncio.sleep(interval)
            if self.pending is not None:
                await asyncio.sleep(0.2)  # very slow echo: give it time rather than drop the sample
                self.pending = None


async def loop_lag(stop: asyncio.Event, out: list[float], tick: float = 0.01) -> None:
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        before = loop.time()
        await asyncio.sleep(tick)
        out.append(max(0.0, (loop.time() - before - tick) * 1000))


# ---------------------------------------------------------------------------------------------- streaming


def markdown_reply(target_bytes: int) -> str:
    parts: list[str] = []
    size = 0
    section = 0
    while size < target_bytes:
        section += 1
        block = (
            f"## Section {section}: streaming behaviour\n\n"
            "The renderer keeps settled blocks as they are and only rebuilds the block that is still growing, "
            "so a long answer does not get slower as it goes. This paragraph is ordinary prose with `inline code`, "
            "**bold** and *italic* words, long enough to wrap on a narrow terminal.\n\n"
            "- first point about the design\n- second point, with a [link](https://example.com)\n"
            "- third point\n  - nested detail\n\n"
            "```python\n"
            f"def handler_{section}(event: dict[str, int]) -> int:\n"
            "    total = 0\n    for key, value in event.items():\n        total += len(key) * value\n"
            "    return total\n```\n\n"
            "| name | value | note |\n|------|------:|------|\n"
            f"| alpha | {section} | first |\n| beta | {section * 2} | second |\n| gamma | {section * 3} | third |\n\n"
        )
        parts.append(block)
        size += len(block)
    return "".join(parts)


async def bench_streaming(kb: int) -> None:
    from atomic.core.engine.options import SessionOptions
    from atomic.core.providers.scripted import ScriptedProvider
    from atomic.tui.app import AtomicApp

    text = markdown_reply(kb * 1024)
    print(f"Streaming a {len(text) // 1024} KB markdown reply (~{len(text) // 4:,} tokens, 32-char chunks, 1 ms delay)")
    provider = ScriptedProvider([{"text": text, "chunkSize": 32, "delayMs": 1}])
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["ATOMIC_CODING_AGENT_DIR"] = str(Path(tmp) / "agent")
        app = AtomicApp(SessionOptions(cwd=Path(tmp), scripted=provider, no_session=True), cursor_blink=False)
        async with app.run_test(size=(120, 35)) as pilot:
            await pilot.pause()
            probe = FrameProbe(app)
            started = time.perf_counter()
            await app.engine.prompt("write a long answer")
            stop = asyncio.Event()
            lags: list[float] = []
            typing = asyncio.create_task(probe.type_keys(stop))
            lagging = asyncio.create_task(loop_lag(stop, lags))
            while app.engine.is_streaming:
                await asyncio.sleep(0.05)
            stream_s = time.perf_counter() - started
            stop.set()
            await typing
            await lagging
            frames_during = list(probe.frames_ms)
            settle_started = time.perf_counter()
            from atomic.tui.conversation import AssistantText

            for block in app.conversation.query(AssistantText):
                await block.wait_settled()
            settle_s = time.perf_counter() - settle_started
            await pilot.pause()
        print(f"  stream took {stream_s:.1f} s; markdown settled {settle_s * 1000:.0f} ms after the last delta")
        summary("keypress → echo painted", probe.echo_ms, 16)
        summary("frame time", frames_during)
        summary("event-loop lag (10 ms ticker)", lags)


# ---------------------------------------------------------------------------------------------- long session


def write_session(path: Path, cwd: Path, entries: int) -> None:
    header = {"type": "session", "version": 3, "id": "bench-session", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": str(cwd)}
    lines = [json.dumps(header)]
    parent = None
    for index in range(entries):
        entry_id = f"e{index:06d}"
        if index % 2 == 0:
            message: dict[str, Any] = {"role": "user", "content": f"Question {index // 2}: how does part {index} work?", "timestamp": 1735689600000 + index}
        else:
            body = (
                f"Part {index} works like this:\n\n- it reads the input\n- it writes the output\n\n"
                f"```python\nprint({index})\n```\n"
            )
            message = {
                "role": "assistant", "content": [{"type": "text", "text": body}], "api": "scripted", "provider": "scripted",
                "model": "scripted-model", "usage": {"input": 10, "output": 20, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 30,
                                                     "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
                "stopReason": "stop", "timestamp": 1735689600000 + index,
            }
        entry = {"type": "message", "id": entry_id, "parentId": parent, "timestamp": "2025-01-01T00:00:00.000Z", "message": message}
        lines.append(json.dumps(entry))
        parent = entry_id
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


async def bench_long_session(entries: int) -> None:
    from atomic.core.engine.options import SessionOptions
    from atomic.core.providers.scripted import ScriptedProvider
    from atomic.tui.app import AtomicApp

    print(f"A {entries:,}-entry session ({entries // 2:,} user + {entries // 2:,} assistant messages)")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["ATOMIC_CODING_AGENT_DIR"] = str(Path(tmp) / "agent")
        path = Path(tmp) / "long.jsonl"
        write_session(path, Path(tmp), entries)
        import atomic.core.engine.factory as factory

        engine_ms: list[float] = []
        original_create = factory.create_session

        async def timed_create(*args: Any, **kwargs: Any) -> Any:
            begun = time.perf_counter()
            try:
                return await original_create(*args, **kwargs)
            finally:
                engine_ms.append((time.perf_counter() - begun) * 1000)

        factory.create_session = timed_create  # the app imports it at start: this is the call it makes
        started = time.perf_counter()
        app = AtomicApp(SessionOptions(cwd=Path(tmp), scripted=ScriptedProvider([]), session=str(path)), cursor_blink=False)
        async with app.run_test(size=(120, 35)) as pilot:
            await pilot.pause()
            open_ms = (time.perf_counter() - started) * 1000
            factory.create_session = original_create
            shown = len(app.conversation.children)
            probe = FrameProbe(app)
            stop = asyncio.Event()
            lags: list[float] = []
            lagging = asyncio.create_task(loop_lag(stop, lags))
            await probe.type_keys(stop, limit=150)
            # Scrolling through the history: page up a few times and back to the end.
            scroll_started = time.perf_counter()
            for _ in range(10):
                await pilot.press("pageup") if app.screen.focused is app.conversation else app.conversation.scroll_page_up(animate=False)
                await pilot.pause()
            app.conversation.scroll_end(animate=False)
            await pilot.pause()
            scroll_ms = (time.perf_counter() - scroll_started) * 1000
            stop.set()
            await lagging
        engine = sum(engine_ms)
        print(f"  opened and mounted in {open_ms:.0f} ms (engine create_session {engine:.0f} ms, app and view "
              f"{open_ms - engine:.0f} ms, {shown} widgets); 10 page-ups + end in {scroll_ms:.0f} ms")
        summary("keypress → echo painted", probe.echo_ms, 16)
        summary("frame time", probe.frames_ms)
        summary("event-loop lag (10 ms ticker)", lags)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--kb", type=int, default=200, help="size of the streamed reply")
    parser.add_argument("--entries", type=int, default=5000)
    parser.add_argument("--skip-paint", action="store_true")
    parser.add_argument("--only", choices=["paint", "stream", "session"], default=None)
    args = parser.parse_args()
    os.environ.pop("NO_COLOR", None)
    os.environ.pop("TEXTUAL_THEME", None)
    if not args.skip_paint and args.only in (None, "paint"):
        bench_first_paint(args.runs)
        asyncio.run(bench_mount(args.runs))
    if args.only in (None, "stream"):
        asyncio.run(bench_streaming(args.kb))
    if args.only in (None, "session"):
        asyncio.run(bench_long_session(args.entries))


if __name__ == "__main__":
    main()
