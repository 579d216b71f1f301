"""Assembling the system prompt: default (or SYSTEM.md) text, appends, context files, skills."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from pathlib import Path

from atomic.core.resources.context_files import ContextFile
from atomic.core.resources.skills import Skill, skills_prompt_block

SYSTEM_FILE = "SYSTEM.md"
APPEND_SYSTEM_FILE = "APPEND_SYSTEM.md"
_EXPLORATION_TOOLS = ("grep", "find", "ls")


def project_system_files(cwd: Path) -> list[Path]:
    """The project's own SYSTEM.md and APPEND_SYSTEM.md (used only when the project is trusted)."""
    folder = Path(cwd) / ".atomic"
    return [folder / name for name in (SYSTEM_FILE, APPEND_SYSTEM_FILE) if (folder / name).is_file()]


def discover_system_files(
    cwd: Path, agent_dir: Path, include_project: bool = False
) -> tuple[Path | None, Path | None]:
    """(SYSTEM.md, APPEND_SYSTEM.md): each the project `.atomic/` one if present and the project is
    trusted (it replaces or steers the model's instructions), else the global one."""
    folders = [Path(cwd) / ".atomic", Path(agent_dir)] if include_project else [Path(agent_dir)]

    def first_existing(name: str) -> Path | None:
        for folder in folders:
            if (folder / name).is_file():
                return folder / name
        return None

    return first_existing(SYSTEM_FILE), first_existing(APPEND_SYSTEM_FILE)


def read_text_or_file(value: str, cwd: Path) -> str:
    """A `--system-prompt`-style value: the file's content when it names an existing file, else itself."""
    stripped = value.strip()
    if stripped and "\n" not in stripped:
        try:
            candidate = Path(stripped).expanduser()
            if not candidate.is_absolute():
                candidate = Path(cwd) / candidate
            if candidate.is_file():
                return candidate.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError, ValueError):
            pass  # not a readable path: treat the value as literal text
    return value


def _read_optional(path: Path | None) -> str | None:
    if path is None:
        return None
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def default_system_prompt(tools: Sequence[tuple[str, str]], tool_guidelines: Sequence[str] = ()) -> str:
    """Atomic's built-in instructions, shaped by which tools are active."""
    names = {name for name, _snippet in tools}
    tool_lines = [f"- {name}: {snippet}" if snippet else f"- {name}" for name, snippet in tools]
    if not tool_lines:
        tool_lines = ["(no tools are available in this session: answer from the conversation alone)"]

    guidelines: list[str] = []
    exploration = [name for name in _EXPLORATION_TOOLS if name in names]
    if exploration:
        listed = "/".join(exploration)
        guidelines.append(
            f"Prefer {listed} over bash for exploring files: they are faster and leave out ignored files"
        )
    elif "bash" in names:
        guidelines.append("Use bash for file operations such as ls, rg and find")
    if "read" in names:
        guidelines.append(
            "Read a file before you change it or make claims about it; never guess at file contents"
        )
    else:
        guidelines.append("Never invent file contents: state what you have not seen")
    if "edit" in names:
        guidelines.append(
            "Use edit for precise changes to existing files; the old text must match the file exactly"
        )
    if "write" in names:
        guidelines.append("Use write only to create new files or to replace a file completely")
    if "bash" in names:
        guidelines.append("Run the project's tests or build with bash when that helps verify a change")
        guidelines.append(
            "Check with the user before destructive commands (deleting files, rewriting git history, force pushes)"
        )
    if "todo" in names:
        guidelines.append(
            "For work with three or more steps, keep a to-do list with the todo tool and update it as you go; "
            "do not use it for a single small request"
        )
    guidelines += [line.strip() for line in tool_guidelines if line.strip()]
    guidelines += [
        "Make the smallest change that fully solves the task, in the style of the surrounding code",
        "Ask when the request is ambiguous instead of guessing at something destructive",
        "Be concise in your responses; after changing files, say briefly what changed and why",
        "Show file paths clearly when working with files",
    ]

    return "\n".join(
        [
            "You are Atomic, an expert coding assistant working in the user's repository from the terminal.",
            "You help by reading code, running commands, editing files and writing new ones with the tools below.",
            "",
            "Available tools:",
            *tool_lines,
            "",
            "Guidelines:",
            *(f"- {line}" for line in guidelines),
        ]
    )


def _project_context_section(context_files: Sequence[ContextFile]) -> str:
    parts = ["# Project Context", "", "Project-specific instructions and guidelines:"]
    for context_file in context_files:
        parts += ["", f"## {context_file.path}", "", context_file.content.strip()]
    return "\n".join(parts)


def build_system_prompt(
    *,
    cwd: Path,
    agent_dir: Path,
    tools: Sequence[tuple[str, str]],
    context_files: Sequence[ContextFile],
    skills: Sequence[Skill],
    custom_prompt: str | None,
    append_prompts: Sequence[str],
    date: datetime.date | None = None,
    read_tool_active: bool,
    tool_guidelines: Sequence[str] = (),
    include_project: bool = False,
) -> str:
    """The full system prompt.

    `custom_prompt` (`--system-prompt`) and `append_prompts` (`--append-system-prompt`) are raw
    CLI values: each is read as a file when it names one. When given they take the place of the
    discovered SYSTEM.md / APPEND_SYSTEM.md respectively.
    """
    system_file, append_file = discover_system_files(cwd, agent_dir, include_project)
    if custom_prompt is not None:
        base = read_text_or_file(custom_prompt, cwd)
    else:
        found = _read_optional(system_file)
        base = found if found is not None else default_system_prompt(tools, tool_guidelines)

    if append_prompts:
        appended = [read_text_or_file(value, cwd) for value in append_prompts]
    else:
        appended = [text for text in [_read_optional(append_file)] if text is not None]

    sections = [base.strip()]
    sections += [text.strip() for text in appended if text.strip()]
    if context_files:
        sections.append(_project_context_section(context_files))
    if read_tool_active:
        block = skills_prompt_block(skills)
        if block:
            sections.append(block)
    today = date or datetime.date.today()
    sections.append(f"Current date: {today.isoformat()}\nCurrent working directory: {cwd}")
    return "\n\n".join(section for section in sections if section)


def subagent_system_prompt(
    *, cwd: Path, tools: Sequence[tuple[str, str]], instructions: str, context_files: Sequence[ContextFile]
) -> str:
    """A subagent's system prompt: the default prompt for its tools, its definition's instructions, the
    same project context files as the parent (already trust-gated), the date and the folder."""
    sections = [default_system_prompt(tools).strip(), instructions.strip()]
    if context_files:
        sections.append(_project_context_section(context_files))
    sections.append(f"Current date: {datetime.date.today().isoformat()}\nCurrent working directory: {cwd}")
    return "\n\n".join(section for section in sections if section)
