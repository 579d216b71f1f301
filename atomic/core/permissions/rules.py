"""Permission rules in the form Claude Code users write: `Bash(git status)`, `Edit(src/**)`, `mcp__srv`.

    Bash                 every bash command          Bash(git status)    exactly that command
    Bash(npm run test:*) that prefix (whole words)   Read(./.env)        read/grep/find/ls of a path
    Edit(src/**)         edit and write of a path    Write(docs/**)      write of a path
    WebFetch(domain:x.org)  web_fetch of that host and its subdomains
    mcp__server          every tool of the server    mcp__server__tool   one MCP tool
    any other tool name  that tool (extension tools)

Path patterns are globs (`*` within a name, `**` across folders): absolute (`/x/**`), from the home
folder (`~/x`), or relative to the working folder (`x`, `./x`). A pattern naming a folder
(`src/`) covers everything under it. Tool names are case-insensitive.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

RuleList = Literal["allow", "deny", "ask"]
_RULE = re.compile(r"\s*([A-Za-z0-9_.-]+)\s*(?:\((.*)\))?\s*", re.DOTALL)
# Which tools a rule's name covers (Claude Code's Edit covers every tool that changes files).
_TOOLS_OF = {
    "bash": ("bash",),
    "read": ("read", "grep", "find", "ls"),
    "edit": ("edit", "write"),
    "write": ("write",),
    "webfetch": ("web_fetch",),
}
PATH_TOOLS = frozenset({"read", "grep", "find", "ls", "edit", "write"})


class RuleError(ValueError):
    """A rule that cannot be read (the settings loader reports it and skips the rule)."""


@dataclass(frozen=True)
class Rule:
    text: str  # as the user wrote it: quoted in refusals
    tool: str  # lower-case rule name: bash, read, edit, write, mcp__srv, mcp__srv__tool, or a tool name
    specifier: str | None  # inside the parentheses
    # Where it came from, for /permissions: "user", "project" or "session".
    source: str = "user"

    def covers_tool(self, tool_name: str) -> bool:
        if self.tool in _TOOLS_OF:
            return tool_name in _TOOLS_OF[self.tool]
        if self.tool.startswith("mcp__") and self.tool.count("__") == 1:
            return tool_name.startswith(self.tool + "__")
        return tool_name.lower() == self.tool

    # ------------------------------------------------------------------ bash

    def bash_words(self) -> tuple[tuple[str, ...], bool] | None:
        """(words, is_prefix) of a `Bash(...)` rule; None for a bare `Bash` (every command)."""
        if self.specifier is None or self.specifier.strip() in ("", "*"):
            return None
        spec = self.specifier.strip()
        is_prefix = spec.endswith(":*") or spec.endswith(" *")
        if is_prefix:
            spec = spec[:-2]
        import shlex

        try:
            words = tuple(shlex.split(spec))
        except ValueError:
            words = tuple(spec.split())
        return words, is_prefix

    def matches_words(self, words: tuple[str, ...]) -> bool:
        pattern = self.bash_words()
        if pattern is None:
            return True
        expected, is_prefix = pattern
        if is_prefix:
            return words[: len(expected)] == expected
        return words == expected

    # ------------------------------------------------------------------ web

    def matches_domain(self, domain: str) -> bool:
        """`WebFetch(domain:example.com)` covers that host and its subdomains; a bare `WebFetch` every host."""
        if self.specifier is None or self.specifier.strip() in ("", "*"):
            return True
        spec = self.specifier.strip()
        if not spec.startswith("domain:") or not domain:
            return False
        wanted = spec[len("domain:") :].strip().lower().lstrip("*.")
        return domain == wanted or domain.endswith("." + wanted)

    # ------------------------------------------------------------------ paths

    def matches_path(self, path: Path, cwd: Path) -> bool:
        """Whether `path` (absolute) falls under this rule's pattern; a bare rule covers every path."""
        if self.specifier is None or self.specifier.strip() in ("", "*", "**"):
            return True
        pattern = self.specifier.strip()
        if pattern.startswith("~/") or pattern == "~":
            pattern = str(Path.home()) + pattern[1:]
        elif pattern.startswith("//"):
            pattern = pattern[1:]
        elif not pattern.startswith("/"):
            pattern = os.path.join(str(cwd), pattern[2:] if pattern.startswith("./") else pattern)
        if pattern.endswith("/"):
            pattern += "**"
        regex = glob_regex(os.path.normpath(pattern))
        candidates = {str(path), os.path.realpath(path)}
        return any(regex.fullmatch(c) for c in candidates)


def glob_regex(pattern: str) -> re.Pattern[str]:
    """`*` inside one name, `**` across folders (`a/**` also matches `a` itself), `?` one character."""
    out: list[str] = []
    index = 0
    while index < len(pattern):
        if pattern.startswith("/**", index) and index + 3 == len(pattern):
            out.append("(?:/.*)?")
            index += 3
        elif pattern.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
        elif pattern.startswith("**", index):
            out.append(".*")
            index += 2
        elif pattern[index] == "*":
            out.append("[^/]*")
            index += 1
        elif pattern[index] == "?":
            out.append("[^/]")
            index += 1
        else:
            out.append(re.escape(pattern[index]))
            index += 1
    return re.compile("".join(out))


def parse_rule(text: str, source: str = "user") -> Rule:
    if not isinstance(text, str):
        raise RuleError(f"A permission rule is a string, not {type(text).__name__}")
    match = _RULE.fullmatch(text)
    if match is None:
        raise RuleError(f"Cannot read the permission rule {text!r}: write Tool or Tool(specifier)")
    name, specifier = match.group(1), match.group(2)
    return Rule(text=text.strip(), tool=name.lower(), specifier=specifier, source=source)


@dataclass(frozen=True)
class RuleSet:
    allow: tuple[Rule, ...] = ()
    deny: tuple[Rule, ...] = ()
    ask: tuple[Rule, ...] = ()

    def of(self, kind: RuleList) -> tuple[Rule, ...]:
        return {"allow": self.allow, "deny": self.deny, "ask": self.ask}[kind]

    def with_rule(self, kind: RuleList, rule: Rule) -> RuleSet:
        if kind == "allow":
            return RuleSet(self.allow + (rule,), self.deny, self.ask)
        if kind == "deny":
            return RuleSet(self.allow, self.deny + (rule,), self.ask)
        return RuleSet(self.allow, self.deny, self.ask + (rule,))


def read_rules(raw: object, source: str, problems: list[str]) -> RuleSet:
    """The `permissions` object of one settings file; unreadable rules are reported and skipped."""
    if raw is None:
        return RuleSet()
    if not isinstance(raw, dict):
        problems.append(f"permissions in the {source} settings must be an object; ignored")
        return RuleSet()
    lists: dict[str, tuple[Rule, ...]] = {}
    for kind in ("allow", "deny", "ask"):
        entries = raw.get(kind) or []
        if not isinstance(entries, list):
            problems.append(f"permissions.{kind} in the {source} settings must be a list; ignored")
            entries = []
        rules: list[Rule] = []
        for entry in entries:
            try:
                rules.append(parse_rule(entry, source))
            except RuleError as exc:
                problems.append(str(exc))
        lists[kind] = tuple(rules)
    return RuleSet(lists["allow"], lists["deny"], lists["ask"])


@dataclass(frozen=True)
class ListedRule:
    """One rule as `/permissions` lists it: its list, its text and where it comes from."""

    kind: RuleList
    text: str
    source: str  # "user", "project" or "session"


def listed(rules: RuleSet) -> list[ListedRule]:
    return [ListedRule(kind, r.text, r.source) for kind in ("deny", "ask", "allow") for r in rules.of(kind)]


def merge(*sets: RuleSet) -> RuleSet:
    return RuleSet(
        tuple(r for s in sets for r in s.allow),
        tuple(r for s in sets for r in s.deny),
        tuple(r for s in sets for r in s.ask),
    )
