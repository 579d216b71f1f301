"""A whole `atomic -p` run (scripted provider, yolo, tools on) leaves out what it does not use.

Each case runs the command line in a fresh interpreter and reports which of the watched modules
got imported: compaction's planner only loads when a compaction runs (the token estimate and the
summary text the engine uses every turn live in their own submodules), the shell grammar only
when a permission mode needs it, and no frontend, MCP, export or extension module at all.
Importing the contract alone does not load the engine's session module (the agent loop, tools).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PLANNER = [
    "atomic.core.compaction.compactor",
    "atomic.core.compaction.prompt",
    "atomic.core.compaction.serialize",
    "atomic.core.compaction.backup",
]
GRAMMAR = ["tree_sitter", "tree_sitter_bash"]
# Frontends that are not running, the MCP client, the HTML export, the extension runtime, and the
# package metadata reader (email, zipfile, csv) that nothing in a plain run needs.
NOT_RUNNING = [
    "atomic.tui.app",
    "atomic.acp.server",
    "atomic.rpc.server",
    "textual",
    "acp",
    "mcp",
    "atomic.core.mcp.manager",
    "atomic.core.mcp.tools",
    "atomic.core.mcp.connection",
    "atomic.core.export",
    "atomic.core.extensions.runtime",
    "importlib.metadata",
]

RUN_AND_REPORT = """
import json, sys
from atomic.cli import main
code = main(["--provider", "scripted", "--no-session", "-p", "say hi"])
print(json.dumps({{"code": code, "loaded": [m for m in {watched} if m in sys.modules]}}))
"""


def run_fresh(cwd: Path, agent_dir: Path, watched: list[str]) -> dict[str, object]:
    env = dict(os.environ, ATOMIC_CODING_AGENT_DIR=str(agent_dir))
    code = RUN_AND_REPORT.format(watched=watched)
    result = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    report: dict[str, object] = json.loads(result.stdout.strip().splitlines()[-1])
    return report


def fresh_python(code: str) -> str:
    """What `code` prints in a fresh interpreter (which must exit 0)."""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_the_compaction_package_still_hands_out_every_name() -> None:
    missing = fresh_python(
        "import sys, atomic.core.compaction as c\n"
        "assert 'atomic.core.compaction.compactor' not in sys.modules\n"
        "assert callable(c.plan_and_compact) and c.STRATEGY and c.PROMPT_VERSION\n"
        "assert 'atomic.core.compaction.compactor' in sys.modules\n"
        "print(sorted(set(c.__all__) - set(dir(c))))\n"
    )
    # Names not yet asked for are not in the module's namespace; asking for each must work.
    fresh_python(f"import atomic.core.compaction as c\nfor n in {missing}: getattr(c, n)\n")


@pytest.mark.parametrize(
    "watched",
    [PLANNER, GRAMMAR, NOT_RUNNING],
    ids=["compaction planner", "shell grammar in yolo", "frontends, MCP, export, extensions"],
)
def test_a_print_run_answers_without_loading(workdir: Path, agent_dir: Path, watched: list[str]) -> None:
    report = run_fresh(workdir, agent_dir, watched)
    assert report == {"code": 0, "loaded": []}


def test_importing_the_contract_leaves_the_engine_session_for_open_engine() -> None:
    printed = fresh_python(
        "import sys\n"
        "import atomic.core.contract as c\n"
        "before = 'atomic.core.engine.session' in sys.modules\n"
        "assert c.PromptRejected and c.StartupError and c.CompactionFailed\n"
        "from atomic.core.engine.factory import create_session\n"
        "print(before, 'atomic.core.engine.session' in sys.modules)\n"
    )
    assert printed.split() == ["False", "True"]
