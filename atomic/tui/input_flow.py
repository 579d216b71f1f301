"""What Enter and Esc do: send, queue, run bash, and the interrupt order that never loses text."""

from __future__ import annotations

from collections import deque
from typing import Any

from atomic.tui.commands import SlashCommands
from atomic.tui.conversation import BashView
from atomic.tui.host import AppHost
from atomic.tui.image_attachments import Attachment

DOUBLE_ESCAPE_S = 0.5
NO_MODEL_REMINDER = "No model to answer yet: type /login to add a key (the welcome guide above lists the other ways)."


def session_prompts(messages: list[Any]) -> list[str]:
    """What the user sent in a session, oldest first: prompts, and `!cmd` / `!!cmd` lines."""
    from atomic.core import messages as m  # loaded with the engine

    prompts: list[str] = []
    for message in messages:
        if isinstance(message, m.UserMessage):
            prompts.append(m.user_text(message))
        elif isinstance(message, m.BashExecutionMessage):
            prompts.append(("!!" if message.exclude_from_context else "!") + message.command)
    return [p for p in prompts if p.strip()]


class InputFlow:
    def __init__(self, app: AppHost, slash: SlashCommands) -> None:
        self.app = app
        self.slash = slash
        self.last_escape = -10.0
        self.retrying = False
        # Prompts typed while a compaction runs (not during a run: those are steering/follow-ups).
        self.after_compaction: list[str] = []
        # Sent from the editor, not yet handed to the engine (in order). One worker drains it, so the
        # app's message loop never waits on the engine (extension input hooks, a slow first prompt,
        # a dialog an extension command opens) and keys keep being echoed meanwhile.
        self.pending: deque[tuple[str, bool, list[Attachment]]] = deque()
        self._draining = False

    # ------------------------------------------------------------------ Enter / Alt+Enter

    def enqueue(self, text: str, follow_up: bool, images: list[Attachment] | None = None) -> None:
        """Hand a sent message to the engine, after those sent before it; held until the engine is ready."""
        self.pending.append((text, follow_up, list(images or [])))
        self.app.completion.close()
        self.app.conversation.follow()  # what is sent, and the reply, are read at the bottom
        if not self.app.session_ready:
            self.app.notify("Atomic is still starting: this message is sent as soon as it is ready")
            return
        self.drain()

    def drain(self) -> None:
        if self._draining or not self.pending or not self.app.session_ready:
            return
        self._draining = True
        self.app.run_worker(self._drain(), group="input", exit_on_error=False)

    async def _drain(self) -> None:
        try:
            while self.pending:
                text, follow_up, images = self.pending.popleft()
                try:
                    await self.submit(text, follow_up, images)
                except Exception as exc:  # one failing message must not stop the ones after it
                    self.app.restore_to_editor([text])
                    self.app.show_error(f"Could not send the message: {exc}")
        finally:
            self._draining = False

    async def submit(self, text: str, follow_up: bool, images: list[Attachment] | None = None) -> None:
        app, engine = self.app, self.app.engine
        if engine is None or not (text.strip() or images):
            return
        from atomic.core.messages import ImageContent

        contents = [ImageContent(data=image.base64(), mime_type=image.mime_type) for image in images or []] or None
        from atomic.core.contract import PromptRejected  # loaded with the engine, after first paint

        app.completion.close()
        stripped = text.strip()
        if stripped.startswith("/") and self.slash.handles(stripped):
            try:
                await self.slash.run(stripped)
            except Exception as exc:
                app.show_error(f"{stripped.split()[0]} failed: {exc}")
            app.after_state_change()
            return
        if stripped.startswith("!") and stripped.lstrip("!").strip():
            self.start_bash(stripped)
            return
        if engine.is_compacting and not engine.is_streaming:
            self.after_compaction.append(text)
            app.notify("Queued for after compaction")
            app.after_state_change()
            return
        try:
            if engine.is_streaming:
                if follow_up:
                    await engine.follow_up(text, contents)
                else:
                    await engine.steer(text, contents)
            else:
                await engine.prompt(text, contents, source="interactive")
        except PromptRejected as exc:
            # Nothing typed is lost: the text goes back into the editor.
            app.restore_to_editor([text])
            if engine.models.model is None:
                # The welcome guide already says how to get a model: one line, not the guide again.
                app.show_error(NO_MODEL_REMINDER)
            else:
                app.show_error(str(exc))

    async def send_after_compaction(self) -> None:
        """Compaction ended (done, failed or cancelled): send what was typed meanwhile, in order, as one prompt."""
        app, engine = self.app, self.app.engine
        if not self.after_compaction or engine is None or engine.is_compacting:
            return
        texts, self.after_compaction = self.after_compaction, []
        app.after_state_change()
        await self.submit("\n\n".join(texts), follow_up=False)

    def start_bash(self, line: str) -> None:
        app, engine = self.app, self.app.engine
        excluded = line.startswith("!!")
        command = line[2:] if excluded else line[1:]
        if engine.is_bash_running:
            app.restore_to_editor([line])
            app.notify("A bash command is already running. Press Esc to cancel it first.", severity="warning")
            return
        view = BashView(command.strip(), excluded)
        app.conversation.add(view)

        async def run() -> None:
            try:
                result = await engine.run_bash(
                    command.strip(),
                    on_chunk=lambda _channel, chunk: view.append_output(chunk),
                    on_display=view.append_display,
                    exclude_from_context=excluded,
                )
            except Exception as exc:
                view.finish(view.output, None, True)
                app.show_error(f"bash failed: {exc}")
                return
            view.finish(result.output, result.exit_code, result.cancelled)
            app.after_state_change()

        app.run_worker(run(), group="bash")

    # ------------------------------------------------------------------ Esc

    def busy(self) -> bool:
        """Is something running that Esc (or Ctrl+C on an empty editor) would stop?"""
        engine = self.app.engine
        return engine is not None and (
            engine.is_streaming or engine.is_compacting or engine.is_bash_running or self.retrying
        )

    async def interrupt(self) -> None:
        """Esc: cancel compaction or a retry; else restore the queue and abort; else cancel bash."""
        app, engine = self.app, self.app.engine
        if engine is None:
            return
        if engine.is_compacting:
            engine.cancel_compaction()
            app.notify("Compaction cancelled")
            return
        if self.retrying:
            engine.abort_retry()
            return
        queued = len(engine.queue())
        if engine.is_streaming or queued:
            cleared = engine.clear_queue()
            # Sent but not handed to the engine yet: as good as queued.
            unsent = [text for text, _follow_up, _images in self.pending]
            self.pending.clear()
            restored = [*cleared.steering, *cleared.follow_up, *unsent]
            if restored:
                app.restore_to_editor(restored)
            try:
                await engine.abort()
            except Exception as exc:
                app.show_error(f"Error: {exc}")
            return
        if engine.is_bash_running:
            engine.abort_bash()
            return
        if app.editor.text.startswith("!"):
            app.editor.clear_all()
            return
        if not app.editor.text:
            now = app.clock()
            if now - self.last_escape < DOUBLE_ESCAPE_S:
                self.last_escape = -10.0
                action = engine.settings.double_escape_action
                if action in ("rewind", "tree", "fork"):
                    await self.slash.run(f"/{action}")
                return
            self.last_escape = now
