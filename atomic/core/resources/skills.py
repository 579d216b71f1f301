"""Skills: folders with a SKILL.md that the model can read on demand or the user can insert.

Discovery order (first skill with a given name wins):
  user:    <agentDir>/skills/, ~/.agents/skills/
  project: <cwd>/.atomic/skills/, .agents/skills/ in cwd and its parents up to the git root
  path:    explicit files or folders (`--skill`)
Folders are searched recursively; a folder holding SKILL.md is one skill and is not searched
further. Loose `.md` files directly in `<agentDir>/skills/` or `.atomic/skills/` are skills too.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from atomic.core.resources.diagnostics import ResourceDiagnostic, warning
from atomic.core.resources.frontmatter import parse_frontmatter
from atomic.core.resources.prompt_templates import Location, resolve_user_path

SKILL_FILE = "SKILL.md"
MAX_DESCRIPTION_LENGTH = 1024
_VALID_NAME = re.compile(r"[a-z0-9-]{1,64}")
_SKIPPED_FOLDERS = {"node_modules", "__pycache__"}


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    path: Path  # absolute path of the skill's Markdown file
    base_dir: Path  # folder the skill's relative references are resolved against
    location: Location
    body: str  # file content without the frontmatter, as loaded
    disable_model_invocation: bool = False


def load_skill(path: Path, location: Location) -> tuple[Skill | None, list[ResourceDiagnostic]]:
    """Read one skill file. Returns None (with the reason) when it cannot be used."""
    path = Path(os.path.abspath(path))
    try:
        meta, body = parse_frontmatter(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return None, [warning(f"cannot read skill: {exc}", path)]
    default_name = path.parent.name if path.name == SKILL_FILE else path.stem
    name = meta.get("name", "").strip() or default_name
    description = meta.get("description", "").strip()
    if not description:
        return None, [warning(f'skill "{name}" skipped: frontmatter has no description', path)]
    diagnostics: list[ResourceDiagnostic] = []
    if not _VALID_NAME.fullmatch(name):
        diagnostics.append(
            warning(f'skill name "{name}" should be 1-64 lowercase letters, digits or hyphens', path)
        )
    if len(description) > MAX_DESCRIPTION_LENGTH:
        diagnostics.append(
            warning(f'skill "{name}" description is longer than {MAX_DESCRIPTION_LENGTH} characters', path)
        )
    skill = Skill(
        name=name,
        description=description,
        path=path,
        base_dir=path.parent,
        location=location,
        body=body.strip(),
        disable_model_invocation=meta.get("disable-model-invocation", "").strip().lower() == "true",
    )
    return skill, diagnostics


def _skill_files_under(root: Path, *, include_root_markdown: bool) -> list[Path]:
    """SKILL.md files below `root` (sorted, cycle-safe), plus loose root `.md` files if asked."""
    found: list[Path] = []
    visited: set[str] = set()

    def walk(folder: Path, is_root: bool) -> None:
        real = os.path.realpath(folder)
        if real in visited:
            return
        visited.add(real)
        skill_file = folder / SKILL_FILE
        if skill_file.is_file():
            found.append(skill_file)
            return
        try:
            entries = sorted(folder.iterdir())
        except OSError:
            return
        for entry in entries:
            if entry.name.startswith(".") or entry.name in _SKIPPED_FOLDERS:
                continue
            if entry.is_dir():
                walk(entry, False)
            elif is_root and include_root_markdown and entry.suffix.lower() == ".md" and entry.is_file():
                found.append(entry)

    if root.is_dir():
        walk(root, True)
    return found


def _git_root(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def _project_agents_skill_dirs(cwd: Path) -> list[Path]:
    """`.agents/skills` in cwd and each parent up to the git root (only cwd outside a repo)."""
    cwd = Path(os.path.abspath(cwd))
    top = _git_root(cwd)
    if top is None:
        return [cwd / ".agents" / "skills"]
    folders = [cwd]
    for parent in cwd.parents:
        if not parent.is_relative_to(top):
            break
        folders.append(parent)
    return [folder / ".agents" / "skills" for folder in folders]


def user_skill_roots(agent_dir: Path) -> list[tuple[Path, Location, bool]]:
    return [(Path(agent_dir) / "skills", "user", True), (Path.home() / ".agents" / "skills", "user", False)]


def project_skill_roots(cwd: Path) -> list[tuple[Path, Location, bool]]:
    """The project's skill folders: what an untrusted project does not get to load."""
    return [
        (Path(cwd) / ".atomic" / "skills", "project", True),
        *((folder, "project", False) for folder in _project_agents_skill_dirs(cwd)),
    ]


def default_skill_roots(cwd: Path, agent_dir: Path) -> list[tuple[Path, Location, bool]]:
    """(folder, location, loose root .md files count as skills) in discovery order."""
    return [*user_skill_roots(agent_dir), *project_skill_roots(cwd)]


def project_skill_files(cwd: Path) -> list[Path]:
    """Every skill file the project's own folders hold (for the trust dialog)."""
    found: list[Path] = []
    for root, _location, loose_markdown in project_skill_roots(cwd):
        found += _skill_files_under(root, include_root_markdown=loose_markdown)
    return found


def discover_skills(
    cwd: Path,
    agent_dir: Path,
    explicit_paths: Iterable[str | Path] = (),
    *,
    include_defaults: bool = True,
    include_project: bool = True,
) -> tuple[list[Skill], list[ResourceDiagnostic]]:
    """Find skills; `include_defaults=False` (`--no-skills`) keeps only explicit paths,
    `include_project=False` (an untrusted project) leaves out the project's skill folders."""
    diagnostics: list[ResourceDiagnostic] = []
    candidates: list[tuple[Path, Location]] = []
    if include_defaults:
        roots = default_skill_roots(cwd, agent_dir) if include_project else user_skill_roots(agent_dir)
        for root, location, loose_markdown in roots:
            files = _skill_files_under(root, include_root_markdown=loose_markdown)
            candidates += [(path, location) for path in files]
    for value in explicit_paths:
        path = resolve_user_path(value, cwd)
        if path.is_dir():
            files = _skill_files_under(path, include_root_markdown=True)
            candidates += [(file, "path") for file in files]
        elif path.is_file():
            candidates.append((path, "path"))
        else:
            diagnostics.append(warning(f"skill path does not exist: {value}", path))

    skills: list[Skill] = []
    by_name: dict[str, Skill] = {}
    seen_files: set[str] = set()
    for path, location in candidates:
        real = os.path.realpath(path)
        if real in seen_files:
            # The same file reached twice (e.g. cwd is HOME, or a symlink): not a conflict.
            continue
        seen_files.add(real)
        skill, problems = load_skill(path, location)
        diagnostics += problems
        if skill is None:
            continue
        earlier = by_name.get(skill.name)
        if earlier is not None:
            diagnostics.append(
                warning(f'skill "{skill.name}" skipped: already defined by {earlier.path}', skill.path)
            )
            continue
        by_name[skill.name] = skill
        skills.append(skill)
    return skills, diagnostics


def xml_escape(text: str) -> str:
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&apos;")
    )


def skills_prompt_block(skills: Iterable[Skill]) -> str:
    """The system-prompt section announcing skills; "" when there is none the model may use."""
    visible = [skill for skill in skills if not skill.disable_model_invocation]
    if not visible:
        return ""
    lines = [
        "Skills are packaged instructions for specific kinds of tasks. Each one is listed below with "
        "a description and the location of its file.",
        "When the user's task matches a skill's description, use the read tool to read that skill's "
        "file before starting, then follow its instructions. Relative paths inside a skill refer to "
        "the folder that contains its file.",
        "",
        "<available_skills>",
    ]
    for skill in visible:
        lines += [
            "  <skill>",
            f"    <name>{xml_escape(skill.name)}</name>",
            f"    <description>{xml_escape(skill.description)}</description>",
            f"    <location>{xml_escape(str(skill.path))}</location>",
            "  </skill>",
        ]
    lines.append("</available_skills>")
    return "\n".join(lines)


def expand_skill(skill: Skill, args: str = "") -> str:
    """The text `/skill:name args` sends: the skill body wrapped in a `<skill>` element."""
    try:
        # Read again so edits made during a session are picked up.
        _meta, body = parse_frontmatter(skill.path.read_text(encoding="utf-8"))
        body = body.strip()
    except (OSError, UnicodeDecodeError):
        body = skill.body
    text = (
        f'<skill name="{xml_escape(skill.name)}" location="{xml_escape(str(skill.path))}">\n'
        f"References are relative to {skill.base_dir}.\n\n"
        f"{body}\n"
        "</skill>"
    )
    args = args.strip()
    return f"{text}\n\n{args}" if args else text
