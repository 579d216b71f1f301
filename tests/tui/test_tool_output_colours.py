"""Bash cards show the command's colours (live calls: the engine's display copy), safely: only SGR colour,
bold and underline reach the screen; titles, clears, cursor moves, hyperlinks and every other escape a
hostile command prints show as nothing. Resumed sessions (stripped text only) show the text as it is."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from rich.segment import Segment
from textual.style import Style

from atomic.core.messages import BashExecutionMessage
from atomic.tui.ansi_output import coloured_content, coloured_tail
from atomic.tui.app import AtomicApp
from atomic.tui.conversation import BashView
from atomic.tui.tool_cards import ToolCard
from tests.tui.helpers import make_app, type_text, wait_for

TEST_RUN = (
    r"printf '\033[1mtests/test_parser.py\033[0m \033[32m.....\033[0m\n'; "
    r"printf '\033[1mtests/test_cache.py\033[0m \033[31mF\033[0m\n'; "
    r"printf '\033[31mFAILED\033[0m tests/test_cache.py::test_expiry\n'; "
    r"printf '\033[32m5 passed\033[0m, \033[31m1 failed\033[0m\n'"
)
# A title change, a screen clear, a hyperlink, the alternate screen, a full reset, a clipboard write,
# a C1 CSI (U+009B), a cursor move and a bell around one word in red.
HOSTILE = (
    r"printf '\033]0;pwned\007\033[2J\033]8;;http://evil/\033\\\033[?1049h\033c\033]52;c;cHduZWQ=\007"
    r"\302\2332J\033[H\033[31mred\033[0m\007\n'"
)


def bash_app(cwd: Path, command: str, **options: Any) -> AtomicApp:
    script = [{"toolCalls": [{"name": "bash", "id": "call_1", "arguments": {"command": command}}]}, {"text": "Done."}]
    return make_app(cwd, script, **options)


def the_card(app: AtomicApp) -> ToolCard | None:
    found = list(app.conversation.query(ToolCard))
    return found[0] if found else None


async def run_turn(pilot: Any) -> None:
    app: AtomicApp = pilot.app
    await type_text(pilot, "go")
    await pilot.press("enter")

    def finished() -> bool:
        card = the_card(app)
        # The card has ended and the agent's turn is over (the working line is gone).
        return card is not None and card.status in ("done", "failed") and app.working.started_at is None

    await wait_for(finished, pilot, 15)
    await pilot.pause(0.2)


def segments(widget: Any) -> list[Segment]:
    return [segment for y in range(widget.size.height) for segment in widget.render_line(y)]


def colour_of(found: list[Segment], text: str) -> int | None:
    """The ANSI colour number of the segment that reads `text` (None: no ANSI colour)."""
    (segment,) = [s for s in found if s.text == text]
    color = segment.style.color if segment.style is not None else None
    return color.number if color is not None else None


async def test_a_bash_card_shows_the_commands_colours(tmp_path: Path) -> None:
    app = bash_app(tmp_path / "p", TEST_RUN)
    async with app.run_test(size=(100, 30)) as pilot:
        await run_turn(pilot)
        card = the_card(app)
        assert card is not None and card.status == "done"
        shown = segments(card._preview)
        assert colour_of(shown, "FAILED") == 1
        assert colour_of(shown, "5 passed") == 2
        assert colour_of(shown, "1 failed") == 1
        bold = [s for s in shown if s.text == "tests/test_cache.py"]
        assert bold and bold[0].style is not None and bold[0].style.bold
        # The model and the stored result got the text without escapes.
        assert "\x1b" not in card.output and "FAILED tests/test_cache.py::test_expiry" in card.output


async def test_hostile_escapes_show_nothing_but_the_colour(tmp_path: Path) -> None:
    app = bash_app(tmp_path / "p", HOSTILE)
    async with app.run_test(size=(100, 30)) as pilot:
        await run_turn(pilot)
        card = the_card(app)
        assert card is not None
        # The text the model got (whatever the stripping left of the escapes), but for the C1 control.
        assert card._preview.render().plain == card.output.replace("\x9b", "") and card.output.endswith("red")
        shown_collapsed = segments(card._preview)
        await pilot.press("ctrl+o")  # the full view too
        await pilot.pause()
        for shown in (shown_collapsed, segments(card._full)):
            text = "".join(s.text for s in shown)
            assert "red" in text and "pwned" not in text and "evil" not in text
            # Nothing the terminal would act on: no escape, no C0 or C1 control in any text written.
            assert not [ch for ch in text if ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F]
            assert colour_of(shown, "red") == 1


async def test_a_resumed_session_shows_the_text_without_colours(tmp_path: Path) -> None:
    cwd = tmp_path / "p"
    app = bash_app(cwd, TEST_RUN)
    async with app.run_test(size=(100, 30)) as pilot:
        await run_turn(pilot)
    again = make_app(cwd, continue_recent=True)
    async with again.run_test(size=(100, 30)) as pilot:
        await wait_for(lambda: the_card(again) is not None, pilot)
        await pilot.pause()
        card = the_card(again)
        assert card is not None and card.coloured_output is None
        shown = segments(card._preview)
        assert "FAILED tests/test_cache.py::test_expiry" in "".join(s.text for s in shown)
        assert all(s.style is None or s.style.color is None or s.style.color.number is None for s in shown)


def test_the_preview_starts_in_the_colour_set_before_it() -> None:
    text = "\x1b[31mred from here\n" + "\n".join(f"line {n}" for n in range(10)) + "\x1b[0m"
    tail = coloured_tail(text, 2)
    assert tail.plain == "line 8\nline 9"
    assert [(span.start, span.end) for span in tail.spans] == [(0, 13)]
    # After a reset, nothing from before it applies.
    assert coloured_tail("\x1b[31mred\x1b[0m\nplain\nplain", 2).spans == []


def test_concealed_and_blinking_text_shows_plainly() -> None:
    shown = coloured_content("\x1b[8msecret\x1b[0m \x1b[5;31mblink\x1b[0m")
    assert shown.plain == "secret blink"
    # "secret" unstyled; "blink" red, not blinking.
    assert [(span.start, span.end) for span in shown.spans] == [(7, 12)]
    (style,) = [span.style for span in shown.spans]
    assert isinstance(style, Style) and not style.blink and style.foreground is not None


def test_bash_card_with_colours(snap_compare: Any) -> None:
    root = Path(os.environ["HOME"]) / "project"
    root.mkdir(parents=True, exist_ok=True)
    (root / "run_tests.sh").write_text(TEST_RUN.replace("; ", "\n") + "\nexit 1\n")
    # Sandbox off: the same screen whether or not this machine could sandbox the command.
    app = bash_app(root, "sh run_tests.sh", sandbox_mode="off")
    assert snap_compare(app, terminal_size=(90, 18), run_before=run_turn)


def test_sgr_codes_become_the_styles_they_name() -> None:
    def styles(text: str) -> list[tuple[str, str]]:
        shown = coloured_content(text)
        return [(shown.plain[span.start : span.end], str(span.style)) for span in shown.spans]

    assert styles("\x1b[91mbright\x1b[0m") == [("bright", "ansi_bright_red")]
    assert styles("\x1b[38;5;208morange\x1b[39m x \x1b[48;2;10;20;30mbg") == [
        ("orange", "rgb(255,135,0)"), ("bg", "on rgb(10,20,30)")
    ]
    assert styles("\x1b[1;4mboth\x1b[22munder\x1b[24m none") == [("both", "bold underline"), ("under", "underline")]
    assert styles("\x1b[4:3mcurly\x1b[m") == [("curly", "underline")]


def test_malformed_or_huge_sequences_never_break_the_text() -> None:
    import random

    assert coloured_content("\x1b[38;5mx\x1b[38;2;1m y\x1b[" + "9" * 5000 + "m z").plain == "x y z"
    rng = random.Random(7)
    alphabet = ["\x1b", "[", "]", ";", ":", "m", "0", "1", "3", "8", "5", "2", "\x07", "\\", "\x9b", "a", "\n", "P"]
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(40))
        shown = coloured_content(text).plain
        assert not [ch for ch in shown if ch != "\n" and (ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F)], repr(text)


async def test_the_users_own_bash_command_shows_its_colours_too(tmp_path: Path) -> None:
    """`!cmd` output: coloured on screen, hostile escapes dropped, stored without escapes."""
    app = make_app(tmp_path / "p", [])
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "!" + TEST_RUN + "; " + HOSTILE)
        await pilot.press("enter")
        await wait_for(lambda: bool(app.conversation.query(BashView)) and not app.engine.is_bash_running, pilot, 15)
        await pilot.pause(0.2)
        view = app.conversation.query_one(BashView)
        output_widget = view.query_one(".bash-output")
        shown = segments(output_widget)
        text = "".join(s.text for s in shown)
        assert colour_of(shown, "5 passed") == 2 and colour_of(shown, "red") == 1
        assert "pwned" not in text and "evil" not in text
        assert not [ch for ch in text if ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F]
        stored = [m for m in app.engine.messages() if isinstance(m, BashExecutionMessage)]
        assert len(stored) == 1 and "\x1b" not in stored[0].output and "5 passed" in stored[0].output
