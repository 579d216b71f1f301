"""The message shown when no model can be used (no key anywhere, no local server opted in)."""

from __future__ import annotations

from atomic.core.models.catalog import builtin_providers
from atomic.core.models.registry import ModelRegistry

_LOCAL_EXAMPLE = """\
  {
    "providers": {
      "local": {
        "baseUrl": "http://localhost:8000/v1",
        "api": "openai-completions",
        "apiKey": "none",
        "models": [{ "id": "my-model", "contextWindow": 32768 }]
      }
    }
  }"""


def no_model_message(registry: ModelRegistry) -> str:
    keyed = [
        (spec.env_var, spec.display_name)
        for spec in builtin_providers().values()
        if spec.env_var and not spec.keyless
    ]
    width = max(len(var) for var, _ in keyed)
    lines = [
        "No model available: Atomic found no API key for any provider.",
        "",
        "Set the API key of a provider in your environment, for example:",
        *(f"  export {(var + '=...').ljust(width + 4)}   # {name}" for var, name in keyed),
        "",
        "Amazon Bedrock and Vertex AI also sign in with your cloud credentials (AWS_PROFILE, or",
        "`gcloud auth application-default login` with GOOGLE_CLOUD_PROJECT): see docs/models.md.",
        "",
        f"Or start `atomic` and type /login to store a key in {registry.auth.path}.",
        "",
        f"To use a local OpenAI-compatible server (llama.cpp, vLLM, LM Studio), add it to {registry.models_json_path}:",
        _LOCAL_EXAMPLE,
        "",
        "For Ollama, set OLLAMA_HOST (e.g. export OLLAMA_HOST=localhost:11434) and pull a model.",
        "Then run `atomic --list-models` to check.",
    ]
    if registry.errors:
        lines += [
            "",
            "Problems found while loading your configuration:",
            *(f"  {e}" for e in registry.errors),
        ]
    return "\n".join(lines)
