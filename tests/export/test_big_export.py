"""A big export stays fast: pygments only up to a budget of code (later blocks go out escaped, marked
for the page's script to colour), and plain-sentence texts skip the markdown parser with the same HTML."""

from __future__ import annotations

import random
import re

import pytest

from atomic.core.export import export_session_html, markdown_render
from atomic.core.export.markdown_render import code_block, highlight_budget, render_markdown
from tests.export.session_fixture import ACTIVE_LEAF, HEADER, build_entries


def test_blocks_past_the_budget_are_escaped_and_marked_with_their_family() -> None:
    code = "def f():\n    return '<b>'\n"
    with highlight_budget(len(code) + 5):
        first = code_block(code, "python")
        second = code_block(code, "python")
        # Once one block did not fit, later (even small) ones stay in page order: browser-side too.
        third = code_block("x = 1\n", filename="src/tool.rs")
        unknown = code_block("plain", "no-such-language")
    assert '<span class="k">def</span>' in first and "data-hl" not in first
    assert second == (
        '<pre class="hl"><code class="language-python" data-hl="py">'
        "def f():\n    return &#x27;&lt;b&gt;&#x27;\n</code></pre>"
    )
    assert third == '<pre class="hl"><code data-hl="c">x = 1\n</code></pre>'
    assert unknown == '<pre class="hl"><code class="language-no-such-language">plain</code></pre>'
    # Outside an export nothing is deferred.
    assert '<span class="k">def</span>' in code_block(code, "python")


def test_an_export_past_the_budget_defers_its_later_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    everything = export_session_html(header=HEADER, entries=build_entries(), leaf_id=ACTIVE_LEAF)
    assert "data-hl=" not in everything and '<span class="k">def</span>' in everything
    monkeypatch.setattr(markdown_render, "HIGHLIGHT_BUDGET_CHARS", 0)
    deferred = export_session_html(header=HEADER, entries=build_entries(), leaf_id=ACTIVE_LEAF)
    assert '<code class="language-python" data-hl="py">def hello():\n    return &#x27;&lt;script&gt;&#x27;</code>' in deferred
    assert '<span class="k">def</span>' not in deferred


PLAIN_SAMPLES = [
    "Let me read the file for step 12.",
    "First line\nsecond line (with parentheses) and \"quotes\".\n\n\nNew paragraph: it's fine!",
    "\n\nLeading and trailing blank lines\n \n\t\nnext/one?\n\n",
]
NOT_PLAIN = ["- a list", "1. one", "A *star*", "Some `code`", "x & y", "Heading\n===", "a  \nb", "    code", "A | B"]


def test_plain_sentences_render_exactly_as_markdown_it_does() -> None:
    samples = list(PLAIN_SAMPLES)
    pieces = ["Word", "it's", "(x)", "a/b", "\"q\"", "why?", "no!", "x;", "A1", " ", "  ", "\n", "\n\n", "\n \n", "5."]
    rng = random.Random(7)
    samples += ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 12))) for _ in range(2000)]
    fast = 0
    for text in samples:
        for breaks in (False, True):
            fast += markdown_render._plain_paragraphs(text, breaks) is not None
            assert render_markdown(text, keep_line_breaks=breaks) == markdown_render._markdown(breaks).render(text)
    assert fast > 500
    for text in PLAIN_SAMPLES:
        assert markdown_render._plain_paragraphs(text, False) is not None
    for text in NOT_PLAIN:
        assert markdown_render._plain_paragraphs(text, False) is None, text
    assert re.fullmatch(r"<p>Let me read the file for step 12\.</p>\n", render_markdown(PLAIN_SAMPLES[0]))
