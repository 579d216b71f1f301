"""The terminal's window title (OSC 2): `atomic · <folder> · <state>`, so a tab says what Atomic is doing."""

from __future__ import annotations

from pathlib import Path

from textual.app import App


def title_for(cwd: Path, state: str | None) -> str:
    parts = ["atomic", cwd.name or str(cwd)]
    if state:
        parts.append(state)
    return " · ".join(parts)


def write_title(app: App[int], title: str) -> None:
    """Send OSC 2 through the terminal driver (nothing is written headless)."""
    clean = "".join(ch for ch in title if ch.isprintable())
    driver = app._driver  # foreign: Textual's terminal driver (private; None before it starts)
    if driver is not None and not app.is_headless:
        driver.write(f"\x1b]2;{clean}\x07")
        driver.flush()
