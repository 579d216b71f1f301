"""Every command of the protocol is declared once: its request model and its handler agree."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import get_args

import pytest

from atomic.rpc import protocol as p
from atomic.rpc.handlers import COMMAND_MODELS, COMMAND_TYPES, HANDLERS, MODEL_BY_TYPE, handles

# The commands of the RPC protocol document, written out here (tests never read the document).
PROTOCOL_COMMANDS = frozenset({
    "prompt", "steer", "follow_up", "abort", "clear_queue", "new_session", "get_state", "get_messages",
    "set_model", "cycle_model", "get_available_models", "logout_provider", "set_thinking_level",
    "cycle_thinking_level", "get_available_thinking_levels", "set_steering_mode", "set_follow_up_mode",
    "compact", "set_auto_compaction", "set_auto_retry", "abort_retry", "bash", "abort_bash",
    "get_session_stats", "export_html", "switch_session", "fork", "clone", "get_fork_messages",
    "get_entries", "get_tree", "get_last_assistant_text", "set_session_name", "get_commands",
    "extension_ui_response",
})


def _type_of(model: type) -> str:
    return str(get_args(model.model_fields["type"].annotation)[0])


def test_each_command_model_is_declared_once() -> None:
    counts = Counter(_type_of(model) for model in COMMAND_MODELS)
    assert [name for name, n in counts.items() if n > 1] == []


def test_every_protocol_command_has_a_model_and_a_handler() -> None:
    assert PROTOCOL_COMMANDS - COMMAND_TYPES == set()
    assert PROTOCOL_COMMANDS - set(HANDLERS) == set()


def test_models_and_handlers_name_the_same_commands() -> None:
    assert set(HANDLERS) == COMMAND_TYPES


def test_each_handler_is_declared_for_its_own_model() -> None:
    assert all(p.command_type(model) == name for name, model in MODEL_BY_TYPE.items())
    assert list(HANDLERS) == list(MODEL_BY_TYPE)


def test_declaring_a_command_twice_fails() -> None:
    with pytest.raises(ValueError, match="declared twice"):
        handles(p.GetState)(HANDLERS["get_state"])
    assert len(HANDLERS) == len(COMMAND_MODELS)


def test_commands_beyond_the_protocol_are_documented() -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "rpc.md").read_text(encoding="utf-8")
    assert [name for name in sorted(COMMAND_TYPES - PROTOCOL_COMMANDS) if f'"{name}"' not in docs] == []
