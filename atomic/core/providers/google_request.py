"""The Gemini `generateContent` request body built from Atomic's LLM messages (Google's Gemini API
and Gemini on Vertex AI take the same body).

- Roles are `user` and `model`; the system prompt goes in `systemInstruction`.
- Thinking parts (`thought: true`), text parts and function calls carry Gemini's `thoughtSignature`.
  They go back to the model that produced them with their signature: Gemini 3 rejects a function
  call of the current turn without its signature. A function call from another model (or an older
  session) gets the placeholder signature Google documents for history it did not sign.
- Parts Atomic does not show (`executableCode`, `codeExecutionResult`) are kept on the message as
  provider blocks and go back at their place, to the same model only.
- All function responses of a turn go back in the one user turn that follows it, images from tool
  results after them in that same turn.
- Tool call ids Atomic made up (the server sent none) are not sent back.
"""

from __future__ import annotations

from typing import Any

from atomic.core.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from atomic.core.providers.base import StreamRequest
from atomic.core.providers.history import from_same_model, normalize_history
from atomic.core.providers.thinking_params import default_max_tokens, google_params, uses_thinking_level

# The id prefix of a function call the server sent without one (older Gemini models).
GENERATED_ID_PREFIX = "atomic_fc_"
# Google's documented stand-in for a function call whose reasoning it did not sign (history from
# another model): Gemini 3 accepts it where a real signature is missing.
UNSIGNED_CALL_SIGNATURE = "skip_thought_signature_validator"


def _inline_image(image: ImageContent) -> dict[str, Any]:
    return {"inlineData": {"mimeType": image.mime_type, "data": image.data}}


def _user_parts(content: str | list[Any], with_images: bool) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"text": content}] if content else []
    parts: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, TextContent) and block.text:
            parts.append({"text": block.text})
        elif isinstance(block, ImageContent) and with_images:
            parts.append(_inline_image(block))
    return parts


def _signed(part: dict[str, Any], signature: str | None) -> dict[str, Any]:
    if signature:
        part["thoughtSignature"] = signature
    return part


def _call_part(call: ToolCall, same_model: bool, needs_signature: bool) -> dict[str, Any]:
    function: dict[str, Any] = {"name": call.name, "args": call.arguments}
    if not call.id.startswith(GENERATED_ID_PREFIX):
        function["id"] = call.id
    signature = call.thought_signature if same_model else None
    if signature is None and needs_signature:
        signature = UNSIGNED_CALL_SIGNATURE
    return _signed({"functionCall": function}, signature)


def _model_parts(message: AssistantMessage, request: StreamRequest) -> list[dict[str, Any]]:
    model = request.model
    same_model = from_same_model(message, model.api, model.id, model.provider)
    needs_signature = uses_thinking_level(model.id)
    kept = sorted(message.provider_blocks or [], key=lambda b: b.position) if same_model else []
    parts: list[dict[str, Any]] = []
    next_kept = 0
    first_call = True
    for position, block in enumerate(message.content):
        while next_kept < len(kept) and kept[next_kept].position <= position:
            parts.append(dict(kept[next_kept].data))
            next_kept += 1
        if isinstance(block, ThinkingContent):
            # Thoughts only mean something to the model that had them.
            if same_model and block.thinking:
                parts.append(_signed({"thought": True, "text": block.thinking}, block.thinking_signature))
        elif isinstance(block, TextContent):
            if block.text:
                parts.append(_signed({"text": block.text}, block.text_signature if same_model else None))
        elif isinstance(block, ToolCall):
            # Only the first call of a step carries the signature (parallel calls share it).
            parts.append(_call_part(block, same_model, needs_signature and first_call))
            first_call = False
    parts.extend(dict(item.data) for item in kept[next_kept:])
    return parts


def _function_response(message: ToolResultMessage) -> dict[str, Any]:
    text = "".join(b.text for b in message.content if isinstance(b, TextContent)) or "(no output)"
    function: dict[str, Any] = {
        "name": message.tool_name,
        "response": {"error": text} if message.is_error else {"output": text},
    }
    if not message.tool_call_id.startswith(GENERATED_ID_PREFIX):
        function["id"] = message.tool_call_id
    return {"functionResponse": function}


def convert_contents(request: StreamRequest) -> list[dict[str, Any]]:
    with_images = request.model.supports_images()
    contents: list[dict[str, Any]] = []
    # Images from the open turn's tool results, sent after all its function responses.
    pending_images: list[dict[str, Any]] = []

    def flush_images() -> None:
        if pending_images and contents and contents[-1]["role"] == "user":
            contents[-1]["parts"].extend(pending_images)
        pending_images.clear()

    for message in normalize_history(request.messages):
        if isinstance(message, ToolResultMessage):
            part = _function_response(message)
            previous = contents[-1] if contents else None
            if previous and previous["role"] == "user" and "functionResponse" in previous["parts"][0]:
                previous["parts"].append(part)
            else:
                contents.append({"role": "user", "parts": [part]})
            if with_images:
                pending_images.extend(_inline_image(b) for b in message.content if isinstance(b, ImageContent))
            continue
        flush_images()
        if isinstance(message, UserMessage):
            parts = _user_parts(message.content, with_images)
            if parts:
                contents.append({"role": "user", "parts": parts})
        elif isinstance(message, AssistantMessage):
            parts = _model_parts(message, request)
            if parts and contents and contents[-1]["role"] == "model":
                contents[-1]["parts"].extend(parts)
            elif parts:
                contents.append({"role": "model", "parts": parts})
    flush_images()
    return contents


def build_body(request: StreamRequest) -> dict[str, Any]:
    """The JSON body for `:streamGenerateContent` (the model is in the URL)."""
    model = request.model
    generation: dict[str, Any] = {"maxOutputTokens": default_max_tokens(model, request.max_tokens)}
    generation.update(google_params(model, request.thinking_level, request.thinking_budgets))
    body: dict[str, Any] = {"contents": convert_contents(request), "generationConfig": generation}
    if request.system_prompt:
        body["systemInstruction"] = {"parts": [{"text": request.system_prompt}]}
    if request.tools:
        body["tools"] = [
            {
                "functionDeclarations": [
                    {"name": t.name, "description": t.description, "parametersJsonSchema": t.parameters}
                    for t in request.tools
                ]
            }
        ]
    return body
