"""The display copy of command output: SGR colours kept, every other escape dropped, cut only between
whole sequences, and line for line the text the model gets."""

from __future__ import annotations

import re

import pytest

from atomic.core.shell import StreamSanitizer, keep_colours, strip_ansi
from atomic.core.tools.base import ToolContext, ToolError
from atomic.core.tools.bash import BashTool
from atomic.core.tools.display_tail import DisplayTail

from .conftest import run, text_of

SGR = re.compile(r"\x1b\[[0-9;:]*m")
HOSTILE = [
    "\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m",
    "\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\ \x1b[1mbold\x1b[m",
    "\x1b[?1049h\x1b[Hmoved\x1bc\x1b7\x1b8\x1bPq#0\x1b\\\x1b]52;c;cGF5bG9hZA==\x07 \x1b[38;5;208morange",
    "progress 10%\rprogress 100%\x08\x07\n\x1b[4;31;42mmixed\x1b[0m",
]


@pytest.mark.parametrize("raw", HOSTILE)
def test_only_colour_sequences_are_kept(raw: str) -> None:
    kept = keep_colours(raw)
    assert "\x1b" not in SGR.sub("", kept)
    assert strip_ansi(kept) == strip_ansi(raw)


def test_a_colour_split_across_reads_is_kept_whole() -> None:
    sanitizer = StreamSanitizer()
    first = sanitizer.feed_both(b"ok \x1b[3")
    second = sanitizer.feed_both(b"1mred\x1b[0m\n", final=True)
    assert first == ("ok ", "ok ")
    assert second == ("red\n", "\x1b[31mred\x1b[0m\n")


def test_the_front_is_cut_between_sequences_only() -> None:
    for keep in range(40, 52):  # every cut position within the 11-character pattern
        tail = DisplayTail(keep_chars=keep)
        for _ in range(20):
            tail.append("\x1b[31mxx\x1b[0m")
        kept = tail.text(1)
        assert tail.coloured and kept
        assert set(SGR.sub("", kept)) == {"x"}, (keep, kept)


def test_a_cut_front_keeps_whole_lines() -> None:
    tail = DisplayTail(keep_chars=100)
    for number in range(100):
        tail.append(f"\x1b[32mline {number}\x1b[0m\n")
    lines = tail.text(1000).split("\n")
    assert lines[-1] == "\x1b[32mline 99\x1b[0m"
    assert all(re.fullmatch(r"\x1b\[32mline \d+\x1b\[0m", line) for line in lines)
    assert tail.text(2).split("\n") == ["\x1b[32mline 98\x1b[0m", "\x1b[32mline 99\x1b[0m"]


async def test_long_coloured_output_shows_the_lines_the_model_gets(ctx: ToolContext) -> None:
    command = r"for i in $(seq 1 3000); do printf '\033[33mline %s\033[0m\n' $i; done"
    out = await run(BashTool(), ctx, command=command)
    assert out.display is not None
    assert strip_ansi(out.display) == text_of(out)
    assert out.display.startswith("\x1b[33mline 1001\x1b[0m\n")


async def test_a_failing_command_carries_its_colours_in_the_error(ctx: ToolContext) -> None:
    with pytest.raises(ToolError) as caught:
        await run(BashTool(), ctx, command=r"printf '\033[31mFAILED\033[0m test_x\n'; exit 1")
    assert str(caught.value) == "FAILED test_x\n\nCommand exited with code 1"
    assert caught.value.display == "\x1b[31mFAILED\x1b[0m test_x\n\nCommand exited with code 1"


async def test_plain_output_has_no_display_copy(ctx: ToolContext) -> None:
    assert (await run(BashTool(), ctx, command="echo plain")).display is None
