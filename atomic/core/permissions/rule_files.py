"""Permission rules in settings files: reading them (the user's, and a trusted project's) and
adding or removing one (an "always" answer, `/permissions add`), changing nothing else in the file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from atomic.core import jsonc
from atomic.core.atomic_io import file_lock, write_atomic
from atomic.core.permissions.rules import RuleList, RuleSet, merge, parse_rule, read_rules
from atomic.core.settings import SettingsManager

RuleScope = Literal["project", "user"]
RULE_LISTS: tuple[RuleList, ...] = ("allow", "ask", "deny")


def settings_rules(manager: SettingsManager, problems: list[str] | None = None) -> RuleSet:
    """The user's rules and the project's (its raw settings are empty while it is untrusted)."""
    found: list[str] = [] if problems is None else problems
    return merge(
        read_rules(manager.global_raw().get("permissions"), "user", found),
        read_rules(manager.project_raw().get("permissions"), "project", found),
    )


def rule_problems(manager: SettingsManager) -> list[str]:
    """What is wrong with the rules in the settings files (each bad rule is skipped)."""
    problems: list[str] = []
    settings_rules(manager, problems)
    return problems


def scope_path(manager: SettingsManager, scope: RuleScope) -> Path:
    return manager.project_path if scope == "project" else manager.global_path


def save_scope(manager: SettingsManager) -> RuleScope:
    """Where "always" saves: the `permissions.alwaysSaveTo` setting, but never an untrusted
    project's file (whose rules would not load)."""
    wanted = manager.settings.permissions.always_save_to
    return "project" if wanted == "project" and manager.project_trusted else "user"


def _read_object(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = jsonc.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"Not saving the rule: {path} is not valid JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise ValueError(f"Not saving the rule: {path} is not a JSON object")
    return data


def change_rule(manager: SettingsManager, scope: RuleScope, kind: RuleList, text: str, *, add: bool) -> None:
    """Add `text` to (or remove it from) `permissions.<kind>` of the scope's settings file."""
    parse_rule(text)  # refuse what could never be read back
    path = scope_path(manager, scope)
    with file_lock(path):
        data = _read_object(path)
        permissions = data.get("permissions")
        if not isinstance(permissions, dict):
            permissions = {}
        entries = permissions.get(kind)
        rules = [e for e in entries if isinstance(e, str)] if isinstance(entries, list) else []
        if add and text not in rules:
            rules.append(text)
        elif not add:
            if text not in rules:
                raise ValueError(f"{text} is not in permissions.{kind} of {path}")
            rules.remove(text)
        permissions[kind] = rules
        data["permissions"] = permissions
        write_atomic(path, json.dumps(data, indent=2) + "\n", mode=0o600)
    manager.reload()


def rule_saver(manager: SettingsManager) -> Any:
    """The policy's `save_rule`: an "always" answer becomes an allow rule where `save_scope` says."""

    def save(text: str) -> str | None:
        try:
            change_rule(manager, save_scope(manager), "allow", text, add=True)
        except (OSError, ValueError) as exc:
            return f"Could not save the permission rule {text}: {exc}"
        return None

    return save
