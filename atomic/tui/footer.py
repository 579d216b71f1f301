"""The footer (folder, branch, session name; tokens, cost, context; model), the working indicator, the queue
panel and the extension widgets above the editor."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.content import Content
from textual.timer import Timer
from textual.widgets import Static

from atomic.tui.formatting import flat_line, format_elapsed, format_tokens

if TYPE_CHECKING:
    from atomic.core.contract import SessionStats
    from atomic.tui.status import ModelStatus, StatusRecord


def usage_line(stats: SessionStats) -> Content:
    tokens = stats.tokens
    parts: list[Content | tuple[str, str] | str] = [
        f"↑{format_tokens(tokens.input)} ↓{format_tokens(tokens.output)} "
        f"R{format_tokens(tokens.cache_read)} W{format_tokens(tokens.cache_write)} "
        f"${stats.cost:.3f}"
    ]
    usage = stats.context_usage
    if usage:
        window = format_tokens(usage.context_window or 0)
        percent = usage.percent
        if percent is None:
            parts.append(f" ?/{window}")
        else:
            style = "$error" if percent > 90 else "$warning" if percent > 70 else ""
            parts.append(" ")
            parts.append((f"{percent:.1f}%/{window}", style))
    return Content.assemble(*parts)


# How the footer names each permission mode (always shown, so a yolo session never looks like an ask one).
PERMISSION_LABELS: dict[str, tuple[str, str]] = {
    "ask": ("ask before commands and edits", "$text-muted"),
    "accept-edits": ("edits allowed, commands asked", "$warning"),
    "yolo": ("yolo: nothing asked", "$error"),
}


def permission_label(mode: str) -> Content:
    text, style = PERMISSION_LABELS.get(mode, (mode, ""))
    return Content.assemble((f"⏵ {text}", style), (" (f2)", "$text-muted"))


def model_text(model: ModelStatus) -> str:
    if model.model_id is None:
        return "no model (/login or /model)"
    name = f"({model.provider}) {model.model_id}" if model.show_provider and model.provider else model.model_id
    level = model.thinking_level
    thinking = f" • {level}" if model.reasoning and level != "off" else " • thinking off" if model.reasoning else ""
    return name + thinking + ("" if model.has_key else " • no key (/login)")


class StatusFooter(Static):
    DEFAULT_CSS = """
    StatusFooter { height: auto; color: $text-muted; padding: 0 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.status: StatusRecord | None = None
        self.extension_statuses: dict[str, str] = {}

    def on_mount(self) -> None:
        self.watch(self.app, "status", self.show_status, init=False)

    def set_starting(self) -> None:
        """Shown for the few frames between the first paint and the engine being ready."""
        self.update(Content.styled("starting…", "$text-muted"))

    def show_status(self, status: StatusRecord) -> None:
        self.status = status
        self._render_footer()

    def set_extension_statuses(self, statuses: dict[str, str]) -> None:
        """Extension status entries (`ctx.ui.set_status`), shown on a third line sorted by key."""
        self.extension_statuses = dict(statuses)
        self._render_footer()

    def _render_footer(self) -> None:
        status = self.status
        if status is None:
            return
        location = status.folder + (f" ({status.branch})" if status.branch else "")
        if status.session_name:
            location += f" • {status.session_name}"
        if status.sandbox:
            location += f" • {status.sandbox}"
        left = usage_line(status.stats) if status.stats is not None else Content("")
        width = max(self.size.width - 2, 20) if self.size.width else 78
        first = Content(location)
        if status.permission_mode is not None:
            mode = permission_label(status.permission_mode)
            mode_gap = width - first.cell_length - mode.cell_length
            first = Content.assemble(first, " " * mode_gap if mode_gap >= 2 else "\n", mode)
        model = Content(model_text(status.model))
        gap = width - left.cell_length - model.cell_length
        if gap >= 2:
            second = Content.assemble(left, " " * gap, model)
        else:
            second = Content.assemble(left, "\n", model)
        lines: list[str | Content] = [first, "\n", second]
        if self.extension_statuses:
            entries = [" ".join(self.extension_statuses[k].split()) for k in sorted(self.extension_statuses)]
            lines += ["\n", Content("  ".join(e for e in entries if e))]
        self.update(Content.assemble(*lines))

    def on_resize(self) -> None:
        self._render_footer()


class WorkingIndicator(Static):
    """`Working… 12s (esc to interrupt)`; a one-second timer runs only while something is going on."""

    DEFAULT_CSS = """
    WorkingIndicator { height: 1; padding: 0 1; color: $accent; display: none; }
    WorkingIndicator.-active { display: block; }
    """

    def __init__(self, clock: Callable[[], float], *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.clock = clock
        self.started_at: float | None = None
        self.label = "Working…"
        self.hint = "esc to interrupt"
        self.countdown_until: float | None = None
        self._timer: Timer | None = None

    def start(self) -> None:
        self.started_at = self.clock()
        self.label, self.hint, self.countdown_until = "Working…", "esc to interrupt", None
        self._activate()

    def show_status(self, label: str, hint: str, countdown_s: float | None = None) -> None:
        """A retry or compaction status that replaces the working text until `clear_status`."""
        self.label, self.hint = label, hint
        self.countdown_until = self.clock() + countdown_s if countdown_s is not None else None
        if self.started_at is None:
            self.started_at = self.clock()
        self._activate()

    def clear_status(self, still_working: bool) -> None:
        self.countdown_until = None
        if still_working:
            self.label, self.hint = "Working…", "esc to interrupt"
            self.tick()
        else:
            self.stop()

    def _activate(self) -> None:
        self.add_class("-active")
        if self._timer is None:
            self._timer = self.set_interval(1.0, self.tick)
        self.tick()

    def stop(self) -> float:
        elapsed = self.clock() - self.started_at if self.started_at is not None else 0.0
        self.started_at = None
        self.countdown_until = None
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.remove_class("-active")
        return elapsed

    def tick(self) -> None:
        now = self.clock()
        label = self.label
        if self.countdown_until is not None:
            label = label.replace("{s}", str(max(0, round(self.countdown_until - now))))
        # A countdown is the number to watch: the turn's elapsed time would only compete with it.
        counting = self.countdown_until is not None
        elapsed = format_elapsed(now - self.started_at) if self.started_at is not None and not counting else ""
        self.update(
            Content.assemble(
                ("● ", "$accent"), label, (f" {elapsed}" if elapsed else "", "$text-muted"), (f" ({self.hint})", "$text-muted")
            )
        )


class QueuePanel(Static):
    """Queued steering and follow-up messages, shown above the editor."""

    DEFAULT_CSS = """
    QueuePanel { height: auto; padding: 0 1; color: $text-muted; display: none; }
    QueuePanel.-active { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.steering: list[str] = []
        self.follow_up: list[str] = []

    def on_mount(self) -> None:
        self.watch(self.app, "status", self._status_changed, init=False)

    def _status_changed(self, old: StatusRecord, new: StatusRecord) -> None:
        if (old.steering, old.follow_up) != (new.steering, new.follow_up):
            self.set_queue(list(new.steering), list(new.follow_up))

    def set_queue(self, steering: list[str], follow_up: list[str]) -> None:
        self.steering, self.follow_up = list(steering), list(follow_up)
        if not steering and not follow_up:
            self.remove_class("-active")
            self.update("")
            return
        lines = [Content.assemble(("Steering: ", "$accent"), Content(flat_line(t))) for t in steering]
        lines += [Content.assemble(("Follow-up: ", "$secondary"), Content(flat_line(t))) for t in follow_up]
        lines.append(Content.styled("↳ alt+up to edit all queued messages", "italic"))
        self.update(Content("\n").join(lines))
        self.add_class("-active")


class ExtensionWidgets(Static):
    """The lines of every extension widget, in the order they were first set, above the editor."""

    DEFAULT_CSS = """
    ExtensionWidgets { height: auto; padding: 0 1; display: none; }
    ExtensionWidgets.-active { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.widgets: dict[str, list[str]] = {}

    def set_widget(self, key: str, lines: list[str] | None) -> None:
        if lines is None:
            self.widgets.pop(key, None)
        else:
            self.widgets[key] = list(lines)
        all_lines = [line for block in self.widgets.values() for line in block]
        self.update(Content("\n".join(all_lines)))
        self.set_class(bool(all_lines), "-active")
