"""The `edit` tool: exact text replacements in one file, with a diff for the UI."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

from atomic.core.tools.base import FileChange, Tool, ToolContext, ToolError, ToolOutput
from atomic.core.tools.edit_diff import (
    EditApplyError,
    TextEdit,
    apply_edits,
    compute_diff,
    detect_line_ending,
    normalize_to_lf,
    restore_line_endings,
    split_bom,
)
from atomic.core.tools.file_locks import file_mutation_lock
from atomic.core.tools.path_utils import resolve_path
from atomic.core.tools.write import write_preserving_mode


def prepare_edits(args: dict[str, Any]) -> dict[str, Any]:
    """`edits` as the list the schema names, from the shapes models also send: the list as a JSON
    string, or one top-level oldText/newText pair (the older form of the tool)."""
    args = dict(args)
    raw = args.get("edits")
    if isinstance(raw, str):
        with contextlib.suppress(ValueError):  # not JSON: the schema check says edits must be an array
            args["edits"] = json.loads(raw)
    if "oldText" in args or "newText" in args:
        pair = {name: args.pop(name) for name in ("oldText", "newText") if name in args}
        listed = args.get("edits")
        args["edits"] = [*(listed if isinstance(listed, list) else []), pair]
    return args


def text_edits(args: dict[str, Any]) -> list[TextEdit]:
    """The replacements of arguments the schema accepted."""
    return [TextEdit(item["oldText"], item["newText"]) for item in args["edits"]]


def _read_text(path: Path, display: str) -> str:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ToolError(f"Could not edit file: {display}. Error code: ENOENT.") from None
    except IsADirectoryError:
        raise ToolError(f"Could not edit file: {display}. Error code: EISDIR.") from None
    except PermissionError:
        raise ToolError(f"Could not edit file: {display}. Error code: EACCES.") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError(f"Could not edit file: {display}. It is not UTF-8 text.") from None


class EditTool(Tool):
    name = "edit"
    label = "edit"
    description = (
        "Edit a file by replacing exact text. Give one or more {oldText, newText} pairs in edits; each "
        "oldText must appear exactly once in the current file, matching every character including "
        "whitespace and indentation, and the pairs must not overlap (all are matched against the file "
        "as it is before this call). Include enough surrounding lines to make each oldText unique. Use "
        "several pairs for several separate changes to one file; use write to replace a whole file."
    )
    parameters = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "minLength": 1, "description": "Path of the file to edit (relative to the working directory, or absolute)"},
            "edits": {
                "type": "array",
                "description": "Replacements to make, all located in the original file",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "properties": {
                        "oldText": {"type": "string", "description": "Exact text to find (must be unique in the file)"},
                        "newText": {"type": "string", "description": "Text to put in its place"},
                    },
                    "required": ["oldText", "newText"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["path", "edits"],
        "additionalProperties": False,
    }
    prompt_snippet = "Make precise edits to files (replace exact text)"

    def prepare_arguments(self, args: dict[str, Any]) -> dict[str, Any]:
        return prepare_edits(args)

    async def execute(self, call_id: str, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        raw_path: str = args["path"]
        edits = text_edits(args)
        path = resolve_path(raw_path, ctx.cwd)
        if ctx.sandbox is not None and (refused := ctx.sandbox.write_refusal(path)):
            raise ToolError(refused)
        editor = ctx.editor_for(path)
        async with file_mutation_lock(path):
            if editor is None:
                return await asyncio.to_thread(self._edit_file, path, raw_path, edits)
            original = await editor.read_text(path)
            final, output = _apply(original, path, raw_path, edits)
            await editor.write_text(path, final)
            return output

    @staticmethod
    def _edit_file(path: Path, display: str, edits: list[TextEdit]) -> ToolOutput:
        final, output = _apply(_read_text(path, display), path, display, edits)
        try:
            write_preserving_mode(path, final.encode("utf-8"))
        except OSError as exc:
            raise ToolError(f"Could not edit file: {display}. {exc.strerror or exc}") from None
        return output


def _apply(original: str, path: Path, display: str, edits: list[TextEdit]) -> tuple[str, ToolOutput]:
    """The file's new text and the tool's report, keeping its BOM and line endings."""
    bom, body = split_bom(original)
    line_ending = detect_line_ending(body)
    try:
        base, updated = apply_edits(normalize_to_lf(body), edits, display)
    except EditApplyError as exc:
        raise ToolError(str(exc)) from None
    final = bom + restore_line_endings(updated, line_ending)
    diff = compute_diff(base, updated)
    output = ToolOutput.text(
        f"Successfully replaced {len(edits)} block(s) in {display}.",
        {"diff": diff.diff, "firstChangedLine": diff.first_changed_line},
    )
    output.file_change = FileChange(path=path.absolute(), old_text=original, new_text=final)
    return final, output
