"""The slash commands every frontend offers besides the session's own (extension commands, prompt templates,
skills): declared here once, with the line a frontend shows for each. Each frontend runs them through the
`Engine` (`compact`, `set_session_name`) and reports the outcome its own way."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FrontendCommand:
    name: str
    description: str


COMPACT = FrontendCommand("compact", "Compact the context now")
NAME = FrontendCommand("name", "Name this session: /name <name>")
FRONTEND_COMMANDS: tuple[FrontendCommand, ...] = (COMPACT, NAME)
