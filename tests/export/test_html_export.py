"""The generated page: escaping, branch selection, rendering of each kind of entry, and totals."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from atomic.core.export import (
    EMPTY_ERROR,
    IN_MEMORY_ERROR,
    default_export_path,
    export_session_html,
    write_session_html,
)
from atomic.core.export.branch import active_branch, usage_totals
from tests.export.html_probe import probe
from tests.export.session_fixture import (
    ABANDONED_TEXT,
    ACTIVE_LEAF,
    EXPECTED_CACHE_READ,
    EXPECTED_CACHE_WRITE,
    EXPECTED_COST,
    EXPECTED_INPUT,
    EXPECTED_OUTPUT,
    HEADER,
    IMG_PAYLOAD,
    SCRIPT_PAYLOAD,
    build_entries,
)


def render(entries: list[dict[str, Any]] | None = None, leaf: str | None = ACTIVE_LEAF, **kw: Any) -> str:
    return export_session_html(header=HEADER, entries=entries or build_entries(), leaf_id=leaf, **kw)


def user_session(text: str, extra: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    first = {
        "type": "message",
        "id": "u1",
        "parentId": None,
        "timestamp": "2026-01-01T00:00:00Z",
        "message": {"role": "user", "content": text},
    }
    return [first, *(extra or [])]


def facts(html: str, section: str) -> dict[str, str]:
    """The <dt>/<dd> pairs of the first <dl> after `section`."""
    chunk = html[html.index(section) :]
    chunk = chunk[: chunk.index("</dl>")]
    pairs = re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", chunk)
    return {key: value for key, value in pairs}


# ------------------------------------------------------------------ escaping


def test_hostile_text_is_shown_as_text_and_creates_no_elements() -> None:
    html = render(
        title=None,
        system_prompt=SCRIPT_PAYLOAD,
        tools=[{"name": IMG_PAYLOAD, "description": SCRIPT_PAYLOAD, "parameters": {"x": IMG_PAYLOAD}}],
    )
    page = probe(html)
    scripts = page.tags("script")
    assert [s.attrs.get("id") for s in scripts] == ["atomic-export-script"]
    assert page.tags("img") == []
    for element in page.elements:
        assert not any(name.startswith("on") for name in element.attrs), element
    # The payloads are visible as text: in the user prompt, its code fence, the tool output.
    assert page.text.count(SCRIPT_PAYLOAD) >= 3
    assert IMG_PAYLOAD in page.text
    assert "<b>x</b>" in page.text  # the cwd
    assert "src/<evil>.py" in page.text  # a file name in a tool call
    assert "<u>checkpoint</u>" in page.text  # a label
    assert "overloaded <again>" in page.text  # an error message
    assert page.title == f"Fix {SCRIPT_PAYLOAD} bug - Atomic session"


def test_explicit_title_is_escaped() -> None:
    page = probe(render(title="<img src=x onerror=alert(1)>"))
    assert page.tags("img") == []
    assert page.title.startswith("<img src=x onerror=alert(1)>")


def test_markdown_links_and_images_are_defanged() -> None:
    text = "[click](javascript:alert(1)) ![remote](https://example.com/track.png) [ok](https://example.com/)"
    page = probe(render(user_session(text), leaf="u1"))
    hrefs = [a.attrs.get("href") for a in page.tags("a")]
    assert "https://example.com/" in hrefs
    assert not any(h and h.startswith("javascript") for h in hrefs)
    # A remote image would be a network request: it becomes a link instead.
    assert page.tags("img") == []
    assert "[image: remote]" in page.text
    assert "<link" not in render(user_session(text), leaf="u1")


def test_content_security_policy_allows_only_our_script() -> None:
    html = render()
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert csp is not None
    assert "default-src &#x27;none&#x27;" in csp.group(1)
    assert "unsafe-inline&#x27;; img" not in csp.group(1).split("script-src")[1].split(";")[0]
    assert "sha256-" in csp.group(1)


# ------------------------------------------------------------------ branch selection


def test_only_the_active_branch_is_shown() -> None:
    html = render()
    assert ABANDONED_TEXT not in html
    assert "Done. All good." in html
    assert "14 of 16 entries" in probe(html).text


def test_other_leaf_shows_the_other_branch() -> None:
    html = render(leaf="x2")
    assert ABANDONED_TEXT in html
    assert "Done. All good." not in html
    assert "file-one.txt" in html  # shared history before the fork point


def test_leaf_none_means_last_entry_and_unknown_leaf_fails() -> None:
    assert [e["id"] for e in active_branch(build_entries(), None)][-1] == "m9"
    with pytest.raises(ValueError, match="Unknown leaf"):
        render(leaf="nope")


def test_parent_cycle_does_not_hang() -> None:
    entries = user_session(
        "loop",
        [
            {
                "type": "message",
                "id": "a",
                "parentId": "b",
                "timestamp": "",
                "message": {"role": "user", "content": "A"},
            },
            {
                "type": "message",
                "id": "b",
                "parentId": "a",
                "timestamp": "",
                "message": {"role": "user", "content": "B"},
            },
        ],
    )
    assert [e["id"] for e in active_branch(entries, "a")] == ["b", "a"]


# ------------------------------------------------------------------ totals


def test_totals_sum_the_active_branch_only() -> None:
    totals = usage_totals(active_branch(build_entries(), ACTIVE_LEAF))
    assert (totals.input, totals.output) == (EXPECTED_INPUT, EXPECTED_OUTPUT)
    assert (totals.cache_read, totals.cache_write) == (EXPECTED_CACHE_READ, EXPECTED_CACHE_WRITE)
    assert totals.cost == pytest.approx(EXPECTED_COST)
    assert totals.models == {"anthropic/claude-sonnet-4-5": 3, "openai/gpt-5<i>": 1}

    shown = facts(render(), "Usage (active branch)")
    assert shown["Input tokens"] == f"{EXPECTED_INPUT:,}"
    assert shown["Output tokens"] == f"{EXPECTED_OUTPUT:,}"
    assert shown["Cache read tokens"] == f"{EXPECTED_CACHE_READ:,}"
    assert shown["Cache write tokens"] == f"{EXPECTED_CACHE_WRITE:,}"
    assert shown["Total cost"] == f"${EXPECTED_COST:.4f}"


def test_whole_session_cost_is_mentioned_when_branches_differ() -> None:
    text = probe(render()).text
    assert f"${EXPECTED_COST + 9.5:.2f}" in text


def test_models_used_are_listed() -> None:
    text = probe(render()).text
    assert "anthropic/claude-sonnet-4-5 (3 messages)" in text
    assert "openai/gpt-5<i> (1 message)" in text


def test_malformed_usage_counts_as_zero() -> None:
    entries = user_session(
        "hi",
        [
            {
                "type": "message",
                "id": "a1",
                "parentId": "u1",
                "timestamp": "",
                "message": {
                    "role": "assistant",
                    "content": "oops",
                    "usage": {"input": "many", "output": True, "cost": None},
                },
            }
        ],
    )
    totals = usage_totals(entries)
    assert (totals.input, totals.output, totals.cost) == (0, 0, 0.0)
    assert "Assistant" in probe(render(entries, leaf="a1")).text.title()


# ------------------------------------------------------------------ rendering


def test_header_facts() -> None:
    shown = facts(render(), '<dl class="facts">')
    assert HEADER["id"] in shown["Session"]
    assert shown["Created"] == "2026-12-02 13:32:49 UTC"
    assert "/tmp/proj&lt;b&gt;x&lt;/b&gt;" in shown["Directory"]


def test_code_is_highlighted_and_thinking_is_collapsible() -> None:
    html = render()
    assert '<code class="language-python">' in html
    assert re.search(r'<span class="k">def</span>', html)
    assert '<details class="thinking"><summary>Thinking</summary>' in html
    assert "Let me think about <b>this</b>." in probe(html).text


def test_edit_diff_is_coloured_by_line_kind() -> None:
    html = render()
    added = re.search(r'<span class="dl add"><span class="ln">\+2</span>(.*?)</span>', html)
    removed = re.search(r'<span class="dl del"><span class="ln">-2</span>(.*?)</span>', html)
    assert added and added.group(1) == "print(&#x27;&lt;script&gt;new&lt;/script&gt;&#x27;)"
    assert removed and removed.group(1) == "print(&#x27;&lt;old&gt;&#x27;)"
    assert '<span class="dl ctx"><span class="ln">1</span>import os</span>' in html


def test_tool_calls_show_name_arguments_and_result() -> None:
    html = render()
    text = probe(html).text
    assert 'data-tool="bash"' in html and "ls <dir>" in text
    assert "file-one.txt" in text
    # Each result is shown once, inside its call, not again as a loose entry.
    assert text.count("file-one.txt") == 1
    assert 'data-tool="edit"' in html


def test_long_tool_output_is_collapsed() -> None:
    long_output = "\n".join(f"line {n}" for n in range(100))
    entries = user_session(
        "go",
        [
            {
                "type": "message",
                "id": "a1",
                "parentId": "u1",
                "timestamp": "",
                "message": {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "toolCall",
                            "id": "c1",
                            "name": "grep",
                            "arguments": {"pattern": "x", "context": 2},
                        }
                    ],
                },
            },
            {
                "type": "message",
                "id": "r1",
                "parentId": "a1",
                "timestamp": "",
                "message": {
                    "role": "toolResult",
                    "toolCallId": "c1",
                    "toolName": "grep",
                    "content": [{"type": "text", "text": long_output}],
                    "isError": False,
                },
            },
        ],
    )
    html = render(entries, leaf="r1")
    fold = re.search(r'<details class="fold"><summary>Output <span class="muted">\(100 lines\)</span>', html)
    assert fold is not None
    assert "line 99" in html
    assert '"context": 2' in probe(html).text  # non-header arguments shown as JSON


def test_bash_execution_shows_command_output_and_exit_code() -> None:
    html = render()
    assert "echo &#x27;&lt;script&gt;x&lt;/script&gt;&#x27;" in html
    assert '<span class="badge err">exit 3</span>' in html


def test_model_change_label_and_error_are_inline() -> None:
    text = probe(render()).text
    assert "Model: openai/gpt-5<i>" in text
    assert "Thinking level: medium" in text
    assert "Error: overloaded <again>" in text


def test_images_only_safe_raster_data_urls() -> None:
    png = {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}
    svg = {"type": "image", "mimeType": "image/svg+xml", "data": "PHN2Zz4="}
    bad = {"type": "image", "mimeType": "image/png", "data": '" onerror="alert(1)'}
    page = probe(render(user_session([{"type": "text", "text": "pics"}, png, svg, bad]), leaf="u1"))  # type: ignore[arg-type]
    sources = [img.attrs.get("src") for img in page.tags("img")]
    assert sources == ["data:image/png;base64,iVBORw0KGgo="]


def test_compaction_and_orphan_tool_result() -> None:
    entries = user_session(
        "start",
        [
            {
                "type": "compaction",
                "id": "c1",
                "parentId": "u1",
                "timestamp": "",
                "summary": "We did **stuff**",
                "firstKeptEntryId": "u1",
                "tokensBefore": 12345,
            },
            {
                "type": "message",
                "id": "r1",
                "parentId": "c1",
                "timestamp": "",
                "message": {
                    "role": "toolResult",
                    "toolCallId": "gone",
                    "toolName": "read",
                    "content": [{"type": "text", "text": "orphan output"}],
                    "isError": True,
                },
            },
        ],
    )
    html = render(entries, leaf="r1")
    assert "Context compacted (12,345 tokens before)" in probe(html).text
    assert "<strong>stuff</strong>" in html
    assert "orphan output" in html and '<div class="tool-result error">' in html


# ------------------------------------------------------------------ errors and files


def test_empty_session_is_an_error() -> None:
    with pytest.raises(ValueError, match=f"^{EMPTY_ERROR}$"):
        export_session_html(header=HEADER, entries=[], leaf_id=None)
    only_settings = [
        {
            "type": "model_change",
            "id": "e1",
            "parentId": None,
            "timestamp": "",
            "provider": "p",
            "modelId": "m",
        }
    ]
    with pytest.raises(ValueError, match=EMPTY_ERROR):
        export_session_html(header=HEADER, entries=only_settings, leaf_id="e1")


def test_default_export_path(tmp_path: Path) -> None:
    session = tmp_path / "sessions" / "2026-12-02T13-32-49-597Z_abc.jsonl"
    assert (
        default_export_path(session, tmp_path)
        == tmp_path / "atomic-session-2026-12-02T13-32-49-597Z_abc.html"
    )
    with pytest.raises(ValueError, match=f"^{IN_MEMORY_ERROR}$"):
        default_export_path(None, tmp_path)


def test_write_session_html_writes_the_page(tmp_path: Path) -> None:
    target = tmp_path / "out" / "page.html"
    returned = write_session_html(target, header=HEADER, entries=build_entries(), leaf_id=ACTIVE_LEAF)
    assert returned == target
    assert target.read_text(encoding="utf-8") == render()
    assert sorted(p.name for p in target.parent.iterdir()) == ["page.html"]


def test_no_all_branches_note_for_a_linear_session() -> None:
    entries = user_session(
        "hi",
        [
            {
                "type": "message",
                "id": "a1",
                "parentId": "u1",
                "timestamp": "",
                "message": {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "yo"}],
                    "usage": {"input": 7, "cost": {"total": 0.5}},
                },
            }
        ],
    )
    text = probe(render(entries, leaf="a1")).text
    assert "All branches" not in text
    assert "$0.5000" in text
