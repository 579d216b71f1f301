"""Turning `/template args` and `/skill:name args` into the text the model receives."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from atomic.core.resources.diagnostics import ResourceDiagnostic
from atomic.core.resources.prompt_templates import (
    PromptTemplate,
    discover_prompt_templates,
    expand_template,
    parse_command_args,
)
from atomic.core.resources.skills import Skill, discover_skills, expand_skill

if TYPE_CHECKING:
    from atomic.core.records import CommandInfo

SKILL_COMMAND_PREFIX = "skill:"


def split_command(text: str) -> tuple[str, str] | None:
    """`"/name rest of text"` -> ("name", "rest of text"); None when `text` is not a command."""
    if not text.startswith("/") or len(text) < 2 or text[1].isspace():
        return None
    parts = text[1:].split(maxsplit=1)
    return parts[0], parts[1] if len(parts) > 1 else ""


def expand_input(text: str, templates: Sequence[PromptTemplate], skills: Sequence[Skill]) -> str:
    """Expand a known template or skill command; any other text is returned unchanged."""
    command = split_command(text)
    if command is None:
        return text
    name, rest = command
    if name.startswith(SKILL_COMMAND_PREFIX):
        skill_name = name[len(SKILL_COMMAND_PREFIX) :]
        for skill in skills:
            if skill.name == skill_name:
                return expand_skill(skill, rest)
        return text
    for template in templates:
        if template.name == name:
            return expand_template(template.body, parse_command_args(rest))
    return text


class ResourceCatalog:
    """The prompt templates and skills available to one session, with what went wrong loading them."""

    def __init__(
        self,
        cwd: Path,
        agent_dir: Path,
        *,
        prompt_template_paths: Iterable[str | Path] = (),
        skill_paths: Iterable[str | Path] = (),
        no_prompt_templates: bool = False,
        no_skills: bool = False,
        include_project: bool = True,
    ) -> None:
        """`no_prompt_templates` / `no_skills` turn off discovery; explicit paths still load.
        `include_project` is the project trust decision (False: nothing from the project's folders)."""
        self.cwd = Path(cwd)
        self.agent_dir = Path(agent_dir)
        self.prompt_template_paths = list(prompt_template_paths)
        self.skill_paths = list(skill_paths)
        self.no_prompt_templates = no_prompt_templates
        self.no_skills = no_skills
        self.include_project = include_project
        self.templates: list[PromptTemplate] = []
        self.skills: list[Skill] = []
        self.diagnostics: list[ResourceDiagnostic] = []
        self.reload()

    def reload(self) -> None:
        """Discover everything again (e.g. after `/reload` or a change of working directory)."""
        self.templates, template_diagnostics = discover_prompt_templates(
            self.cwd,
            self.agent_dir,
            self.prompt_template_paths,
            include_defaults=not self.no_prompt_templates,
            include_project=self.include_project,
        )
        self.skills, skill_diagnostics = discover_skills(
            self.cwd, self.agent_dir, self.skill_paths, include_defaults=not self.no_skills,
            include_project=self.include_project,
        )
        self.diagnostics = [*template_diagnostics, *skill_diagnostics]

    def template(self, name: str) -> PromptTemplate | None:
        return next((t for t in self.templates if t.name == name), None)

    def skill(self, name: str) -> Skill | None:
        return next((s for s in self.skills if s.name == name), None)

    def expand(self, text: str) -> str:
        return expand_input(text, self.templates, self.skills)

    def commands(self) -> list[CommandInfo]:
        """`get_commands` entries for templates (source "prompt") and skills (source "skill")."""
        from atomic.core.records import CommandInfo

        items = [
            CommandInfo(template.name, template.description, "prompt", str(template.path), template.location)
            for template in self.templates
        ]
        items += [
            CommandInfo(f"{SKILL_COMMAND_PREFIX}{skill.name}", skill.description, "skill", str(skill.path), skill.location)
            for skill in self.skills
        ]
        return items
