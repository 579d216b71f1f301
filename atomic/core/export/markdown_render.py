"""Server-side markdown and code highlighting for the HTML export.

Everything that leaves this module is safe to paste into HTML: markdown is parsed with raw HTML
disabled, fenced code is escaped by pygments (or by us when no lexer fits), and images become
links so the exported page never fetches anything from the network.

markdown-it and pygments are imported inside functions so that importing the export package
costs nothing until an export actually runs.
"""

from __future__ import annotations

import html
from functools import lru_cache
from typing import Any

# Highlighting a huge blob is slow and rarely useful; beyond this it is shown plain.
MAX_HIGHLIGHT_CHARS = 200_000

LIGHT_PYGMENTS_STYLE = "default"
DARK_PYGMENTS_STYLE = "github-dark"


def escape(text: object) -> str:
    """HTML-escape any value (quotes too, so the result is also safe inside attributes)."""
    return html.escape(str(text), quote=True)


def _highlight_with(lexer: Any, code: str) -> str:
    from pygments import highlight
    from pygments.formatters import HtmlFormatter

    # nowrap: we supply our own <pre><code>; pygments escapes every token it emits.
    return highlight(code, lexer, HtmlFormatter(nowrap=True))


def highlight_code(code: str, language: str | None = None, filename: str | None = None) -> str:
    """Escaped, token-coloured HTML for `code` (no wrapper). Falls back to plain escaping."""
    if not code or len(code) > MAX_HIGHLIGHT_CHARS:
        return escape(code)
    from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
    from pygments.util import ClassNotFound

    lexer = None
    try:
        if language:
            lexer = get_lexer_by_name(language, stripnl=False, ensurenl=False)
        elif filename:
            lexer = get_lexer_for_filename(filename, code, stripnl=False, ensurenl=False)
    except ClassNotFound:
        lexer = None
    if lexer is None:
        return escape(code)
    return _highlight_with(lexer, code)


def code_block(code: str, language: str | None = None, filename: str | None = None) -> str:
    """A complete `<pre class="hl"><code>` block."""
    lang_class = f' class="language-{escape(language)}"' if language else ""
    return f'<pre class="hl"><code{lang_class}>{highlight_code(code, language, filename)}</code></pre>'


def _fence_highlight(content: str, lang_name: str, _lang_attrs: str) -> str:
    # Returning a string that starts with "<pre" makes markdown-it use it verbatim, so the
    # escaping of both the language name and the code is done here, by code_block.
    return code_block(content.rstrip("\n"), lang_name or None)


def _render_image_as_link(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    src = token.attrGet("src") or ""
    alt = self.renderInlineAsText(token.children or [], options, env)
    label = f"[image: {alt}]" if alt else "[image]"
    return f'<a class="md-image" href="{escape(src)}">{escape(label)}</a>'


@lru_cache(maxsize=2)
def _markdown(breaks: bool) -> Any:
    from markdown_it import MarkdownIt

    md = MarkdownIt(
        "commonmark",
        {
            "html": False,
            "linkify": False,
            "typographer": False,
            "breaks": breaks,
            "highlight": _fence_highlight,
        },
    )
    md.enable(["table", "strikethrough"])
    md.add_render_rule("image", _render_image_as_link)
    return md


def render_markdown(text: str, *, keep_line_breaks: bool = False) -> str:
    """Markdown to safe HTML. `keep_line_breaks` turns single newlines into <br> (user prompts)."""
    return str(_markdown(keep_line_breaks).render(text or ""))


@lru_cache(maxsize=1)
def pygments_css() -> str:
    """Token colours for `.hl` blocks: a light palette, and a dark one under prefers-color-scheme."""
    from pygments.formatters import HtmlFormatter

    light = HtmlFormatter(style=LIGHT_PYGMENTS_STYLE).get_token_style_defs(".hl")
    dark = HtmlFormatter(style=DARK_PYGMENTS_STYLE).get_token_style_defs(".hl")
    return "\n".join(light) + "\n@media (prefers-color-scheme: dark) {\n" + "\n".join(dark) + "\n}\n"
