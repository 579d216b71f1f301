"""A live TUI session that keeps going: does a turn cost the same after 300 turns as in a fresh process?

Run: .venv/bin/python benchmarks/tui_long_session_bench.py [--turns 300] [--tool-turns 15] [--cards 20]

Method (in process, `App.run_test` headless at 120x35, the scripted provider, a real session file)
- Each turn types a prompt into the editor and posts Enter the way the terminal driver does. The reply
  (a heading, a list, a code block and a table, ~700 bytes, streamed in 64-char chunks) follows; every
  fifth turn first runs a `bash` tool call (`echo`), so it has a tool card.
- "Enter → reply shown": from posting Enter to the end of the first frame painted (segments rendered,
  as a real driver does) after the app has handled the turn's end (the working line is gone and the
  reply's last line is in the transcript). Fresh: the median of turns 1-30 (a fresh process; the
  transcript is not folded before ~35 turns); late: of the last 30. Medians of 30 because the machine
  may be shared: a single slow turn says little.
- The same turns in CPU time of the process (time.process_time), which other load on the machine
  does not inflate the way it does wall time.
- Key echo: ten times over the session (after every tenth of the turns: 30, 60, ... 300), one more reply
  streams slowly (8-char chunks, 8 ms apart) while a key is posted every 40 ms; the time from the key to
  the first frame in which the editor holds it. About ten keys a sample, so the p95 is over ~100 keys
  from a fresh transcript to the longest one. These replies are not timed as turns.
- RSS: VmRSS after turn 30 and after the last turn (a full collection first, both times).
- Tool-heavy: a fresh app runs `--tool-turns` turns of `--cards` tool calls each (`ls`), then a trivial
  turn ("hi" → "ok") 15 times, timed like above (median); compared with the same in a fresh app.
Targets (issue 23): late ≤ 1.5× fresh, echo p95 ≤ 50 ms, RSS growth < 40 MB; trivial turn after the
tool-heavy turns ≤ 2× fresh (or + 150 ms).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.tui_bench import FrameProbe, p95  # noqa: E402  (after the path is set)


def reply(turn: int) -> str:
    return (
        f"## Turn {turn}\n\n"
        "Here is what changed, in short:\n\n"
        "- the parser keeps its state per line\n- the cache is cleared on reload\n- tests cover both\n\n"
        "```python\n"
        f"def step_{turn}(values: list[int]) -> int:\n"
        "    total = 0\n    for value in values:\n        total += value * 2\n    return total\n"
        "```\n\n"
        "| file | lines | note |\n|------|------:|------|\n"
        f"| parser.py | {turn} | kept |\n| cache.py | {turn * 2} | cleared |\n\n"
        f"Done with turn marker-{turn}."
    )


ECHO_SAMPLES = 10


def echo_every(turns: int) -> int:
    return max(1, turns // ECHO_SAMPLES)


def script(turns: int) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    for turn in range(1, turns + 1):
        if turn % 5 == 0:
            call = {"name": "bash", "arguments": {"command": f"echo step {turn}"}, "id": f"call_{turn}"}
            entries.append({"toolCalls": [call]})
        entries.append({"text": reply(turn), "chunkSize": 64})
        if turn % echo_every(turns) == 0:
            # Streams for about half a second (time for ten keys), yet adds only ~500 bytes to the context.
            entries.append({"text": "x " * 250 + f"echo-{turn}", "chunkSize": 8, "delayMs": 8})
    return entries


async def echo_sample(app: Any, probe: FrameProbe) -> int:
    """Keys typed while one slow reply streams; returns how many were timed."""
    before = len(probe.echo_ms)
    stop = asyncio.Event()
    app.editor.clear_all()
    typing = asyncio.create_task(probe.type_keys(stop))
    await app.engine.prompt("one more, slowly")
    while app.engine.is_streaming:
        await asyncio.sleep(0.05)
    stop.set()
    await typing
    app.editor.clear_all()
    await asyncio.sleep(0.05)
    return len(probe.echo_ms) - before


TRIVIAL_TURNS = 15


def rss_mb() -> float:
    gc.collect()
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class TurnTimer:
    """Wraps App._display: the end of the first frame after the app has shown a turn's end."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.waiting_for: str | None = None
        self.started = 0.0
        self.cpu_started = 0.0
        self.done = asyncio.Event()
        self.elapsed_ms = 0.0
        self.cpu_ms: list[float] = []
        original = app._display

        def display(screen: Any, renderable: Any) -> None:
            original(screen, renderable)
            if renderable is not None and hasattr(renderable, "render_segments"):
                renderable.render_segments(app.console)
            if self.waiting_for is not None and self._turn_shown():
                self.elapsed_ms = (time.perf_counter() - self.started) * 1000
                self.cpu_ms.append((time.process_time() - self.cpu_started) * 1000)
                self.waiting_for = None
                self.done.set()

        app._display = display

    def _turn_shown(self) -> bool:
        app = self.app
        return (
            not app.engine.is_streaming
            and not app.working.has_class("-active")
            and (app.engine.last_assistant_text() or "").endswith(self.waiting_for or "\0")
        )

    async def turn(self, prompt: str, marker: str) -> float:
        from textual import events

        app = self.app
        app.editor.insert(prompt)
        await asyncio.sleep(0.01)
        self.done.clear()
        self.waiting_for = marker
        self.started = time.perf_counter()
        self.cpu_started = time.process_time()
        app.post_message(events.Key("enter", "\r"))
        await asyncio.wait_for(self.done.wait(), timeout=30)
        await asyncio.sleep(0.02)  # let the last frame's follow-ups run before the next prompt
        return self.elapsed_ms


def make_app(tmp: Path, entries: list[dict[str, Any]]) -> Any:
    from atomic.core.engine.options import SessionOptions
    from atomic.core.providers.scripted import ScriptedProvider
    from atomic.tui.app import AtomicApp

    os.environ["ATOMIC_CODING_AGENT_DIR"] = str(tmp / "agent")
    cwd = tmp / "project"
    cwd.mkdir(exist_ok=True)
    (cwd / "README.md").write_text("# project\n")
    return AtomicApp(SessionOptions(cwd=cwd, scripted=ScriptedProvider(entries)), cursor_blink=False)


async def bench_turns(turns: int) -> None:
    print(f"{turns} turns (list, code block, table; a tool card every fifth turn)")
    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(Path(tmp), script(turns))
        async with app.run_test(size=(120, 35)) as pilot:
            await pilot.pause()
            timer = TurnTimer(app)
            probe = FrameProbe(app, render=False)  # the timer renders each frame already
            times: list[float] = []
            keys_per_sample: list[int] = []
            rss_fresh = 0.0
            for turn in range(1, turns + 1):
                times.append(await timer.turn(f"turn {turn}: go on", f"marker-{turn}."))
                if turn == 30:
                    rss_fresh = rss_mb()
                if turn % echo_every(turns) == 0:
                    keys_per_sample.append(await echo_sample(app, probe))
            rss_late = rss_mb()
            widgets = len(app.conversation.children)
    fresh, late = statistics.median(times[:30]), statistics.median(times[-30:])
    print(f"  Enter → reply shown: fresh (turns 1-30) {fresh:.1f} ms, late (last 30) {late:.1f} ms, "
          f"ratio {late / fresh:.2f} (target ≤ 1.5)")
    cpu = timer.cpu_ms
    cpu_fresh, cpu_late = statistics.median(cpu[:30]), statistics.median(cpu[-30:])
    print(f"  the same in CPU time of the process (what a shared machine does not inflate): fresh "
          f"{cpu_fresh:.1f} ms, late {cpu_late:.1f} ms, ratio {cpu_late / cpu_fresh:.2f}")
    print("  every 50 turns (median of 30): " + ", ".join(
        f"{statistics.median(times[i:i + 30]):.0f}" for i in range(0, turns, 50)) + " ms")
    print(f"  key echo while a reply streams: median {statistics.median(probe.echo_ms):.1f} ms, "
          f"p95 {p95(probe.echo_ms):.1f} ms, max {max(probe.echo_ms):.1f} ms over {len(probe.echo_ms)} keys "
          f"in {len(keys_per_sample)} samples every {echo_every(turns)} turns (target p95 ≤ 50 ms)")
    last = probe.echo_ms[-keys_per_sample[-1]:] if keys_per_sample and keys_per_sample[-1] else []
    if last:
        print(f"    the last sample alone (after turn {turns}): median {statistics.median(last):.1f} ms, "
              f"p95 {p95(last):.1f} ms over {len(last)} keys")
    print(f"  RSS {rss_fresh:.0f} MB after 30 turns, {rss_late:.0f} MB after {turns}: "
          f"+{rss_late - rss_fresh:.0f} MB (target < 40 MB); {widgets} widgets in the transcript")


async def trivial_turn_after(tool_turns: int, cards: int) -> tuple[float, float]:
    entries: list[dict[str, Any]] = []
    for turn in range(tool_turns):
        calls = [{"name": "ls", "arguments": {"path": "."}, "id": f"t{turn}_{i}"} for i in range(cards)]
        entries += [{"toolCalls": calls}, {"text": f"listed {turn}"}]
    entries += [{"text": f"ok-{i}"} for i in range(TRIVIAL_TURNS)]
    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(Path(tmp), entries)
        async with app.run_test(size=(120, 35)) as pilot:
            await pilot.pause()
            timer = TurnTimer(app)
            heavy = [await timer.turn(f"list {turn}", f"listed {turn}") for turn in range(tool_turns)]
            trivial = [await timer.turn("hi", f"ok-{i}") for i in range(TRIVIAL_TURNS)]
            trivial_cpu = timer.cpu_ms[-TRIVIAL_TURNS:]
    print(f"    (trivial turn in CPU time: {statistics.median(trivial_cpu):.1f} ms)")
    return (statistics.median(heavy) if heavy else 0.0), statistics.median(trivial)


async def bench_tool_heavy(tool_turns: int, cards: int) -> None:
    print(f"{tool_turns} turns of {cards} tool cards, then a trivial turn")
    _none, fresh = await trivial_turn_after(0, cards)
    heavy, after = await trivial_turn_after(tool_turns, cards)
    print(f"  trivial turn: fresh {fresh:.1f} ms, after the tool-heavy turns {after:.1f} ms, ratio "
          f"{after / fresh:.2f} (target ≤ 2 or ≤ +150 ms); a {cards}-card turn took {heavy:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--tool-turns", type=int, default=15)
    parser.add_argument("--cards", type=int, default=20)
    args = parser.parse_args()
    asyncio.run(bench_turns(args.turns))
    asyncio.run(bench_tool_heavy(args.tool_turns, args.cards))


if __name__ == "__main__":
    main()
