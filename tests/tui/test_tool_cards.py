"""Tool cards driven through the real app: scripted tool calls run the real tools in a temp project; Ctrl+O
expands and collapses their output."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from atomic.tui.app import AtomicApp
from atomic.tui.tool_cards import ToolCard
from tests.tui.helpers import make_app, type_text, wait_for

ALL_TOOLS = ["read", "bash", "edit", "write", "grep", "find", "ls"]


def call(name: str, arguments: dict[str, Any], call_id: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"name": name, "arguments": arguments}
    if call_id:
        spec["id"] = call_id
    return {"toolCalls": [spec]}


def text_of(widget: Any) -> str:
    return str(widget.render())


async def run_prompt(pilot: Any, text: str = "go") -> None:
    app: AtomicApp = pilot.app
    before = len(app.engine.messages())
    await type_text(pilot, text)
    await pilot.press("enter")
    # The user message, the assistant's call, the tool result and the final answer (at least).
    await wait_for(lambda: len(app.engine.messages()) >= before + 4 and not app.engine.is_streaming, pilot, 15)
    await pilot.pause()


def cards(app: AtomicApp) -> list[ToolCard]:
    return list(app.conversation.query(ToolCard))


async def test_bash_card_shows_every_line_of_a_multi_line_command(tmp_path: Path) -> None:
    command = "echo one\necho two\n\necho three"
    app = make_app(tmp_path / "p", [call("bash", {"command": command}), {"text": "ok"}])
    async with app.run_test(size=(100, 40)) as pilot:
        await run_prompt(pilot)
        (card,) = cards(app)
        assert "echo one" in text_of(card._header)
        rest = text_of(card._command)
        assert rest.splitlines() == ["echo two", "", "echo three"]
        assert card._command.display
        assert text_of(card._preview).splitlines() == ["one", "two", "three"]
        assert "exit code 0" in text_of(card._header)


async def test_single_line_command_has_no_extra_command_block(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [call("bash", {"command": "echo solo"}), {"text": "ok"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await run_prompt(pilot)
        (card,) = cards(app)
        assert not card._command.display
        assert "echo solo" in text_of(card._header)


async def test_bash_output_streams_while_the_command_runs(tmp_path: Path) -> None:
    command = "echo first; sleep 1; echo second"
    app = make_app(tmp_path / "p", [call("bash", {"command": command}), {"text": "ok"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await wait_for(lambda: bool(cards(app)) and "first" in text_of(cards(app)[0]._preview), pilot)
        card = cards(app)[0]
        assert card.status == "running"
        assert "second" not in text_of(card._preview)
        await wait_for(lambda: card.status == "done", pilot, timeout=10)
        assert text_of(card._preview).splitlines() == ["first", "second"]


async def test_esc_aborts_bash_and_the_output_so_far_stays_marked_aborted(tmp_path: Path) -> None:
    command = "echo partial one\necho partial two\nsleep 30"
    app = make_app(tmp_path / "p", [call("bash", {"command": command}), {"text": "never sent"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await wait_for(lambda: bool(cards(app)) and "partial two" in text_of(cards(app)[0]._preview), pilot)
        await pilot.press("escape")
        card = cards(app)[0]
        await wait_for(lambda: card.status == "aborted", pilot, timeout=10)
        await wait_for(lambda: not app.engine.is_streaming, pilot)
        await pilot.pause()
        assert card.has_class("-aborted")
        assert "aborted" in text_of(card._header)
        assert text_of(card._preview).splitlines() == ["partial one", "partial two"]


async def test_aborted_result_that_carries_output_shows_that_output(tmp_path: Path) -> None:
    # What the engine may send: the partial output, then an abort line (or details.aborted).
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        renderer = app.renderer
        renderer.on_tool_start("c1", "bash", {"command": "make"})
        renderer.on_tool_update("c1", "bash", None, {"content": [{"type": "text", "text": "step 1"}]})
        result = {"content": [{"type": "text", "text": "step 1\nstep 2\n\nCommand aborted"}]}
        renderer.on_tool_end("c1", "bash", result, True)
        flagged = {"content": [{"type": "text", "text": "line a"}], "details": {"aborted": True}}
        renderer.on_tool_start("c2", "bash", {"command": "make"})
        renderer.on_tool_end("c2", "bash", flagged, True)
        await pilot.pause()
        first, second = cards(app)
        assert first.status == "aborted" and text_of(first._preview).splitlines() == ["step 1", "step 2"]
        assert second.status == "aborted" and text_of(second._preview) == "line a"


async def test_write_card_shows_the_content_highlighted_and_expands_with_ctrl_o(tmp_path: Path) -> None:
    content = "".join(f"def f{i}() -> int:\n    return {i}\n" for i in range(10))  # 20 lines
    app = make_app(tmp_path / "p", [call("write", {"path": "src/mod.py", "content": content}), {"text": "ok"}])
    async with app.run_test(size=(100, 50)) as pilot:
        await run_prompt(pilot)
        assert (tmp_path / "p" / "src" / "mod.py").read_text() == content
        (card,) = cards(app)
        assert "src/mod.py" in text_of(card._header) and "20 lines" in text_of(card._header)
        preview = card._preview.render()
        lines = str(preview).splitlines()
        assert lines[:8] == content.splitlines()[:8]
        assert lines[8] == "… 12 more lines, 20 in all (ctrl+o to expand)"
        assert len(lines) == 9
        # Highlighted by file type: `def` and the numbers carry styles of their own.
        styled = {str(preview)[span.start : span.end] for span in preview.spans}
        assert "def" in styled and "0" in styled
        assert card._preview.display and not card._full.display
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert card._full.display and not card._preview.display
        assert str(card._full.render()).splitlines() == content.splitlines()


async def test_failed_write_shows_the_error_not_the_content(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "blocker").write_text("a file where a folder is needed")
    script = [call("write", {"path": "blocker/x.py", "content": "print(1)\n"}), {"text": "ok"}]
    app = make_app(tmp_path / "p", script)
    async with app.run_test(size=(100, 30)) as pilot:
        await run_prompt(pilot)
        (card,) = cards(app)
        assert card.status == "failed"
        assert "print(1)" not in text_of(card._preview)
        assert text_of(card._preview).strip()


async def test_edit_card_keeps_its_coloured_diff(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "x.py").write_text("a = 1\nb = 2\nc = 3\n")
    script = [call("edit", {"path": "x.py", "oldText": "b = 2", "newText": "b = 20"}), {"text": "ok"}]
    app = make_app(tmp_path / "p", script)
    async with app.run_test(size=(100, 30)) as pilot:
        await run_prompt(pilot)
        (card,) = cards(app)
        assert card.diff is not None
        preview = card._preview.render()
        added = [line for line in str(preview).splitlines() if line.startswith("+")]
        removed = [line for line in str(preview).splitlines() if line.startswith("-")]
        assert added and "b = 20" in added[0] and removed and "b = 2" in removed[0]
        styles = {str(span.style) for span in preview.spans}
        assert "$diff-added" in styles and "$diff-removed" in styles


async def test_grep_find_ls_headers_show_pattern_and_path(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / "src").mkdir(parents=True)
    (project / "src" / "a.py").write_text("# TODO: one\n")
    (project / "src" / "b.py").write_text("print('no')\n")
    script = [
        {"toolCalls": [
            {"name": "grep", "arguments": {"pattern": "TODO", "path": "src", "glob": "*.py", "ignoreCase": True}},
            {"name": "find", "arguments": {"pattern": "*.py", "path": "src"}},
            {"name": "ls", "arguments": {"path": "src"}},
        ]},
        {"text": "ok"},
    ]
    app = make_app(project, script, tools=ALL_TOOLS)
    async with app.run_test(size=(100, 40)) as pilot:
        await run_prompt(pilot)
        grep, find, ls = cards(app)
        assert '"TODO" in src (glob *.py, ignore case)' in text_of(grep._header)
        assert '"*.py" in src' in text_of(find._header)
        assert "ls src" in text_of(ls._header)
        assert "a.py" in text_of(grep._preview) and "TODO" in text_of(grep._preview)
        assert "a.py" in text_of(find._preview) and "b.py" in text_of(find._preview)
        assert "a.py" in text_of(ls._preview)


async def test_a_call_id_reused_in_a_later_turn_gets_its_own_card(tmp_path: Path) -> None:
    script = [
        call("bash", {"command": "echo first turn"}, call_id="call_1"),
        {"text": "one"},
        call("bash", {"command": "echo second turn"}, call_id="call_1"),
        {"text": "two"},
    ]
    app = make_app(tmp_path / "p", script)
    async with app.run_test(size=(100, 40)) as pilot:
        await run_prompt(pilot, "first")
        await run_prompt(pilot, "second")
        first, second = cards(app)
        assert "echo first turn" in text_of(first._header) and text_of(first._preview) == "first turn"
        assert "echo second turn" in text_of(second._header) and text_of(second._preview) == "second turn"
        # The same holds when the session is shown again from its file (resume, /tree, ...).
        app.renderer.conversation.clear()
        app.renderer.render_history(app.engine.messages())
        await pilot.pause()
        first, second = cards(app)
        assert text_of(first._preview) == "first turn" and text_of(second._preview) == "second turn"


async def test_ctrl_o_expands_and_collapses_tool_output(tmp_path: Path) -> None:
    command = {"toolCalls": [{"name": "bash", "arguments": {"command": "seq 1 12; exit 3"}}]}
    app = make_app(tmp_path / "p", [command, {"text": "done"}])
    async with app.run_test(size=(100, 40)) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await wait_for(lambda: not app.engine.is_streaming and bool(app.conversation.query(ToolCard)), pilot)
        await pilot.pause()
        card = app.conversation.query_one(ToolCard)
        collapsed_height = card.outer_size.height
        assert card._preview.display and not card._full.display
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert card._full.display and not card._preview.display
        assert card.outer_size.height > collapsed_height  # all 12 lines and the exit line show
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert card._preview.display and not card._full.display
        assert card.outer_size.height == collapsed_height




def test_tool_output_with_ansi_colours_keeps_them_as_styles() -> None:
    """For tools whose results carry colour codes (MCP and extension tools; bash colours come separately,
    as the events' display text)."""
    from atomic.tui.ansi_output import coloured_content

    shown = coloured_content("\x1b[31mFAILED\x1b[0m test_parser\n\x1b[1;32mPASSED\x1b[0m test_cache\x1b]0;title\x07")
    assert shown.plain == "FAILED test_parser\nPASSED test_cache"
    assert [(span.start, span.end) for span in shown.spans] == [(0, 6), (19, 25)]
    assert coloured_content("plain [not markup]").plain == "plain [not markup]"
