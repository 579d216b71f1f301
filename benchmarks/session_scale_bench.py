"""Sessions at scale: a 50,000-entry session file (text, tool calls, results) through `atomic --mode rpc`.

    .venv/bin/python benchmarks/session_scale_bench.py            # --entries 50000 --runs 3
    .venv/bin/python benchmarks/session_scale_bench.py --export-in-process    # the export's CPU alone

Generates the session in a temp folder (nothing is written to the real home), starts the RPC
process on it with the offline scripted provider and prints, per run and as medians:

- open: process start until the first `get_state` answer (the file is loaded before that);
- get_messages, export_html, get_entries(since one of the last entries), get_tree (the session is
  one branch, so this is a tree 50,000 entries deep; `--tree-depth` adds a separate 5,000-deep run);
- switch_session back: `new_session`, then the time of `switch_session` to the big file.

Times are measured from writing the command until the last byte of its response line (the newline)
arrived; responses are recognised by their prefix, never parsed or joined, so the client's JSON
decoding is not counted. Each
figure is printed as wall time and as the CPU time the RPC process spent (from /proc), which stays
meaningful when other work shares the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections import deque
from pathlib import Path
from typing import Any

LANGUAGES = ["python", "typescript", "rust", "go", "bash", "json", "java", "c"]
CODE = {
    "python": "def handler(event: dict) -> int:\n    total = sum(x * 2 for x in event['items'])\n    return total\n",
    "typescript": "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
    "rust": "fn main() {\n    let v: Vec<u32> = (0..10).collect();\n    println!(\"{:?}\", v);\n}\n",
    "go": "func main() {\n\tfmt.Println(\"hello\")\n}\n",
    "bash": "for f in *.py; do\n  echo \"$f\"\ndone\n",
    "json": '{"name": "atomic", "version": "1.0.0", "private": true}\n',
    "java": "public class Main {\n  public static void main(String[] a) { System.out.println(1); }\n}\n",
    "c": "int main(void) {\n  return printf(\"%d\\n\", 42) < 0;\n}\n",
}

UNIQUE_LINE = {
    "python": "value_{n} = {n}\n", "typescript": "const value{n} = {n};\n", "rust": "const V{n}: u32 = {n};\n",
    "go": "var v{n} = {n}\n", "bash": "echo step-{n}\n", "json": '{{"step": {n}}}\n', "java": "// step {n}\n",
    "c": "/* step {n} */\n",
}


def _usage(n: int) -> dict[str, Any]:
    return {
        "input": 1200 + n % 300, "output": 150, "cacheRead": 800, "cacheWrite": 0, "totalTokens": 2150 + n % 300,
        "cost": {"input": 0.0036, "output": 0.00225, "cacheRead": 0.00024, "cacheWrite": 0.0, "total": 0.00609},
    }


def generate(path: Path, entries: int, cwd: Path) -> None:
    """One branch of user prompts, assistant text + tool calls, tool results and answers."""
    started = time.perf_counter()
    header = {"type": "session", "version": 3, "id": "0190bench-0000-7000-8000-000000000000",
              "timestamp": "2026-12-01T10:00:00.000Z", "cwd": str(cwd)}
    lines = [json.dumps(header, separators=(",", ":"))]
    parent: str | None = None
    clock = 1_796_000_000_000

    def add(entry: dict[str, Any]) -> None:
        nonlocal parent
        entry_id = f"{len(lines):08x}"
        full = {"type": entry.pop("type"), "id": entry_id, "parentId": parent,
                "timestamp": "2026-12-01T10:00:00.000Z", **entry}
        lines.append(json.dumps(full, ensure_ascii=False, separators=(",", ":")))
        parent = entry_id

    add({"type": "model_change", "provider": "scripted", "modelId": "scripted-model"})
    add({"type": "thinking_level_change", "thinkingLevel": "medium"})
    turn = 0
    while len(lines) - 1 < entries:
        lang = LANGUAGES[turn % len(LANGUAGES)]
        # Unique per turn, so the export's cache of highlighted blocks cannot flatter the figure.
        code = UNIQUE_LINE[lang].format(n=turn) + CODE[lang] * (1 + turn % 3)
        clock += 1000
        add({"type": "message", "message": {
            "role": "user", "content": f"Please look at step {turn}: why does the `{lang}` build fail? " * 3,
            "timestamp": clock}})
        call_id = f"call_{turn:06d}"
        add({"type": "message", "message": {
            "role": "assistant", "content": [
                {"type": "thinking", "thinking": f"The user asks about step {turn}. Read the file first."},
                {"type": "text", "text": f"Let me read the file for step {turn}."},
                {"type": "toolCall", "id": call_id, "name": "read",
                 "arguments": {"path": f"src/module_{turn % 97}.{lang[:2]}"}},
            ],
            "api": "scripted", "provider": "scripted", "model": "scripted-model", "usage": _usage(turn),
            "stopReason": "toolUse", "timestamp": clock + 1}})
        add({"type": "message", "message": {
            "role": "toolResult", "toolCallId": call_id, "toolName": "read",
            "content": [{"type": "text", "text": code * 4}], "isError": False, "timestamp": clock + 2}})
        add({"type": "message", "message": {
            "role": "assistant", "content": [{"type": "text", "text": (
                f"The problem in step {turn} is the loop bound. Here is the fix:\n\n```{lang}\n{code}```\n\n"
                "- keep the **types** explicit\n- run the tests again\n")}],
            "api": "scripted", "provider": "scripted", "model": "scripted-model", "usage": _usage(turn + 1),
            "stopReason": "stop", "timestamp": clock + 3}})
        turn += 1
    del lines[entries + 1:]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    size = path.stat().st_size / 1e6
    print(f"generated {entries:,} entries, {size:.1f} MB in {time.perf_counter() - started:.1f} s: {path}")


def generate_chain(path: Path, depth: int, cwd: Path) -> None:
    header = {"type": "session", "version": 3, "id": "0190bench-0000-7000-8000-00000000c4a1",
              "timestamp": "2026-12-01T10:00:00.000Z", "cwd": str(cwd)}
    lines = [json.dumps(header)]
    parent = None
    for index in range(depth):
        entry_id = f"c{index:07d}"
        message = {"role": "user", "content": f"step {index}", "timestamp": 1_796_000_000_000 + index}
        lines.append(json.dumps({"type": "message", "id": entry_id, "parentId": parent,
                                 "timestamp": "2026-12-01T10:00:00.000Z", "message": message}))
        parent = entry_id
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


HEAD = 300  # bytes kept of each response line: enough to recognise it and read `success`


class RawRpc:
    """The RPC process with a raw reader: responses are found by their `{"id":"..."` prefix.

    Stdout is read in chunks of up to 1 MB and only each new chunk is searched for the newline;
    of each line only its first bytes are kept. A response's time is when its last byte (the
    newline) arrived: the client neither parses the line nor copies it into one buffer (asyncio's
    `readline` copied a 28 MB line twice after its last byte, ~20 ms counted as the server's).
    """

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.counter = 0
        self._head = b""  # the first bytes of the line being received
        self._lines: deque[bytes] = deque()  # heads of the lines received whole, not yet looked at

    def cpu(self) -> float:
        """User + system CPU seconds the RPC process has used so far."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    @classmethod
    async def spawn(cls, args: list[str], cwd: Path, env: dict[str, str]) -> RawRpc:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "atomic", "--mode", "rpc", "--provider", "scripted", *args,
            cwd=str(cwd), env=env, limit=1 << 30,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        )
        return cls(process)

    def _feed(self, chunk: bytes) -> None:
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            self._lines.append(self._head + chunk[start : min(end, start + HEAD - len(self._head))])
            self._head = b""
            start = end + 1
        if len(self._head) < HEAD:
            self._head += chunk[start : start + HEAD - len(self._head)]

    async def call(self, command: dict[str, Any], timeout: float) -> tuple[float, bytes]:
        """Seconds until the whole response line arrived, and its first bytes (TimeoutError on timeout)."""
        assert self.process.stdin and self.process.stdout
        self.counter += 1
        request_id = f"b{self.counter}"
        prefix = f'{{"id":"{request_id}",'.encode()
        started = time.perf_counter()
        self.process.stdin.write(json.dumps({"id": request_id, **command}).encode() + b"\n")
        await self.process.stdin.drain()
        deadline = started + timeout
        while True:
            while self._lines:
                head = self._lines.popleft()
                if head.startswith(prefix):
                    return time.perf_counter() - started, head
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise TimeoutError
            chunk = await asyncio.wait_for(self.process.stdout.read(1 << 20), remaining)
            if not chunk:
                raise EOFError("the RPC process exited")
            self._feed(chunk)

    async def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), 30)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()


def _ok(head: bytes) -> bool:
    return b'"success":true' in head


Figure = tuple[float, float] | None  # (wall seconds, CPU seconds of the RPC process), None: no answer


async def timed(rpc: RawRpc, command: dict[str, Any], timeout: float) -> Figure:
    cpu = rpc.cpu()
    try:
        elapsed, head = await rpc.call(command, timeout)
    except TimeoutError:
        return None
    return (elapsed, rpc.cpu() - cpu) if _ok(head) else None


async def one_run(
    big: Path, chain: Path | None, work: Path, env: dict[str, str], timeout: float, export: bool
) -> dict[str, Figure]:
    figures: dict[str, Figure] = {}
    started = time.perf_counter()
    rpc = await RawRpc.spawn(["--session", str(big)], work, env)
    try:
        _elapsed, head = await rpc.call({"type": "get_state"}, timeout)
        figures["open (until get_state answers)"] = (time.perf_counter() - started, rpc.cpu()) if _ok(head) else None
        figures["get_messages"] = await timed(rpc, {"type": "get_messages"}, timeout)
        if export:
            figures["export_html"] = await timed(
                rpc, {"type": "export_html", "outputPath": str(work / "export.html")}, timeout
            )
        figures["get_tree (the whole 50k-deep branch)"] = await timed(rpc, {"type": "get_tree"}, timeout)
        lines = big.read_text(encoding="utf-8").rstrip("\n").split("\n")
        since = json.loads(lines[-10])["id"]
        figures["get_entries (since the 10th entry from the end)"] = await timed(
            rpc, {"type": "get_entries", "since": since}, timeout
        )
        await rpc.call({"type": "new_session"}, timeout)
        figures["switch_session back to it"] = await timed(
            rpc, {"type": "switch_session", "sessionPath": str(big)}, timeout
        )
        if chain is not None:
            await rpc.call({"type": "switch_session", "sessionPath": str(chain)}, timeout)
            figures["get_tree (a 5,000-deep branch)"] = await timed(rpc, {"type": "get_tree"}, timeout)
    finally:
        await rpc.close()
    return figures


EXPORT_CHILD = """
import json, sys, time
from atomic.core.export.html_export import export_session_html
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
header, entries = json.loads(lines[0]), [json.loads(line) for line in lines[1:]]
started = time.process_time()
page = export_session_html(header=header, entries=entries, leaf_id=None)
print(f"{time.process_time() - started:.2f} s CPU, page {len(page) / 1e6:.1f} MB")
"""


def export_in_process(big: Path, env: dict[str, str], runs: int) -> None:
    """The export alone, in a fresh interpreter: its CPU time without the RPC process around it."""
    import subprocess

    for index in range(runs):
        done = subprocess.run([sys.executable, "-c", EXPORT_CHILD, str(big)], env=env, cwd=big.parent,
                              capture_output=True, text=True, check=True)
        print(f"export in-process, run {index + 1}: {done.stdout.strip()}", flush=True)


def _seconds(value: float) -> str:
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"


def _fmt(value: Figure) -> str:
    return "no answer" if value is None else f"{_seconds(value[0])} (cpu {_seconds(value[1])})"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entries", type=int, default=50_000)
    parser.add_argument("--tree-depth", type=int, default=5_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--no-export", action="store_true", help="skip export_html (the slowest figure)")
    parser.add_argument("--src", help="run the package from this folder instead (PYTHONPATH), e.g. an old checkout")
    parser.add_argument("--export-in-process", action="store_true",
                        help="only time export_session_html in a fresh interpreter (CPU), no RPC")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="atomic-scale-") as folder:
        root = Path(folder)
        work = root / "project"
        work.mkdir()
        agent = root / "agent"
        agent.mkdir()
        env = dict(os.environ, ATOMIC_CODING_AGENT_DIR=str(agent), HOME=str(root))
        env.pop("ATOMIC_SCRIPT", None)
        if args.src:
            env["PYTHONPATH"] = args.src
        big = root / "big.jsonl"
        generate(big, args.entries, work)
        if args.export_in_process:
            export_in_process(big, env, args.runs)
            return
        chain = None
        if args.tree_depth:
            chain = root / "chain.jsonl"
            generate_chain(chain, args.tree_depth, work)
        runs = []
        for index in range(args.runs):
            figures = await one_run(big, chain, work, env, args.timeout, not args.no_export)
            runs.append(figures)
            print(f"run {index + 1}: " + ", ".join(f"{k}: {_fmt(v)}" for k, v in figures.items()), flush=True)
        print("\nmedians (wall, and CPU time of the RPC process):")
        for name in runs[0]:
            answered = [f for r in runs if (f := r.get(name)) is not None]
            median: Figure = None
            if answered:
                median = (statistics.median(f[0] for f in answered), statistics.median(f[1] for f in answered))
            print(f"  {name:<48} {_fmt(median)}")


if __name__ == "__main__":
    asyncio.run(main())
