"""Agent definitions: Markdown files with frontmatter, as Claude Code writes them, plus the built-ins.

Looked up in `<agentDir>/agents/`, then (only in a trusted project) `.claude/agents/` and
`.atomic/agents/` of the working folder; a later definition with the same name replaces an earlier
one, so a project can refine `explore` and the user's own files refine the built-ins.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from atomic.core.resources.frontmatter import parse_frontmatter

# The tools a child may have. `task` is left out on purpose: a child never starts children of its own.
CHILD_TOOLS = ("read", "bash", "edit", "write", "grep", "find", "ls", "todo")
READ_ONLY_TOOLS = ("read", "grep", "find", "ls")
# Claude Code's tool names in agent files, mapped to Atomic's.
_FOREIGN_TOOL_NAMES = {
    "read": "read",
    "grep": "grep",
    "glob": "find",
    "find": "find",
    "ls": "ls",
    "bash": "bash",
    "edit": "edit",
    "multiedit": "edit",
    "write": "write",
    "todowrite": "todo",
    "todo": "todo",
}


@dataclass(frozen=True)
class AgentDefinition:
    name: str
    description: str
    instructions: str  # the body: added to the child's system prompt
    tools: tuple[str, ...]
    model: str | None = None  # a model pattern (`sonnet`, `openai/gpt-5`); None or "inherit": the parent's
    thinking: str | None = None
    source: str = "built-in"  # or the file it came from


BUILTIN_AGENTS: tuple[AgentDefinition, ...] = (
    AgentDefinition(
        name="explore",
        description="Searches and reads the codebase to answer a question; changes nothing. Use it for "
        "open-ended searches across many files.",
        instructions=(
            "You are an exploration subagent. Find what the task asks for by listing, searching and "
            "reading files; never change anything. Finish with a concise answer: the facts found, with "
            "file paths and line numbers."
        ),
        tools=READ_ONLY_TOOLS,
    ),
    AgentDefinition(
        name="general",
        description="A general-purpose agent with every tool, for a self-contained piece of work.",
        instructions=(
            "You are a subagent doing one self-contained task for another agent. Do the task, then finish "
            "with a concise report of what you found or changed; the other agent sees only that report."
        ),
        tools=CHILD_TOOLS,
    ),
)


def project_agent_folders(cwd: Path) -> list[Path]:
    return [cwd / ".claude" / "agents", cwd / ".atomic" / "agents"]


def project_agent_files(cwd: Path) -> list[Path]:
    """The agent definitions a project brings (what trusting it would load)."""
    return [path for folder in project_agent_folders(cwd) for path in _markdown_files(folder)]


def _markdown_files(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if p.suffix == ".md" and p.is_file())
    except OSError:
        return []


def _tool_names(raw: str | None, warnings: list[str], path: Path) -> tuple[str, ...]:
    if raw is None or not raw.strip():
        return CHILD_TOOLS
    names: list[str] = []
    for word in raw.replace("[", " ").replace("]", " ").replace(",", " ").split():
        mapped = _FOREIGN_TOOL_NAMES.get(word.strip("'\"").lower())
        if mapped is None:
            warnings.append(f"{path}: tool {word!r} is not available to subagents (ignored)")
        elif mapped not in names:
            names.append(mapped)
    return tuple(names)


def parse_agent_file(path: Path, warnings: list[str]) -> AgentDefinition | None:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        warnings.append(f"{path}: cannot read agent definition: {exc}")
        return None
    meta, body = parse_frontmatter(text)
    name = (meta.get("name") or path.stem).strip()
    description = (meta.get("description") or "").strip()
    if not name or not description:
        warnings.append(f"{path}: an agent definition needs a name and a description (skipped)")
        return None
    model = (meta.get("model") or "").strip() or None
    thinking = (meta.get("thinking") or meta.get("thinkingLevel") or "").strip() or None
    return AgentDefinition(
        name=name,
        description=description,
        instructions=body.strip(),
        tools=_tool_names(meta.get("tools"), warnings, path),
        model=None if model == "inherit" else model,
        thinking=thinking,
        source=str(path),
    )


def discover_agents(cwd: Path, agent_dir: Path, include_project: bool) -> tuple[list[AgentDefinition], list[str]]:
    """Every definition by name (built-ins first, files after), and what could not be read."""
    warnings: list[str] = []
    by_name = {agent.name: agent for agent in BUILTIN_AGENTS}
    folders = [agent_dir / "agents", *(project_agent_folders(cwd) if include_project else [])]
    for folder in folders:
        for path in _markdown_files(folder):
            agent = parse_agent_file(path, warnings)
            if agent is not None:
                by_name[agent.name] = agent
    return list(by_name.values()), warnings
