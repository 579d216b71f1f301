"""A big export stays fast: pygments only up to a budget of code (later blocks go out escaped, marked
for the page's script to colour), and simple texts skip the markdown parser with the same HTML."""

from __future__ import annotations

import random
import re

import pytest

from atomic.core.export import export_session_html, markdown_render
from atomic.core.export.markdown_fast import render_simple
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


SIMPLE_SAMPLES = [
    "Let me read the file for step 12.",
    "First line\nsecond line (with parentheses) and \"quotes\".\n\n\nNew paragraph: it's fine!",
    "Please look at step 3: why does the `python` build fail? " * 3,
    "The fix:\n\n```python\nx = '<b>'\n```\n\n- keep the **types** explicit\n- run the tests again\n",
]
NOT_SIMPLE = ["1. one", "A *star*", "x & y", "Heading\n===", "a  \nb", "    code", "A | B", "- a\n\n- b",
              "Text\n```\ncode\n```", "[link](x)", "```\nunclosed"]
WORDS = ["Word", "it's", "(x)", "a/b", '"q"', "why?", "x;", "A1", "`code`", "`a<b`", "**bold**", "**b c**",
         "(**z**)", "x-y", "=", "#", "5.", "**x**,", "a**b**", "`x``y`", "* ", "_u_", "~~s~~", "&amp;", "  "]


def _generated(rng: random.Random) -> str:
    """Paragraphs, lists and fences with the near misses the fast path must leave to markdown-it."""

    def line() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6))) + rng.choice(["", "", " ", "  "])

    def block() -> str:
        kind = rng.random()
        if kind < 0.4:
            return "\n".join(line() for _ in range(rng.randint(1, 3)))
        if kind < 0.7:
            return "\n".join(rng.choice(["- ", "- ", "* ", "-  ", "1. "]) + line() for _ in range(rng.randint(1, 3)))
        body = "\n".join(rng.choice(["a = 1", "", "  ```", "<b>&", "x"]) for _ in range(rng.randint(0, 3)))
        return f"```{rng.choice(['', 'python', 'c++', 'x y'])}\n{body}" + rng.choice(["\n```", "\n```  ", "\n````", ""])

    separator = rng.choice(["\n\n", "\n", "\n \n"])
    return separator.join(block() for _ in range(rng.randint(1, 4))) + rng.choice(["", "\n"])


def test_simple_texts_render_exactly_as_markdown_it_does() -> None:
    rng = random.Random(7)
    samples = SIMPLE_SAMPLES + [_generated(rng) for _ in range(3000)]
    fast = 0
    with highlight_budget(0):  # fenced code as the page gets it past the budget; the same for both
        for text in samples:
            for breaks, soft_break in ((False, "\n"), (True, "<br />\n")):
                simple = render_simple(text, soft_break, markdown_render._fence)
                if simple is not None:
                    fast += 1
                    assert simple == markdown_render._markdown(breaks).render(text), text
    assert fast > 300
    for text in SIMPLE_SAMPLES:
        assert render_simple(text, "\n", markdown_render._fence) is not None, text
    for text in NOT_SIMPLE:
        assert render_simple(text, "\n", markdown_render._fence) is None, text
    assert re.fullmatch(r"<p>Let me read the file for step 12\.</p>\n", render_markdown(SIMPLE_SAMPLES[0]))
