"""What approval cards show instead of JSON: a write's first lines and total, an edit's diff (both argument
forms), the resolved path; the engine's preview works it out without touching the file."""

from __future__ import annotations

from pathlib import Path

from atomic.core.contract import ApprovalRequest, preview_change
from atomic.tui.approval_preview import approval_preview


def request(tool: str, args: dict[str, object]) -> ApprovalRequest:
    return ApprovalRequest("c1", tool, args, "edit", f"{tool} {args.get('path')}")


def test_write_shows_the_first_twenty_lines_and_the_total(tmp_path: Path) -> None:
    content = "".join(f"line {n}\n" for n in range(1, 46))
    text = approval_preview(request("write", {"path": "src/big.py", "content": content}), tmp_path).plain
    assert f"new file {tmp_path}/src/big.py · 45 lines" in text
    assert "line 20" in text and "line 21\n" not in text
    assert "… 25 more lines (45 in all)" in text
    assert "{" not in text and '"content"' not in text


def test_edit_with_old_and_new_text_shows_a_diff_with_context(tmp_path: Path) -> None:
    target = tmp_path / "app.py"
    original = "import os\n\nDEBUG = False\nPORT = 80\n"
    target.write_text(original)
    args = {"path": "app.py", "oldText": "DEBUG = False", "newText": "DEBUG = True"}
    text = approval_preview(request("edit", args), tmp_path).plain
    assert f"edit {target}" in text
    assert "-3 DEBUG = False" in text and "+3 DEBUG = True" in text
    assert " 1 import os" in text and " 4 PORT = 80" in text
    assert "oldText" not in text
    assert target.read_text() == original  # a preview writes nothing


def test_edit_with_an_edits_list_shows_every_change(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\n")
    args = {"path": "a.txt", "edits": [{"oldText": "one", "newText": "uno"}, {"oldText": "three", "newText": "tres"}]}
    text = approval_preview(request("edit", args), tmp_path).plain
    assert "-1 one" in text and "+1 uno" in text and "-3 three" in text and "+3 tres" in text
    assert "oldText" not in text and "[{" not in text


def test_an_edit_that_would_fail_still_shows_what_it_replaces(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    preview = preview_change("edit", {"path": "a.txt", "oldText": "beta", "newText": "gamma"}, tmp_path)
    assert preview is not None and preview.problem is not None
    text = approval_preview(request("edit", {"path": "a.txt", "oldText": "beta", "newText": "gamma"}), tmp_path).plain
    assert "⚠" in text and "-1 beta" in text and "+1 gamma" in text


def test_the_path_is_resolved_against_the_project(tmp_path: Path) -> None:
    preview = preview_change("write", {"path": "../outside/x.txt", "content": "x"}, tmp_path / "p")
    assert preview is not None and preview.path == tmp_path / "outside" / "x.txt"
    assert preview_change("read", {"path": "x"}, tmp_path) is None
