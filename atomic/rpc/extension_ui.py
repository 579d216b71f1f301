"""The RPC side of extension UI: `extension_ui_response` lines answer the engine's pending dialogs.

A response to a pending request is itself the answer, so it gets no response line. One for an
unknown (or already ended) id, or one that does not fit its request, is answered with an error and
leaves any pending dialog open, so the client can send a corrected answer.
"""

from __future__ import annotations

from atomic.core.contract import Engine, UiAnswer, UiAnswerError, check_answer
from atomic.rpc.protocol import ExtensionUiResponse


def answer_of(response: ExtensionUiResponse) -> UiAnswer:
    return UiAnswer(
        value=response.value, confirmed=response.confirmed, cancelled=response.cancelled, always=response.always
    )


def resolve_ui_response(engine: Engine, response: ExtensionUiResponse) -> bool:
    """True when `response` answered a pending request (no response line follows); False when the
    `extension_ui_response` command handler must answer it with an error."""
    if not isinstance(response.id, str):
        return False
    try:
        engine.extension_ui.resolve(response.id, answer_of(response))
    except UiAnswerError:
        return False
    return True


def ui_response_error(engine: Engine, response: ExtensionUiResponse) -> str:
    """Why `response` answers nothing (for the error response). Has no effect on pending dialogs."""
    if response.id is None:
        return "extension_ui_response needs the id of the extension_ui_request it answers"
    request = engine.extension_ui.pending(response.id) if isinstance(response.id, str) else None
    if request is None:
        return f"No pending extension UI request with id {response.id!r}"
    try:
        check_answer(request, answer_of(response))
    except UiAnswerError as exc:
        return str(exc)
    # A fitting answer to a pending dialog is taken by the reader before any handler runs.
    return f"The extension UI request {response.id!r} was not answered"
