"""Server-side markdown and code highlighting for the HTML export.

Everything that leaves this module is safe to paste into HTML: markdown is parsed with raw HTML
disabled, fenced code is escaped by pygments (or by us when no lexer fits), and images become
links so the exported page never fetches anything from the network.

markdown-it and pygments are imported inside functions so that importing the export package
costs nothing until an export actually runs.
"""

from __future__ import annotations

import html
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from typing import Any

from atomic.core.export.markdown_fast import render_simple

# Highlighting a huge blob is slow and rarely useful; beyond this it is shown plain.
MAX_HIGHLIGHT_CHARS = 200_000
# Highlighted blocks up to this size are remembered (at most 512 of them, so a few MB).
CACHE_MAX_CHARS = 8_000

# How much code one export highlights with pygments (about a second of CPU; docs/performance.md).
# A bigger session's later blocks go out escaped and marked with their language family, and the
# page's own script colours them in the reader's browser, as pi's export does: a 50,000-entry
# session otherwise spent three quarters of its export in pygments.
HIGHLIGHT_BUDGET_CHARS = 400_000

LIGHT_PYGMENTS_STYLE = "default"
DARK_PYGMENTS_STYLE = "github-dark"


def escape(text: object) -> str:
    """HTML-escape any value (quotes too, so the result is also safe inside attributes)."""
    return html.escape(str(text), quote=True)


@lru_cache(maxsize=1)
def _formatter() -> Any:
    from pygments.formatters import HtmlFormatter

    # One formatter for the whole process: building one costs as much as highlighting a small
    # block (it derives a stylesheet), and it caches the span opener of each token type.
    # nowrap: we supply our own <pre><code>; pygments escapes every token it emits.
    return HtmlFormatter(nowrap=True)


@lru_cache(maxsize=256)
def _lexer_for_language(language: str) -> Any:
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(language, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


# File name (without its folder) -> lexer or None.
_FILE_LEXERS: dict[str, Any] = {}


def _lexer_for_file(filename: str, code: str) -> Any:
    # Cached per file name: the lookup matches the name against every lexer's patterns, which
    # costs more than highlighting a typical block, and a session reads the same files again and
    # again. (Not per suffix: CMakeLists.txt and notes.txt need different lexers.) The first
    # content seen decides a name that several lexers claim.
    name = filename.replace("\\", "/").rsplit("/", 1)[-1]
    if name not in _FILE_LEXERS:
        from pygments.lexers import get_lexer_for_filename
        from pygments.util import ClassNotFound

        try:
            _FILE_LEXERS[name] = get_lexer_for_filename(name, code[:4000], stripnl=False, ensurenl=False)
        except ClassNotFound:
            _FILE_LEXERS[name] = None
    return _FILE_LEXERS[name]


def _highlight_with(lexer: Any, code: str) -> str:
    from pygments import highlight

    return str(highlight(code, lexer, _formatter()))


@lru_cache(maxsize=512)
def _highlight_cached(lexer: Any, code: str) -> str:
    # The same file is often read, edited and read again in one session.
    return _highlight_with(lexer, code)


def highlight_code(code: str, language: str | None = None, filename: str | None = None) -> str:
    """Escaped, token-coloured HTML for `code` (no wrapper). Falls back to plain escaping."""
    if not code or len(code) > MAX_HIGHLIGHT_CHARS:
        return escape(code)
    lexer = None
    if language:
        lexer = _lexer_for_language(language.lower())
    elif filename:
        lexer = _lexer_for_file(filename, code)
    if lexer is None:
        return escape(code)
    return _highlight_cached(lexer, code) if len(code) <= CACHE_MAX_CHARS else _highlight_with(lexer, code)


class _Budget:
    __slots__ = ("left",)

    def __init__(self, chars: int) -> None:
        self.left = chars


_budget: ContextVar[_Budget | None] = ContextVar("atomic_export_highlight_budget", default=None)


@contextmanager
def highlight_budget(chars: int | None = None) -> Iterator[None]:
    """Within this block `code_block` highlights at most `chars` (default HIGHLIGHT_BUDGET_CHARS)
    characters of code server-side, in page order; once a block does not fit, it and every later
    one is left to the browser."""
    token = _budget.set(_Budget(HIGHLIGHT_BUDGET_CHARS if chars is None else chars))
    try:
        yield
    finally:
        _budget.reset(token)


# Language names and file suffixes -> the families the page's script knows (style.PAGE_SCRIPT).
_FAMILIES = {
    "py": ("python", "py", "python3", "py3", "pyw", "pyi", "sage"),
    "sh": ("bash", "sh", "shell", "zsh", "ksh", "console", "shell-session", "fish", "dockerfile", "make",
           "makefile", "mk", "yaml", "yml", "toml", "ini", "cfg", "conf", "properties", "r", "ruby", "rb", "perl",
           "pl", "tcl", "nix"),
    "c": ("c", "h", "cpp", "c++", "cc", "cxx", "hpp", "hh", "hxx", "objc", "m", "mm", "java", "kotlin", "kt", "kts",
          "scala", "swift", "go", "golang", "rust", "rs", "javascript", "js", "mjs", "cjs", "jsx", "typescript", "ts",
          "tsx", "cs", "csharp", "c#", "php", "dart", "groovy", "gradle", "zig", "v", "d", "sol", "solidity",
          "proto", "protobuf", "css", "scss", "less"),
    "json": ("json", "jsonc", "json5", "jsonl", "ndjson", "geojson"),
}
_FAMILY_OF = {name: family for family, names in _FAMILIES.items() for name in names}


def _family(language: str | None, filename: str | None) -> str | None:
    if language:
        return _FAMILY_OF.get(language.lower())
    if filename:
        name = filename.replace("\\", "/").rsplit("/", 1)[-1].lower()
        return _FAMILY_OF.get(name.rsplit(".", 1)[-1] if "." in name else name)
    return None


def code_block(code: str, language: str | None = None, filename: str | None = None) -> str:
    """A complete `<pre class="hl"><code>` block (highlighted later in the browser past the budget)."""
    lang_class = f' class="language-{escape(language)}"' if language else ""
    budget = _budget.get()
    if budget is not None and code and len(code) <= MAX_HIGHLIGHT_CHARS:
        if budget.left >= len(code):
            budget.left -= len(code)
        else:
            budget.left = 0
            family = _family(language, filename)
            marker = f' data-hl="{family}"' if family else ""
            return f'<pre class="hl"><code{lang_class}{marker}>{escape(code)}</code></pre>'
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


def _fence(content: str, language: str) -> str:
    return _fence_highlight(content, language, "")


def render_markdown(text: str, *, keep_line_breaks: bool = False) -> str:
    """Markdown to safe HTML. `keep_line_breaks` turns single newlines into <br> (user prompts)."""
    if text:
        # Plain paragraphs, simple lists and fenced code: the same HTML without the parser.
        simple = render_simple(text, "<br />\n" if keep_line_breaks else "\n", _fence)
        if simple is not None:
            return simple
    return str(_markdown(keep_line_breaks).render(text or ""))


@lru_cache(maxsize=1)
def pygments_css() -> str:
    """Token colours for `.hl` blocks: a light palette, and a dark one under prefers-color-scheme."""
    from pygments.formatters import HtmlFormatter

    light = HtmlFormatter(style=LIGHT_PYGMENTS_STYLE).get_token_style_defs(".hl")
    dark = HtmlFormatter(style=DARK_PYGMENTS_STYLE).get_token_style_defs(".hl")
    return "\n".join(light) + "\n@media (prefers-color-scheme: dark) {\n" + "\n".join(dark) + "\n}\n"
