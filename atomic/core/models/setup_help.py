"""The message shown when no model can be used (no key anywhere, no local server opted in)."""

from __future__ import annotations

from atomic.core.models.catalog import builtin_providers
from atomic.core.models.registry import ModelRegistry

_LOCAL_EXAMPLE = """\
  { "providers": { "vllm": { "models": [{ "id": "my-model", "contextWindow": 32768 }] } } }"""


def no_model_message(registry: ModelRegistry) -> str:
    # The providers Atomic curates; the long tail is one `--list-providers` away.
    keyed = [
        (spec.env_var, spec.display_name)
        for spec in builtin_providers().values()
        if spec.env_var and not spec.keyless and not spec.from_models_dev
    ]
    width = max(len(var) for var, _ in keyed)
    lines = [
        "No model available: Atomic found no API key for any provider.",
        "",
        "Set the API key of a provider in your environment, for example:",
        *(f"  export {(var + '=...').ljust(width + 4)}   # {name}" for var, name in keyed),
        "",
        "  (`atomic --list-providers` shows every provider and its variable)",
        "",
        "Amazon Bedrock and Vertex AI also sign in with your cloud credentials (AWS_PROFILE, or",
        "`gcloud auth application-default login` with GOOGLE_CLOUD_PROJECT): see docs/models.md.",
        "",
        f"Or start `atomic` and type /login to store a key in {registry.auth.path},",
        "or to log in with a GitHub Copilot or ChatGPT Plus/Pro subscription",
        "(also: atomic --login github-copilot, atomic --login openai-codex).",
        "",
        f"To use a local server, list the models it serves in {registry.models_json_path}:",
        _LOCAL_EXAMPLE,
        '  ("vllm" is http://localhost:8000/v1; "llama-cpp" :8080, "lmstudio" :1234; "baseUrl" changes it)',
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
