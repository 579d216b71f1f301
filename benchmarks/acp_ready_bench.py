"""How soon `atomic --mode acp` is ready: `initialize` answered, and `session/new` answered, after spawn.

    python benchmarks/acp_ready_bench.py [runs]

Spawns the agent with a raw pipe (no SDK on the client side, so the client costs nothing), sends
`initialize` at once and `session/new` as soon as it is answered, and prints the median and the
spread of both times since the spawn, over `runs` runs (default 7), on the scripted provider in a
throw-away agent dir.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path


async def one_run(home: Path, cwd: Path) -> tuple[float, float]:
    env = dict(os.environ, HOME=str(home), ATOMIC_CODING_AGENT_DIR=str(home / "agent"))
    start = time.perf_counter()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "atomic", "--mode", "acp", "--provider", "scripted",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        env=env, cwd=cwd,
    )
    assert process.stdin is not None and process.stdout is not None

    async def ask(request_id: int, method: str, params: dict[str, object]) -> float:
        assert process.stdin is not None and process.stdout is not None
        line = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        process.stdin.write((json.dumps(line) + "\n").encode())
        await process.stdin.drain()
        while True:
            answer = json.loads(await process.stdout.readline())
            if answer.get("id") == request_id:
                assert "result" in answer, answer
                return time.perf_counter() - start

    initialized = await ask(1, "initialize", {"protocolVersion": 1})
    opened = await ask(2, "session/new", {"cwd": str(cwd), "mcpServers": []})
    process.stdin.close()
    await process.wait()
    return initialized, opened


async def main(runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        (home / "agent").mkdir()
        cwd = home / "project"
        cwd.mkdir()
        await one_run(home, cwd)  # warm the file cache
        results = [await one_run(home, cwd) for _ in range(runs)]
    for label, values in (("initialize", [r[0] for r in results]), ("session/new", [r[1] for r in results])):
        print(f"{label:12} median {statistics.median(values) * 1000:6.0f} ms  "
              f"min {min(values) * 1000:6.0f}  max {max(values) * 1000:6.0f}  (after spawn, {runs} runs)")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 7))
