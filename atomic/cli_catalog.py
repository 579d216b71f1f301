"""The command-line flags about providers and models: `--list-providers`, `--list-models` (with
`--provider` and `--json`), `--refresh-models` and `--login <provider>`. Each prints and returns the
exit code; none opens a session."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from typing import Any

from atomic.core.auth import AuthStorage
from atomic.core.models.registry import ModelRegistry
from atomic.core.paths import agent_dir


def _registry() -> ModelRegistry:
    registry = ModelRegistry(agent_dir(), AuthStorage(agent_dir()), None)
    for error in registry.errors:
        print(f"warning: {error}", file=sys.stderr)
    return registry


def provider_rows(registry: ModelRegistry) -> list[dict[str, Any]]:
    """One object per provider, in catalog order then models.json order (`--list-providers --json`)."""
    from atomic.core.models.catalog import builtin_providers

    counts: dict[str, int] = {}
    for model in registry.all_models():
        counts[model.provider] = counts.get(model.provider, 0) + 1
    builtins = builtin_providers()
    rows = []
    for name in registry.providers():
        spec = builtins.get(name)
        rows.append({
            "id": name,
            "name": spec.display_name if spec else name,
            "api": registry.provider_api(name),
            "baseUrl": registry.provider_base_url(name),
            "envVars": list(spec.env_vars) if spec else [],
            "auth": registry.auth_kind(name),
            "models": counts.get(name, 0),
            "configured": registry.is_configured(name),
        })
    return rows


def list_providers(as_json: bool) -> int:
    rows = provider_rows(_registry())
    if as_json:
        print(json.dumps(rows, indent=2))
        return 0
    width = max(len(r["id"]) for r in rows) + 2
    print(f"{'provider'.ljust(width)}{'auth'.ljust(9)}{'models'.rjust(6)}  {'configured'.ljust(11)}env / base URL")
    for row in rows:
        where = ", ".join(row["envVars"]) or row["baseUrl"]
        print(f"{row['id'].ljust(width)}{row['auth'].ljust(9)}{str(row['models']).rjust(6)}  "
              f"{('yes' if row['configured'] else 'no').ljust(11)}{where}")
    return 0


def list_models(search: str, provider: str | None, as_json: bool) -> int:
    from atomic.core.models.resolver import format_models_table

    registry = _registry()
    models = registry.all_models()
    if provider:
        name = registry.canonical_provider(provider)
        if name is None:
            print(f'Error: Unknown provider "{provider}". Use --list-providers to see them.', file=sys.stderr)
            return 1
        models = [m for m in models if m.provider == name]
    if as_json:
        needle = search.lower()
        chosen = [m for m in models if not needle or needle in f"{m.provider}/{m.id} {m.name}".lower()]
        print(json.dumps([{**m.to_wire(), "configured": registry.is_configured(m.provider)} for m in chosen],
                         indent=2))
        return 0
    print(format_models_table(models, search or None))
    return 0


def refresh(as_json: bool) -> int:
    from atomic.core.models.refresh import RefreshError, refresh_models

    try:
        counts = refresh_models(agent_dir())
    except RefreshError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    if as_json:
        print(json.dumps(counts))
    else:
        print(f"Refreshed {len(counts)} providers from models.dev ({sum(counts.values())} models): "
              + ", ".join(f"{name} {count}" for name, count in counts.items()))
    return 0


class TerminalPrompts:
    """A login on the terminal: messages to stderr, pasted lines from stdin (read in a daemon thread so
    a browser callback that arrives first is not kept waiting by a blocked read)."""

    def show(self, text: str, *, url: str | None = None, code: str | None = None) -> None:
        print(text, file=sys.stderr, flush=True)
        if url and url not in text:
            print(f"  {url}", file=sys.stderr, flush=True)

    async def ask(self, question: str) -> str:
        from atomic.core.oauth import LoginCancelled

        loop = asyncio.get_running_loop()
        answer: asyncio.Future[str] = loop.create_future()

        def read() -> None:
            line = sys.stdin.readline()
            loop.call_soon_threadsafe(lambda: None if answer.done() else answer.set_result(line))

        print(question, file=sys.stderr, flush=True)
        threading.Thread(target=read, daemon=True).start()
        line = await answer
        if not line:
            raise LoginCancelled("No input (stdin closed).")
        return line.strip()


def login(provider: str) -> int:
    from atomic.core.oauth import LOGIN_PROVIDERS, LoginCancelled, LoginError, run_login

    registry = _registry()
    name = registry.canonical_provider(provider)
    if name is None:
        print(f'Error: Unknown provider "{provider}". Use --list-providers to see them.', file=sys.stderr)
        return 1
    try:
        if name in LOGIN_PROVIDERS:
            asyncio.run(run_login(registry.auth, name, TerminalPrompts()))
        else:
            import getpass

            key = getpass.getpass(f"API key for {name} (stored in {registry.auth.path}): ").strip()
            if not key:
                print("Error: the key is empty; nothing stored.", file=sys.stderr)
                return 1
            registry.auth.set_api_key(name, key)
    except LoginCancelled as exc:
        print(f"Login cancelled: {exc}", file=sys.stderr)
        return 1
    except LoginError as exc:
        print(f"Login failed: {exc}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, EOFError):
        print("\nLogin cancelled.", file=sys.stderr)
        return 130
    registry.reload()
    count = sum(1 for m in registry.available_models() if m.provider == name)
    print(f"Logged in to {name}: {count} models available (atomic --list-models --provider {name}).")
    return 0
