"""`Toolset`: which tools are active, and the system prompt built from them and the resources.

The factory installs the built-in tools and the resources (templates and skills, context files,
and how the system prompt is built from them); extensions add tools and choose the active ones;
the trust component swaps the context files when the decision changes. Every change that can
alter the prompt rebuilds it here, so the run only reads `system_prompt`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from atomic.core.tools.base import Tool

if TYPE_CHECKING:
    from atomic.core.resources.context_files import ContextFile
    from atomic.core.resources.input_expansion import ResourceCatalog


class Toolset:
    def __init__(self) -> None:
        self.tools: dict[str, Tool] = {}
        self.active_tool_names: list[str] = []
        self.system_prompt = ""
        # Prompt templates and skills (installed by the factory, reloaded by the trust component).
        self.resources: ResourceCatalog | None = None
        self.context_files: list[ContextFile] = []
        self._prompt_builder: Callable[[], str] | None = None

    def install_tools(self, tools: list[Tool]) -> None:
        """The built-in tools, all active."""
        self.tools = {tool.name: tool for tool in tools}
        self.active_tool_names = [tool.name for tool in tools]

    def use_resources(
        self, catalog: ResourceCatalog, context_files: list[ContextFile], prompt_builder: Callable[[], str]
    ) -> None:
        """Templates and skills, context files, and how the system prompt is built from them."""
        self.resources = catalog
        self.context_files = context_files
        self._prompt_builder = prompt_builder
        self.refresh_system_prompt()

    def set_context_files(self, context_files: list[ContextFile]) -> None:
        self.context_files = context_files
        self.refresh_system_prompt()

    def refresh_system_prompt(self) -> None:
        """Rebuild the system prompt (tools, context files or skills changed)."""
        if self._prompt_builder is not None:
            self.system_prompt = self._prompt_builder()

    def add_tool(self, tool: Tool) -> None:
        """Make the tool active (replacing a built-in of the same name) and refresh the system prompt."""
        self.tools[tool.name] = tool
        if tool.name not in self.active_tool_names:
            self.active_tool_names.append(tool.name)
        self.refresh_system_prompt()

    def set_active_tools(self, names: list[str]) -> None:
        self.active_tool_names = list(names)
        self.refresh_system_prompt()

    def active_tools(self) -> list[Tool]:
        return [self.tools[name] for name in self.active_tool_names if name in self.tools]
