"""Engine events → UI. The engine calls `handle` synchronously on the app's event loop, in order."""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from atomic.core.events import Event
    from atomic.tui.app import AtomicApp

# A turn at least this long rings the bell at its end (setting bellOnTurnEnd).
LONG_TURN_S = 10.0


def notify_on_turn_end(settings: Any) -> bool:
    """Setting `notifyOnTurnEnd` (kept by the Settings model as an extra key until it has a field)."""
    value = getattr(settings, "notify_on_turn_end", None)
    if value is None:
        extra = getattr(settings, "model_extra", None) or {}
        value = extra.get("notifyOnTurnEnd", extra.get("notify_on_turn_end", False))
    return bool(value)


def desktop_notify(app: Any, title: str, body: str) -> None:
    """A desktop notification: OSC 777 + OSC 9 through the terminal, or notify-send when there is no terminal
    driver. Skipped when the terminal has reported (focus reporting) that it has focus."""
    if getattr(app, "terminal_focused", None) is True:
        return
    clean_title, clean_body = (t.replace("\x1b", "").replace("\x07", "").replace(";", ",") for t in (title, body))
    driver = getattr(app, "_driver", None)
    if driver is not None and not app.is_headless:
        driver.write(f"\x1b]777;notify;{clean_title};{clean_body}\x07\x1b]9;{clean_title}: {clean_body}\x07")
        driver.flush()
        return
    import shutil
    import subprocess

    if shutil.which("notify-send"):
        try:
            subprocess.Popen(["notify-send", title, body], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except OSError:
            pass


class EventBridge:
    def __init__(self, app: AtomicApp) -> None:
        self.app = app

    def handle(self, event: Event) -> None:
        handler = getattr(self, f"on_{event.type}", None)
        if handler is None:
            return
        try:
            handler(event)
        except Exception as exc:  # a rendering bug must never take the session down
            self.app.renderer.note(f"UI error while showing {event.type}: {exc}", "error")

    def on_agent_start(self, _event: Any) -> None:
        self.app.working.start()

    def on_agent_end(self, _event: Any) -> None:
        app = self.app
        elapsed = app.working.stop()
        app.input_flow.retrying = False
        app.after_state_change()
        if elapsed >= LONG_TURN_S:
            if app.session.settings.bell_on_turn_end:
                app.bell()
            if notify_on_turn_end(app.session.settings):
                desktop_notify(app, "Atomic", "The agent finished its turn")

    def on_message_start(self, event: Any) -> None:
        self.app.renderer.on_message_start(event.message)

    def on_message_update(self, event: Any) -> None:
        self.app.renderer.on_assistant_event(event.assistant_message_event)

    def on_message_end(self, event: Any) -> None:
        self.app.renderer.on_message_end(event.message)
        self.app.footer.set_stats(self.app.session.session_stats())

    def on_tool_execution_start(self, event: Any) -> None:
        self.app.renderer.on_tool_start(event.tool_call_id, event.tool_name, event.args)

    def on_tool_execution_update(self, event: Any) -> None:
        self.app.renderer.on_tool_update(event.tool_call_id, event.tool_name, event.args, event.partial_result)

    def on_tool_execution_end(self, event: Any) -> None:
        self.app.renderer.on_tool_end(event.tool_call_id, event.tool_name, event.result, event.is_error)

    def on_queue_update(self, event: Any) -> None:
        self.app.queue_panel.set_queue(event.steering, event.follow_up)

    def on_compaction_start(self, event: Any) -> None:
        label = (
            "Context overflow detected. Auto-compacting…" if event.reason == "overflow" else "Compacting context…"
        )
        self.app.working.show_status(label, "esc to cancel")

    def on_compaction_end(self, event: Any) -> None:
        app = self.app
        app.call_later(app.input_flow.send_after_compaction)
        app.working.clear_status(still_working=app.session.is_streaming)
        if event.aborted:
            app.renderer.note("Compaction cancelled", "warning")
        elif event.error_message:
            app.renderer.note(f"Compaction failed: {event.error_message}", "error")
        else:
            app.renderer.note("Context compacted")
        app.footer.set_stats(app.session.session_stats())

    def on_auto_retry_start(self, event: Any) -> None:
        self.app.input_flow.retrying = True
        label = f"Retrying ({event.attempt}/{event.max_attempts}) in {{s}}s… {event.error_message}"
        self.app.working.show_status(label, "esc to cancel", event.delay_ms / 1000)

    def on_auto_retry_end(self, event: Any) -> None:
        app = self.app
        app.input_flow.retrying = False
        app.working.clear_status(still_working=app.session.is_streaming)
        if not event.success and event.final_error:
            app.renderer.note(f"Retry failed: {event.final_error}", "error")

    def on_thinking_level_changed(self, _event: Any) -> None:
        self.app.refresh_model()

    def on_model_changed(self, _event: Any) -> None:
        self.app.refresh_model()

    def on_session_info_changed(self, _event: Any) -> None:
        app = self.app
        app.footer.set_location(app.session.cwd, app.git_branch, app.session.store.name())

    def on_session_changed(self, _event: Any) -> None:
        """New, resume, fork, clone, tree: the whole view is rebuilt from the session."""
        app = self.app
        app.conversation.clear()
        app.renderer.cards = {}
        app.renderer.blocks = {}
        app.renderer.render_history(app.session.messages())
        app.load_prompt_history()
        app.after_state_change()
        gc.freeze()  # the newly loaded session is long-lived: keep it out of garbage collection (see app.py)

    def on_extension_ui_request(self, event: Any) -> None:
        if event.method == "notify":
            severity = {"warning": "warning", "error": "error"}.get(event.notify_type, "information")
            self.app.notify(event.message, severity=severity)

    def on_extension_error(self, event: Any) -> None:
        self.app.renderer.note(f"Extension error ({event.extension_path}, {event.event}): {event.error}", "error")
