"""docs/models.md lists every built-in provider (with its variables) and every login, and marks each
test-only variable as such."""

from __future__ import annotations

import re
from pathlib import Path

from atomic.core.models.catalog import builtin_providers
from atomic.core.models.refresh import TEST_URL_VARIABLE
from atomic.core.oauth import LOGIN_PROVIDERS
from atomic.core.oauth.base import TEST_CALLBACK_PORT_VARIABLE, TEST_URL_VARIABLES

DOC = (Path(__file__).resolve().parents[2] / "docs" / "models.md").read_text(encoding="utf-8")


def test_every_provider_has_a_row_with_its_api_and_variables() -> None:
    for name, spec in builtin_providers().items():
        row = next((line for line in DOC.splitlines() if line.startswith(f"| `{name}` |")), None)
        assert row is not None, name
        assert f"`{spec.api}`" in row, name
        # Azure has no fixed address: each resource has its own (the row says where it goes).
        assert f"`{spec.base_url}`" in row if spec.base_url else "baseUrl" in row, name
        for var in spec.env_vars:
            assert f"`{var}`" in row, (name, var)


def test_every_login_is_explained() -> None:
    for provider in LOGIN_PROVIDERS:
        assert re.search(rf"^### .*\(`{provider}`\)$", DOC, re.MULTILINE), provider
    assert "atomic --login <provider>" in DOC


def test_test_only_variables_are_marked() -> None:
    section = DOC[DOC.index("### Variables for testing only"):]
    section = section[:section.index("\n## ")]
    assert "for testing only" in section
    for var in [*(v for v, _ in TEST_URL_VARIABLES.values()), TEST_CALLBACK_PORT_VARIABLE, TEST_URL_VARIABLE]:
        assert f"`{var}`" in section, var
