"""Property test of the whole pipeline: random conversations, random planner answers, random
prompt budgets. Whatever happens, the result either is a CompactionError or keeps every
invariant of verbatim compaction."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atomic.core.compaction import CompactionError, Transcript, plan_and_compact
from atomic.core.compaction.compactor import latest_user_request, tail_start_index
from atomic.core.compaction.prompt import build_planner_prompt
from atomic.core.messages import AssistantMessage, TextContent, ToolResultMessage, UserMessage

MARKER = re.compile(r"^\(filtered (\d+) lines\)$")

body = st.lists(
    st.sampled_from(
        ["alpha", "", "<keepContext>", "</keepContext>", "  indented", "beta\r", "(filtered 2 lines)"]
    ),
    min_size=1,
    max_size=6,
).map("\n".join)


@st.composite
def conversations(draw: st.DrawFn) -> list[Any]:
    messages: list[Any] = []
    for kind in draw(st.lists(st.sampled_from(["user", "assistant", "tool"]), min_size=1, max_size=10)):
        text = draw(body)
        if kind == "user":
            messages.append(UserMessage(content=text))
        elif kind == "assistant":
            messages.append(AssistantMessage(content=[TextContent(text=text)]))
        else:
            messages.append(
                ToolResultMessage(tool_call_id="c", tool_name="t", content=[TextContent(text=text)])
            )
    return messages


record = st.tuples(st.integers(-2, 30), st.integers(-2, 30)).map(lambda r: f"{r[0]},{r[1]}")
answers = st.lists(
    st.one_of(record, record, record, st.sampled_from(["prose line", "```", "4-9", ""])),
    max_size=10,
).map("\n".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    conversations(),
    answers,
    st.integers(0, 4),
    st.one_of(st.none(), st.floats(0.0, 0.6)),
)
def test_pipeline_invariants(
    messages: list[Any], answer: str, preserve_recent: int, squeeze: float | None
) -> None:
    # The budget is the untrimmed prompt size minus a drawn share of the transcript text, so
    # trimming (or a prompt that cannot fit) really happens in a good share of the examples.
    budget = None
    region = messages[: tail_start_index(messages, preserve_recent)]
    if squeeze is not None and region:
        region_transcript = Transcript.from_messages(region)
        system, user = build_planner_prompt(
            region_transcript, compression_ratio=0.5, query=latest_user_request(messages)
        )
        budget = len(system) + len(user) - int(squeeze * len(region_transcript.text))
    prompt_sizes: list[int] = []

    async def complete(system: str, user: str) -> str:
        prompt_sizes.append(len(system) + len(user))
        return answer

    ids = [f"e{i}" for i in range(len(messages))]
    try:
        result = asyncio.run(
            plan_and_compact(
                messages,
                entry_ids=ids,
                preserve_recent=preserve_recent,
                complete=complete,
                tokens_before=1000,
                max_planner_chars=budget,
            )
        )
    except CompactionError:
        return

    region_count = result.compacted_message_count
    assert result.kept_messages == messages[region_count:]
    assert len(result.kept_messages) == min(preserve_recent, len(messages))
    assert result.first_kept_entry_id == (ids[region_count] if preserve_recent else None)

    transcript = Transcript.from_messages(messages[:region_count])
    out = result.compacted_text.split("\n")
    # Walk the output against the region: kept lines are byte-identical, in order; each marker
    # stands for exactly the original lines it replaced.
    spans = dict(result.deleted_ranges)
    index = 0
    line = 1
    while line <= transcript.total:
        if line in spans:
            end = spans[line]
            expected = sum(transcript.prior_markers.get(n, 1) for n in range(line, end + 1))
            assert out[index] == f"(filtered {expected} lines)"
            assert all(n not in transcript.protected for n in range(line, end + 1))
            line = end + 1
        else:
            assert out[index] == transcript.lines[line - 1]
            line += 1
        index += 1
    assert index == len(out)
    stats = result.stats
    assert stats.lines_before == transcript.total
    assert stats.lines_deleted + stats.lines_kept == stats.lines_before
    assert stats.range_count == len(result.deleted_ranges) >= 1
    if budget is None:
        assert result.trimmed_lines == 0
    else:
        assert prompt_sizes and all(size <= budget for size in prompt_sizes)
