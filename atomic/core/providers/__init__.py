"""LLM providers behind one streaming interface (see `base.py`).

`get_provider(api)` returns the provider for an api of the table in `registry.py` ("anthropic-messages",
"openai-completions", "openai-responses", "scripted") or one added with `register_provider`.
"""

from atomic.core.providers.errors import classify_error, is_context_overflow_text
from atomic.core.providers.registry import get_provider, known_apis, register_provider, unregister_provider

__all__ = [
    "classify_error",
    "get_provider",
    "is_context_overflow_text",
    "known_apis",
    "register_provider",
    "unregister_provider",
]
