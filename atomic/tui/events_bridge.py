"""Engine events → UI. The engine calls `handle` synchronously on the app's event loop, in order."""

from __future__ import annotations

import gc
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from atomic.core import events as ev  # loaded with the app already (the typed event models)
from atomic.core.extensions.events import ExtensionUiRequest
from atomic.tui.extension_ui import ExtensionUiPresenter
from atomic.tui.host import AppHost
from atomic.tui.input_flow import InputFlow
from atomic.tui.status import model_status

if TYPE_CHECKING:
    from atomic.core.contract import Settings
    from atomic.tui.conversation import NoteMessage

# A turn at least this long rings the bell at its end (setting bellOnTurnEnd).
LONG_TURN_S = 10.0


def notify_on_turn_end(settings: Settings) -> bool:
    """Setting `notifyOnTurnEnd`: desktop notifications after a long turn and for a waiting approval."""
    return bool(settings.notify_on_turn_end)


def desktop_notify(app: Any, title: str, body: str) -> None:
    """A desktop notification: OSC 777 + OSC 9 through the terminal, or notify-send when there is no terminal
    driver. Skipped when the terminal has reported (focus reporting) that it has focus."""
    if app.terminal_focused is True:
        return
    clean_title, clean_body = (t.replace("\x1b", "").replace("\x07", "").replace(";", ",") for t in (title, body))
    driver = getattr(app, "_driver", None)  # foreign: Textual's terminal driver (private, None in tests)
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
    def __init__(self, app: AppHost, input_flow: InputFlow, extension_ui: ExtensionUiPresenter) -> None:
        self.app = app
        self.input_flow = input_flow
        self.extension_ui = extension_ui
        # The "Compacting…" line of the running compaction; it turns into the result.
        self.compaction_note: NoteMessage | None = None

    def handle(self, event: ev.Event) -> None:
        if event.parent_tool_call_id is not None:
            return  # a subagent's own events: its `task` card shows them through the tool's updates
        try:
            self.dispatch(event)
        except Exception as exc:  # a rendering bug must never take the session down
            self.app.renderer.note(f"UI error while showing {event.type}: {exc}", "error")

    def dispatch(self, event: ev.Event) -> None:
        """Each event class to its handler (streamed text first: it is most of the events); events without
        one (turn_start, bash updates, ...) change nothing on screen."""
        match event:
            case ev.MessageUpdate():
                self.on_message_update(event)
            case ev.AgentStart():
                self.on_agent_start(event)
            case ev.AgentEnd():
                self.on_agent_end(event)
            case ev.MessageStart():
                self.on_message_start(event)
            case ev.MessageEnd():
                self.on_message_end(event)
            case ev.ToolExecutionStart():
                self.on_tool_execution_start(event)
            case ev.ToolExecutionUpdate():
                self.on_tool_execution_update(event)
            case ev.ToolExecutionEnd():
                self.on_tool_execution_end(event)
            case ev.QueueUpdate():
                self.on_queue_update(event)
            case ev.TodoUpdate():
                self.on_todo_update(event)
            case ev.CompactionStart():
                self.on_compaction_start(event)
            case ev.SummarizationRetryScheduled():
                self.on_summarization_retry_scheduled(event)
            case ev.SummarizationRetryAttemptStart():
                self.on_summarization_retry_attempt_start(event)
            case ev.CompactionEnd():
                self.on_compaction_end(event)
            case ev.AutoRetryStart():
                self.on_auto_retry_start(event)
            case ev.AutoRetryEnd():
                self.on_auto_retry_end(event)
            case ev.ThinkingLevelChanged():
                self.on_thinking_level_changed(event)
            case ev.ModelChanged():
                self.on_model_changed(event)
            case ev.PermissionModeChanged():
                self.on_permission_mode_changed(event)
            case ev.SessionInfoChanged():
                self.on_session_info_changed(event)
            case ev.SessionChanged():
                self.on_session_changed(event)
            case ExtensionUiRequest():
                self.on_extension_ui_request(event)
            case ev.ExtensionError():
                self.on_extension_error(event)

    def on_todo_update(self, event: ev.TodoUpdate) -> None:
        self.app.todo_panel.show(self.app.engine.state().todos)

    def on_agent_start(self, _event: ev.AgentStart) -> None:
        self.app.working.start()
        self.app.set_activity("working")

    def on_agent_end(self, _event: ev.AgentEnd) -> None:
        app = self.app
        elapsed = app.working.stop()
        app.set_activity(None)
        self.input_flow.retrying = False
        app.renderer.run_ended()
        app.after_state_change()
        app.renderer.fold_old_turns(app.engine.messages)
        if elapsed >= LONG_TURN_S:
            if app.engine.settings.bell_on_turn_end:
                app.bell()
            if notify_on_turn_end(app.engine.settings):
                desktop_notify(app, "Atomic", "The agent finished its turn")

    def on_message_start(self, event: ev.MessageStart) -> None:
        app = self.app
        if self.input_flow.retrying and event.message.role == "assistant":
            # The countdown is over and the next attempt streams: Esc aborts it like any reply again.
            self.input_flow.retrying = False
            app.working.clear_status(still_working=True)
        app.renderer.on_message_start(event.message)

    def on_message_update(self, event: ev.MessageUpdate) -> None:
        self.app.renderer.on_assistant_event(event.assistant_message_event)

    def on_message_end(self, event: ev.MessageEnd) -> None:
        self.app.renderer.on_message_end(event.message)
        self.app.status = replace(self.app.status, stats=self.app.engine.session_stats())

    def on_tool_execution_start(self, event: ev.ToolExecutionStart) -> None:
        self.app.renderer.on_tool_start(event.tool_call_id, event.tool_name, event.args)

    def on_tool_execution_update(self, event: ev.ToolExecutionUpdate) -> None:
        renderer = self.app.renderer
        renderer.on_tool_update(event.tool_call_id, event.tool_name, event.args, event.partial_result, event.display)

    def on_tool_execution_end(self, event: ev.ToolExecutionEnd) -> None:
        renderer = self.app.renderer
        renderer.on_tool_end(event.tool_call_id, event.tool_name, event.result, event.is_error, event.display)

    def on_queue_update(self, event: ev.QueueUpdate) -> None:
        self.app.status = replace(self.app.status, steering=tuple(event.steering), follow_up=tuple(event.follow_up))

    def on_compaction_start(self, event: ev.CompactionStart) -> None:
        from atomic.tui.reports import compaction_start_text

        app = self.app
        label = "Context overflow detected. Auto-compacting…" if event.reason == "overflow" else "Compacting context…"
        app.working.show_status(label, "esc to cancel")
        usage = app.engine.context_usage()
        text = compaction_start_text(event.reason, usage.tokens if usage else None, app.engine.message_count())
        self.compaction_note = app.renderer.note(text)

    def on_summarization_retry_scheduled(self, event: ev.SummarizationRetryScheduled) -> None:
        label = f"Compaction: retrying in {{s}}s ({event.attempt}/{event.max_attempts}) · {event.error_message[:80]}"
        self.app.working.show_status(label, "esc to cancel", event.delay_ms / 1000)

    def on_summarization_retry_attempt_start(self, _event: ev.SummarizationRetryAttemptStart) -> None:
        self.app.working.show_status("Compacting context…", "esc to cancel")

    def on_compaction_end(self, event: ev.CompactionEnd) -> None:
        app = self.app
        app.call_later(self.input_flow.send_after_compaction)
        app.working.clear_status(still_working=app.engine.is_streaming)
        from atomic.tui.reports import compaction_result_text

        if event.aborted:
            text, kind = "Compaction cancelled: the context is unchanged.", "warning"
        elif event.error_message:
            failed = event.error_message
            text, kind = (failed if failed.lower().startswith(("compaction", "auto-compaction", "context")) else
                          f"Compaction failed: {failed}"), "error"
        else:
            text, kind = compaction_result_text(event.result), "info"
        note, self.compaction_note = self.compaction_note, None
        app.renderer.replace_note(note, text, kind)
        app.status = replace(app.status, stats=app.engine.session_stats())

    def on_auto_retry_start(self, event: ev.AutoRetryStart) -> None:
        app = self.app
        self.input_flow.retrying = True
        app.renderer.retry_started(event.attempt, event.max_attempts)
        error = app.renderer.last_error
        reason = error.error.summary if error is not None else event.error_message.splitlines()[0][:80]
        label = f"Retrying in {{s}}s ({event.attempt}/{event.max_attempts}) · {reason}"
        app.working.show_status(label, "esc to cancel", event.delay_ms / 1000)

    def on_auto_retry_end(self, event: ev.AutoRetryEnd) -> None:
        app = self.app
        self.input_flow.retrying = False
        app.working.clear_status(still_working=app.engine.is_streaming)
        app.renderer.retry_ended(event.success, event.attempt, event.final_error)

    def on_thinking_level_changed(self, _event: ev.ThinkingLevelChanged) -> None:
        self.app.status = replace(self.app.status, model=model_status(self.app.engine))

    def on_permission_mode_changed(self, event: ev.PermissionModeChanged) -> None:
        self.app.status = replace(self.app.status, permission_mode=event.mode)

    def on_model_changed(self, _event: ev.ModelChanged) -> None:
        self.app.status = replace(self.app.status, model=model_status(self.app.engine))

    def on_session_info_changed(self, _event: ev.SessionInfoChanged) -> None:
        app = self.app
        app.status = replace(app.status, session_name=app.engine.session_name)

    def on_session_changed(self, _event: ev.SessionChanged) -> None:
        """New, resume, fork, clone, tree: the whole view is rebuilt from the session."""
        app = self.app
        app.renderer.reset()
        app.renderer.render_history(app.engine.messages())
        app.load_prompt_history()
        app.after_state_change()
        gc.freeze()  # the newly loaded session is long-lived: keep it out of garbage collection (see app.py)

    def on_extension_ui_request(self, event: ExtensionUiRequest) -> None:
        self.extension_ui.show(event)

    def on_extension_error(self, event: ev.ExtensionError) -> None:
        self.app.renderer.note(f"Extension error ({event.extension_path}, {event.event}): {event.error}", "error")
