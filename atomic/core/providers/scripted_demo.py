"""The scripted provider's built-in demonstration, used when no script is given (`atomic --provider
scripted` on a fresh machine): a real turn instead of an echo.

Every prompt gets the same three steps, each decided from the messages since the prompt (so abort,
resume and steering need no state here): run a harmless command that lists the folder, read one of its
files, then answer in markdown with a code block. Hidden files (.env and the like) are never read.
"""

from __future__ import annotations

import re
from typing import Any

from atomic.core.messages import TextContent, ToolResultMessage, UserMessage

LIST_COMMAND = "pwd\nls -1p | head -n 20"
READ_LINES = 12
SHOWN_LINES = 8
# Files worth opening first, then any file with a text-like extension.
PREFERRED = ("README.md", "README.rst", "README.txt", "README", "pyproject.toml", "package.json", "Cargo.toml", "go.mod")
TEXT_EXTENSIONS = {
    ".md": "markdown", ".txt": "text", ".rst": "rst", ".py": "python", ".toml": "toml", ".json": "json",
    ".js": "javascript", ".ts": "typescript", ".rs": "rust", ".go": "go", ".c": "c", ".h": "c", ".java": "java",
    ".yaml": "yaml", ".yml": "yaml", ".cfg": "ini", ".ini": "ini", ".sh": "bash", ".html": "html", ".css": "css",
}


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(b.text for b in content if isinstance(b, TextContent))


def _since_last_prompt(messages: list[Any]) -> tuple[str, list[ToolResultMessage]]:
    results: list[ToolResultMessage] = []
    for message in reversed(messages):
        if isinstance(message, UserMessage):
            return _text(message.content), list(reversed(results))
        if isinstance(message, ToolResultMessage):
            results.append(message)
    return "", list(reversed(results))


def choose_file(listing: str) -> str | None:
    """The file to read from `ls -1p` output (directories end with `/`; hidden files are skipped)."""
    names = [line.strip() for line in listing.splitlines()]
    files = [n for n in names if n and not n.endswith("/") and not n.startswith((".", "/"))]
    for preferred in PREFERRED:
        if preferred in files:
            return preferred
    for name in files:
        if any(name.endswith(ext) for ext in TEXT_EXTENSIONS):
            return name
    return None


def _language(name: str) -> str:
    for ext, language in TEXT_EXTENSIONS.items():
        if name.endswith(ext):
            return language
    return "text"


def _file_lines(read_output: str) -> list[str]:
    body = read_output.split("\n\n[", 1)[0]  # drop the paging notice ("[N more lines in file. ...]")
    return body.splitlines()[:SHOWN_LINES]


def _answer(prompt: str, listing: str, file_name: str | None, read: ToolResultMessage | None) -> str:
    entries = [line for line in listing.splitlines()[1:] if line.strip()]
    said = " ".join(prompt.split())
    said = said if len(said) <= 80 else said[:79] + "…"
    shown = "1 entry" if len(entries) == 1 else f"{len(entries)} entries"
    steps = [f"1. `bash` ran a harmless command that lists this folder ({shown} shown)."]
    if file_name and read is not None and not read.is_error:
        lines = _file_lines(_text(read.content))
        steps.append(f"2. `read` opened `{file_name}`; its first lines:")
        # A fence longer than any backtick run inside (a README with its own code blocks stays inside).
        longest = max((len(run) for run in re.findall(r"`+", "\n".join(lines))), default=0)
        fence = "`" * max(3, longest + 1)
        code = f"\n{fence}{_language(file_name)}\n" + "\n".join(lines) + f"\n{fence}\n"
    else:
        steps.append("2. There was no text file here to `read`, so here is what a code block looks like:")
        code = '\n```python\ndef greet(name: str) -> str:\n    return f"Hello, {name}!"\n```\n'
    return "\n".join(
        [
            "## What just happened",
            "",
            "This is a **demonstration turn** of the scripted provider (no model, no network), in answer to:",
            "",
            f"> {said}",
            "",
            *steps,
            code,
            "3. This answer streams in as markdown.",
            "",
            "To talk to a real model, run `/login` (or set `ANTHROPIC_API_KEY` or `OPENAI_API_KEY`), then pick "
            "it with `ctrl+l`.",
        ]
    )


def demo_response(messages: list[Any], tool_names: set[str]) -> dict[str, Any]:
    """The next step of the demonstration for this conversation, as a script response."""
    prompt, results = _since_last_prompt(messages)
    by_tool = {r.tool_name: r for r in results}
    listing_result = by_tool.get("bash")
    if listing_result is None and "bash" in tool_names and not results:
        return {
            "text": "Let me look around this folder first.",
            "toolCalls": [{"name": "bash", "arguments": {"command": LIST_COMMAND}}],
            "chunkSize": 6,
            "delayMs": 15,
        }
    listing = _text(listing_result.content) if listing_result is not None and not listing_result.is_error else ""
    file_name = choose_file("\n".join(listing.splitlines()[1:]))
    read = by_tool.get("read")
    if read is None and file_name and "read" in tool_names and "read" not in by_tool and listing_result is not None:
        return {
            "text": f"`{file_name}` looks like a good place to start.",
            "toolCalls": [{"name": "read", "arguments": {"path": file_name, "limit": READ_LINES}}],
            "chunkSize": 6,
            "delayMs": 15,
        }
    return {"text": _answer(prompt, listing, file_name, read), "chunkSize": 12, "delayMs": 10}
