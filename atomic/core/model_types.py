"""The Model object, exactly as `get_available_models` and `get_state` show it."""

from typing import Any, Literal

from pydantic import Field

from atomic.core.wire import WireModel

Api = Literal[
    "anthropic-messages",
    "openai-completions",
    "openai-responses",
    "openai-codex-responses",
    "google-generative-ai",
    "google-vertex",
    "bedrock-converse-stream",
    "azure-openai-responses",
    "azure-openai-completions",
    "scripted",
]


class ModelCost(WireModel):
    """Prices in dollars per million tokens."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0


class Model(WireModel):
    id: str
    name: str = ""
    api: str = "openai-completions"
    provider: str = ""
    base_url: str = ""
    reasoning: bool = False
    input: list[str] = Field(default_factory=lambda: ["text"])
    context_window: int = 128000
    max_tokens: int = 16384
    cost: ModelCost = Field(default_factory=ModelCost)
    # Header values may be secrets (or name them): used for requests, never written to the wire.
    headers: dict[str, str] | None = Field(default=None, exclude=True)
    compat: dict[str, Any] | None = None
    # level -> provider value; None marks a level the model does not support.
    thinking_level_map: dict[str, str | None] | None = None

    @property
    def key(self) -> str:
        return f"{self.provider}/{self.id}"

    def supports_images(self) -> bool:
        return "image" in self.input
