"""The session's settings as ACP config options (model, thinking level, approvals) and legacy modes."""

from __future__ import annotations

from typing import Any

from acp.schema import SessionConfigOptionSelect, SessionConfigSelectOption, SessionMode, SessionModeState

from atomic.acp.errors import invalid_params
from atomic.core.contract import PERMISSION_MODES, Engine

MODEL_OPTION = "model"
THOUGHT_OPTION = "thought_level"
MODE_OPTION = "mode"

_MODE_NAMES = {
    "ask": "Ask before edits and commands",
    "accept-edits": "Accept edits",
    "yolo": "Never ask",
    "plan": "Plan (read-only until the plan is approved)",
}


def _model_value(provider: str, model_id: str) -> str:
    return f"{provider}/{model_id}"


def config_options(engine: Engine) -> list[Any]:
    models = engine.models.available_models()
    current = engine.models.model
    model_values = [SessionConfigSelectOption(value=_model_value(m.provider, m.id), name=m.name or m.id,
                                              description=m.provider) for m in models]
    current_model = _model_value(current.provider, current.id) if current else ""
    if current is not None and all(o.value != current_model for o in model_values):
        model_values.insert(0, SessionConfigSelectOption(value=current_model, name=current.name or current.id))
    levels = engine.models.supported_levels()
    return [
        SessionConfigOptionSelect(
            id=MODEL_OPTION, name="Model", category="model", type="select",
            current_value=current_model, options=model_values,
        ),
        SessionConfigOptionSelect(
            id=THOUGHT_OPTION, name="Thinking", category="thought_level", type="select",
            current_value=engine.models.thinking_level,
            options=[SessionConfigSelectOption(value=level, name=level) for level in levels],
        ),
        SessionConfigOptionSelect(
            id=MODE_OPTION, name="Approvals", category="mode", type="select",
            current_value=engine.permission_mode,
            options=[SessionConfigSelectOption(value=mode, name=_MODE_NAMES[mode]) for mode in PERMISSION_MODES],
        ),
    ]


_MODE_DESCRIPTIONS = {
    "ask": "Bash, write, edit and MCP tools wait for your approval",
    "accept-edits": "File edits run at once; commands and MCP tools still ask",
    "yolo": "Every tool runs without asking",
    "plan": "Read-only tools until you approve the model's plan",
}


def approval_modes(engine: Engine) -> SessionModeState:
    """The approval modes as legacy `modes`, for clients that read only those (Toad); Claude Code's
    adapter puts its permission modes there too. Model and thinking level stay config options."""
    return SessionModeState(
        current_mode_id=engine.permission_mode,
        available_modes=[
            SessionMode(id=mode, name=_MODE_NAMES[mode], description=_MODE_DESCRIPTIONS[mode])
            for mode in PERMISSION_MODES
        ],
    )


def apply_mode(engine: Engine, mode_id: str) -> None:
    """`session/set_mode`: an approval mode; a thinking level is still accepted from older clients."""
    if mode_id in PERMISSION_MODES:
        engine.set_permission_mode(mode_id)
    elif mode_id in engine.models.supported_levels():
        engine.models.set_thinking_level(mode_id)
    else:
        raise invalid_params(f"Unknown mode {mode_id!r}: use one of {', '.join(PERMISSION_MODES)}")


def apply_option(engine: Engine, config_id: str, value: object) -> None:
    if not isinstance(value, str):
        raise invalid_params(f"{config_id} takes a string value")
    if config_id == MODEL_OPTION:
        provider, _, model_id = value.partition("/")
        if not model_id:
            raise invalid_params(f"Unknown model {value!r}: use provider/model-id")
        try:
            engine.models.set_model(provider, model_id)
        except Exception as exc:
            raise invalid_params(str(exc)) from exc
    elif config_id == THOUGHT_OPTION:
        apply_thinking_level(engine, value)
    elif config_id == MODE_OPTION:
        try:
            engine.set_permission_mode(value)
        except ValueError as exc:
            raise invalid_params(str(exc)) from exc
    else:
        raise invalid_params(f"Unknown config option {config_id!r}")


def apply_thinking_level(engine: Engine, level: str) -> None:
    if level not in engine.models.supported_levels():
        raise invalid_params(f"Thinking level {level!r} is not supported by this model: {engine.models.supported_levels()}")
    engine.models.set_thinking_level(level)
