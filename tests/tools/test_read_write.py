from __future__ import annotations

import base64
import os
import stat
from pathlib import Path

import pytest

from atomic.core.tools.base import ToolContext, ToolError
from atomic.core.tools.read import IMAGE_NOT_SUPPORTED_NOTE, ReadTool
from atomic.core.tools.write import WriteTool

from .conftest import run, text_of

PNG_1X1 = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


async def test_read_small_file_whole(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\nthree")
    assert text_of(await run(ReadTool(), ctx, path="a.txt")) == "one\ntwo\nthree"


async def test_read_accepts_at_prefix_and_tilde(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "a.txt").write_text("hello")
    assert text_of(await run(ReadTool(), ctx, path="@a.txt")) == "hello"
    home_file = Path.home() / "h.txt"
    home_file.write_text("from home")
    assert text_of(await run(ReadTool(), ctx, path="~/h.txt")) == "from home"


async def test_read_offset_and_limit_notice(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "a.txt").write_text("\n".join(f"l{i}" for i in range(1, 11)))
    out = text_of(await run(ReadTool(), ctx, path="a.txt", offset=3, limit=2))
    assert out == "l3\nl4\n\n[6 more lines in file. Use offset=5 to continue.]"


async def test_read_line_truncation_notice(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "big.txt").write_text("\n".join(f"l{i}" for i in range(1, 2501)))
    output = await run(ReadTool(), ctx, path="big.txt")
    text = text_of(output)
    assert text.endswith("l2000\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]")
    assert output.details["truncation"]["truncatedBy"] == "lines"
    rest = text_of(await run(ReadTool(), ctx, path="big.txt", offset=2001))
    assert rest.startswith("l2001\n") and rest.endswith("l2500")


async def test_read_byte_truncation_notice(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "wide.txt").write_text("\n".join("x" * 99 for _ in range(1000)))  # 100 KB
    text = text_of(await run(ReadTool(), ctx, path="wide.txt"))
    assert text.endswith("\n\n[Showing lines 1-512 of 1000 (50.0KB limit). Use offset=513 to continue.]")


async def test_read_giant_first_line(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "min.js").write_text("y" * 60000)
    text = text_of(await run(ReadTool(), ctx, path="min.js"))
    assert text == "[Line 1 is 58.6KB, exceeds 50.0KB limit. Use bash: sed -n '1p' min.js | head -c 51200]"


async def test_read_errors(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "a.txt").write_text("a\nb")
    with pytest.raises(ToolError, match=r"Offset 5 is beyond end of file \(2 lines total\)"):
        await run(ReadTool(), ctx, path="a.txt", offset=5)
    with pytest.raises(ToolError, match="File not found: .*missing.txt"):
        await run(ReadTool(), ctx, path="missing.txt")
    (tmp_path / "sub").mkdir()
    with pytest.raises(ToolError, match="is a directory"):
        await run(ReadTool(), ctx, path="sub")


async def test_read_image_as_block(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "pic.dat").write_bytes(PNG_1X1)  # detected by content, not by extension
    output = await run(ReadTool(), ctx, path="pic.dat")
    assert output.content[0].text == "Read image file [image/png]"
    image = output.content[1]
    assert image.type == "image" and image.mime_type == "image/png"
    assert base64.b64decode(image.data) == PNG_1X1


async def test_read_image_omitted_without_image_support(tmp_path: Path) -> None:
    (tmp_path / "pic.png").write_bytes(PNG_1X1)
    ctx = ToolContext(cwd=tmp_path, supports_images=False)
    output = await run(ReadTool(), ctx, path="pic.png")
    assert len(output.content) == 1
    assert output.content[0].text == f"Read image file [image/png]\n{IMAGE_NOT_SUPPORTED_NOTE}"


async def test_write_creates_parents_and_reports_bytes(tmp_path: Path, ctx: ToolContext) -> None:
    out = await run(WriteTool(), ctx, path="deep/er/file.txt", content="héllo")
    assert text_of(out) == "Successfully wrote 6 bytes to deep/er/file.txt"
    assert (tmp_path / "deep/er/file.txt").read_text() == "héllo"
    assert not [p for p in (tmp_path / "deep/er").iterdir() if p.name != "file.txt"]  # no temp leftovers


async def test_write_keeps_mode_and_symlink(tmp_path: Path, ctx: ToolContext) -> None:
    script = tmp_path / "run.sh"
    script.write_text("old")
    script.chmod(0o755)
    link = tmp_path / "link.sh"
    link.symlink_to(script)
    await run(WriteTool(), ctx, path="link.sh", content="new")
    assert link.is_symlink()
    assert script.read_text() == "new"
    assert stat.S_IMODE(os.stat(script).st_mode) == 0o755
