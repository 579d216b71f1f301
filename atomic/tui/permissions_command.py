"""`/permissions`: the approval mode, and the allow / ask / deny rules (list, add, remove).

    /permissions                          the mode and every rule in force, with where it comes from
    /permissions ask|accept-edits|yolo|plan    change the mode (saved)
    /permissions allow|ask|deny RULE      add a rule (the project's settings; the user's with --user
                                          or while the project is not trusted)
    /permissions remove allow|ask|deny RULE [--user]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atomic.core.contract import PERMISSION_MODES, RuleList

if TYPE_CHECKING:
    from atomic.core.contract import Engine

USAGE = (
    "/permissions [ask|accept-edits|yolo|plan] · /permissions allow|ask|deny RULE [--user] · "
    "/permissions remove allow|ask|deny RULE [--user]"
)
_LISTS: dict[str, RuleList] = {"allow": "allow", "ask": "ask", "deny": "deny"}


def listing(engine: Engine) -> str:
    lines = [f"Permission mode: {engine.permission_mode} (f2 cycles)."]
    rules = engine.permission_rules()
    if not rules:
        lines.append("No permission rules.")
    for rule in rules:
        lines.append(f"{rule.kind:<5} {rule.text}  ({rule.source})")
    lines.append(USAGE)
    return "\n".join(lines)


def run_permissions(engine: Engine, args: str) -> tuple[str, bool]:
    """What to tell the user, and whether it is an error."""
    words = args.split()
    if not words:
        return listing(engine), False
    if len(words) == 1 and words[0] in PERMISSION_MODES:
        engine.set_permission_mode(words[0], persist=True)
        return f"Permission mode: {engine.permission_mode}", False
    user = "--user" in words
    words = [w for w in words if w != "--user"]
    add = words[0] != "remove"
    if not add:
        words = words[1:]
    if len(words) < 2 or words[0] not in _LISTS:
        return f"Unknown /permissions arguments. {USAGE}", True
    kind = _LISTS[words[0]]
    rule = " ".join(words[1:])
    try:
        where = engine.change_permission_rule(kind, rule, add=add, scope="user" if user else None)
    except (OSError, ValueError) as exc:
        return str(exc), True
    verb = "Added" if add else "Removed"
    return f"{verb} {kind} rule {rule} ({where})", False
