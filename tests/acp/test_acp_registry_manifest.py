"""The ACP registry manifest agrees with the package it launches."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import atomic

ROOT = Path(__file__).resolve().parents[2]


def test_the_manifest_launches_this_package_in_acp_mode() -> None:
    manifest = json.loads((ROOT / "registry" / "atomic" / "agent.json").read_text())
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert manifest["id"] == "atomic" == (ROOT / "registry" / "atomic").name
    assert manifest["version"] == project["version"] == atomic.__version__
    assert manifest["name"] and manifest["description"]
    uvx = manifest["distribution"]["uvx"]
    assert uvx == {"package": project["name"], "args": ["--mode", "acp"]}
    # `uvx <package>` runs the script named like the package.
    assert project["scripts"][project["name"]] == project["scripts"]["atomic"] == "atomic.cli:main"
