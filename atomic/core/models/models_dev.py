"""The long tail of the built-in catalog, built from models.dev (https://models.dev), the open catalog
pi and opencode use.

`LONG_TAIL` names each provider Atomic takes from there: pi's provider id, its wire, base URL and
environment variables (pi's, so pi's models.json and settings keep working), and the models.dev
provider whose model list and figures it takes. `provider_from_models_dev` turns one models.dev
provider into a catalog.json provider; every model it writes cites models.dev for each figure.
`CORRECTIONS` are Atomic's own figures over models.dev's, each with the page that gives it.

Used by `scripts/build_catalog.py` (which regenerates catalog.json from the `models-dev` package's
snapshot or a downloaded api.json) and by `atomic --refresh-models` (the current data, kept in
the agent dir and used from then on). Nothing here touches the network.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MODELS_DEV_URL = "https://models.dev/api.json"
SOURCE_NOTE = (
    "Figures from the models.dev catalog ({snapshot}); not re-read on the provider's own pages. "
    "`atomic --refresh-models` takes the current ones."
)


@dataclass(frozen=True)
class LongTailProvider:
    name: str
    display_name: str
    models_dev_id: str | None
    api: str
    base_url: str
    env_var: str | None
    env_vars: tuple[str, ...] = ()
    auth: str = "api-key"
    compat: dict[str, Any] | None = None
    default_model: str | None = None
    keyless: bool = False
    opt_in_env: tuple[str, ...] = ()
    # Model id prefix -> (api, base URL) where one provider serves some models over another wire.
    routes: tuple[tuple[str, str, str | None], ...] = ()
    only_tool_models: bool = True
    # Only these models.dev ids (in this order), when the provider serves a part of another's list.
    model_ids: tuple[str, ...] = ()


_NO_STORE = {"supportsStore": False, "supportsDeveloperRole": False}

LONG_TAIL: tuple[LongTailProvider, ...] = (
    LongTailProvider(
        "github-copilot", "GitHub Copilot", "github-copilot", "openai-completions",
        "https://api.individual.githubcopilot.com", None, auth="oauth",
        compat={"supportsStore": False, "supportsDeveloperRole": False, "supportsReasoningEffort": False},
        default_model="claude-sonnet-4.5",
        # As pi routes them: Claude over the Messages wire, GPT-5 and the Codex models over Responses.
        routes=(("claude-", "anthropic-messages", None), ("gpt-5", "openai-responses", None)),
    ),
    LongTailProvider(
        "openai-codex", "ChatGPT (Codex)", "openai", "openai-codex-responses",
        "https://chatgpt.com/backend-api", None, auth="oauth", default_model="gpt-5.4",
        # The models a ChatGPT plan offers in Codex; their figures are OpenAI's API ones.
        model_ids=("gpt-5.5", "gpt-5.4", "gpt-5.4-mini", "gpt-5.3-codex", "gpt-5.2", "gpt-5.2-codex",
                   "gpt-5.1", "gpt-5.1-codex", "gpt-5.1-codex-max", "gpt-5.1-codex-mini"),
    ),
    LongTailProvider(
        "vercel-ai-gateway", "Vercel AI Gateway", "vercel", "anthropic-messages",
        "https://ai-gateway.vercel.sh", "AI_GATEWAY_API_KEY", default_model="anthropic/claude-sonnet-4.5",
    ),
    LongTailProvider(
        "zai", "Z.AI (GLM Coding Plan)", "zai", "openai-completions",
        "https://api.z.ai/api/coding/paas/v4", "ZAI_API_KEY",
        compat={**_NO_STORE, "supportsReasoningEffort": False, "thinkingFormat": "zai"}, default_model="glm-4.6",
    ),
    LongTailProvider(
        "minimax", "MiniMax", "minimax", "anthropic-messages", "https://api.minimax.io/anthropic",
        "MINIMAX_API_KEY", default_model="MiniMax-M2",
    ),
    LongTailProvider(
        "minimax-cn", "MiniMax (China)", "minimax-cn", "anthropic-messages", "https://api.minimaxi.com/anthropic",
        "MINIMAX_CN_API_KEY", default_model="MiniMax-M2",
    ),
    LongTailProvider(
        "moonshotai", "Moonshot AI", "moonshotai", "openai-completions", "https://api.moonshot.ai/v1",
        "MOONSHOT_API_KEY", compat={**_NO_STORE, "supportsReasoningEffort": False, "maxTokensField": "max_tokens"},
        default_model="kimi-k2-thinking",
    ),
    LongTailProvider(
        "moonshotai-cn", "Moonshot AI (China)", "moonshotai-cn", "openai-completions", "https://api.moonshot.cn/v1",
        "MOONSHOT_API_KEY", compat={**_NO_STORE, "supportsReasoningEffort": False, "maxTokensField": "max_tokens"},
        default_model="kimi-k2-thinking",
    ),
    LongTailProvider(
        "huggingface", "Hugging Face", "huggingface", "openai-completions", "https://router.huggingface.co/v1",
        "HF_TOKEN", compat={**_NO_STORE, "supportsReasoningEffort": False}, default_model="moonshotai/Kimi-K2-Instruct",
    ),
    LongTailProvider(
        "fireworks", "Fireworks AI", "fireworks-ai", "openai-completions", "https://api.fireworks.ai/inference/v1",
        "FIREWORKS_API_KEY", compat={**_NO_STORE, "supportsReasoningEffort": False, "maxTokensField": "max_tokens"},
        default_model="accounts/fireworks/models/kimi-k2-thinking",
    ),
    LongTailProvider(
        "opencode", "OpenCode Zen", "opencode", "openai-completions", "https://opencode.ai/zen/v1",
        "OPENCODE_API_KEY", compat=dict(_NO_STORE), default_model="claude-sonnet-4-5",
        routes=(("claude-", "anthropic-messages", "https://opencode.ai/zen"), ("gpt-", "openai-responses", None)),
    ),
    LongTailProvider(
        "kimi-coding", "Kimi For Coding", "kimi-for-coding", "anthropic-messages", "https://api.kimi.com/coding",
        "KIMI_API_KEY", default_model="kimi-k2-thinking",
    ),
    LongTailProvider(
        "cloudflare-workers-ai", "Cloudflare Workers AI", "cloudflare-workers-ai", "openai-completions",
        "https://api.cloudflare.com/client/v4/accounts/{CLOUDFLARE_ACCOUNT_ID}/ai/v1", "CLOUDFLARE_API_KEY",
        compat={**_NO_STORE, "supportsReasoningEffort": False, "maxTokensField": "max_tokens"},
        default_model="@cf/openai/gpt-oss-120b",
    ),
    LongTailProvider(
        "cloudflare-ai-gateway", "Cloudflare AI Gateway", "cloudflare-ai-gateway", "openai-completions",
        "https://gateway.ai.cloudflare.com/v1/{CLOUDFLARE_ACCOUNT_ID}/{CLOUDFLARE_GATEWAY_ID}/compat",
        "CLOUDFLARE_API_KEY", compat=dict(_NO_STORE), default_model="anthropic/claude-sonnet-4-5",
    ),
    LongTailProvider(
        "together", "Together AI", "togetherai", "openai-completions", "https://api.together.xyz/v1",
        "TOGETHER_API_KEY", compat={**_NO_STORE, "supportsReasoningEffort": False},
        default_model="Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8",
    ),
    LongTailProvider(
        "deepinfra", "DeepInfra", "deepinfra", "openai-completions", "https://api.deepinfra.com/v1/openai",
        "DEEPINFRA_API_KEY", compat={**_NO_STORE, "supportsReasoningEffort": False},
        default_model="Qwen/Qwen3-Coder-480B-A35B-Instruct",
    ),
    LongTailProvider(
        "nebius", "Nebius Token Factory", "nebius", "openai-completions", "https://api.tokenfactory.nebius.com/v1",
        "NEBIUS_API_KEY", compat={**_NO_STORE, "supportsReasoningEffort": False},
        default_model="moonshotai/Kimi-K2.5",
    ),
    # Local servers: like Ollama they need no key and count only once the person opts in (their key
    # variable, or the provider in models.json with the models they serve).
    LongTailProvider(
        "lmstudio", "LM Studio", "lmstudio", "openai-completions", "http://localhost:1234/v1", "LMSTUDIO_API_KEY",
        auth="none", keyless=True, opt_in_env=("LMSTUDIO_API_KEY",),
        compat={**_NO_STORE, "maxTokensField": "max_tokens"},
    ),
    LongTailProvider(
        "llama-cpp", "llama.cpp server", None, "openai-completions", "http://localhost:8080/v1", "LLAMA_CPP_API_KEY",
        auth="none", keyless=True, opt_in_env=("LLAMA_CPP_API_KEY",),
        compat={**_NO_STORE, "supportsReasoningEffort": False, "maxTokensField": "max_tokens"},
    ),
    LongTailProvider(
        "vllm", "vLLM", None, "openai-completions", "http://localhost:8000/v1", "VLLM_API_KEY",
        auth="none", keyless=True, opt_in_env=("VLLM_API_KEY",),
        compat={**_NO_STORE, "maxTokensField": "max_tokens"},
    ),
)

# Atomic's figures over models.dev's: provider -> model id -> fields, each with the page that gives them.
CORRECTIONS: dict[str, dict[str, dict[str, Any]]] = {
    "openai-codex": {
        # A ChatGPT plan's Codex use is part of the subscription (with its own usage limits).
        "*": {"cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
              "source_cost": "https://help.openai.com/en/articles/11369540-using-codex-with-your-chatgpt-plan"},
    },
    "github-copilot": {
        # Copilot bills by subscription and premium requests, not per token.
        "*": {"cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
              "source_cost": "https://docs.github.com/en/copilot/concepts/billing/copilot-requests"},
    },
}



def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}

def _cost(raw: dict[str, Any]) -> dict[str, float]:
    cost = _object(raw.get("cost"))
    return {
        "input": float(cost.get("input") or 0),
        "output": float(cost.get("output") or 0),
        "cacheRead": float(cost.get("cache_read") or 0),
        "cacheWrite": float(cost.get("cache_write") or 0),
    }


def model_from_models_dev(spec: LongTailProvider, raw: dict[str, Any], snapshot: str) -> dict[str, Any] | None:
    """A catalog.json model for one models.dev model, or None for one Atomic cannot drive (no tool calls,
    no text output)."""
    model_id = raw.get("id")
    if not isinstance(model_id, str) or not model_id:
        return None
    if spec.only_tool_models and raw.get("tool_call") is False:
        return None
    modalities = _object(raw.get("modalities"))
    if "text" not in (modalities.get("output") or ["text"]):
        return None
    limit = _object(raw.get("limit"))
    inputs = ["text", "image"] if "image" in (modalities.get("input") or []) else ["text"]
    model: dict[str, Any] = {"id": model_id, "name": str(raw.get("name") or model_id)}
    for prefix, api, base_url in spec.routes:
        if model_id.startswith(prefix):
            model["api"] = api
            if base_url:
                model["baseUrl"] = base_url
            break
    model.update({
        "reasoning": bool(raw.get("reasoning")),
        "input": inputs,
        "contextWindow": int(limit.get("context") or 128000),
        "maxTokens": int(limit.get("output") or 16384),
        "cost": _cost(raw),
        "source": MODELS_DEV_URL,
        "checked": snapshot,
        "confirmed": [],
        "note": SOURCE_NOTE.format(snapshot=snapshot),
    })
    if raw.get("status") == "deprecated":
        model["status"] = "deprecated"
    return _corrected(spec.name, model)


def _corrected(provider: str, model: dict[str, Any]) -> dict[str, Any]:
    table = CORRECTIONS.get(provider, {})
    for key in ("*", model["id"]):
        correction = table.get(key)
        if not correction:
            continue
        sources = dict(model.get("sources") or {})
        for name, value in correction.items():
            if name.startswith("source_"):
                sources[name.removeprefix("source_")] = value
            else:
                model[name] = value
        model["sources"] = sources
    return model


def provider_from_models_dev(spec: LongTailProvider, data: dict[str, Any], snapshot: str) -> dict[str, Any]:
    """The catalog.json provider for `spec`, its models from models.dev's `data` (api.json's shape)."""
    entry: dict[str, Any] = {"name": spec.display_name, "api": spec.api, "baseUrl": spec.base_url}
    if spec.env_var:
        entry["envVar"] = spec.env_var
    if spec.env_vars:
        entry["envVars"] = list(spec.env_vars)
    if spec.auth != "api-key":
        entry["auth"] = spec.auth
    if spec.keyless:
        entry["keyless"] = True
        entry["optInEnv"] = list(spec.opt_in_env)
    raw_models = (data.get(spec.models_dev_id) or {}).get("models") if spec.models_dev_id else None
    listed = dict(raw_models or {})
    if spec.model_ids:
        listed = {i: listed[i] for i in spec.model_ids if i in listed}
    models = [
        m for m in (model_from_models_dev(spec, raw, snapshot) for raw in listed.values() if isinstance(raw, dict))
        if m
    ]
    ids = [m["id"] for m in models]
    if spec.default_model in ids:
        entry["defaultModel"] = spec.default_model
    elif ids:
        entry["defaultModel"] = ids[0]
    if spec.compat:
        entry["compat"] = dict(spec.compat)
    entry["modelsDev"] = spec.models_dev_id
    entry["models"] = models
    return entry


def long_tail_spec(name: str) -> LongTailProvider | None:
    return next((spec for spec in LONG_TAIL if spec.name == name), None)


# Where a provider serves another's models, Atomic's level map for them comes from that provider's
# curated entry (the ChatGPT plan's models are OpenAI's; Copilot serves OpenAI's and Anthropic's,
# Anthropic's ids there spelled with dots: claude-sonnet-4.5 for claude-sonnet-4-5).
_LEVEL_MAPS_FROM = {"openai-codex": ("openai",), "github-copilot": ("openai", "anthropic")}


def build_long_tail(data: dict[str, Any], checked: str, snapshot: str, curated: dict[str, Any]) -> dict[str, Any]:
    """Every `LONG_TAIL` provider as catalog.json holds it, from models.dev's `data`; `curated` is the
    catalog's own providers (those stay as they are and lend their level maps)."""
    providers: dict[str, Any] = {}
    for spec in LONG_TAIL:
        entry = provider_from_models_dev(spec, data, snapshot)
        maps: dict[str, Any] = {}
        for lender in _LEVEL_MAPS_FROM.get(spec.name, ()):
            for model in curated.get(lender, {}).get("models", ()):
                if model.get("thinkingLevelMap"):
                    maps.setdefault(model["id"], model["thinkingLevelMap"])
        for model in entry["models"]:
            model["checked"] = checked
            level_map = maps.get(model["id"]) or maps.get(model["id"].replace(".", "-"))
            if level_map:
                model["thinkingLevelMap"] = level_map
        providers[spec.name] = entry
    return providers
