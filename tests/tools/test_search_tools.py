from __future__ import annotations

from pathlib import Path

import pytest

from atomic.core.tools import find as find_module
from atomic.core.tools import grep as grep_module
from atomic.core.tools.base import ToolContext, ToolError
from atomic.core.tools.find import FindTool
from atomic.core.tools.grep import GrepTool, find_ripgrep
from atomic.core.tools.ls import LsTool
from atomic.core.tools.registry import BUILTIN_TOOL_NAMES, DEFAULT_TOOL_NAMES, create_builtin_tools

from .conftest import run, text_of


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".gitignore").write_text("build/\n*.log\n")
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "main.py").write_text("import os\n\ndef main():\n    return TODO_value\n")
    (tmp_path / "src" / "pkg" / "util.py").write_text("# todo: later\nx = 1\n")
    (tmp_path / "src" / "notes.md").write_text("TODO write docs\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "gen.py").write_text("TODO generated\n")
    (tmp_path / "debug.log").write_text("TODO in a log\n")
    (tmp_path / ".hidden.py").write_text("TODO hidden\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("TODO git internals\n")
    return tmp_path


@pytest.fixture(params=["rg", "python"])
def grep_backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "rg":
        if find_ripgrep() is None:
            pytest.skip("rg not installed")
    else:
        monkeypatch.setattr(grep_module, "find_ripgrep", lambda: None)
    return request.param


@pytest.fixture(params=["rg", "python"])
def find_backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """find lists files with `rg --files` when ripgrep is there, else walks the tree in Python."""
    if request.param == "rg":
        if find_ripgrep() is None:
            pytest.skip("rg not installed")
    else:
        monkeypatch.setattr(find_module, "find_ripgrep", lambda: None)
    return request.param


async def test_grep_respects_gitignore_and_includes_hidden(project: Path, ctx: ToolContext, grep_backend: str) -> None:
    lines = sorted(text_of(await run(GrepTool(), ctx, pattern="TODO")).splitlines())
    assert lines == [".hidden.py:1: TODO hidden", "src/main.py:4:     return TODO_value", "src/notes.md:1: TODO write docs"]


async def test_grep_options(project: Path, ctx: ToolContext, grep_backend: str) -> None:
    out = text_of(await run(GrepTool(), ctx, pattern="todo", path="src", ignoreCase=True, glob="*.py"))
    assert sorted(out.splitlines()) == ["main.py:4:     return TODO_value", "pkg/util.py:1: # todo: later"]
    literal = text_of(await run(GrepTool(), ctx, pattern="main()", literal=True))
    assert literal == "src/main.py:3: def main():"
    context = text_of(await run(GrepTool(), ctx, pattern="def main", context=1, path="src/main.py"))
    assert context.splitlines() == ["main.py-2- ", "main.py:3: def main():", "main.py-4-     return TODO_value"]
    assert text_of(await run(GrepTool(), ctx, pattern="nothing-like-this")) == "No matches found"


async def test_grep_limits_and_long_lines(tmp_path: Path, ctx: ToolContext, grep_backend: str) -> None:
    (tmp_path / "many.txt").write_text("".join(f"hit {i}\n" for i in range(10)) + "hit " + "z" * 600 + "\n")
    limited = text_of(await run(GrepTool(), ctx, pattern="hit", limit=3))
    assert limited.splitlines()[:3] == ["many.txt:1: hit 0", "many.txt:2: hit 1", "many.txt:3: hit 2"]
    assert limited.endswith("\n\n[3 matches limit reached. Use limit=6 for more, or refine pattern]")
    long = text_of(await run(GrepTool(), ctx, pattern="zzz"))
    assert long == (
        "many.txt:11: hit " + "z" * 496 + "... [truncated]"
        "\n\n[Some lines truncated to 500 chars. Use read tool to see full lines]"
    )


async def test_grep_errors(tmp_path: Path, ctx: ToolContext, grep_backend: str) -> None:
    with pytest.raises(ToolError, match="Path not found: .*nope"):
        await run(GrepTool(), ctx, pattern="x", path="nope")
    (tmp_path / "a.txt").write_text("a")
    with pytest.raises(ToolError):
        await run(GrepTool(), ctx, pattern="(unclosed")


async def test_find(project: Path, ctx: ToolContext, find_backend: str) -> None:
    assert text_of(await run(FindTool(), ctx, pattern="*.py")) == ".hidden.py\nsrc/main.py\nsrc/pkg/util.py"
    assert text_of(await run(FindTool(), ctx, pattern="src/**/*.py")) == "src/main.py\nsrc/pkg/util.py"
    assert text_of(await run(FindTool(), ctx, pattern="*.{md,log}", path="src")) == "notes.md"
    assert text_of(await run(FindTool(), ctx, pattern="pkg")) == "src/pkg/"
    assert text_of(await run(FindTool(), ctx, pattern="*.rs")) == "No files found matching pattern"
    limited = text_of(await run(FindTool(), ctx, pattern="*", limit=2))
    assert limited.endswith("\n\n[2 results limit reached. Use limit=4 for more, or refine pattern]")
    assert len(limited.split("\n\n")[0].splitlines()) == 2
    with pytest.raises(ToolError, match="Path not found"):
        await run(FindTool(), ctx, pattern="*", path="missing")


async def test_find_nested_gitignore_and_negation(tmp_path: Path, ctx: ToolContext, find_backend: str) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / ".gitignore").write_text("*.tmp\n!keep.tmp\n")
    for name in ("x.tmp", "keep.tmp", "y.txt"):
        (tmp_path / "a" / name).write_text("")
    (tmp_path / "top.tmp").write_text("")
    assert text_of(await run(FindTool(), ctx, pattern="*.tmp")) == "a/keep.tmp\ntop.tmp"


async def test_ls(tmp_path: Path, ctx: ToolContext) -> None:
    for name in ("b.txt", "A.txt", ".env"):
        (tmp_path / name).write_text("")
    (tmp_path / "dir").mkdir()
    assert text_of(await run(LsTool(), ctx)) == ".env\nA.txt\nb.txt\ndir/"
    assert text_of(await run(LsTool(), ctx, path="dir")) == "(empty directory)"
    assert text_of(await run(LsTool(), ctx, limit=2)) == ".env\nA.txt\n\n[2 entries limit reached. Use limit=4 for more]"
    with pytest.raises(ToolError, match=r"^Path not found: .*nope$"):
        await run(LsTool(), ctx, path="nope")
    with pytest.raises(ToolError, match=r"^Not a directory: .*b\.txt$"):
        await run(LsTool(), ctx, path="b.txt")


def test_registry() -> None:
    assert DEFAULT_TOOL_NAMES == ("read", "bash", "edit", "write", "todo", "task", "web_fetch")
    assert set(BUILTIN_TOOL_NAMES) == {"read", "bash", "edit", "write", "grep", "find", "ls", "todo", "task", "web_fetch"}
    assert [t.name for t in create_builtin_tools()] == list(DEFAULT_TOOL_NAMES)
    assert [t.name for t in create_builtin_tools(["ls", "grep"])] == ["ls", "grep"]
    for tool in create_builtin_tools(BUILTIN_TOOL_NAMES):
        assert tool.description and tool.prompt_snippet and tool.parameters["type"] == "object"
    with pytest.raises(ValueError, match="Unknown tool name\\(s\\): nope"):
        create_builtin_tools(["read", "nope"])


async def test_find_folders_and_path_patterns(tmp_path: Path, ctx: ToolContext, find_backend: str) -> None:
    (tmp_path / ".gitignore").write_text("dist/\n")
    for rel in ("app/models/user.py", "app/models/tests/test_user.py", "lib/models.txt", "dist/models/x.py",
                "docs/a b.md", "weird\nname.txt"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    assert text_of(await run(FindTool(), ctx, pattern="models*")) == "app/models/\nlib/models.txt"
    assert text_of(await run(FindTool(), ctx, pattern="app/**/test*")) == (
        "app/models/tests/\napp/models/tests/test_user.py"
    )
    assert text_of(await run(FindTool(), ctx, pattern="models/*.py")) == "app/models/user.py"
    assert text_of(await run(FindTool(), ctx, pattern="* *")) == "docs/a b.md"
    assert text_of(await run(FindTool(), ctx, pattern="weird*")) == "weird\nname.txt"
    assert text_of(await run(FindTool(), ctx, pattern="*.py", path="app/models")) == "tests/test_user.py\nuser.py"
    limited = text_of(await run(FindTool(), ctx, pattern="*", limit=3))
    assert limited.split("\n\n")[0].splitlines() == [".gitignore", "app/", "app/models/"]


async def test_find_negated_classes_stay_inside_one_name(tmp_path: Path, ctx: ToolContext, find_backend: str) -> None:
    for rel in ("c/b", "xyb", "d/qzb"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    assert text_of(await run(FindTool(), ctx, pattern="[!a][!a]b")) == "d/qzb\nxyb"  # never "c/b"


async def test_grep_lists_files_in_the_same_order_every_time(tmp_path: Path, ctx: ToolContext, grep_backend: str) -> None:
    # ripgrep searches on several threads and reports files as they finish; the result must not depend on that.
    names = [f"f{i:02}.txt" for i in range(40)]
    for name in reversed(names):
        (tmp_path / name).write_text("first hit\nnothing\nsecond hit\n")
    for _ in range(3):
        out = text_of(await run(GrepTool(), ctx, pattern="hit")).splitlines()
        assert out == [line for name in names for line in (f"{name}:1: first hit", f"{name}:3: second hit")]
