"""The hook bus: where extensions listen to engine events and may cancel or change what happens.

Handlers are sync or async callables taking the event payload (a dict). A handler that raises is
reported through `on_error` (the engine turns it into an `extension_error` event) and the engine
carries on as if that handler had returned nothing.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Handler = Callable[[dict[str, Any]], Any]


@dataclass
class _Registration:
    handler: Handler
    extension_path: str


class HookBus:
    def __init__(self) -> None:
        self._handlers: dict[str, list[_Registration]] = {}
        self.on_error: Callable[[str, str, str], None] = lambda _path, _event, _error: None

    def on(self, event: str, handler: Handler, extension_path: str = "<inline>") -> Callable[[], None]:
        registration = _Registration(handler, extension_path)
        self._handlers.setdefault(event, []).append(registration)

        def remove() -> None:
            if registration in self._handlers.get(event, []):
                self._handlers[event].remove(registration)

        return remove

    def has(self, event: str) -> bool:
        return bool(self._handlers.get(event))

    async def emit(self, event: str, payload: dict[str, Any]) -> list[Any]:
        """Call every handler in registration order; returns their non-None results."""
        results: list[Any] = []
        for registration in list(self._handlers.get(event, [])):
            try:
                value = registration.handler(payload)
                if inspect.isawaitable(value):
                    value = await value
            except Exception as exc:  # an extension must never take the agent down
                self.on_error(registration.extension_path, event, f"{type(exc).__name__}: {exc}")
                continue
            if value is not None:
                results.append(value)
        return results

    async def cancelled(self, event: str, payload: dict[str, Any]) -> bool:
        """True when any handler answered `{"cancel": True}` (or `True`)."""
        for result in await self.emit(event, payload):
            if result is True or (isinstance(result, dict) and result.get("cancel")):
                return True
        return False

    def emit_nowait(self, event: str, payload: dict[str, Any]) -> None:
        """Fire-and-forget for plain notifications; async handlers are scheduled on the running loop."""
        import asyncio

        for registration in list(self._handlers.get(event, [])):
            try:
                value = registration.handler(payload)
                if inspect.isawaitable(value):
                    asyncio.ensure_future(self._await_reporting(value, registration, event))
            except Exception as exc:
                self.on_error(registration.extension_path, event, f"{type(exc).__name__}: {exc}")

    async def _await_reporting(self, value: Any, registration: _Registration, event: str) -> None:
        try:
            await value
        except Exception as exc:
            self.on_error(registration.extension_path, event, f"{type(exc).__name__}: {exc}")


async def input_hooks(hooks: HookBus, text: str, images: list[Any], source: str) -> tuple[str, bool]:
    """Extension `input` handlers may transform a prompt's text or handle it entirely (True)."""
    payload = {"text": text, "images": images, "source": source}
    for result in await hooks.emit("input", payload):
        if isinstance(result, dict):
            action = result.get("action")
            if action == "handled":
                return text, True
            if action == "transform" and isinstance(result.get("text"), str):
                text = result["text"]
    return text, False
