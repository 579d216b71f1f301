from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from atomic.core.tools.base import ToolContext, ToolError
from atomic.core.tools.edit import EditTool
from atomic.core.tools.edit_diff import make_diff

from .conftest import run, text_of


async def test_single_edit_with_diff_details(tmp_path: Path, ctx: ToolContext) -> None:
    target = tmp_path / "f.py"
    target.write_text("".join(f"line{i}\n" for i in range(1, 21)))
    out = await run(EditTool(), ctx, path="f.py", edits=[{"oldText": "line10\n", "newText": "TEN\n"}])
    assert text_of(out) == "Successfully replaced 1 block(s) in f.py."
    assert "line10\n" not in target.read_text() and "TEN\n" in target.read_text()
    assert out.details["firstChangedLine"] == 10
    assert out.details["diff"].splitlines() == [
        "    ...",
        "  6 line6",
        "  7 line7",
        "  8 line8",
        "  9 line9",
        "-10 line10",
        "+10 TEN",
        " 11 line11",
        " 12 line12",
        " 13 line13",
        " 14 line14",
        "    ...",
    ]


async def test_multiple_edits_against_original(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "f.txt").write_text("alpha\nbeta\ngamma\n")
    edits = [{"oldText": "gamma", "newText": "GAMMA"}, {"oldText": "alpha", "newText": "beta"}]
    out = await run(EditTool(), ctx, path="f.txt", edits=edits)
    assert text_of(out) == "Successfully replaced 2 block(s) in f.txt."
    assert (tmp_path / "f.txt").read_text() == "beta\nbeta\nGAMMA\n"


async def test_legacy_arguments_and_json_string_edits(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "f.txt").write_text("a b c")
    await run(EditTool(), ctx, path="f.txt", oldText="a", newText="A")
    await run(EditTool(), ctx, path="f.txt", edits=json.dumps([{"oldText": "b", "newText": "B"}]))
    assert (tmp_path / "f.txt").read_text() == "A B c"


async def test_keeps_crlf_and_bom(tmp_path: Path, ctx: ToolContext) -> None:
    target = tmp_path / "win.txt"
    target.write_bytes("\ufeffone\r\ntwo\r\nthree\r\n".encode())
    await run(EditTool(), ctx, path="win.txt", edits=[{"oldText": "one\ntwo", "newText": "1\n2"}])
    assert target.read_bytes() == "\ufeff1\r\n2\r\nthree\r\n".encode()


async def test_fuzzy_match_of_smart_quotes_and_trailing_space(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "q.txt").write_text("say \u201chello\u201d   \nbye\n")
    await run(EditTool(), ctx, path="q.txt", edits=[{"oldText": 'say "hello"\nbye', "newText": "ok"}])
    assert (tmp_path / "q.txt").read_text() == "ok\n"


@pytest.mark.parametrize(
    ("edits", "message"),
    [
        ([{"oldText": "zzz", "newText": "y"}], "Could not find the exact text in f.txt. The old text must match exactly including all whitespace and newlines."),
        ([{"oldText": "x", "newText": "y"}, {"oldText": "zzz", "newText": "q"}], "Could not find edits[1] in f.txt."),
        ([{"oldText": "dup", "newText": "y"}], "Found 2 occurrences of the text in f.txt. The text must be unique. Please provide more context to make it unique."),
        ([{"oldText": "x", "newText": "y"}, {"oldText": "dup", "newText": "q"}], "Found 2 occurrences of edits[1] in f.txt."),
        ([{"oldText": "", "newText": "y"}], "oldText must not be empty in f.txt."),
        ([{"oldText": "x dup", "newText": "1"}, {"oldText": "dup\n", "newText": "2"}], "edits[0] and edits[1] overlap in f.txt. Merge them into one edit or target disjoint regions."),
        ([{"oldText": "x", "newText": "x"}], "No changes made to f.txt. The replacement produced identical content."),
        ([], "Invalid arguments for edit: edits must have at least 1 item (it is empty)."),
    ],
)
async def test_edit_errors(tmp_path: Path, ctx: ToolContext, edits: list[dict[str, str]], message: str) -> None:
    (tmp_path / "f.txt").write_text("x dup\ndup end\n")
    with pytest.raises(ToolError) as caught:
        await run(EditTool(), ctx, path="f.txt", edits=edits)
    assert str(caught.value).startswith(message)
    assert (tmp_path / "f.txt").read_text() == "x dup\ndup end\n"


async def test_missing_file(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match=r"^Could not edit file: nope.txt. Error code: ENOENT.$"):
        await run(EditTool(), ctx, path="nope.txt", edits=[{"oldText": "a", "newText": "b"}])


async def test_concurrent_edits_to_one_file_are_serialized(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "f.txt").write_text("".join(f"k{i}\n" for i in range(30)))
    tool = EditTool()
    await asyncio.gather(
        *(run(tool, ctx, path="f.txt", edits=[{"oldText": f"k{i}\n", "newText": f"v{i}\n"}]) for i in range(30))
    )
    assert (tmp_path / "f.txt").read_text() == "".join(f"v{i}\n" for i in range(30))


def test_make_diff_marks_added_and_removed_lines() -> None:
    diff = make_diff("a\nb\nc\n", "a\nB\nc\nd\n", "x.txt")
    assert diff.splitlines() == [" 1 a", "-2 b", "+2 B", " 3 c", "+4 d"]
