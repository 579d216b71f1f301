"""`atomic --refresh-models`: fetch the current models.dev catalog and keep the long-tail providers built
from it in `<agentDir>/models-dev-catalog.json`, which the catalog uses from then on (catalog.py).

Only on request, never at start. `ATOMIC_MODELS_DEV_URL` replaces the address, for tests only (a
local server stands in for models.dev there).
"""

from __future__ import annotations

import datetime
import json
import os
from pathlib import Path
from typing import Any

from atomic.core.atomic_io import write_atomic
from atomic.core.models.catalog import REFRESHED_CATALOG_FILE, reload_catalog, shipped_providers
from atomic.core.models.models_dev import MODELS_DEV_URL, build_long_tail

TEST_URL_VARIABLE = "ATOMIC_MODELS_DEV_URL"
_TIMEOUT_S = 60.0


class RefreshError(Exception):
    pass


def fetch_models_dev() -> dict[str, Any]:
    import httpx2

    url = os.environ.get(TEST_URL_VARIABLE) or MODELS_DEV_URL
    try:
        with httpx2.Client(timeout=_TIMEOUT_S, follow_redirects=True) as client:
            answer = client.get(url, headers={"Accept": "application/json"})
    except httpx2.HTTPError as exc:
        raise RefreshError(f"Could not fetch {url}: {type(exc).__name__}: {exc}") from None
    if answer.status_code != 200:
        raise RefreshError(f"{url} answered HTTP {answer.status_code}")
    try:
        data = answer.json()
    except ValueError:
        raise RefreshError(f"{url} did not send JSON") from None
    if not isinstance(data, dict) or not data:
        raise RefreshError(f"{url} sent no providers")
    return data


def refresh_models(agent_dir: Path) -> dict[str, int]:
    """Fetch, build and store; returns the model count per refreshed provider."""
    data = fetch_models_dev()
    today = datetime.date.today().isoformat()
    shipped = shipped_providers()
    curated = {name: spec for name, spec in shipped.items() if "modelsDev" not in spec}
    providers = build_long_tail(data, today, f"models.dev api.json fetched {today}", curated)
    # A provider models.dev no longer lists keeps the shipped entry rather than losing its models.
    kept = {name: entry for name, entry in providers.items() if entry["models"] or not shipped.get(name, {}).get("models")}
    payload = {"source": MODELS_DEV_URL, "fetched": today, "providers": kept}
    agent_dir.mkdir(parents=True, exist_ok=True)
    write_atomic(agent_dir / REFRESHED_CATALOG_FILE, json.dumps(payload, indent=1) + "\n")
    reload_catalog()
    return {name: len(entry["models"]) for name, entry in kept.items()}
