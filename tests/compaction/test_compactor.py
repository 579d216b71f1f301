"""The whole planning flow with a fake planner: region choice, result shape, trimming, retries."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from atomic.core.compaction import (
    CompactionError,
    PlannerReply,
    RetryPolicy,
    Transcript,
    plan_and_compact,
    serialize_messages,
)
from atomic.core.compaction.context import boundary_message
from atomic.core.compaction.prompt import PLANNER_SYSTEM_PROMPT
from atomic.core.messages import (
    AssistantMessage,
    BashExecutionMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from atomic.core.providers.base import ProviderError

FAST = RetryPolicy(max_retries=3, base_delay_ms=1)


class FakePlanner:
    """Records each call; answers with `answer(user_prompt)` or raises the scripted errors first."""

    def __init__(self, answer: Callable[[str], Any] | str, errors: list[Exception] | None = None) -> None:
        self.answer = answer
        self.errors = list(errors or [])
        self.calls: list[tuple[str, str]] = []

    async def __call__(self, system: str, user: str) -> Any:
        self.calls.append((system, user))
        if self.errors:
            raise self.errors.pop(0)
        return self.answer(user) if callable(self.answer) else self.answer


def total_lines(user_prompt: str) -> int:
    match = re.search(r"The transcript has (\d+) lines\.", user_prompt)
    assert match
    return int(match.group(1))


def conversation() -> tuple[list[Any], list[str | None]]:
    messages = [
        UserMessage(content="fix the failing test in calc.py"),
        AssistantMessage(
            content=[
                TextContent(text="Let me read it."),
                ToolCall(id="t1", name="read", arguments={"path": "calc.py"}),
            ]
        ),
        ToolResultMessage(
            tool_call_id="t1",
            tool_name="read",
            content=[TextContent(text="def add(a, b):\n    return a - b\n# end")],
        ),
        AssistantMessage(content=[TextContent(text="The bug is a - b.")]),
        UserMessage(content="great, now run the tests"),
        AssistantMessage(content=[TextContent(text="All green.")]),
    ]
    return messages, ["e1", "e2", "e3", "e4", "e5", "e6"]


async def test_compacts_all_but_the_newest_two_messages() -> None:
    messages, ids = conversation()
    events: list[dict[str, Any]] = []
    # Region lines: 1 user, 2 sep, 3 text, 4 sep, 5 calls, 6 sep, 7-9 tool result, 10 sep, 11 text.
    planner = FakePlanner("5,5\n7,9\n")
    result = await plan_and_compact(
        messages, entry_ids=ids, complete=planner, tokens_before=1000, on_event=events.append
    )
    system, user = planner.calls[0]
    assert system == PLANNER_SYSTEM_PROMPT
    assert "Relevance focus: great, now run the tests" in user
    assert "All green" not in user and "run the tests\n" not in user.split("</transcript>")[0]
    assert result.compacted_text == (
        "[User]: fix the failing test in calc.py\n\n[Assistant]: Let me read it.\n\n(filtered 1 lines)\n\n"
        "(filtered 3 lines)\n\n[Assistant]: The bug is a - b."
    )
    assert result.kept_messages == messages[4:]
    assert result.compacted_message_count == 4
    assert events == []

    wire = result.to_wire()
    assert set(wire) == {
        "compactedText",
        "firstKeptEntryId",
        "tokensBefore",
        "promptVersion",
        "parameters",
        "rung",
        "stats",
    }
    assert wire["firstKeptEntryId"] == "e5"
    assert wire["tokensBefore"] == 1000
    assert wire["promptVersion"] == 3
    assert wire["rung"] == "planned"
    assert wire["parameters"] == {
        "compression_ratio": 0.5,
        "preserve_recent": 2,
        "query": "great, now run the tests",
    }
    stats = wire["stats"]
    assert {k: stats[k] for k in ("linesBefore", "linesDeleted", "linesKept", "rangeCount")} == {
        "linesBefore": 11,
        "linesDeleted": 4,
        "linesKept": 7,
        "rangeCount": 2,
    }
    assert stats["tokensBefore"] == 1000
    assert 0 < stats["tokensAfter"] < 1000
    assert stats["percentReduction"] == round(100 * (1000 - stats["tokensAfter"]) / 1000)

    details = result.details_for_entry()
    assert details["strategy"] == "verbatim-lines"
    assert details["promptVersion"] == 3 and details["rung"] == "planned"
    assert details["parameters"] == wire["parameters"] and details["stats"] == stats


async def test_preserve_recent_zero_compacts_everything() -> None:
    messages, ids = conversation()
    planner = FakePlanner(lambda user: f"1,{total_lines(user)}")
    result = await plan_and_compact(
        messages, entry_ids=ids, preserve_recent=0, complete=planner, tokens_before=500, retry=FAST
    )
    assert result.first_kept_entry_id is None
    assert result.to_wire()["firstKeptEntryId"] is None
    assert result.kept_messages == []
    assert "All green." in planner.calls[0][1]
    # Every non-separator line went; separators survive between the markers.
    assert set(result.compacted_text.split("\n")) <= {"", "(filtered 1 lines)", "(filtered 3 lines)"}


async def test_preserve_recent_larger_than_transcript_is_nothing_to_compact() -> None:
    messages, ids = conversation()
    planner = FakePlanner("1,1")
    with pytest.raises(CompactionError, match="Nothing to compact"):
        await plan_and_compact(messages, entry_ids=ids, preserve_recent=10, complete=planner, tokens_before=1)
    with pytest.raises(CompactionError, match="Nothing to compact"):
        await plan_and_compact(messages, entry_ids=ids, preserve_recent=6, complete=planner, tokens_before=1)
    assert planner.calls == []


async def test_preserve_recent_counts_only_context_visible_messages() -> None:
    messages, ids = conversation()
    hidden = BashExecutionMessage(command="ls", output="x", exclude_from_context=True)
    messages = [*messages[:5], hidden, messages[5]]
    ids = [*ids[:5], "h1", ids[5]]
    result = await plan_and_compact(
        messages, entry_ids=ids, preserve_recent=2, complete=FakePlanner("1,1"), tokens_before=100
    )
    # Tail = user "run the tests", the hidden bash run, "All green." (two visible + one hidden).
    assert result.first_kept_entry_id == "e5"
    assert result.kept_messages == messages[4:]


async def test_first_kept_entry_id_skips_messages_without_an_entry() -> None:
    messages, ids = conversation()
    ids[4] = None
    result = await plan_and_compact(messages, entry_ids=ids, complete=FakePlanner("1,1"), tokens_before=100)
    assert result.first_kept_entry_id == "e6"


async def test_explicit_query_is_used_and_recorded() -> None:
    messages, ids = conversation()
    planner = FakePlanner("3,3")
    result = await plan_and_compact(
        messages,
        entry_ids=ids,
        query="calc.py bug",
        compression_ratio=0.3,
        complete=planner,
        tokens_before=10,
    )
    assert "Relevance focus: calc.py bug" in planner.calls[0][1]
    assert "keep about 3 lines and delete about 8 lines" in planner.calls[0][1]
    assert result.to_wire()["parameters"] == {
        "compression_ratio": 0.3,
        "preserve_recent": 2,
        "query": "calc.py bug",
    }


async def test_default_query_without_user_message() -> None:
    messages = [
        AssistantMessage(content=[TextContent(text="a\nb")]),
        AssistantMessage(content=[TextContent(text="c")]),
    ]
    planner = FakePlanner("1,1")
    await plan_and_compact(
        messages, entry_ids=["a", "b"], preserve_recent=1, complete=planner, tokens_before=10
    )
    assert "Relevance focus: the latest user request" in planner.calls[0][1]


@pytest.mark.parametrize("answer", ["Sure! I'd delete the tool output.", "", "1-3"])
async def test_garbage_planner_answer_is_an_error(answer: str) -> None:
    messages, ids = conversation()
    with pytest.raises(CompactionError, match="no usable deletion record"):
        await plan_and_compact(messages, entry_ids=ids, complete=FakePlanner(answer), tokens_before=10)


async def test_records_only_on_protected_or_out_of_range_lines_are_an_error() -> None:
    messages, ids = conversation()
    # Line 2 is a blank separator; 500 is beyond the 11 lines of the region.
    with pytest.raises(CompactionError, match="out of range or covered only protected lines"):
        await plan_and_compact(
            messages, entry_ids=ids, complete=FakePlanner("2,2\n500,600"), tokens_before=10
        )


async def test_truncated_reply_uses_only_complete_records() -> None:
    messages, ids = conversation()
    planner = FakePlanner(PlannerReply("7,9\n1,1\n3,", truncated=True))
    result = await plan_and_compact(messages, entry_ids=ids, complete=planner, tokens_before=10)
    assert result.compacted_text.startswith("(filtered 1 lines)\n\n[Assistant]: Let me read it.")
    assert result.stats.lines_deleted == 4


async def test_prose_around_records_is_ignored() -> None:
    messages, ids = conversation()
    planner = FakePlanner("Deleting:\n9,7\nthat's all")
    result = await plan_and_compact(messages, entry_ids=ids, complete=planner, tokens_before=10)
    assert "(filtered 3 lines)" in result.compacted_text and "a - b\n# end" not in result.compacted_text


def long_conversation(turns: int) -> tuple[list[Any], list[str | None]]:
    messages: list[Any] = [UserMessage(content="<keepContext>\nALWAYS use tabs\n</keepContext>")]
    for index in range(turns):
        messages.append(AssistantMessage(content=[TextContent(text=f"step {index}\n" + "detail " * 20)]))
    messages += [UserMessage(content="continue"), AssistantMessage(content=[TextContent(text="ok")])]
    return messages, [f"e{i}" for i in range(len(messages))]


async def test_oversized_prompt_trims_oldest_lines_and_counts_them_deleted() -> None:
    messages, ids = long_conversation(40)
    full = Transcript.from_messages(messages[:-2])
    planner = FakePlanner(lambda user: f"{total_lines(user) - 1},{total_lines(user) - 1}")
    limit = 6000
    result = await plan_and_compact(
        messages, entry_ids=ids, complete=planner, tokens_before=10_000, max_planner_chars=limit
    )
    assert len(planner.calls) == 1
    system, user = planner.calls[0]
    assert len(system) + len(user) <= limit
    seen = total_lines(user)
    assert 0 < seen < full.total
    assert result.trimmed_lines == full.total - seen
    assert "step 0\n" not in user  # the oldest history is not shown to the planner
    out = result.compacted_text.split("\n")
    # The protected keepContext block at the very start survives the trim, verbatim.
    assert out[:3] == ["[User]: <keepContext>", "ALWAYS use tabs", "</keepContext>"]
    # Marker counts plus kept lines still account for every original line.
    counted = sum(int(m.group(1)) if (m := re.match(r"^\(filtered (\d+) lines\)$", ln)) else 1 for ln in out)
    assert counted == full.total
    assert result.stats.lines_deleted == result.stats.lines_before - result.stats.lines_kept


async def test_prompt_that_cannot_fit_is_an_error() -> None:
    messages, ids = long_conversation(3)
    with pytest.raises(CompactionError, match="cannot fit"):
        await plan_and_compact(
            messages, entry_ids=ids, complete=FakePlanner("1,1"), tokens_before=10, max_planner_chars=100
        )


async def test_provider_overflow_trims_and_retries() -> None:
    messages, ids = long_conversation(20)
    planner = FakePlanner(
        lambda user: f"{total_lines(user)},{total_lines(user)}",
        errors=[ProviderError("prompt is too long", kind="overflow")],
    )
    result = await plan_and_compact(messages, entry_ids=ids, complete=planner, tokens_before=10)
    first, second = (total_lines(user) for _, user in planner.calls)
    assert second < first
    assert result.trimmed_lines == first - second


async def test_repeated_overflow_gives_up_with_compaction_error() -> None:
    messages, ids = long_conversation(20)
    errors: list[Exception] = [ProviderError("too long", kind="overflow") for _ in range(10)]
    planner = FakePlanner("1,1", errors=errors)
    with pytest.raises(CompactionError, match="still too large"):
        await plan_and_compact(messages, entry_ids=ids, complete=planner, tokens_before=10)
    assert len(planner.calls) == 4


async def test_transient_errors_retry_with_spec_events() -> None:
    messages, ids = conversation()
    events: list[dict[str, Any]] = []
    planner = FakePlanner(
        "1,1",
        errors=[ProviderError("terminated", kind="transient"), ProviderError("overloaded", kind="transient")],
    )
    result = await plan_and_compact(
        messages,
        entry_ids=ids,
        complete=planner,
        tokens_before=10,
        retry=FAST,
        on_event=events.append,
        reason="threshold",
    )
    assert len(planner.calls) == 3
    assert result.stats.lines_deleted == 1
    assert events == [
        {
            "type": "summarization_retry_scheduled",
            "attempt": 1,
            "maxAttempts": 3,
            "delayMs": 1,
            "errorMessage": "terminated",
        },
        {"type": "summarization_retry_attempt_start", "source": "compaction", "reason": "threshold"},
        {
            "type": "summarization_retry_scheduled",
            "attempt": 2,
            "maxAttempts": 3,
            "delayMs": 2,
            "errorMessage": "overloaded",
        },
        {"type": "summarization_retry_attempt_start", "source": "compaction", "reason": "threshold"},
        {"type": "summarization_retry_finished"},
    ]


async def test_transient_errors_exhaust_retries_and_propagate() -> None:
    messages, ids = conversation()
    events: list[dict[str, Any]] = []
    errors: list[Exception] = [ProviderError(f"boom {i}", kind="transient") for i in range(4)]
    planner = FakePlanner("1,1", errors=errors)
    with pytest.raises(ProviderError, match="boom 3"):
        await plan_and_compact(
            messages, entry_ids=ids, complete=planner, tokens_before=10, retry=FAST, on_event=events.append
        )
    assert len(planner.calls) == 4
    assert [e["type"] for e in events].count("summarization_retry_scheduled") == 3
    assert [e["delayMs"] for e in events if "delayMs" in e] == [1, 2, 4]
    assert events[-1] == {"type": "summarization_retry_finished"}


async def test_default_retry_policy_matches_spec() -> None:
    policy = RetryPolicy()
    assert (policy.max_retries, policy.base_delay_ms) == (3, 2000)
    assert [policy.delay_ms(n) for n in (1, 2, 3)] == [2000, 4000, 8000]


async def test_non_transient_error_is_not_retried() -> None:
    messages, ids = conversation()
    events: list[dict[str, Any]] = []
    planner = FakePlanner("1,1", errors=[ProviderError("bad key", kind="auth")])
    with pytest.raises(ProviderError, match="bad key"):
        await plan_and_compact(
            messages, entry_ids=ids, complete=planner, tokens_before=10, retry=FAST, on_event=events.append
        )
    assert len(planner.calls) == 1 and events == []


async def test_recompacting_compacted_history_keeps_original_counts() -> None:
    messages, ids = long_conversation(6)
    first = await plan_and_compact(
        messages, entry_ids=ids, complete=FakePlanner(lambda u: "5,7\n9,9"), tokens_before=10
    )
    original_lines = Transcript.from_messages(messages[:-2]).total
    follow_up = [UserMessage(content="next"), AssistantMessage(content=[TextContent(text="done")])]
    context = [boundary_message(first.compacted_text, 10), *first.kept_messages, *follow_up]
    # Delete everything the planner may: old markers get swallowed and their counts carried.
    second = await plan_and_compact(
        context,
        entry_ids=[None, "e8", "e9", "n1", "n2"],
        complete=FakePlanner(lambda u: f"1,{total_lines(u)}"),
        tokens_before=10,
    )
    assert second.first_kept_entry_id == "n1"
    region_text = serialize_messages(context[:3])
    assert region_text.startswith(first.compacted_text)
    out = second.compacted_text.split("\n")
    counted = sum(int(m.group(1)) if (m := re.match(r"^\(filtered (\d+) lines\)$", ln)) else 1 for ln in out)
    # Original lines of the first region + separator + the two re-serialized tail messages.
    assert counted == original_lines + len(serialize_messages(context[1:3]).split("\n")) + 1
    # The keepContext block from the very first message is still there, byte for byte.
    assert "[User]: <keepContext>\nALWAYS use tabs\n</keepContext>" in second.compacted_text


async def test_invalid_parameters_are_rejected() -> None:
    messages, ids = conversation()
    with pytest.raises(CompactionError, match="compression_ratio"):
        await plan_and_compact(
            messages, entry_ids=ids, compression_ratio=0, complete=FakePlanner("1,1"), tokens_before=1
        )
    with pytest.raises(ValueError, match="entry_ids"):
        await plan_and_compact(messages, entry_ids=ids[:2], complete=FakePlanner("1,1"), tokens_before=1)
