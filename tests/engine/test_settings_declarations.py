"""Settings are declared once, on the pydantic fields of atomic/core/settings.py: docs/settings.md lists exactly
those keys with their defaults, and /settings shows exactly the fields that carry a label."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from atomic.core.settings import Settings, setting_fields, setting_meta
from atomic.tui.screens.settings_items import SETTING_ITEMS
from tests.conftest import ROOT

# Keys documented in docs/settings.md but read from the raw files by their own modules, not by the model:
# MCP server lists (atomic/core/mcp/config.py) and the project trust default (atomic/core/trust.py).
READ_RAW = {
    "mcpServers",
    "enabledMcpjsonServers",
    "disabledMcpjsonServers",
    "enableAllProjectMcpServers",
    "defaultProjectTrust",
}

_ROW = re.compile(r"^\| (`[^|]+`) \| ([^|]+) \|")


def documented() -> dict[str, str]:
    """Each key of the tables under "## Keys" with the text of its Default column."""
    text = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    section = text.split("\n## Keys\n", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, str] = {}
    for line in section.splitlines():
        match = _ROW.match(line)
        if not match:
            continue
        keys = re.findall(r"`([^`]+)`", match.group(1))
        defaults = [d.strip() for d in match.group(2).split(", ")]
        if len(defaults) == 1:  # one default for several keys
            defaults *= len(keys)
        assert len(defaults) == len(keys), line
        rows.update(zip(keys, defaults, strict=True))
    return rows


def default_of(key: str) -> Any:
    value: Any = Settings().model_dump(by_alias=True)
    for part in key.split("."):
        value = value[part]
    return value


def test_the_docs_list_every_setting_and_nothing_else() -> None:
    model_keys = {key for key, _ in setting_fields()}
    assert set(documented()) - READ_RAW == model_keys


@pytest.mark.parametrize("key", sorted(key for key, _ in setting_fields()))
def test_the_documented_default_is_the_models(key: str) -> None:
    text = documented()[key]
    default = default_of(key)
    if text.startswith("unset"):
        assert default is None
    else:
        assert json.loads(text.strip("`")) == default


def test_settings_shows_every_labelled_field_in_the_models_words() -> None:
    labelled = set()
    for key, info in setting_fields():
        extra = info.json_schema_extra
        if isinstance(extra, dict) and "label" in extra:
            labelled.add(key)
    assert [item.key for item in SETTING_ITEMS] and {item.key for item in SETTING_ITEMS} == labelled
    for item in SETTING_ITEMS:
        meta = setting_meta(item.key)
        assert (item.label, item.description, item.kind) == (meta.label, meta.description, meta.kind)
        assert item.description == info_description(item.key) != ""


def info_description(key: str) -> str | None:
    return dict(setting_fields())[key].description


def test_choices_come_from_the_field_type_in_its_order() -> None:
    assert setting_meta("steeringMode").choices == ("one-at-a-time", "all")
    assert setting_meta("doubleEscapeAction").choices == ("rewind", "tree", "fork", "none")
    assert setting_meta("editorPaddingX").choices == (0, 1, 2, 3)
    ratio = setting_meta("compaction.compression_ratio")
    assert (ratio.minimum, ratio.maximum, ratio.step) == (0.05, 0.95, 0.05)
    with pytest.raises(KeyError):
        setting_meta("sessionDir")  # declared, but not shown by /settings
