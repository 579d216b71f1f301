"""Problems found while loading resources, reported to the user instead of raised."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Severity = Literal["warning", "error"]


@dataclass(frozen=True)
class ResourceDiagnostic:
    severity: Severity
    message: str
    path: Path | None = None

    def __str__(self) -> str:
        where = f" ({self.path})" if self.path is not None else ""
        return f"{self.severity}: {self.message}{where}"


def warning(message: str, path: Path | None = None) -> ResourceDiagnostic:
    return ResourceDiagnostic("warning", message, path)
