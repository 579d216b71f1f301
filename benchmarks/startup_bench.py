"""Start-up in-process: open an engine and answer what `get_state` needs, in fresh processes.

Run: .venv/bin/python benchmarks/startup_bench.py [--runs 21] [--src DIR] [--callgrind] [--pi PATH]

Each run is a fresh interpreter that, like the command line, skips pydantic's plugin scan and then
opens an engine through the contract (no session file, an agent
dir with one models.json provider, an empty project folder) and asks `state()` and
`trust_status(with_skipped=True)`, the two calls behind RPC `get_state`. Printed:
- CPU time of that process (median and min of --runs); with --src, the same for another checkout
  (PYTHONPATH), the two alternating so that both see the same load;
- which optional subsystems got imported (the extension runtime, the MCP configuration and manager);
- with --callgrind (valgrind installed): instructions executed, once per checkout. Unlike time,
  this does not move with the machine's load, so small start-up changes show on a busy machine.
- with --pi (pi's `pi` command, installed apart from the project, e.g. `npm install
  @mariozechner/pi-coding-agent@0.73.1` in /tmp/pi, then --pi /tmp/pi/node_modules/.bin/pi): the
  whole RPC start, `atomic --mode rpc` and `pi --mode rpc` with the same flags and models.json,
  from spawn to the answer of the first `get_state` (wall, and the process's CPU), runs
  alternating, and Atomic's ratio to pi (issue 22's target: <= 0.25x).
Bytecode caches are written first (a run without them compiles every module and measures that).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CODE = """
import asyncio, json, sys, time
from pathlib import Path
from atomic.cli import skip_pydantic_plugin_scan
skip_pydantic_plugin_scan()  # as the command line does before anything else
from atomic.core.contract import open_engine
from atomic.core.engine.options import SessionOptions

async def main() -> None:
    engine = await open_engine(SessionOptions(cwd=Path.cwd(), no_session=True))
    engine.state()
    # An older tree (--src) may predate the views: its Engine answers `trust_status` itself.
    (getattr(engine, "trust_status", None) or engine.trust.status)(with_skipped=True)

asyncio.run(main())
watched = ("atomic.core.extensions.runtime", "atomic.core.mcp.config", "atomic.core.mcp.manager")
print(json.dumps({"cpu": time.process_time(), "loaded": [m for m in watched if m in sys.modules]}))
"""


def folders() -> tuple[Path, Path]:
    agent = Path(tempfile.mkdtemp(prefix="atomic-startup-agent-"))
    models = {"providers": {"bench": {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions",
                                      "apiKey": "bench-key", "models": [{"id": "bench-model"}]}}}
    (agent / "models.json").write_text(json.dumps(models))
    return agent, Path(tempfile.mkdtemp(prefix="atomic-startup-cwd-"))


def env_for(agent: Path, src: str | None) -> dict[str, str]:
    env = dict(os.environ, ATOMIC_CODING_AGENT_DIR=str(agent), PYTHONHASHSEED="0")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if src:
        env["PYTHONPATH"] = src
    return env


def run_once(env: dict[str, str], cwd: Path) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-c", CODE], cwd=cwd, env=env, capture_output=True, text=True, check=True)
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def instructions(env: dict[str, str], cwd: Path) -> int | None:
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c", CODE]
    try:
        out = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.search(r"Collected : (\d+)", out.stderr)
    return int(found.group(1)) if found else None


RPC_FLAGS = ["--mode", "rpc", "--provider", "bench", "--model", "bench-model", "--no-session", "--no-tools"]


def rpc_first_state(program: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Spawn -> the first `get_state` answer of an RPC agent: (wall ms, CPU ms of the whole run)."""
    start = time.perf_counter()
    p = subprocess.Popen([*program, *RPC_FLAGS], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    assert p.stdin and p.stdout
    p.stdin.write(b'{"id": "s0", "type": "get_state"}\n')
    p.stdin.flush()
    for raw in p.stdout:
        line = json.loads(raw)
        if line.get("type") == "response" and line.get("id") == "s0":
            break
    wall = (time.perf_counter() - start) * 1000
    p.stdin.close()
    _, _, usage = os.wait4(p.pid, 0)
    p.returncode = 0
    return wall, (usage.ru_utime + usage.ru_stime) * 1000


def beside_pi(pi: str, agent: Path, cwd: Path, runs: int, src: str | None) -> None:
    env = dict(os.environ, ATOMIC_CODING_AGENT_DIR=str(agent), PI_CODING_AGENT_DIR=str(agent))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    atomic = [sys.executable, "-m", "atomic"]
    agents = {"Atomic": (atomic, env), "pi": ([pi], env)}
    if src:
        agents["src"] = (atomic, dict(env, PYTHONPATH=src))
    figures: dict[str, list[tuple[float, float]]] = {name: [] for name in agents}
    for program, program_env in agents.values():
        rpc_first_state(program, program_env, cwd)  # caches (bytecode, Node's compile cache) written once
    for _ in range(runs):
        for name, (program, program_env) in agents.items():
            figures[name].append(rpc_first_state(program, program_env, cwd))
    walls = {name: statistics.median(w for w, _ in values) for name, values in figures.items()}
    for name, values in figures.items():
        print(f"{name}: spawn -> first get_state {walls[name]:.0f} ms wall, median of {len(values)} "
              f"(CPU of the whole run, the warm-up after that answer included: "
              f"{statistics.median(c for _, c in values):.0f} ms)")
    for name in agents:
        if name != "pi":
            print(f"{name} / pi: {walls[name] / walls['pi']:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--src", help="also run this checkout (PYTHONPATH), alternating with this one")
    parser.add_argument("--callgrind", action="store_true", help="count instructions with valgrind")
    parser.add_argument("--pi", help="also time the RPC start beside this `pi` command (see above)")
    args = parser.parse_args()
    agent, cwd = folders()
    if args.pi:
        beside_pi(args.pi, agent, cwd, args.runs, args.src)
    variants = {"this": env_for(agent, None)}
    if args.src:
        variants["src"] = env_for(agent, args.src)
    cpu: dict[str, list[float]] = {name: [] for name in variants}
    loaded: dict[str, object] = {}
    for env in variants.values():
        run_once(env, cwd)  # writes the bytecode caches
    for _ in range(args.runs):
        for name, env in variants.items():
            result = run_once(env, cwd)
            cpu[name].append(float(str(result["cpu"])) * 1000)
            loaded[name] = result["loaded"]
    for name in variants:
        values = cpu[name]
        print(f"{name}: CPU median {statistics.median(values):.0f} ms (min {min(values):.0f}, {len(values)} runs); "
              f"optional modules imported: {loaded[name] or 'none'}")
    if args.callgrind:
        for name, env in variants.items():
            count = instructions(env, cwd)
            print(f"{name}: {count:,} instructions" if count else f"{name}: valgrind not available")
    print(f"load average: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
