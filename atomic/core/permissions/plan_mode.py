"""Plan mode: the model reads, searches and plans; nothing changes until the user approves the plan.

Allowed while planning: the read-only tools (read, grep, find, ls, todo, the `task` tool whose
children plan too, extension tools declared read-only), `web_fetch` (asked like in ask mode), and
bash commands that a conservative list knows to only read. Everything else (write, edit, MCP tools,
other extension tools, any other command) is refused with a message telling the model to finish
its plan with `exit_plan`.
"""

from __future__ import annotations

from collections.abc import Sequence

from atomic.core.permissions.command_safety import program_name, risky_option
from atomic.core.permissions.shell_parse import ParsedCommand

# Programs that only read, whatever their (non-risky) options; `risky_option` still vets each call.
# Left out on purpose: tools with an option or operand that writes (tree -o, uniq IN OUT, xxd -r,
# yq -i, date -s, hostname NAME) and pagers that can run commands (less, more).
_READERS = frozenset({
    "ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "ag", "find", "fd", "file", "stat",
    "du", "df", "pwd", "which", "whereis", "type", "basename", "dirname", "realpath", "readlink", "sort",
    "cut", "tr", "column", "nl", "diff", "cmp", "comm", "jq", "echo", "printf", "true", "uname", "whoami",
    "id", "env", "printenv", "md5sum", "sha1sum", "sha256sum", "od", "hexdump", "strings",
})
# git subcommands that only read the repository.
_GIT_READERS = frozenset({
    "status", "log", "diff", "show", "blame", "ls-files", "ls-tree", "rev-parse", "describe", "shortlog",
    "grep", "cat-file", "rev-list", "whatchanged", "name-rev", "merge-base", "show-ref", "count-objects",
})
# git subcommands that read when given no other arguments than options that list.
_GIT_LISTERS = {"branch": ("--list", "-a", "-r", "-v", "-vv", "--all", "--remotes"), "tag": ("--list", "-l"),
                "remote": ("-v",), "stash": ("list",)}
_PLANNING = (
    "Plan mode: {what} is not run while planning. Read, search and run read-only commands, then call "
    "exit_plan with your plan; the user approves it before anything is changed."
)


def _command_reads_only(words: Sequence[str]) -> bool:
    if not words:
        return False
    name = program_name(words[0])
    if name in ("env", "printenv") and len(words) > 1:
        return False  # `env CMD` runs CMD
    if risky_option(words) is not None:
        return False
    if name in _READERS:
        return True
    if name != "git" or len(words) < 2:
        return False
    sub = words[1]
    if sub in _GIT_READERS:
        return True
    listers = _GIT_LISTERS.get(sub)
    return listers is not None and all(word in listers for word in words[2:])


def bash_reads_only(parsed: ParsedCommand) -> bool:
    """Every part of the command line is literal and on the read-only list (pipes of readers pass)."""
    return parsed.literal and bool(parsed.parts) and all(_command_reads_only(p.words) for p in parsed.parts)


def plan_refusal(kind: str, tool_name: str, parsed: ParsedCommand | None) -> str | None:
    """Why plan mode refuses this call, or None when it may go on (to the usual checks)."""
    if kind == "other" or kind == "fetch":
        return None
    if kind == "execute":
        if parsed is not None and bash_reads_only(parsed):
            return None
        return _PLANNING.format(what="a command that may change something")
    if kind == "edit":
        return _PLANNING.format(what=tool_name)
    return _PLANNING.format(what=f"the tool {tool_name}")
