"""Serialize context messages into the line-numberable compaction transcript.

Grammar (sections separated by one blank line):
    [User]: <text>                      user and extension (custom) messages
    [User]: Ran `<cmd>`\n<output>       bash executions run by the user
    [Assistant thinking]: <thinking>
    [Assistant]: <text>
    [Assistant tool calls]: name(arg=<json>, ...); other(...)
    [Tool result]: <text>               capped at 16,000 characters
    <compacted text>                    an earlier compaction summary, as is
Images become a `[image]` line.

`Transcript` carries the lines together with what the normalizer needs: protected line numbers
(keepContext blocks in user/assistant text, blank section separators) and the markers left by
earlier compactions.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from atomic.core.compaction.normalize import keep_context_indices, role_header_of
from atomic.core.compaction.reconstruct import MARKER_PATTERN, find_prior_markers
from atomic.core.messages import (
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

TOOL_RESULT_MAX_CHARS = 16_000
IMAGE_PLACEHOLDER = "[image]"
SECTION_SEPARATOR = "\n\n"

SectionKind = Literal["user", "thinking", "assistant", "tool_calls", "tool_result", "bash", "summary"]
# Sections whose text the user or assistant wrote, where <keepContext> blocks are honoured.
_KEEP_CONTEXT_KINDS = frozenset({"user", "assistant"})
# In an earlier compacted text, these headers start a section whose text is NOT user/assistant
# prose, so keepContext tags inside it are inert.
_INERT_HEADERS = frozenset({"[Assistant thinking]: ", "[Assistant tool calls]: ", "[Tool result]: "})


@dataclass(frozen=True)
class Section:
    kind: SectionKind
    text: str


def cap_text(text: str, limit: int = TOOL_RESULT_MAX_CHARS) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n\n[... {len(text) - limit} more characters truncated]"


def render_blocks(content: str | Sequence[Any]) -> str:
    """Text blocks concatenated; each image becomes a `[image]` line of its own."""
    if isinstance(content, str):
        return content
    rendered = ""
    after_image = False
    for block in content:
        if isinstance(block, TextContent):
            if not block.text:
                continue
            rendered += ("\n" if after_image else "") + block.text
            after_image = False
        elif isinstance(block, ImageContent):
            if rendered and not rendered.endswith("\n"):
                rendered += "\n"
            rendered += IMAGE_PLACEHOLDER
            after_image = True
    return rendered


def format_tool_call(call: ToolCall) -> str:
    # A `write` of a big file would otherwise dominate the planner prompt; cap each argument like a result.
    args = ", ".join(
        f"{key}={cap_text(json.dumps(value, ensure_ascii=False))}" for key, value in call.arguments.items()
    )
    return f"{call.name}({args})"


def is_context_visible(message: Any) -> bool:
    """False for messages kept in the session but never sent to the model (`!!cmd` bash runs)."""
    return not (isinstance(message, BashExecutionMessage) and message.exclude_from_context)


def _bash_text(message: BashExecutionMessage) -> str:
    text = f"[User]: Ran `{message.command}`"
    if message.output:
        text += "\n" + cap_text(message.output)
    if message.cancelled:
        text += "\n(command cancelled)"
    elif message.exit_code not in (None, 0):
        text += f"\n(exit code {message.exit_code})"
    if message.truncated:
        text += "\n(output truncated)"
    return text


def message_sections(message: Any) -> list[Section]:
    """The transcript sections of one message (empty when it contributes nothing)."""
    if isinstance(message, (UserMessage, CustomMessage)):
        text = render_blocks(message.content)
        return [Section("user", "[User]: " + text)] if text else []
    if isinstance(message, AssistantMessage):
        thinking = [
            b.thinking
            for b in message.content
            # Redacted thinking is an opaque provider payload, not readable reasoning.
            if isinstance(b, ThinkingContent) and b.thinking and not b.redacted
        ]
        texts = [b.text for b in message.content if isinstance(b, TextContent) and b.text]
        calls = [format_tool_call(b) for b in message.content if isinstance(b, ToolCall)]
        sections: list[Section] = []
        if thinking:
            sections.append(Section("thinking", "[Assistant thinking]: " + "\n".join(thinking)))
        if texts:
            sections.append(Section("assistant", "[Assistant]: " + "\n".join(texts)))
        if calls:
            sections.append(Section("tool_calls", "[Assistant tool calls]: " + "; ".join(calls)))
        return sections
    if isinstance(message, ToolResultMessage):
        text = cap_text(render_blocks(message.content))
        return [Section("tool_result", "[Tool result]: " + text)] if text else []
    if isinstance(message, BashExecutionMessage):
        return [Section("bash", _bash_text(message))] if is_context_visible(message) else []
    if isinstance(message, CompactionSummaryMessage):
        return [Section("summary", message.summary)] if message.summary else []
    if isinstance(message, BranchSummaryMessage) and message.summary:
        return [Section("user", "[User]: Summary of a branch this conversation came back from: " + message.summary)]
    return []


def serialize_messages(messages: Sequence[Any]) -> str:
    return SECTION_SEPARATOR.join(s.text for m in messages for s in message_sections(m))


def _summary_protection(lines: Sequence[str]) -> tuple[list[bool], set[int]]:
    """For an earlier compacted text: which lines are user/assistant prose (keepContext-eligible)
    and which blank lines are section separators (0-based).

    Role headers tell us the kind of what follows. After a `(filtered N lines)` marker the header
    may have been deleted, so the kind is unknown and treated as eligible: erring toward keeping.
    """
    eligible: list[bool] = []
    separators: set[int] = set()
    inert = False
    for index, line in enumerate(lines):
        header = role_header_of(line)
        if header is not None:
            inert = header in _INERT_HEADERS
            if index > 0 and lines[index - 1] == "":
                separators.add(index - 1)
        elif MARKER_PATTERN.match(line):
            inert = False
        eligible.append(not inert)
    return eligible, separators


@dataclass(frozen=True)
class Transcript:
    """Serialized lines plus protection and prior-marker facts, all 1-based."""

    lines: tuple[str, ...]
    protected: frozenset[int] = frozenset()
    prior_markers: Mapping[int, int] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    @property
    def total(self) -> int:
        return len(self.lines)

    @classmethod
    def from_sections(cls, sections: Sequence[Section]) -> Transcript:
        lines: list[str] = []
        protected: set[int] = set()
        markers: dict[int, int] = {}
        for section in sections:
            if lines:
                lines.append("")
                protected.add(len(lines))  # the blank separator just added
            offset = len(lines)
            section_lines = section.text.split("\n")
            if section.kind == "summary":
                eligible, separators = _summary_protection(section_lines)
                protected.update(offset + i + 1 for i in separators)
                markers.update({offset + n: c for n, c in find_prior_markers(section_lines).items()})
            else:
                eligible = [section.kind in _KEEP_CONTEXT_KINDS] * len(section_lines)
            protected.update(offset + i + 1 for i in keep_context_indices(section_lines, eligible))
            lines.extend(section_lines)
        return cls(tuple(lines), frozenset(protected), markers)

    @classmethod
    def from_messages(cls, messages: Sequence[Any]) -> Transcript:
        return cls.from_sections([s for m in messages for s in message_sections(m)])

    @classmethod
    def from_text(cls, text: str) -> Transcript:
        """A transcript from already-serialized (possibly already compacted) text."""
        return cls.from_sections([Section("summary", text)])

    def view_from(self, first_line: int) -> Transcript:
        """Lines `first_line..total` renumbered from 1 (what the planner sees after trimming)."""
        shift = first_line - 1
        return Transcript(
            self.lines[shift:],
            frozenset(n - shift for n in self.protected if n > shift),
            {n - shift: c for n, c in self.prior_markers.items() if n > shift},
        )
