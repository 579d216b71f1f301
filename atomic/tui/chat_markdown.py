"""Rich's Markdown as the conversation draws it: left-aligned headings, cached lexers and themes for
code blocks, and one shared markdown-it parser. Imported with the first reply drawn (streaming.py)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, ClassVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import CodeBlock, Heading, Markdown
from rich.syntax import Syntax, SyntaxTheme


class _LeftHeading(Heading):
    # Rich centres h1; in a chat column every heading reads better on the left.
    LEVEL_ALIGN: ClassVar[dict[str, Any]] = dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6"), "left")


@lru_cache(maxsize=64)
def _lexer(name: str) -> Any:
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(name, stripnl=False, ensurenl=True, tabsize=4)
    except ClassNotFound:
        return get_lexer_by_name("text", stripnl=False, ensurenl=True, tabsize=4)


@lru_cache(maxsize=8)
def _syntax_theme(name: str) -> SyntaxTheme:
    return Syntax.get_theme(name)


class _CodeBlock(CodeBlock):
    # Rich looks the lexer up by name and builds a new theme (with a cold style cache) for every code
    # block: most of the cost of a short block. Both are kept here.
    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = str(self.text).rstrip()
        yield Syntax(code, _lexer(self.lexer_name), theme=_syntax_theme(self.theme), word_wrap=True, padding=1)


_TEMPLATES: dict[str, Markdown] = {}
_PARSER: Any = None


class ChatMarkdown(Markdown):
    """Rich Markdown with left headings and one shared parser (Rich builds a new MarkdownIt per instance,
    which costs about as much as parsing a short block)."""

    elements: ClassVar[dict[str, Any]] = {
        **Markdown.elements,
        "heading_open": _LeftHeading,
        "fence": _CodeBlock,
        "code_block": _CodeBlock,
    }

    def __init__(self, markup: str, code_theme: str = "monokai") -> None:
        global _PARSER
        template = _TEMPLATES.get(code_theme)
        if template is None:
            template = _TEMPLATES[code_theme] = Markdown("", code_theme=code_theme)
        if _PARSER is None:
            from markdown_it import MarkdownIt

            _PARSER = MarkdownIt().enable("strikethrough").enable("table")
        self.__dict__.update(template.__dict__)  # every attribute Rich sets, whatever its version
        self.markup = markup
        self.parsed = _PARSER.parse(markup)
