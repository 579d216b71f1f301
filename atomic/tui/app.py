"""AtomicApp: the interactive terminal UI, a thin Textual frontend over an in-process engine (the `Engine` contract)."""

from __future__ import annotations

import gc
import re
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, ClassVar, cast

from textual import events
from textual.app import App, ComposeResult
from textual.binding import BindingType
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widgets import TextArea

from atomic.core.engine.options import SessionOptions  # a plain dataclass: cheap to import
from atomic.tui.approval_card import GRACE_S
from atomic.tui.approvals import TuiApprover, next_mode
from atomic.tui.blink_timeout import BlinkTimeout
from atomic.tui.clipboard import copy_text
from atomic.tui.commands import SlashCommandProvider, SlashCommands
from atomic.tui.completion import CompletionPopup, FileIndex
from atomic.tui.completion_flow import CompletionFlow
from atomic.tui.conversation import Conversation, StartupHeader
from atomic.tui.editor import PromptEditor, split_pastes
from atomic.tui.events_bridge import EventBridge
from atomic.tui.extension_ui import ExtensionUiPresenter
from atomic.tui.find_bar import FindBar
from atomic.tui.footer import ExtensionWidgets, QueuePanel, StatusFooter, WorkingIndicator
from atomic.tui.formatting import read_git_branch, tilde
from atomic.tui.host import AppHost
from atomic.tui.input_flow import InputFlow, session_prompts
from atomic.tui.keybindings import APP_KEYS, KeyTable, load_overrides, register_legacy_sequences
from atomic.tui.main_screen import MainScreen
from atomic.tui.renderer import ConversationRenderer
from atomic.tui.status import StatusRecord, model_status, read_status
from atomic.tui.theme import DARK, LIGHT, setting_for_theme, theme_name_for
from atomic.tui.todo_panel import TodoPanel

if TYPE_CHECKING:
    from atomic.core.contract import Engine
    from atomic.tui.screens.settings_screen import SettingChanged

DOUBLE_PRESS_S = 1.0
# Not offered until the engine runs. cycle_permissions is not here: a disabled binding lets Shift+Tab fall
# through to Textual's focus-previous, which took the focus away from the editor.
_NEEDS_SESSION = {"select_model", "cycle_model", "cycle_model_back", "dequeue", "copy_last", "copy_code"}
_CODE_FENCE = re.compile(r"^(```|~~~)[^\n]*\n(.*?)^\1\s*$", re.MULTILINE | re.DOTALL)


class AtomicApp(AppHost):
    CSS = """
    /* MainScreen only: a `Screen` rule here would also paint modal screens opaque (blank, not dimmed). */
    MainScreen { layout: vertical; background: $background; }
    #editor { margin: 0 0; }
    /* Toasts at the top right: at the bottom (Textual's default) they covered the editor being typed in. */
    ToastRack { dock: top; align: right top; margin-bottom: 0; margin-top: 1; }
    """
    COMMAND_PALETTE_BINDING = "f1"
    COMMANDS = App.COMMANDS | {SlashCommandProvider}
    BINDINGS: ClassVar[list[BindingType]] = KeyTable().app_bindings()
    ENABLE_COMMAND_PALETTE = True

    def __init__(
        self,
        options: SessionOptions,
        *,
        clock: Callable[[], float] = time.monotonic,
        cursor_blink: bool = True,
        engine: Engine | None = None,
        initial_message: str | None = None,
        resume: bool = False,
        defer_session_start: bool | None = None,
    ) -> None:
        from atomic.core.paths import agent_dir as default_agent_dir

        self.options = options
        self.agent_dir = options.agent_dir or default_agent_dir()
        overrides, self.key_warnings = load_overrides(self.agent_dir)
        register_legacy_sequences()  # Alt+Enter from terminals without the kitty keyboard protocol
        self.keys = KeyTable(overrides)
        super().__init__()
        # None until start_session creates it (the helpers only run once it exists); set before the theme,
        # whose watcher reads it.
        self.engine = cast("Engine", engine)
        self.session_ready = False
        # Registered before compose: widget CSS refers to the themes' extra variables.
        self.register_theme(DARK)
        self.register_theme(LIGHT)
        self.theme = DARK.name
        self.clock = clock
        self.cursor_blink_enabled = cursor_blink
        self.slash: SlashCommands = SlashCommands(self)
        self.input_flow = InputFlow(self, self.slash)
        self.completion_flow = CompletionFlow(self, FileIndex(options.cwd))
        self.git_branch: str | None = None
        self._last_ctrl_c = -10.0
        self.startup_error: str | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self.initial_message = initial_message
        self.open_resume_picker = resume
        # In a real terminal the chrome is painted first and the engine loads right after (None: when not headless).
        self.defer_session_start = defer_session_start
        self.provider_warm_up_started = False
        # None until the terminal reports focus changes (not every terminal does).
        self.terminal_focused: bool | None = None
        self.approval_grace_s = GRACE_S
        # Printed after the app has left the alternate screen, so the terminal's scrollback keeps it.
        self.exit_summary: str | None = None
        self.terminal_title = ""
        self.approver = TuiApprover(self)

    async def on_event(self, event: events.Event) -> None:
        # Every key restarts a waiting approval card's grace: it answers only once the typing stops.
        if isinstance(event, events.Key) and not event.is_forwarded and self.approver.card is not None:
            self.approver.card.key_pressed()
        await super().on_event(event)

    def on_app_focus(self) -> None:
        self.terminal_focused = True

    def on_app_blur(self) -> None:
        self.terminal_focused = False

    def get_theme_variable_defaults(self) -> dict[str, str]:
        # Any theme (also Textual's own, picked from the palette) gets Atomic's extra variables.
        return dict(DARK.variables)

    # ------------------------------------------------------------------ layout

    def get_default_screen(self) -> Screen:
        return MainScreen(id="_default")

    def compose(self) -> ComposeResult:
        self.conversation = Conversation(id="conversation")
        self.renderer = ConversationRenderer(self.conversation)
        self.working = WorkingIndicator(self.clock, id="working")
        self.queue_panel = QueuePanel(id="queue")
        self.todo_panel = TodoPanel(id="todos")
        self.extension_widgets = ExtensionWidgets(id="extension-widgets")
        self.completion = CompletionPopup(id="completion")
        self.find_bar = FindBar(
            self.conversation,
            earlier_contains=self.renderer.earlier_text_contains,
            load_earlier=lambda: self.renderer.show_earlier(everything=True),
            cursor_blink=self.cursor_blink_enabled,
            id="find-bar",
        )
        self.editor = PromptEditor(self.keys, id="editor")
        self.editor.popup_key_handler = self.completion_flow.popup_key
        self.editor.cwd = self.options.cwd
        self.footer = StatusFooter(id="footer")
        yield self.conversation
        yield self.working
        yield self.todo_panel
        yield self.queue_panel
        yield self.extension_widgets
        yield self.completion
        yield self.find_bar
        yield self.editor
        yield self.footer

    async def on_mount(self) -> None:
        if self.keys.overrides:
            self.set_keymap({spec.id: ",".join(self.keys.keys_for(spec.id)) for spec in APP_KEYS})
        self.editor.cursor_blink = self.cursor_blink_enabled
        self.editor.blink_timeout = BlinkTimeout(self.editor)
        self.editor.blink_timeout.start()
        self.editor.focus()
        # Back from Ctrl+Z (`fg`): the terminal was the shell's meanwhile, so paint every cell again.
        self.app_resume_signal.subscribe(self, self._repaint_after_resume)
        defer = self.defer_session_start if self.defer_session_start is not None else not self.is_headless
        if self.engine is None and defer:
            # Importing the engine and reading settings and the session file takes longer than painting:
            # show the chrome at once (the editor already accepts typing) and start the engine after that frame.
            self.footer.set_starting()
            self.call_after_refresh(self.run_worker, self.start_session(), group="startup")
            return
        await self.start_session()

    async def start_session(self) -> None:
        """Create the engine session (unless one was given) and show it."""
        if self.engine is None:
            from atomic.core.contract import StartupError, open_engine

            try:
                self.engine = await open_engine(self.options)
            except StartupError as exc:
                self.startup_error = str(exc)
                self.exit(return_code=1, message=str(exc))
                return
        # A loaded session is tens of thousands of long-lived objects; left in the collected generations,
        # every full collection walks them all (pauses felt while typing or streaming). Freeze them.
        gc.freeze()
        self.extension_ui = ExtensionUiPresenter(self)
        self.bridge = EventBridge(self, self.input_flow, self.extension_ui)
        self._unsubscribe = self.engine.subscribe(self.bridge.handle)
        self.engine.set_approver(self.approver)
        self.git_branch = read_git_branch(self.engine.cwd)
        self.apply_settings()
        self.set_activity(None)
        self.show_startup()
        # MCP notices (a server failed to start, project servers skipped) as toasts; never on stderr.
        self.engine.mcp.set_notice_sink(lambda line: self.notify(line, severity="warning", timeout=8))
        self.renderer.render_history(self.engine.messages())
        self.todo_panel.show(self.engine.state().todos)
        self.load_prompt_history()
        self.after_state_change()
        self.session_ready = True
        from atomic.tui.trust_flow import ask_on_first_run

        # An undecided folder that brings something: the first-run dialog; the rest waits for the answer.
        if not ask_on_first_run(self, then=self.open_first_screen):
            await self.open_first_screen()

    async def open_first_screen(self) -> None:
        if self.open_resume_picker:
            self.slash.open_session_picker()
        elif self.initial_message:
            self.editor.prompt_history.add(self.initial_message)
            self.input_flow.pending.appendleft((self.initial_message, False, []))
        self.input_flow.drain()  # also what was sent while the engine was starting

    def load_prompt_history(self) -> None:
        """Up recalls the prompts of the session just opened (`-c`, /resume, /tree, /fork …)."""
        self.editor.prompt_history.load_session(session_prompts(self.engine.messages()))

    # ------------------------------------------------------------------ state → chrome

    def apply_settings(self) -> None:
        settings = self.engine.settings
        self.theme = theme_name_for(settings.theme, self.available_themes)
        self.conversation.set_class(bool(settings.hide_thinking_block), "-thinking-hidden")
        # Beyond the CSS padding of 1, so 0 keeps the default look.
        self.editor.styles.padding = (0, 1 + int(settings.editor_padding_x))
        self.engine.set_steering_mode(settings.steering_mode)
        self.engine.set_follow_up_mode(settings.follow_up_mode)

    def watch_theme(self, name: str) -> None:
        # A theme picked in the F1 palette is saved like /settings' choice (applying the setting itself
        # sets the same name, which saves nothing).
        engine = self.engine
        if engine is None or not self.session_ready:
            return
        if theme_name_for(engine.settings.theme, self.available_themes) != name:
            engine.save_settings({"theme": setting_for_theme(name)})

    def on_setting_changed(self, message: SettingChanged) -> None:
        # Posted by the settings screen (it bubbles up to here): the theme and the CSS classes change at once.
        self.apply_settings()

    def after_state_change(self) -> None:
        """Read the status record afresh and apply the settings (after a command, a screen or a run)."""
        if self.engine is None:
            return
        self.status = read_status(self.engine, self.git_branch, self.input_flow.after_compaction)
        self.apply_settings()

    def watch_status(self, status: StatusRecord) -> None:
        model = status.model
        self.editor.set_thinking_level(model.thinking_level if model.reasoning else "off")
        self.editor.set_class(status.permission_mode == "yolo", "-yolo")

    def show_startup(self) -> None:
        engine = self.engine
        lines: list[str] = []
        if not engine.settings.quiet_startup:
            lines.append("atomic · esc interrupt · ctrl+c clear · ctrl+d quit · / commands · ! bash · ctrl+l model · f1 palette")
            context = [tilde(path) for path in engine.context_file_paths()]
            if context:
                lines.append("[Context] " + ", ".join(context))
            saved_mode = engine.settings.permission_mode
            if saved_mode is not None:
                lines.append(f"[Permissions] {saved_mode} (saved for every session; f2 or /permissions changes it)")
            commands = engine.commands()
            for title, source in (("Prompts", "prompt"), ("Skills", "skill"), ("Extensions", "extension")):
                names = [f"/{c.name}" for c in commands if c.source == source]
                if names:
                    lines.append(f"[{title}] " + ", ".join(names))
        if lines:
            self.conversation.add(StartupHeader("\n".join(lines)))
        for warning in [*engine.startup_warnings, *self.key_warnings]:
            self.renderer.note(warning, "warning")
        sandbox_notice = engine.sandbox_notice()
        if sandbox_notice is not None:
            self.renderer.note(sandbox_notice, "warning")
        if engine.models.model is None:
            guide = engine.models.no_model_guide().replace(str(self.agent_dir), tilde(self.agent_dir))
            # Said from inside Atomic: "start `atomic` and type /login" would send the user in a circle.
            guide = guide.replace("Or start `atomic` and type /login", "Or type /login")
            self.renderer.note("Welcome to Atomic.\n\n" + guide, "guide")
            self.conversation.call_after_refresh(self.conversation.show_top)

    def show_error(self, text: str) -> None:
        self.renderer.note(text, "error")

    def set_activity(self, state: str | None) -> None:
        from atomic.tui.terminal_title import title_for, write_title

        title = title_for(self.options.cwd, state)
        if title != self.terminal_title:
            self.terminal_title = title
            write_title(self, title)

    def notify_attention(self, text: str) -> None:
        from atomic.tui.events_bridge import desktop_notify, notify_on_turn_end

        if self.engine is not None and notify_on_turn_end(self.engine.settings):
            desktop_notify(self, "Atomic", text)

    def restore_to_editor(self, texts: list[str]) -> None:
        """Put texts back into the editor in front of what is typed, joined by blank lines."""
        current = self.editor.text
        parts = [t for t in texts if t] + ([current] if current.strip() else [])
        self.editor.set_text("\n\n".join(parts))

    # ------------------------------------------------------------------ completion

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if event.text_area is self.editor:
            self.completion_flow.update()
            if self.session_ready and not self.provider_warm_up_started and self.editor.text:
                # The provider's HTTP stack loads in a background thread once the user starts typing,
                # not at start: a run that never prompts does not pay for it, and a prompt sent before
                # it is done waits for it off the event loop, so typing never freezes.
                self.provider_warm_up_started = True
                self.engine.models.warm_up_provider()

    # ------------------------------------------------------------------ input

    def on_prompt_editor_submitted(self, message: PromptEditor.Submitted) -> None:
        # Never awaited here: the engine is called from InputFlow's worker, so this loop keeps echoing keys.
        if message.pastes:
            self.renderer.remember_pastes(message.text, split_pastes(message.typed, message.pastes))
        self.input_flow.enqueue(message.text, message.follow_up, message.images)

    # ------------------------------------------------------------------ actions (see keybindings.APP_KEYS)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # App keys are priority bindings; on a modal screen they step aside so the screen gets them.
        if action in {spec.action for spec in APP_KEYS} and len(self.screen_stack) > 1:
            return False
        if action == "interrupt" and self.approval_has_focus():
            return False  # Esc on an approval card that took the keyboard answers it: no

        if self.engine is None and action in _NEEDS_SESSION:
            return False  # the engine is still starting
        return True

    def approval_has_focus(self) -> bool:
        card = self.approver.card
        node: DOMNode | None = self.focused
        while node is not None:
            if node is card:
                return True
            node = node.parent
        return False

    async def action_interrupt(self) -> None:
        if self.find_bar.is_open:
            self.close_find_bar()
            return
        if self.completion.is_open:
            self.completion.close()
            return
        await self.input_flow.interrupt()

    async def action_clear_or_quit(self) -> None:
        # Text selected with the mouse (or a find-bar match), or in the editor: Ctrl+C copies it, as in a
        # terminal, and never counts towards quitting.
        selected = self.screen.get_selected_text() or self.editor.selected_text
        if selected:
            copy_text(self, selected)
            self.screen.clear_selection()  # as in a terminal: copied, deselected
            self.notify(f"Copied {len(selected):,} characters", timeout=2)
            self._last_ctrl_c = -10.0
            return
        now = self.clock()
        if self.editor.text:
            # A draft is never lost to Ctrl+C: Up or Ctrl+Z brings it back.
            self.editor.clear_draft()
            self.completion.close()
            self._last_ctrl_c = -10.0
            self.notify("Draft cleared (↑ or ctrl+z brings it back)", timeout=2)
            return
        if now - self._last_ctrl_c < DOUBLE_PRESS_S:
            await self.action_quit()
            return
        self._last_ctrl_c = now
        if self.input_flow.busy():
            # Working: Ctrl+C interrupts, as Esc does; quitting takes one more press.
            await self.input_flow.interrupt()
            self.notify("Interrupted · press ctrl+c again to quit", timeout=DOUBLE_PRESS_S)
        else:
            self.notify("Press ctrl+c again to quit", timeout=DOUBLE_PRESS_S)

    def _repaint_after_resume(self, _app: App[int]) -> None:
        self.screen.refresh(layout=True)
        self.refresh(repaint=True, layout=True)

    def on_prompt_editor_image_paste_requested(self, _message: PromptEditor.ImagePasteRequested) -> None:
        self.run_worker(self._paste_clipboard_image(), group="clipboard-image", exclusive=True)

    async def _paste_clipboard_image(self) -> None:
        import asyncio

        from atomic.tui.image_attachments import clipboard_image

        data = await asyncio.to_thread(clipboard_image)
        if data is not None:
            self.editor.attach_image(data, "image/png", "clipboard.png")
        else:
            self.editor.action_paste()  # no image there: the text clipboard, as before

    def on_prompt_editor_suspend_requested(self, _message: PromptEditor.SuspendRequested) -> None:
        self.action_suspend_process()

    def action_external_editor(self) -> None:
        """Ctrl+G: edit the draft in $VISUAL / $EDITOR; the saved text comes back into the editor."""
        from atomic.tui.external_editor import edit_in_external_editor

        edited = edit_in_external_editor(self, self.editor.text)
        if edited is not None:
            self.editor.set_text(edited)

    async def action_exit_if_empty(self) -> None:
        if not self.editor.text:
            await self.action_quit()

    async def action_quit(self) -> None:
        if self.engine is not None:
            from atomic.tui.exit_summary import exit_summary

            self.exit_summary = exit_summary(self.engine)
            if self._unsubscribe is not None:
                self._unsubscribe()
            try:
                await self.engine.shutdown()
            except Exception:
                pass
        self.exit(0)

    def action_select_model(self) -> None:
        self.slash.open_model_picker()

    def action_cycle_model(self, backwards: bool = False) -> None:
        result = self.engine.models.cycle_model(backwards=backwards)
        if result is None:
            self.notify("Only one model available")
            return
        model = self.engine.models.model
        name = (model.name or model.id) if model is not None else "no model"  # a cycle always lands on one
        self.notify(f"Switched to {name} (thinking: {self.engine.models.thinking_level})")
        self.after_state_change()

    def action_cycle_model_back(self) -> None:
        self.action_cycle_model(backwards=True)

    def action_cycle_thinking(self) -> None:
        """F3: the next thinking level, saved like /thinking (for this model and as the default)."""
        if self.engine is None:
            return
        before = self.engine.models.thinking_level
        level = self.engine.models.cycle_thinking_level()
        if level is None:
            self.notify("Current model does not support thinking")
            return
        self.engine.models.set_thinking_level(level, persist=True)
        self.notify(f"Thinking level: {before} → {level}")
        self.status = replace(self.status, model=model_status(self.engine))

    # ------------------------------------------------------------------ transcript (keyboard)

    def action_transcript_page_up(self) -> None:
        self.conversation.page(-1)

    def action_transcript_page_down(self) -> None:
        self.conversation.page(1)

    def action_transcript_top(self) -> None:
        # The very first message, in one press: mount every earlier message first (a long or resumed session).
        if self.renderer.show_earlier(everything=True):
            self.conversation.call_after_refresh(self.conversation.scroll_home, animate=False, immediate=True)
        else:
            self.conversation.scroll_home(animate=False, immediate=True)

    def action_transcript_bottom(self) -> None:
        self.conversation.follow()

    def action_find(self) -> None:
        if self.find_bar.is_open and self.find_bar.input.has_focus:
            self.find_bar.step(-1)  # Ctrl+S again: the next older match, as in Emacs
            return
        self.find_bar.open()

    def close_find_bar(self) -> None:
        self.find_bar.close()
        self.editor.focus()

    def action_cycle_permissions(self) -> None:
        """F2 / Shift+Tab: the next permission mode (ask → accept-edits → yolo → plan), saved like /permissions."""
        if self.engine is None:
            return
        before = self.engine.permission_mode
        mode = next_mode(before)
        self.engine.set_permission_mode(mode, persist=True)
        self.status = replace(self.status, permission_mode=self.engine.permission_mode)
        self.notify(f"Permission mode: {before} → {mode} (saved) · f2 again: {next_mode(mode)}")

    def action_toggle_thinking(self) -> None:
        self.conversation.toggle_class("-thinking-collapsed")

    def action_toggle_todos(self) -> None:
        self.todo_panel.toggle()

    def action_toggle_tools(self) -> None:
        self.conversation.toggle_class("-tools-expanded")

    async def action_copy_last(self) -> None:
        await self.slash.run("/copy")

    def action_copy_code(self) -> None:
        text = self.engine.last_assistant_text() or ""
        blocks = [match.group(2) for match in _CODE_FENCE.finditer(text)]
        if not blocks:
            self.notify("No code block in the last reply", severity="warning")
            return
        copy_text(self, blocks[-1].rstrip("\n"))
        self.notify("Copied the code block to the clipboard")

    def action_dequeue(self) -> None:
        cleared = self.engine.clear_queue()
        texts = [*cleared.steering, *cleared.follow_up, *self.input_flow.after_compaction]
        self.input_flow.after_compaction = []
        if not texts:
            self.notify("No queued messages to restore")
            return
        self.restore_to_editor(texts)
        self.notify(f"Restored {len(texts)} queued message(s) to editor")


def run_tui(options: SessionOptions, initial_message: str | None = None, resume: bool = False) -> int:
    """Run the interactive app until the user quits. Returns the process exit code.

    `initial_message` is sent as the first prompt; `resume` opens the session picker first.
    """
    app = AtomicApp(options, initial_message=initial_message, resume=resume)
    result = app.run()
    if app.startup_error is not None:
        return 1
    if app.exit_summary:
        print(app.exit_summary)
    return int(result or app.return_code or 0)
