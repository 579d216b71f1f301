"""The approval card: a tool call waits above the editor for y (allow once), a (always, offered only
when the engine names a rule to save) or n (reject).

It never takes keys the person is typing. While keys keep coming (typed before the card appeared, or
since), they go to the editor as usual; the card takes the keyboard only after `GRACE_S` with no key
pressed, and every key restarts that wait. Until then its choices are disabled, so neither a letter
nor Enter (a steer meant for the agent) can answer it. "No" can carry a reason for the model.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.timer import Timer
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from atomic.core.contract import ApprovalAnswer, ApprovalRequest, Decision

GRACE_S = 0.5
WAITING_HINT = "typing goes to the editor · keys answer once you pause (0.5 s)"
READY_HINT = "y yes · a always · n no · r no, with a reason · ↑↓ enter choose · esc no"
# No "always" when there is no rule to save (a protected path, a chain with expansions): it would be
# asked again anyway, and a choice that says "always" must mean it.
READY_HINT_NO_ALWAYS = "y yes · n no · r no, with a reason · ↑↓ enter choose · esc no"
REASON_HINT = "enter: say no with this reason · esc: no, without a reason"


def _always_label(request: ApprovalRequest) -> str:
    # The engine names the exact rule an "always" answer saves: the card says it, word for word.
    rule = request.always_rule or ""
    home = str(Path.home())
    if home != "/":
        rule = rule.replace(home + "/", "~/")
    return f"Yes, and always allow {rule} (saved) (a)"


def ready_hint(request: ApprovalRequest) -> str:
    return READY_HINT if request.always_rules else READY_HINT_NO_ALWAYS


class ApprovalCard(Vertical):
    """Calls `on_answer` once with the answer (None: closed by the engine, e.g. the run was aborted)."""

    DEFAULT_CSS = """
    ApprovalCard {
        height: auto; margin: 0 1; padding: 0 1;
        border: round $warning; border-title-color: $warning; border-title-style: bold;
    }
    ApprovalCard.-ready { border: round $accent; border-title-color: $accent; }
    ApprovalCard #approval-title { height: auto; }
    ApprovalCard #approval-why { height: auto; color: $warning; }
    ApprovalCard #approval-preview { height: auto; max-height: 24; }
    /* A blank line between what is asked (title, reason, preview) and the choices. */
    ApprovalCard OptionList, ApprovalCard OptionList:focus {
        height: auto; border: none; padding: 0; margin-top: 1; background: transparent;
    }
    ApprovalCard OptionList:disabled { opacity: 60%; }
    ApprovalCard Input { display: none; border: tall $boost; }
    ApprovalCard.-reason Input { display: block; }
    ApprovalCard #approval-hint { color: $text-muted; height: auto; }
    ApprovalCard.-waiting #approval-hint { color: $warning; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "decide('allow_once')", show=False),
        Binding("a", "decide('allow_always')", show=False),
        Binding("n", "decide('reject_once')", show=False),
        Binding("r", "ask_reason", show=False),
        Binding("escape", "reject", show=False, priority=True),
    ]

    def __init__(
        self,
        request: ApprovalRequest,
        preview: Content,
        on_answer: Callable[[Decision | ApprovalAnswer | None], None],
        *,
        grace_s: float = GRACE_S,
    ) -> None:
        super().__init__(classes="-waiting")
        self.request = request
        self.preview = preview
        self.on_answer = on_answer
        self.grace_s = grace_s
        self.ready = False
        self.answered = False
        self._timer: Timer | None = None
        self.border_title = f"Allow {request.tool_name}?"

    def compose(self) -> ComposeResult:
        labels: dict[Decision, str] = {
            "allow_once": "Yes, run it (y)" if self.request.kind == "execute" else "Yes, allow it (y)"
        }
        if self.request.always_rules:
            labels["allow_always"] = _always_label(self.request)
        labels["reject_once"] = "No, tell the model to do something else (n; r: with a reason)"
        yield Static(self._title(), id="approval-title", markup=False)
        if self.request.asked_because:
            yield Static(f"Asked because {self.request.asked_because}", id="approval-why", markup=False)
        if self.preview.plain:
            yield Static(self.preview, id="approval-preview")
        choices = OptionList(*[Option(label, id=d) for d, label in labels.items()], id="approval-choices")
        choices.disabled = True
        yield choices
        yield Input(placeholder="why not? (the model reads this)", id="approval-reason")
        yield Static(WAITING_HINT, id="approval-hint")

    def _title(self) -> str:
        # A command of several lines is shown whole, highlighted, in the preview: the title says how many
        # lines there are instead of repeating them (broken across the title's backticks).
        command = self.request.args.get("command") if self.request.kind == "execute" else None
        if isinstance(command, str) and "\n" in command.strip() and self.preview.plain:
            return f"Run this {len(command.strip().splitlines())}-line command:"
        return self.request.title

    def on_mount(self) -> None:
        self.query_one(OptionList).highlighted = 0
        self.restart_grace()

    # ------------------------------------------------------------------ grace

    def key_pressed(self) -> None:
        """A key reached the app: while waiting, it went to the editor and the wait starts over."""
        if not self.ready:
            self.restart_grace()

    def restart_grace(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(self.grace_s, self._grace_over)

    def _grace_over(self) -> None:
        self._timer = None
        if self.answered:
            return
        self.ready = True
        self.remove_class("-waiting")
        self.add_class("-ready")
        choices = self.query_one(OptionList)
        choices.disabled = False
        choices.focus(scroll_visible=False)
        self.query_one("#approval-hint", Static).update(ready_hint(self.request))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("decide", "reject", "ask_reason") and not self.ready:
            return False
        if action == "decide" and parameters == ("allow_always",) and not self.request.always_rules:
            return False  # nothing would be remembered: `a` does not pass for "always"
        return True

    # ------------------------------------------------------------------ answers

    def action_decide(self, decision: Decision) -> None:
        self.answer(decision)

    def action_reject(self) -> None:
        self.answer("reject_once")

    def action_ask_reason(self) -> None:
        self.add_class("-reason")
        self.query_one("#approval-hint", Static).update(REASON_HINT)
        self.query_one(Input).focus()

    @on(Input.Submitted, "#approval-reason")
    def _reason_given(self, event: Input.Submitted) -> None:
        event.stop()
        self.answer(ApprovalAnswer("reject_once", event.value))

    @on(OptionList.OptionSelected, "#approval-choices")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        for decision in ("allow_once", "allow_always", "reject_once"):
            if event.option.id == decision:
                self.answer(decision)

    def answer(self, answer: Decision | ApprovalAnswer | None) -> None:
        if self.answered:
            return
        self.answered = True
        if self._timer is not None:
            self._timer.stop()
        self.on_answer(answer)
