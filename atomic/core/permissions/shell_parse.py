"""Reading a bash command the way bash will: its simple commands, and whether each one is literal.

A rule that lets a command run without asking ("always", `permissions.allow`) may only cover what
the person could read off the approval. So a command counts as literal only when the bash grammar
(tree-sitter-bash) finds nothing but plain simple commands joined by `;`, `&&`, `||`, `|`, `&` or
newlines, each made of plain words: no parameter expansion (`$X`, `${...}`, `$'...'`), command,
process or arithmetic substitution, backslash, glob, brace expansion, redirection, here-doc or
leading `NAME=value`. Quotes are fine as long as what they hold is plain. The grammar's words are
then checked against `shlex` as a second reading: when the two disagree the command is not literal.

Non-literal commands are still split into parts (best effort) so a deny rule can see them.
"""

from __future__ import annotations

import functools
import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

# Characters that bash treats specially outside quotes: any of them in a plain word makes it non-literal.
_SPECIAL_UNQUOTED = frozenset("$`\\*?[]{}()<>|&;'\"\n\t !~")
# Inside double quotes bash still expands these.
_SPECIAL_DOUBLE_QUOTED = frozenset("$`\\")
# Nodes that join simple commands without changing what each one does.
_SEPARATORS = frozenset({";", "&", "&&", "||", "|", "|&", "\n"})
_JOINING_NODES = frozenset({"program", "list", "pipeline"})


@dataclass(frozen=True)
class SimpleCommand:
    """One command of a (possibly chained) command line."""

    words: tuple[str, ...]  # after quote removal; for a non-literal part, its plain words only
    literal: bool
    text: str


@dataclass(frozen=True)
class ParsedCommand:
    parts: tuple[SimpleCommand, ...]
    # Every part is literal and nothing but separators joins them (no subshell, loop or function).
    literal: bool

    @property
    def is_chain(self) -> bool:
        return len(self.parts) > 1


@functools.cache
def _parser() -> Parser:
    # Imported on the first bash approval, never at start-up.
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_bash.language()))


def warm_up() -> None:
    """Load the grammar ahead of the first bash approval (run in a daemon thread, off the event loop)."""
    _parser()


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")


def _word_value(node: Node) -> str | None:
    """The word after quote removal, or None when bash would expand or reinterpret it."""
    kind = node.type
    text = _text(node)
    if kind in ("word", "number"):
        return None if any(ch in _SPECIAL_UNQUOTED for ch in text) or text.startswith("#") else text
    if kind == "raw_string":
        return text[1:-1] if len(text) >= 2 else None
    if kind == "string":
        if any(child.type not in ('"', "string_content") for child in node.children):
            return None
        inner = text[1:-1]
        return None if any(ch in _SPECIAL_DOUBLE_QUOTED for ch in inner) else inner
    if kind == "concatenation":
        values = [_word_value(child) for child in node.children]
        return None if any(v is None for v in values) else "".join(v for v in values if v is not None)
    return None


def _simple_command(node: Node) -> SimpleCommand:
    words: list[str] = []
    literal = True
    for child in node.children:
        target = child.children[0] if child.type == "command_name" and child.children else child
        value = _word_value(target)
        if value is None:
            literal = False
            # A deny rule still sees the plain words around what cannot be read.
            continue
        words.append(value)
    text = _text(node)
    if literal:
        try:
            literal = shlex.split(text, comments=False) == words
        except ValueError:
            literal = False
    return SimpleCommand(tuple(words), literal, text)


def _collect(node: Node, parts: list[SimpleCommand], spans: list[tuple[int, int]] | None = None) -> bool:
    """Append the simple commands under `node`; True when the structure is only joined simple commands.
    `spans` gets the byte range of each top-level command and comment (see `_only_separators_between`)."""
    kind = node.type
    if kind in ("command", "comment") and spans is not None:
        spans.append((node.start_byte, node.end_byte))
    if kind == "command":
        parts.append(_simple_command(node))
        # A substitution inside an argument is a command of its own, for deny rules.
        for child in node.children:
            _collect_nested(child, parts)
        return True
    if kind == "comment":
        return True
    if kind in _JOINING_NODES:
        plain = True
        for child in node.children:
            if not child.is_named:
                plain = plain and child.type in _SEPARATORS
                continue
            plain = _collect(child, parts, spans) and plain
        return plain
    # Redirections, subshells, loops, functions, assignments, here-docs, negations: never literal.
    _collect_nested(node, parts)
    return False


def _collect_nested(node: Node, parts: list[SimpleCommand]) -> None:
    for child in node.children:
        if child.type == "command":
            _collect(child, parts)
        else:
            _collect_nested(child, parts)


_SEPARATOR_BYTES = frozenset(b" \t\n;&|")


def _only_separators_between(source: bytes, spans: list[tuple[int, int]]) -> bool:
    """True when every byte outside the commands and comments is a blank or an operator. The grammar
    drops some text it cannot place (`a \\ ;` parses as `a` alone, while bash passes a " " argument),
    so what lies between the commands is checked too."""
    covered = bytearray(len(source))
    for start, end in spans:
        covered[start:end] = b"\x01" * (end - start)
    return all(flag or byte in _SEPARATOR_BYTES for byte, flag in zip(source, covered, strict=True))


def parse_command(command: str) -> ParsedCommand:
    """Split `command` into simple commands and decide whether it is literal (see the module doc)."""
    if not command.strip() or "\x00" in command:
        return ParsedCommand((), False)
    source = command.encode("utf-8", errors="surrogateescape")
    root = _parser().parse(source).root_node
    parts: list[SimpleCommand] = []
    spans: list[tuple[int, int]] = []
    plain = _collect(root, parts, spans)
    # Marked non-literal parts (from a redirection, say) make the whole non-literal too.
    literal = plain and not root.has_error and bool(parts) and all(p.literal for p in parts)
    literal = literal and _only_separators_between(source, spans)
    return ParsedCommand(tuple(parts), literal)
