"""Prompt templates: Markdown files that `/name args` expands into a full prompt.

Discovery is non-recursive: `<agentDir>/prompts/*.md` (user), `<cwd>/.atomic/prompts/*.md`
(project), then explicit files or folders (path). The first template with a given name wins.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from atomic.core.resources.diagnostics import ResourceDiagnostic, warning
from atomic.core.resources.frontmatter import parse_frontmatter

Location = Literal["user", "project", "path"]


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    description: str
    argument_hint: str | None
    body: str
    path: Path
    location: Location


def load_prompt_template(path: Path, location: Location) -> PromptTemplate:
    """Read one template file; raises OSError/UnicodeDecodeError when it cannot be read."""
    meta, body = parse_frontmatter(path.read_text(encoding="utf-8"))
    description = meta.get("description", "").strip() or _first_non_empty_line(body)
    hint = meta.get("argument-hint", "").strip() or None
    return PromptTemplate(
        name=path.stem,
        description=description,
        argument_hint=hint,
        body=body,
        path=path.resolve(),
        location=location,
    )


def _first_non_empty_line(body: str) -> str:
    for line in body.splitlines():
        if line.strip():
            return line.strip()
    return ""


def _markdown_files(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if p.suffix.lower() == ".md" and p.is_file())
    except OSError:
        return []


def project_template_files(cwd: Path) -> list[Path]:
    """The project's own templates (`.atomic/prompts/*.md`): loaded only in a trusted project."""
    return _markdown_files(Path(cwd) / ".atomic" / "prompts")


def resolve_user_path(value: str | Path, cwd: Path) -> Path:
    """`~` expanded, relative paths taken from `cwd` (how CLI and settings paths are meant)."""
    path = Path(value).expanduser()
    return path if path.is_absolute() else cwd / path


def discover_prompt_templates(
    cwd: Path,
    agent_dir: Path,
    explicit_paths: Iterable[str | Path] = (),
    *,
    include_defaults: bool = True,
    include_project: bool = True,
) -> tuple[list[PromptTemplate], list[ResourceDiagnostic]]:
    """Find templates; `include_defaults=False` (`--no-prompt-templates`) keeps only explicit paths,
    `include_project=False` (an untrusted project) leaves out `.atomic/prompts`."""
    candidates: list[tuple[Path, Location]] = []
    diagnostics: list[ResourceDiagnostic] = []
    if include_defaults:
        candidates += [(p, "user") for p in _markdown_files(Path(agent_dir) / "prompts")]
        if include_project:
            candidates += [(p, "project") for p in project_template_files(cwd)]
    for value in explicit_paths:
        path = resolve_user_path(value, cwd)
        if path.is_dir():
            candidates += [(p, "path") for p in _markdown_files(path)]
        elif path.is_file():
            candidates.append((path, "path"))
        else:
            diagnostics.append(warning(f"prompt template path does not exist: {value}", path))

    templates: list[PromptTemplate] = []
    by_name: dict[str, PromptTemplate] = {}
    for path, location in candidates:
        try:
            template = load_prompt_template(path, location)
        except (OSError, UnicodeDecodeError) as exc:
            diagnostics.append(warning(f"cannot read prompt template: {exc}", path))
            continue
        earlier = by_name.get(template.name)
        if earlier is not None:
            if earlier.path != template.path:
                diagnostics.append(
                    warning(
                        f'prompt template "/{template.name}" skipped: already defined by {earlier.path}', path
                    )
                )
            continue
        by_name[template.name] = template
        templates.append(template)
    return templates, diagnostics


# One pass over the body so text that an argument brings in is never expanded again.
_PLACEHOLDER = re.compile(r"\$\{@:(\d+)(?::(\d+))?\}|\$ARGUMENTS|\$@|\$(\d+)")


def expand_template(body: str, args: Sequence[str]) -> str:
    """Fill `$1`.., `$@`/`$ARGUMENTS`, `${@:N}` and `${@:N:L}`; missing arguments become ""."""

    def replace(match: re.Match[str]) -> str:
        if match.group(3) is not None:
            index = int(match.group(3))
            return args[index - 1] if 1 <= index <= len(args) else ""
        if match.group(1) is not None:
            start = max(int(match.group(1)), 1) - 1
            if match.group(2) is not None:
                return " ".join(args[start : start + int(match.group(2))])
            return " ".join(args[start:])
        return " ".join(args)

    return _PLACEHOLDER.sub(replace, body)


def parse_command_args(text: str) -> list[str]:
    """Split like a shell: whitespace separates words, '…' and "…" group them (no escapes)."""
    args: list[str] = []
    current: list[str] = []
    quote: str | None = None
    in_word = False
    for char in text:
        if quote is not None:
            if char == quote:
                quote = None
            else:
                current.append(char)
        elif char in ("'", '"'):
            quote = char
            in_word = True  # `""` is still an (empty) argument
        elif char.isspace():
            if in_word:
                args.append("".join(current))
                current, in_word = [], False
        else:
            current.append(char)
            in_word = True
    if in_word:
        args.append("".join(current))
    return args
