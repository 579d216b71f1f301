"""How tools turn a model-supplied path into a real one."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

# Unicode spaces models sometimes emit (or copy from macOS file names) instead of a plain space.
_ODD_SPACES = dict.fromkeys(map(ord, "\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"), " ")


def expand_path(raw: str) -> str:
    """Strip a leading `@` (file mentions), normalise odd spaces and expand `~`."""
    text = raw.strip()
    if text.startswith("@"):
        text = text[1:]
    text = text.translate(_ODD_SPACES)
    if text == "~" or text.startswith("~/"):
        text = str(Path.home()) + text[1:]
    return text


def resolve_path(raw: str, cwd: Path) -> Path:
    """An absolute, normalised path; relative paths are taken from `cwd`. Symlinks are not resolved."""
    expanded = expand_path(raw)
    return Path(os.path.normpath(os.path.join(str(cwd), expanded or ".")))


def _read_path_variants(path: Path) -> list[Path]:
    """Spellings a file may really have when the model's spelling is missing (macOS habits).

    Screenshots use a narrow no-break space before AM/PM, macOS stores names decomposed (NFD), and
    names with apostrophes are often typed with a curly one.
    """
    text = str(path)
    am_pm = text.replace(" AM.", "\u202fAM.").replace(" PM.", "\u202fPM.")
    nfd = unicodedata.normalize("NFD", text)
    curly = text.replace("'", "\u2019")
    candidates = [am_pm, nfd, curly, unicodedata.normalize("NFD", curly)]
    return [Path(c) for c in dict.fromkeys(candidates) if c != text]


def resolve_read_path(raw: str, cwd: Path) -> Path:
    """Like `resolve_path`, but falls back to an existing variant spelling of the same name."""
    path = resolve_path(raw, cwd)
    if path.exists():
        return path
    for variant in _read_path_variants(path):
        if variant.exists():
            return variant
    return path
