"""The toolset alone: which tools are active, and the system prompt rebuilt whenever that changes."""

from __future__ import annotations

from pathlib import Path

from atomic.core.engine.toolset import Toolset
from atomic.core.resources.context_files import ContextFile
from atomic.core.resources.input_expansion import ResourceCatalog
from atomic.core.tools.base import Tool


def _tool(name: str, description: str = "") -> Tool:
    tool = Tool()
    tool.name = name
    tool.description = description or f"the {name} tool"
    return tool


def _prompt_of(toolset: Toolset) -> str:
    tools = ",".join(t.name for t in toolset.active_tools())
    files = ",".join(f.content for f in toolset.context_files)
    return f"tools={tools} files={files}"


def _with_resources(tmp_path: Path, tools: list[Tool]) -> Toolset:
    toolset = Toolset()
    toolset.install_tools(tools)
    catalog = ResourceCatalog(tmp_path, tmp_path / "agent", include_project=False)
    toolset.use_resources(catalog, [ContextFile(tmp_path / "AGENTS.md", "RULES")], lambda: _prompt_of(toolset))
    return toolset


def test_installed_tools_are_all_active_in_order_and_nothing_is_built_without_a_builder() -> None:
    toolset = Toolset()
    toolset.install_tools([_tool("read"), _tool("bash")])
    assert [t.name for t in toolset.active_tools()] == ["read", "bash"]
    toolset.refresh_system_prompt()
    assert toolset.system_prompt == "" and toolset.resources is None


def test_use_resources_builds_the_prompt_at_once(tmp_path: Path) -> None:
    toolset = _with_resources(tmp_path, [_tool("read"), _tool("bash")])
    assert toolset.resources is not None
    assert toolset.system_prompt == "tools=read,bash files=RULES"


def test_an_added_tool_replaces_a_built_in_of_its_name_and_is_listed_once(tmp_path: Path) -> None:
    toolset = _with_resources(tmp_path, [_tool("read"), _tool("bash")])
    mine = _tool("read", "my read")
    toolset.add_tool(mine)
    toolset.add_tool(_tool("weather"))
    assert toolset.active_tool_names == ["read", "bash", "weather"]
    assert toolset.tools["read"] is mine
    assert toolset.system_prompt == "tools=read,bash,weather files=RULES"


def test_choosing_the_active_tools_rebuilds_the_prompt_and_skips_unknown_names(tmp_path: Path) -> None:
    toolset = _with_resources(tmp_path, [_tool("read"), _tool("bash")])
    toolset.set_active_tools(["bash", "gone"])
    assert [t.name for t in toolset.active_tools()] == ["bash"]
    assert toolset.system_prompt == "tools=bash files=RULES"
    assert set(toolset.tools) == {"read", "bash"}  # inactive tools stay installed


def test_new_context_files_rebuild_the_prompt(tmp_path: Path) -> None:
    toolset = _with_resources(tmp_path, [_tool("read")])
    toolset.set_context_files([])
    assert toolset.system_prompt == "tools=read files="
