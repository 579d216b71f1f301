"""The planner prompt (version 3): the model sees numbered lines and answers with deletions."""

from __future__ import annotations

from atomic.core.compaction.normalize import collapse_to_ranges
from atomic.core.compaction.serialize import Transcript

PROMPT_VERSION = 3
LINE_NUMBER_SEPARATOR = "→"
DEFAULT_QUERY = "the latest user request"

PLANNER_SYSTEM_PROMPT = """You are a context compaction assistant for a coding agent.

You receive the transcript of a coding session with every line numbered. The transcript is too \
long for the agent's context window. Your job is to choose which lines to DELETE so that the lines \
that remain, copied verbatim, still let the agent continue the work without losing anything that \
matters.

Keep: the user's requests, constraints and preferences; decisions and their reasons; file paths, \
identifiers, commands, error messages and results the work still depends on; the current state \
of the task and what remains to do.
Delete first: repeated or superseded content, verbose tool output whose conclusion is already \
stated, exploratory dead ends, file contents that were later rewritten, and filler.

Do NOT continue the conversation, answer questions, summarize, or explain your choices. \
ONLY output deletion records."""


def _round_half_up(value: float) -> int:
    # Python's round() rounds halves to even; targets should not flip with parity.
    return int(value + 0.5)


def target_keep_lines(total: int, compression_ratio: float) -> int:
    return min(total, max(0, _round_half_up(total * compression_ratio)))


def number_lines(lines: tuple[str, ...] | list[str]) -> str:
    return "\n".join(f"{number}{LINE_NUMBER_SEPARATOR}{line}" for number, line in enumerate(lines, 1))


def describe_protected(transcript: Transcript) -> str:
    """Protected ranges for the prompt. Blank separators are stated as a rule, not listed: there
    can be thousands of them and listing each would waste the planner's input."""
    content_lines = [n for n in transcript.protected if transcript.lines[n - 1] != ""]
    ranges = collapse_to_ranges(content_lines)
    if not ranges:
        return "none (besides blank lines)"
    return ", ".join(f"{start}-{end}" if start != end else str(start) for start, end in ranges)


def build_planner_prompt(transcript: Transcript, *, compression_ratio: float, query: str) -> tuple[str, str]:
    """(system prompt, user prompt) for one planner call over `transcript`."""
    total = transcript.total
    keep = target_keep_lines(total, compression_ratio)
    user = f"""<transcript>
{number_lines(transcript.lines)}
</transcript>

The transcript has {total} lines.
Target: keep about {keep} lines and delete about {total - keep} lines.
Relevance focus: {query}

Protected lines are always kept, whatever you answer, so do not spend records on them.
Protected ranges: {describe_protected(transcript)}
Blank lines (section separators) are also always kept.

Answer format: one deletion record per line, written as `start,end` with the inclusive 1-based \
line numbers of a run of lines to delete (`n,n` deletes the single line n). List the most \
deletable runs first. Output nothing but these records: no prose, no code fences, no numbering.
Example:
14,38
3,5
61,61"""
    return PLANNER_SYSTEM_PROMPT, user
