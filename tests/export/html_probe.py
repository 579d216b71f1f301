"""A tiny HTML reader for tests: which elements exist, with what attributes, and the visible text."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser


@dataclass
class Element:
    tag: str
    attrs: dict[str, str | None]


@dataclass
class Probe(HTMLParser):
    elements: list[Element] = field(default_factory=list)
    text_parts: list[str] = field(default_factory=list)
    title_parts: list[str] = field(default_factory=list)
    _skip_depth: int = 0
    _in_title: bool = False

    def __post_init__(self) -> None:
        super().__init__(convert_charrefs=True)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append(Element(tag, dict(attrs)))
        if tag in ("script", "style"):
            self._skip_depth += 1
        self._in_title = tag == "title"

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self._skip_depth:
            self._skip_depth -= 1
        if tag == "title":
            self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title_parts.append(data)
        elif not self._skip_depth:
            self.text_parts.append(data)

    @property
    def text(self) -> str:
        return "".join(self.text_parts)

    @property
    def title(self) -> str:
        return "".join(self.title_parts)

    def tags(self, tag: str) -> list[Element]:
        return [e for e in self.elements if e.tag == tag]


def probe(html: str) -> Probe:
    reader = Probe()
    reader.feed(html)
    reader.close()
    return reader
