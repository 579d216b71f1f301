"""Built-in tools on big inputs: find on a 69k-file tree, bash printing 100 MB, edit of a 10 MB file,
and how long an aborted bash call takes to kill its whole process group.

Run: .venv/bin/python benchmarks/tools_bench.py [--runs 5] [--only find|bash|edit|abort] [--src DIR]

Each case runs in a fresh child process (so its peak RSS is its own) and prints the median wall time
of --runs calls of the tool's `execute`, the median CPU time of that process (user + system, all
threads) and of the programs it ran (rg; for bash the producer `yes | head`), and its peak RSS.
CPU time is the figure to compare on a busy machine: wall times there mostly measure the load. --src runs another checkout of the
package (e.g. an older commit) with the same interpreter, for before/after figures.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

TREE_FILES = 69_000


def make_tree(root: Path) -> Path:
    """69,000 files in 690 folders three levels deep, with a .gitignore that hides one folder kind."""
    tree = root / "tree"
    marker = tree / ".complete"
    if marker.exists():
        return tree
    (tree / ".git").mkdir(parents=True, exist_ok=True)
    (tree / ".gitignore").write_text("node_modules/\n*.log\n")
    for a in range(10):
        for b in range(69):
            folder = tree / f"pkg{a}" / f"mod{b}"
            folder.mkdir(parents=True, exist_ok=True)
            for c in range(100):
                (folder / f"file{c}.{'py' if c % 3 else 'txt'}").write_bytes(b"")
    marker.write_text("")
    return tree


CHILD = r"""
import asyncio, json, os, resource, signal, statistics, sys, time
from pathlib import Path
case, arg, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
from atomic.core.tools.base import ToolContext, ToolError

def cpu():
    self_ = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return self_.ru_utime + self_.ru_stime, kids.ru_utime + kids.ru_stime

async def main():
    times = []
    cpu_self = []
    cpu_kids = []
    extra = {}
    ctx = ToolContext(cwd=Path(arg), session_id="bench")
    for _ in range(runs):
        before = cpu()
        if case == "find":
            from atomic.core.tools.find import FindTool
            t = time.perf_counter()
            out = await FindTool().execute("c", {"pattern": "*.nomatch"}, ctx)
            times.append(time.perf_counter() - t)
            assert out.content[0].text == "No files found matching pattern", out.content[0].text[:200]
        elif case == "bash":
            from atomic.core.tools.bash import BashTool
            command = "yes 'a line of command output, about sixty bytes long....' | head -c 100000000"
            t = time.perf_counter()
            out = await BashTool().execute("c", {"command": command}, ctx)
            times.append(time.perf_counter() - t)
            assert "Full output" in out.content[0].text
        elif case == "edit":
            from atomic.core.tools.edit import EditTool
            path = Path(arg) / "big.txt"
            lines = [f"line {i}: some ordinary source text for the benchmark\n" for i in range(190_000)]
            path.write_text("".join(lines))
            t = time.perf_counter()
            await EditTool().execute("c", {"path": str(path), "edits": [
                {"oldText": "line 95000: some", "newText": "line 95000: changed"}]}, ctx)
            times.append(time.perf_counter() - t)
            extra["size_mb"] = round(path.stat().st_size / 1e6, 1)
        elif case == "abort":
            from atomic.core.tools.bash import BashTool
            marker = Path(arg) / "pgid"
            marker.unlink(missing_ok=True)
            command = f"echo $$ > {marker}; sleep 100 & sleep 100 & while true; do echo tick; sleep 0.01; done"
            task = asyncio.ensure_future(BashTool().execute("c", {"command": command}, ctx))
            while not marker.exists() or not marker.read_text().strip():
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.2)
            pgid = int(marker.read_text())
            t = time.perf_counter()
            task.cancel()
            while live_members(pgid):
                await asyncio.sleep(0.001)
            times.append(time.perf_counter() - t)
            try:
                await task
            except (asyncio.CancelledError, ToolError) as exc:
                extra["result"] = type(exc).__name__ + ": " + str(exc)[-16:]
            extra.setdefault("returned_ms", []).append(round((time.perf_counter() - t) * 1000))
        after = cpu()
        cpu_self.append(after[0] - before[0])
        cpu_kids.append(after[1] - before[1])
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"median_ms": statistics.median(times) * 1000, "min_ms": min(times) * 1000,
                      "peak_rss_mb": peak, "cpu_ms": statistics.median(cpu_self) * 1000,
                      "child_cpu_ms": statistics.median(cpu_kids) * 1000, **extra}))

def live_members(pgid):
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = open(f"/proc/{entry}/stat", "rb").read()
            except OSError:
                continue
            fields = stat[stat.rfind(b")") + 2:].split()
            if int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
                found.append(entry)
    return found

asyncio.run(main())
"""


def run_case(case: str, arg: Path, runs: int, src: str | None) -> dict[str, object]:
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = src
    out = subprocess.run([sys.executable, "-c", CHILD, case, str(arg), str(runs)], env=env, check=True,
                         capture_output=True, text=True, cwd=arg)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", choices=["find", "bash", "edit", "abort"], action="append")
    parser.add_argument("--src", help="run the package from this folder instead (PYTHONPATH)")
    parser.add_argument("--tree-dir", default=str(Path(tempfile.gettempdir()) / "atomic-tools-bench"))
    args = parser.parse_args()
    work = Path(args.tree_dir)
    work.mkdir(parents=True, exist_ok=True)
    for case in args.only or ["find", "bash", "edit", "abort"]:
        arg = make_tree(work) if case == "find" else Path(tempfile.mkdtemp(prefix=f"atomic-{case}-"))
        result = run_case(case, arg, args.runs, args.src)
        label = {"find": f"find, no match, {TREE_FILES:,} files", "bash": "bash printing 100 MB",
                 "edit": "edit of a 10 MB file", "abort": "abort bash: group gone"}[case]
        rest = {k: v for k, v in result.items()
                if k not in ("median_ms", "min_ms", "peak_rss_mb", "cpu_ms", "child_cpu_ms")}
        print(f"{label:32} median {result['median_ms']:8.1f} ms (min {result['min_ms']:.1f}) "
              f"| CPU {result['cpu_ms']:.0f} ms + children {result['child_cpu_ms']:.0f} ms "
              f"| peak RSS {result['peak_rss_mb']:.0f} MB {rest or ''}")


if __name__ == "__main__":
    main()
