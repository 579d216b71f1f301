"""The RPC docs and the code name the same commands and events.

docs/rpc-protocol.md is the protocol reference (one `#### \\`name\\`` section per protocol command,
an index table of events); docs/rpc.md documents Atomic's additions. Every command model and every
event type must be documented in one of the two, and neither page may name a command or event the
code does not have.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import get_args

import pytest

import atomic.core.extensions.events  # noqa: F401  (declares extension_ui_request)
from atomic.core import events as core_events
from atomic.core.events import Event
from atomic.rpc import protocol as p
from atomic.rpc.handlers import COMMAND_TYPES
from tests.rpc.test_command_declarations import PROTOCOL_COMMANDS

DOCS = Path(__file__).resolve().parents[2] / "docs"
REFERENCE = "rpc-protocol.md"
ADDITIONS = "rpc.md"


def _doc(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


# ----------------------------------------------------------------------------- the code's lists


def declared_commands() -> set[str]:
    """Every command model in atomic/rpc/protocol.py, and every command with a handler."""
    models = {
        p.command_type(value)
        for value in vars(p).values()
        if isinstance(value, type) and issubclass(value, p.Command) and value is not p.Command
    }
    return models | set(COMMAND_TYPES)


def _subclasses(cls: type) -> Iterator[type]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def declared_events() -> set[str]:
    """The `type` of every event: those of atomic/core/events.py and any other Event subclass."""
    classes = {v for v in vars(core_events).values() if isinstance(v, type) and issubclass(v, Event)}
    classes |= set(_subclasses(Event))
    classes.discard(Event)
    return {str(get_args(cls.model_fields["type"].annotation)[0]) for cls in classes}


# ----------------------------------------------------------------------------- what the docs name


def chapter(text: str, title: str) -> str:
    """The text of the `## title` chapter, up to the next `## ` heading."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match is not None, f"no '## {title}' chapter"
    return match.group(1)


def section_headings(text: str) -> set[str]:
    """Names of the `#### \\`name\\`` sections (one per command)."""
    return set(re.findall(r"^#### `(\w+)`\s*$", text, re.M))


def index_rows(text: str) -> set[str]:
    """Names linked from the first column of an index table: `| [\\`name\\`](#section) |`."""
    return set(re.findall(r"^\| \[`(\w+)`\]\(#", text, re.M))


def group_index(text: str) -> set[str]:
    """Names listed in the second column of the command groups table."""
    names: set[str] = set()
    for row in re.findall(r"^\| \[[^]]+\]\(#[^)]+\) \| (.+) \|$", text, re.M):
        names |= set(re.findall(r"`(\w+)`", row))
    return names


def wire_types(text: str) -> set[str]:
    """The `type` of every top-level wire object written out compactly (`{"type":"x"...`).

    Nested objects (content blocks, deltas, entries) follow `:`, `[` or `,` and are left out.
    """
    return set(re.findall(r'(?<![:\[,\w])\{"type":"(\w+)"', text))


def command_rows(text: str) -> set[str]:
    """Commands of rpc.md's tables, whose first column is the request: `| \\`{"type":"x"...}\\` |`."""
    return set(re.findall(r'^\| `\{"type":"(\w+)"', text, re.M))


def mentions(text: str, name: str) -> bool:
    return re.search(rf'[`"]{re.escape(name)}[`"]', text) is not None


# ----------------------------------------------------------------------------- code -> docs


def test_every_command_is_documented() -> None:
    docs = _doc(REFERENCE) + _doc(ADDITIONS)
    assert sorted(c for c in declared_commands() if not mentions(docs, c)) == []


def test_every_event_is_documented() -> None:
    docs = _doc(REFERENCE) + _doc(ADDITIONS)
    assert sorted(e for e in declared_events() if not mentions(docs, e)) == []


def test_each_protocol_command_has_its_own_section() -> None:
    commands = chapter(_doc(REFERENCE), "Commands")
    assert sorted(PROTOCOL_COMMANDS - section_headings(commands)) == []


def test_commands_beyond_the_protocol_are_in_rpc_md() -> None:
    additions = _doc(ADDITIONS)
    assert sorted(c for c in declared_commands() - PROTOCOL_COMMANDS if not mentions(additions, c)) == []


def test_the_command_index_lists_every_section() -> None:
    commands = chapter(_doc(REFERENCE), "Commands")
    assert group_index(commands) == section_headings(commands)


# ----------------------------------------------------------------------------- docs -> code


def test_the_reference_names_only_real_commands() -> None:
    commands = chapter(_doc(REFERENCE), "Commands")
    named = section_headings(commands) | group_index(commands)
    assert sorted(named - declared_commands()) == []


def test_the_reference_names_only_real_events() -> None:
    events = chapter(_doc(REFERENCE), "Events")
    assert sorted(index_rows(events) - declared_events()) == []


@pytest.mark.parametrize("page", [REFERENCE, ADDITIONS])
def test_wire_examples_use_only_real_types(page: str) -> None:
    text = _doc(page)
    known = declared_commands() | declared_events() | {"response"}
    assert sorted((wire_types(text) | command_rows(text)) - known) == []


def test_both_pages_link_to_each_other() -> None:
    assert "](rpc.md" in _doc(REFERENCE)
    assert "](rpc-protocol.md" in _doc(ADDITIONS)
    assert "](docs/rpc-protocol.md)" in (DOCS.parent / "README.md").read_text(encoding="utf-8")


def anchors(text: str) -> set[str]:
    """The anchors a Markdown renderer gives the page's headings (lower case, punctuation dropped)."""
    slugs = set()
    for heading in re.findall(r"^#+ (.+)$", text, re.M):
        slugs.add(re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-"))
    return slugs


@pytest.mark.parametrize("page", [REFERENCE, ADDITIONS])
def test_links_between_the_pages_land_on_a_heading(page: str) -> None:
    text = _doc(page)
    broken = []
    for target, anchor in re.findall(r"\]\(((?:rpc|rpc-protocol)\.md)?#([\w-]+)\)", text):
        if anchor not in anchors(_doc(target) if target else text):
            broken.append(f"{target}#{anchor}")
    assert broken == []


# ----------------------------------------------------------------------------- the checks can fail


def test_the_extractors_find_what_a_page_names() -> None:
    page = (
        "## Commands\n\n| group | commands |\n|---|---|\n| [Misc](#misc) | `get_state`, `make_coffee` |\n\n"
        "#### `make_coffee`\n\nBrews.\n\n"
        '```\n→ {"type":"make_coffee","strength":3}\n'
        '← {"type":"response","command":"make_coffee","success":true,"data":{"content":[{"type":"text"}]}}\n```\n'
        '| `{"type":"brew_tea"}` | none |\n'
        "## Events\n\n| event | when |\n|---|---|\n| [`coffee_ready`](#x) | done |\n"
    )
    commands = chapter(page, "Commands")
    assert section_headings(commands) == {"make_coffee"}
    assert group_index(commands) == {"get_state", "make_coffee"}
    assert wire_types(page) == {"make_coffee", "response", "brew_tea"}
    assert command_rows(page) == {"brew_tea"}
    assert index_rows(chapter(page, "Events")) == {"coffee_ready"}
    assert index_rows("| `field` | string |\n") == set()
    assert {"make_coffee", "brew_tea"} - declared_commands() == {"make_coffee", "brew_tea"}
    assert "coffee_ready" not in declared_events()
    assert mentions(page, "make_coffee") and not mentions(page, "make")
    assert anchors("## Events\n#### `agent_start` / `agent_end`\n") == {"events", "agent_start--agent_end"}


def test_the_code_lists_are_complete() -> None:
    # A sample of each kind, so a broken collector cannot pass every test above with an empty set.
    assert {"prompt", "get_state", "extension_ui_response", "get_mcp_servers"} <= declared_commands()
    assert {"agent_start", "message_update", "agent_settled", "extension_ui_request"} <= declared_events()
