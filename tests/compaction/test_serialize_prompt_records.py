"""Transcript serialization, the planner prompt, and parsing the planner's answer."""

from __future__ import annotations

import pytest

from atomic.core.compaction.errors import CompactionError
from atomic.core.compaction.prompt import (
    PLANNER_SYSTEM_PROMPT,
    PROMPT_VERSION,
    build_planner_prompt,
    target_keep_lines,
)
from atomic.core.compaction.records import parse_deletion_records
from atomic.core.compaction.serialize import TOOL_RESULT_MAX_CHARS, Transcript, serialize_messages
from atomic.core.compaction.tokens import estimate_messages_tokens, estimate_text_tokens
from atomic.core.messages import (
    AssistantMessage,
    BashExecutionMessage,
    CompactionSummaryMessage,
    CustomMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)


def _tool_result(text: str) -> ToolResultMessage:
    return ToolResultMessage(tool_call_id="c1", tool_name="read", content=[TextContent(text=text)])


# ----------------------------------------------------------------------------- serialize


def test_serializes_every_role_with_headers_and_blank_separators() -> None:
    messages = [
        UserMessage(content="fix the test"),
        AssistantMessage(
            content=[
                ThinkingContent(thinking="look at it"),
                TextContent(text="Reading."),
                ToolCall(id="1", name="read", arguments={"path": "a.py", "limit": 5}),
                ToolCall(id="2", name="bash", arguments={"command": 'ls "x"'}),
            ]
        ),
        _tool_result("line1\nline2"),
        BashExecutionMessage(command="pytest", output="1 failed", exit_code=1),
        CustomMessage(custom_type="note", content="from an extension"),
        CompactionSummaryMessage(summary="[User]: old\n(filtered 3 lines)"),
    ]
    assert serialize_messages(messages) == (
        "[User]: fix the test\n\n"
        "[Assistant thinking]: look at it\n\n"
        "[Assistant]: Reading.\n\n"
        '[Assistant tool calls]: read(path="a.py", limit=5); bash(command="ls \\"x\\"")\n\n'
        "[Tool result]: line1\nline2\n\n"
        "[User]: Ran `pytest`\n1 failed\n(exit code 1)\n\n"
        "[User]: from an extension\n\n"
        "[User]: old\n(filtered 3 lines)"
    )


def test_images_become_placeholder_lines() -> None:
    image = ImageContent(data="AAAA", mime_type="image/png")
    message = UserMessage(content=[TextContent(text="look:"), image, TextContent(text="and this"), image])
    assert serialize_messages([message]) == "[User]: look:\n[image]\nand this\n[image]"


def test_tool_results_are_capped_with_a_note() -> None:
    text = "x" * (TOOL_RESULT_MAX_CHARS + 123)
    out = serialize_messages([_tool_result(text)])
    assert out == "[Tool result]: " + "x" * TOOL_RESULT_MAX_CHARS + "\n\n[... 123 more characters truncated]"


def test_excluded_bash_and_empty_or_redacted_content_are_skipped() -> None:
    messages = [
        BashExecutionMessage(command="secret", output="x", exclude_from_context=True),
        AssistantMessage(content=[ThinkingContent(thinking="opaque", redacted=True), TextContent(text="")]),
        UserMessage(content="only me"),
    ]
    assert serialize_messages(messages) == "[User]: only me"


def test_transcript_marks_separators_keep_context_and_prior_markers() -> None:
    messages = [
        UserMessage(content="<keepContext>\nnever lose this\n</keepContext>\nbut this can go"),
        _tool_result("<keepContext>\ntool text is not protected\n</keepContext>"),
        CompactionSummaryMessage(
            summary="[User]: earlier\n(filtered 7 lines)\n\n[Assistant]: x\n<keepContext>\nkept\n</keepContext>"
        ),
    ]
    transcript = Transcript.from_messages(messages)
    assert transcript.lines[0] == "[User]: <keepContext>"
    # 1-3 keepContext, 5 and 9 separators, 12 separator inside the old summary, 14-16 old block.
    assert transcript.protected == frozenset({1, 2, 3, 5, 9, 12, 14, 15, 16})
    assert transcript.prior_markers == {11: 7}


def test_user_typed_marker_text_outside_a_summary_is_not_a_prior_marker() -> None:
    assert Transcript.from_messages([UserMessage(content="(filtered 9 lines)")]).prior_markers == {}


def test_view_from_renumbers_protection_and_markers() -> None:
    transcript = Transcript.from_text("a\n(filtered 4 lines)\n\n[User]: b\n<keepContext>\nc\n</keepContext>")
    view = transcript.view_from(3)
    assert view.lines[0] == ""
    assert view.protected == {n - 2 for n in transcript.protected if n > 2}
    assert transcript.prior_markers == {2: 4} and view.prior_markers == {}


# ----------------------------------------------------------------------------- tokens


def test_token_estimates_use_chars_over_four_and_fixed_image_cost() -> None:
    assert estimate_text_tokens("abcde") == 2
    image = ImageContent(data="A" * 100000, mime_type="image/png")
    assert estimate_messages_tokens([UserMessage(content=[image])]) == 1200
    assert (
        estimate_messages_tokens([BashExecutionMessage(command="ls", output="x", exclude_from_context=True)])
        == 0
    )


# ----------------------------------------------------------------------------- prompt


def test_planner_prompt_numbers_lines_and_states_targets() -> None:
    transcript = Transcript.from_messages(
        [UserMessage(content="<keepContext>\nrule\n</keepContext>"), _tool_result("a\nb\nc")]
    )
    system, user = build_planner_prompt(transcript, compression_ratio=0.5, query="fix the test")
    assert PROMPT_VERSION == 3
    assert system is PLANNER_SYSTEM_PROMPT and "ONLY output deletion records" in system
    assert "1→[User]: <keepContext>\n2→rule\n3→</keepContext>\n4→\n5→[Tool result]: a\n6→b\n7→c\n" in user
    assert "The transcript has 7 lines." in user
    assert "keep about 4 lines and delete about 3 lines" in user
    assert "Relevance focus: fix the test" in user
    assert "Protected ranges: 1-3" in user
    assert "`start,end`" in user


def test_target_keep_rounds_half_up() -> None:
    assert target_keep_lines(5, 0.5) == 3
    assert target_keep_lines(812, 0.5) == 406
    assert target_keep_lines(10, 1.0) == 10


# ----------------------------------------------------------------------------- records


def test_parses_bare_records_and_ignores_prose() -> None:
    answer = "Here are the deletions:\n```\n12,40\n 3 , 5 \n- 7,8\n9-10\n1,2,3\n61,61\n```\nDone."
    assert parse_deletion_records(answer) == [(12, 40), (3, 5), (61, 61)]


def test_untruncated_last_line_without_newline_is_used() -> None:
    assert parse_deletion_records("1,2\n5,9") == [(1, 2), (5, 9)]


def test_truncated_answer_drops_its_last_fragment() -> None:
    assert parse_deletion_records("1,2\n5,9\n12,3", truncated=True) == [(1, 2), (5, 9)]
    assert parse_deletion_records("1,2\n5,9\n12,", truncated=True) == [(1, 2), (5, 9)]
    # Cut exactly after a newline: nothing is a fragment.
    assert parse_deletion_records("1,2\n5,9\n", truncated=True) == [(1, 2), (5, 9)]


def test_crlf_answers_parse() -> None:
    assert parse_deletion_records("1,2\r\n3,4\r\n") == [(1, 2), (3, 4)]


@pytest.mark.parametrize("answer", ["", "I cannot help with that.", "1-5\n7-9", "12,", "99999999999999999,1"])
def test_no_usable_record_is_an_error(answer: str) -> None:
    with pytest.raises(CompactionError, match="no usable deletion record"):
        parse_deletion_records(answer)


def test_only_record_truncated_is_an_error() -> None:
    with pytest.raises(CompactionError):
        parse_deletion_records("12,34", truncated=True)


def test_huge_tool_call_arguments_are_capped() -> None:
    from atomic.core.compaction.serialize import TOOL_RESULT_MAX_CHARS, format_tool_call
    from atomic.core.messages import ToolCall

    call = ToolCall(id="c1", name="write", arguments={"path": "big.txt", "content": "x" * 50_000})
    text = format_tool_call(call)
    assert text.startswith('write(path="big.txt", content="xxx')
    assert len(text) < TOOL_RESULT_MAX_CHARS + 200
    assert "more characters truncated]" in text
