"""What deciding one approval costs: the bash grammar, the rules and the path checks.

Run: .venv/bin/python benchmarks/permission_bench.py [--runs 2000]

Prints, as medians over --runs calls, the time of `PermissionPolicy.check` in `ask` mode for a
bash command covered by an allow rule (parsed by tree-sitter-bash, matched part by part), for a
chain of three commands, and for a write inside the project (realpath, protected-path checks);
and the one-time cost of loading the grammar (the first bash approval of a process). In `yolo`
mode with no deny or ask rule nothing is parsed at all. The machine is shared: repeat and compare.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def first_parse_ms() -> float:
    code = (
        "from atomic.core.permissions.shell_parse import parse_command; import time; t=time.perf_counter(); "
        "parse_command('git status'); print((time.perf_counter()-t)*1000)"
    )
    return float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)


async def median_us(policy, name: str, args: dict, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        refused = await policy.check("c", name, args)
        times.append((time.perf_counter() - start) * 1e6)
        assert refused is None, refused
    return statistics.median(times)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=2000)
    runs = parser.parse_args().runs
    from atomic.core.permissions import PermissionPolicy
    from atomic.core.permissions.rules import RuleSet, parse_rule

    with tempfile.TemporaryDirectory() as folder:
        cwd = Path(folder)
        rules = RuleSet(allow=tuple(parse_rule(r) for r in (
            "Bash(git status:*)", "Bash(git diff:*)", "Bash(npm run test:*)", f"Write({cwd}/**)")))
        policy = PermissionPolicy(mode="ask", cwd=cwd, agent_dir=cwd / "agent", rule_source=lambda: rules)
        print(f"first parse in a fresh process (grammar load): {first_parse_ms():.1f} ms")
        print(f"bash, one allowed command:   {await median_us(policy, 'bash', {'command': 'git status --short'}, runs):.0f} us")
        chain = {"command": "git status && git diff --stat | npm run test -- --watch=false"}
        print(f"bash, a chain of three:      {await median_us(policy, 'bash', chain, runs):.0f} us")
        print(f"write inside the project:    {await median_us(policy, 'write', {'path': 'src/a.py'}, runs):.0f} us")


if __name__ == "__main__":
    asyncio.run(main())
