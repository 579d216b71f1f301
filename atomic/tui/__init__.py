"""The interactive terminal UI. Imported lazily by the CLI: `from atomic.tui import run_tui`."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from atomic.core.engine.options import SessionOptions


def run_tui(options: SessionOptions, initial_message: str | None = None, resume: bool = False) -> int:
    from atomic.tui.app import run_tui as _run

    return _run(options, initial_message=initial_message, resume=resume)
