"""What the app's helpers see of it: `AppHost`, the base class of `AtomicApp`.

The helpers (slash commands, input flow, events bridge, extension UI, approvals, trust flow) are typed
against this class, never against atomic.tui.app, which imports them: so no TUI module imports the app
back, and mypy still checks every attribute they use. The attributes are assigned by `AtomicApp`
(in `__init__`, `compose` and `start_session`); the methods are implemented there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from textual.app import App
from textual.reactive import reactive

from atomic.core.engine.options import SessionOptions  # a plain dataclass: cheap to import
from atomic.tui.completion import CompletionPopup
from atomic.tui.conversation import Conversation
from atomic.tui.editor import PromptEditor
from atomic.tui.footer import ExtensionWidgets, QueuePanel, StatusFooter, WorkingIndicator
from atomic.tui.keybindings import KeyTable
from atomic.tui.renderer import ConversationRenderer
from atomic.tui.status import StatusRecord
from atomic.tui.todo_panel import TodoPanel

if TYPE_CHECKING:
    from atomic.core.contract import Engine


class SlashRunner(Protocol):
    """The slash commands as the command palette runs them (atomic.tui.commands.SlashCommands)."""

    async def run(self, text: str) -> bool: ...


class AppHost(App[int]):
    # What the footer, the queue panel and the editor's border show (atomic.tui.status): set a new record
    # to change them.
    status: reactive[StatusRecord] = reactive(StatusRecord, init=False)
    # The engine; None until it has started.
    engine: Engine
    options: SessionOptions
    keys: KeyTable
    slash: SlashRunner
    clock: Callable[[], float]
    session_ready: bool
    git_branch: str | None
    # None until the terminal reports focus changes (not every terminal does).
    terminal_focused: bool | None
    # How long an approval card waits after the last key before it takes answers.
    approval_grace_s: float

    # Widgets, created in compose.
    conversation: Conversation
    renderer: ConversationRenderer
    editor: PromptEditor
    completion: CompletionPopup
    working: WorkingIndicator
    queue_panel: QueuePanel
    todo_panel: TodoPanel
    extension_widgets: ExtensionWidgets
    footer: StatusFooter

    def apply_settings(self) -> None:
        """Apply the look and queue modes the settings ask for."""
        raise NotImplementedError

    def after_state_change(self) -> None:
        """Read the status record afresh and apply the settings (after a command, a screen or a run)."""
        raise NotImplementedError

    def load_prompt_history(self) -> None:
        """Up recalls the prompts of the session just opened."""
        raise NotImplementedError

    def show_error(self, text: str) -> None:
        raise NotImplementedError

    def set_activity(self, state: str | None) -> None:
        """What Atomic is doing, for the terminal's title (`working`, `waiting for approval`; None: idle)."""
        raise NotImplementedError

    def notify_attention(self, text: str) -> None:
        """Something waits for the person (an approval): a desktop notification when they are enabled."""
        raise NotImplementedError

    def restore_to_editor(self, texts: list[str]) -> None:
        """Put texts back into the editor in front of what is typed."""
        raise NotImplementedError
