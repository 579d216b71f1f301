"""Approval policies: which tool calls need the user's yes before they run.

Modes: `ask` (bash, write, edit, MCP and extension tools need approval; read-only tools never do),
`accept-edits` (write and edit run unasked inside the working folder and the temp folder; bash,
MCP and extension tools are asked), `yolo` (nothing is asked). Rules decide first, in this order:
a `deny` rule refuses in every mode (yolo too), an `ask` rule or a protected path asks (protected
paths not in yolo), an `allow` rule (or an "always" answer) runs unasked, then the mode decides.
A frontend installs the approver that asks the person: the TUI's approval card, RPC's extension
UI confirm request, ACP's `session/request_permission`.
"""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from atomic.core.permissions.command_safety import is_wrapper, program_name, remembered_prefix, risky_option
from atomic.core.permissions.plan_mode import plan_refusal
from atomic.core.permissions.protected import WriteTarget, word_names_protected_path, write_target
from atomic.core.permissions.read_guard import PathGuard, read_guard
from atomic.core.permissions.rules import PATH_TOOLS, Rule, RuleSet, merge, parse_rule
from atomic.core.permissions.shell_parse import ParsedCommand, SimpleCommand, parse_command

PermissionMode = Literal["ask", "accept-edits", "yolo", "plan"]
PERMISSION_MODES: tuple[PermissionMode, ...] = get_args(PermissionMode)
Decision = Literal["allow_once", "allow_always", "reject_once", "reject_always"]
ToolKind = Literal["execute", "edit", "mcp", "extension", "fetch", "other"]

EDIT_TOOLS = frozenset({"write", "edit"})
EXECUTE_TOOLS = frozenset({"bash"})
MCP_PREFIX = "mcp__"
# Tools that reach the network: asked per domain in ask and accept-edits (and plan) modes.
FETCH_TOOLS = frozenset({"web_fetch"})


def parse_mode(value: str) -> PermissionMode:
    for mode in PERMISSION_MODES:
        if value == mode:
            return mode
    raise ValueError(f"Unknown permission mode {value!r}; use one of {', '.join(PERMISSION_MODES)}")


def tool_kind(tool_name: str, read_only: bool | None = True) -> ToolKind:
    """The approval class of a tool; `read_only` False marks a tool that is neither built in nor
    declared read-only (an extension's), which is asked about like bash."""
    if tool_name in EXECUTE_TOOLS:
        return "execute"
    if tool_name in EDIT_TOOLS:
        return "edit"
    if tool_name.startswith(MCP_PREFIX):
        return "mcp"
    if tool_name in FETCH_TOOLS:
        return "fetch"
    return "other" if read_only is not False else "extension"


def needs_approval(mode: PermissionMode, tool_name: str, read_only: bool | None = True) -> bool:
    """What the mode alone says (rules and protected paths can still ask or refuse)."""
    kind = tool_kind(tool_name, read_only)
    if mode == "yolo" or kind == "other":
        return False
    if mode == "accept-edits":
        return kind != "edit"
    if mode == "plan":
        return kind == "fetch"  # the rest runs as read-only or is refused, never asked
    return True


def url_domain(url: object) -> str:
    """The host a fetch goes to, lower-case ("" when the URL has none)."""
    from urllib.parse import urlsplit

    if not isinstance(url, str):
        return ""
    try:
        return (urlsplit(url.strip()).hostname or "").lower()
    except ValueError:
        return ""


def command_prefix(command: str) -> str | None:
    """What "always" remembers of a single bash command (`git status --short` -> `git status`);
    None for anything chained, non-literal or never remembered."""
    parsed = parse_command(command)
    if not parsed.literal or len(parsed.parts) != 1:
        return None
    prefix = remembered_prefix(parsed.parts[0].words)
    return shlex.join(prefix) if prefix is not None else None


@dataclass(frozen=True)
class ApprovalRequest:
    """One tool call waiting for a yes or no."""

    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    kind: ToolKind
    title: str
    # For bash: what "always allow" would remember (None: it cannot be remembered).
    command_prefix: str | None = None
    # The exact rules an "always" answer saves (empty: "always" counts as once). Every frontend shows them.
    always_rules: tuple[str, ...] = ()
    # Why this call is asked even under an allow rule (a protected path, a writer option), if it is.
    asked_because: str | None = None

    @property
    def always_rule(self) -> str | None:
        return ", ".join(self.always_rules) if self.always_rules else None


@dataclass(frozen=True)
class ApprovalAnswer:
    """A decision with the person's words for the model (a "no, because …")."""

    decision: Decision
    reason: str = ""


# An approver returns None when nobody could be asked (no frontend that answers dialogs).
Approver = Callable[[ApprovalRequest], Awaitable[Decision | ApprovalAnswer | None]]
# Saves an "always" rule where it lasts (settings); returns a problem to report, or None.
RuleSaver = Callable[[str], str | None]


def describe(tool_name: str, args: dict[str, Any], target: WriteTarget | None = None) -> str:
    """A one-line title a person can decide on."""
    if tool_name == "bash":
        return f"Run `{str(args.get('command', '')).strip()}`"
    if tool_name in EDIT_TOOLS:
        verb = "Write" if tool_name == "write" else "Edit"
        title = f"{verb} {args.get('path', '(no path)')}"
        if target is not None and target.through_symlink:
            title += f" (a symlink: the file written is {target.resolved})"
        return title
    if tool_name.startswith(MCP_PREFIX):
        _, server, tool = (tool_name.split("__", 2) + ["", ""])[:3]
        return f"Call {tool} on MCP server {server}"
    if tool_name in FETCH_TOOLS:
        return f"Fetch {args.get('url', '(no url)')}"
    return f"Use {tool_name}"


def _deny_view(words: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The words a deny rule is checked against: the command, and what its wrappers run, each also
    with the program's bare name (`/bin/rm` is `rm`)."""
    views = [words]
    rest = list(words)
    while rest and is_wrapper(rest[0]):
        rest.pop(0)
        while rest and (rest[0].startswith("-") or "=" in rest[0] or rest[0][:1].isdigit()):
            rest.pop(0)
        if rest:
            views.append(tuple(rest))
    return views + [(program_name(v[0]), *v[1:]) for v in views if v and program_name(v[0]) != v[0]]


@dataclass
class _Call:
    """What the policy learned about one call."""

    tool_name: str
    args: dict[str, Any]
    kind: ToolKind
    parsed: ParsedCommand | None = None
    target: WriteTarget | None = None
    read_path: Path | None = None


@dataclass
class PermissionPolicy:
    mode: PermissionMode = "yolo"
    approver: Approver | None = None
    cwd: Path = field(default_factory=Path.cwd)
    agent_dir: Path | None = None
    # The user's and the trusted project's rules (read again on every call: settings may change).
    rule_source: Callable[[], RuleSet] = RuleSet
    # "always" answers of this session; saved through `save_rule` when one is installed.
    session_rules: list[Rule] = field(default_factory=list)
    rejected_tools: set[str] = field(default_factory=set)
    save_rule: RuleSaver | None = None
    problems: list[str] = field(default_factory=list)

    # ------------------------------------------------------------------ reading a call

    def _agent_dir(self) -> Path:
        if self.agent_dir is not None:
            return self.agent_dir
        from atomic.core import paths

        return paths.agent_dir()

    def _call(self, tool_name: str, args: dict[str, Any], read_only: bool | None) -> _Call:
        call = _Call(tool_name, args, tool_kind(tool_name, read_only))
        if call.kind == "execute":
            call.parsed = parse_command(str(args.get("command", "")))
        elif call.kind == "edit":
            path = args.get("path")
            if isinstance(path, str) and path.strip():
                call.target = write_target(path, self.cwd, self._agent_dir())
        elif tool_name in PATH_TOOLS:
            path = args.get("path")
            from atomic.core.tools.path_utils import resolve_path

            call.read_path = resolve_path(path if isinstance(path, str) and path.strip() else ".", self.cwd)
        return call

    def _rules(self) -> RuleSet:
        return merge(self.rule_source(), RuleSet(allow=tuple(self.session_rules)))

    def _rule_matches(self, rule: Rule, call: _Call, *, deny: bool) -> bool:
        if not rule.covers_tool(call.tool_name):
            return False
        if call.kind == "execute":
            if rule.bash_words() is None:
                return True
            parts = call.parsed.parts if call.parsed is not None else ()
            if deny:
                return any(rule.matches_words(view) for part in parts for view in _deny_view(part.words))
            return False  # allow rules for bash are matched part by part in _bash_allowed
        if call.kind == "fetch":
            return rule.matches_domain(url_domain(call.args.get("url")))
        if rule.tool in ("read", "edit", "write"):
            if call.target is not None:
                paths = [call.target.absolute, call.target.resolved]
                hits = [rule.matches_path(p, self.cwd) for p in paths]
                return any(hits) if deny else all(hits)
            if call.read_path is not None:
                return rule.matches_path(call.read_path, self.cwd)
            return rule.specifier is None
        return True

    def _bash_allowed(self, call: _Call, rules: RuleSet) -> bool:
        bash_rules = [r for r in rules.allow if r.covers_tool("bash")]
        if any(r.bash_words() is None for r in bash_rules):
            return True
        parsed = call.parsed
        if parsed is None or not parsed.literal:
            return False
        return all(
            self._part_safe(part) is None and any(r.matches_words(part.words) for r in bash_rules)
            for part in parsed.parts
        )

    def _part_safe(self, part: SimpleCommand) -> str | None:
        """Why a literal part is asked even under a rule: a writer option or a protected path."""
        risky = risky_option(part.words)
        if risky is not None:
            return f"it uses {risky}"
        for word in part.words[1:]:
            reason = word_names_protected_path(word, self.cwd, self._agent_dir(), Path.home())
            if reason is not None:
                return f"it names {reason} ({word})"
        return None

    # ------------------------------------------------------------------ what to ask

    def _always_rules(self, call: _Call) -> tuple[str, ...]:
        if call.kind == "execute":
            parsed = call.parsed
            if parsed is None or not parsed.literal:
                return ()
            rules: list[str] = []
            for part in parsed.parts:
                prefix = remembered_prefix(part.words)
                if prefix is None or self._part_safe(part) is not None:
                    return ()
                rules.append(f"Bash({shlex.join(prefix)}:*)")
            return tuple(dict.fromkeys(rules))
        if call.kind == "edit":
            target = call.target
            if target is None or target.protected is not None:
                return ()
            # "Always" for a file covers the working folder, never a place outside it.
            name = "Write" if call.tool_name == "write" else "Edit"
            cwd = Path(self.cwd).resolve()
            if target.resolved == cwd or cwd in target.resolved.parents:
                return (f"{name}({cwd}/**)",)
            return ()
        if call.kind in ("mcp", "extension"):
            return (call.tool_name,)
        if call.kind == "fetch":
            domain = url_domain(call.args.get("url"))
            return (f"WebFetch(domain:{domain})",) if domain else ()
        return ()

    def _asked_because(self, call: _Call) -> str | None:
        if call.kind == "edit" and call.target is not None and call.target.protected is not None:
            return f"{call.target.resolved} is in {call.target.protected}, which is always asked about"
        if call.kind == "execute" and call.parsed is not None:
            if not call.parsed.literal:
                return "the command is not plain words (expansions, redirections or substitutions), so no rule covers it"
            for part in call.parsed.parts:
                reason = self._part_safe(part)
                if reason is not None:
                    return f"`{part.text}`: {reason}, which is always asked about"
        return None

    def request_for(
        self, tool_call_id: str, tool_name: str, args: dict[str, Any], read_only: bool | None = True
    ) -> ApprovalRequest:
        return self._request(tool_call_id, self._call(tool_name, args, read_only))

    def _request(self, tool_call_id: str, call: _Call) -> ApprovalRequest:
        prefix = None
        if call.kind == "execute":
            prefix = command_prefix(str(call.args.get("command", "")))
        return ApprovalRequest(
            tool_call_id=tool_call_id,
            tool_name=call.tool_name,
            args=call.args,
            kind=call.kind,
            title=describe(call.tool_name, call.args, call.target),
            command_prefix=prefix,
            always_rules=self._always_rules(call),
            asked_because=self._asked_because(call),
        )

    def all_rules(self) -> RuleSet:
        """The rules in force: the settings' and this session's "always" answers."""
        return self._rules()

    def read_guard(self) -> PathGuard:
        """What read, grep, find and ls refuse or hide during one call (secrets, `Read(...)` denies)."""
        return read_guard(self._agent_dir(), self.cwd, self._rules())

    # ------------------------------------------------------------------ deciding

    def _must_ask(self, call: _Call, rules: RuleSet) -> bool:
        # An ask rule matches like a deny rule: any part of a chain, in every mode.
        if any(self._rule_matches(r, call, deny=True) for r in rules.ask):
            return True
        # A command a deny rule cannot read through might be what it forbids (yolo included).
        if (
            call.kind == "execute"
            and call.parsed is not None
            and not call.parsed.literal
            and any(r.covers_tool("bash") and r.bash_words() is not None for r in rules.deny)
        ):
            return True
        if self.mode == "yolo":
            return False
        return call.kind == "edit" and call.target is not None and call.target.protected is not None

    def _allowed_without_asking(self, call: _Call, rules: RuleSet) -> bool:
        if self.mode == "yolo" or call.kind == "other":
            return True
        if self.mode == "plan" and call.kind == "execute":
            return True  # plan_refusal let only read-only commands through
        if call.kind == "edit" and self.mode == "accept-edits":
            if call.target is None or call.target.inside_workspace:
                return True
        if call.kind == "execute":
            return self._bash_allowed(call, rules)
        return any(self._rule_matches(r, call, deny=False) for r in rules.allow)

    async def check(
        self, tool_call_id: str, tool_name: str, args: dict[str, Any], read_only: bool | None = True
    ) -> str | None:
        """None when the call may run; otherwise the reason it was refused (the model sees it)."""
        rules = self._rules()
        if self.mode == "yolo" and not (rules.deny or rules.ask):
            return None  # nothing to look at: the command is not even parsed
        call = self._call(tool_name, args, read_only)
        for rule in rules.deny:
            if self._rule_matches(rule, call, deny=True):
                return f"Denied by the permission rule {rule.text} (from the {rule.source} settings)."
        if tool_name in self.rejected_tools:
            return f"The user rejected {tool_name} for this session."
        if self.mode == "plan":
            refused = plan_refusal(call.kind, tool_name, call.parsed)
            if refused is not None:
                return refused
        if not self._must_ask(call, rules) and self._allowed_without_asking(call, rules):
            return None
        request = self._request(tool_call_id, call)
        answer = await self.approver(request) if self.approver is not None else None
        reason = answer.reason.strip() if isinstance(answer, ApprovalAnswer) else ""
        decision = answer.decision if isinstance(answer, ApprovalAnswer) else answer
        if decision is None:
            return (
                f"{request.title} needs approval (permission mode {self.mode}), and nobody can approve it "
                "in this mode. Ask the user to change the permission mode."
            )
        self._remember(request, decision)
        if decision in ("allow_once", "allow_always"):
            return None
        if reason:
            return f"The user rejected this call: {request.title}. The user says: {reason}"
        return f"The user rejected this call: {request.title}."

    def _remember(self, request: ApprovalRequest, decision: Decision) -> None:
        if decision == "reject_always":
            self.rejected_tools.add(request.tool_name)
            return
        if decision != "allow_always":
            return
        for text in request.always_rules:
            self.session_rules.append(parse_rule(text, "session"))
            if self.save_rule is not None:
                problem = self.save_rule(text)
                if problem is not None:
                    self.problems.append(problem)
