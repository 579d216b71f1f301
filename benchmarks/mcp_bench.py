"""MCP figures: what configured servers cost at start-up, and what the SDK costs to import.

Run: .venv/bin/python benchmarks/mcp_bench.py [--runs 7] [--servers 3]

Prints (medians of --runs)
- `import mcp` (the SDK's client modules) in a fresh interpreter: why the SDK is an optional extra;
- time from process start to the first `get_state` response of `atomic --mode rpc`, with no MCP
  server configured and with --servers stdio servers (the tests' tiny SDK server) configured;
- time until those servers are connected (what a first prompt may wait for, at most 10 s).
Target (issue 15): the first get_state does not change when servers are configured.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVER = ROOT / "tests" / "mcp" / "tiny_server.py"


def import_ms() -> float:
    code = "import time; t = time.perf_counter(); import mcp, mcp.client.stdio; print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return float(out) * 1000


def agent_dir(servers: int) -> Path:
    agent = Path(tempfile.mkdtemp(prefix="atomic-mcp-bench-"))
    if servers:
        entries = {f"tiny{i}": {"command": sys.executable, "args": [str(SERVER)]} for i in range(servers)}
        (agent / "mcp.json").write_text(json.dumps({"mcpServers": entries}))
    return agent


def request(proc: subprocess.Popen[bytes], line: str) -> dict[str, object]:
    assert proc.stdin and proc.stdout
    proc.stdin.write(line.encode() + b"\n")
    proc.stdin.flush()
    while True:
        message = json.loads(proc.stdout.readline())
        if message.get("type") == "response":
            return message


def one_run(agent: Path, servers: int) -> tuple[float, float | None]:
    env = dict(os.environ, ATOMIC_CODING_AGENT_DIR=str(agent))
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "atomic", "--mode", "rpc", "--provider", "scripted", "--no-session"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=agent,
    )
    request(proc, '{"id":"s","type":"get_state"}')
    first = (time.perf_counter() - start) * 1000
    ready = None
    if servers:
        while time.perf_counter() - start < 60:
            data = request(proc, '{"id":"m","type":"get_mcp_servers"}')["data"]
            states = [s["status"] for s in data["servers"]]  # type: ignore[index]
            if all(s != "starting" for s in states):
                ready = (time.perf_counter() - start) * 1000
                break
            time.sleep(0.02)
    assert proc.stdin
    proc.stdin.close()
    proc.wait(30)
    return first, ready


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--servers", type=int, default=3)
    args = parser.parse_args()
    imports = [import_ms() for _ in range(args.runs)]
    print(f"import mcp (client): median {statistics.median(imports):.0f} ms")
    for servers in (0, args.servers):
        agent = agent_dir(servers)
        runs = [one_run(agent, servers) for _ in range(args.runs)]
        firsts = [r[0] for r in runs]
        print(f"{servers} MCP servers: first get_state median {statistics.median(firsts):.0f} ms "
              f"(min {min(firsts):.0f}, max {max(firsts):.0f}, {args.runs} runs)")
        readies = [r[1] for r in runs if r[1] is not None]
        if readies:
            print(f"{servers} MCP servers: all connected after median {statistics.median(readies):.0f} ms")


if __name__ == "__main__":
    main()
