"""The engine state the chrome shows, as one record: the app holds it as a Textual reactive, and the footer,
the queue panel and the editor's border watch it. Whoever learns of a change (an engine event, a command)
sets a new record; a widget repaints only when the record differs from the last one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from atomic.tui.formatting import tilde

if TYPE_CHECKING:
    from atomic.core.contract import Engine, SandboxStatus, SessionStats


def sandbox_label(status: SandboxStatus) -> str:
    """What the footer says about the sandbox: nothing in the default (workspace-write, network on,
    provided by the OS), so the everyday footer stays short; every weaker or stricter state is named."""
    if status.mode == "off":
        return "sandbox off"
    if not status.available:
        return "no sandbox (not supported here)"
    parts = ["sandbox read-only"] if status.mode == "read-only" else []
    if not status.network:
        parts.append("no network")
    return ", ".join(parts)


@dataclass(frozen=True)
class ModelStatus:
    provider: str | None = None
    model_id: str | None = None
    thinking_level: str = "off"
    reasoning: bool = False
    # More than one provider is set up: the footer names the model's provider too.
    show_provider: bool = False
    # After a /logout the model stays selected, but the next message would be refused.
    has_key: bool = True


@dataclass(frozen=True)
class StatusRecord:
    folder: str = ""
    branch: str | None = None
    session_name: str | None = None
    sandbox: str = ""
    stats: SessionStats | None = None
    model: ModelStatus = ModelStatus()
    permission_mode: str | None = None
    steering: tuple[str, ...] = ()
    follow_up: tuple[str, ...] = ()


def model_status(engine: Engine) -> ModelStatus:
    models = engine.models
    model = models.model
    if model is None:
        return ModelStatus(thinking_level=models.thinking_level)
    return ModelStatus(
        provider=model.provider,
        model_id=model.id,
        thinking_level=models.thinking_level,
        reasoning=bool(model.reasoning),
        show_provider=len({m.provider for m in models.available_models()}) > 1,
        has_key=models.has_auth(model),
    )


def read_status(engine: Engine, branch: str | None, held_follow_ups: list[str]) -> StatusRecord:
    """Everything read afresh (a session opened, a command or screen done); `held_follow_ups` are the
    messages the TUI keeps until a compaction ends."""
    queue = engine.queue()
    return StatusRecord(
        folder=tilde(engine.cwd),
        branch=branch,
        session_name=engine.session_name,
        sandbox=sandbox_label(engine.sandbox_status()),
        stats=engine.session_stats(),
        model=model_status(engine),
        permission_mode=engine.permission_mode,
        steering=tuple(queue.steering),
        follow_up=(*queue.follow_up, *held_follow_ups),
    )
