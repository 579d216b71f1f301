from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def ext_dir(tmp_path: Path) -> Path:
    """A folder outside any discovery location, for extensions passed with -e."""
    folder = tmp_path / "ext"
    folder.mkdir()
    return folder
