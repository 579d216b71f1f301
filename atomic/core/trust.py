"""Project trust: whether Atomic may load what a project folder brings (its `.atomic/` settings,
extensions, prompt templates and skills, `.agents/skills`, AGENTS.md/CLAUDE.md files, MCP servers).

A project can run code through what it ships (an extension is imported Python, an MCP server is any
command, a context file steers the model), so it is used only
when the user trusts the folder. The decision comes from, in order:

1. the command line for one run: `--approve` / `-a` trusts, `--no-approve` / `-na` does not;
2. the `defaultProjectTrust` setting, read from the user's own settings file only (a project's
   `.atomic/settings.json` cannot trust itself): `always` or `never`;
3. with `ask` (the default): the decision saved for the folder or its closest saved ancestor in
   `<agent dir>/trust.json`;
4. otherwise the folder is undecided: nothing of the project loads, and an interactive frontend
   may ask and then call `TrustStore.save` (or `TrustDecision.trusted_once` for this run only).

Trust is never inferred from files inside the project or its environment. It is not a sandbox:
a trusted project's servers run with the user's rights.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from atomic.core.atomic_io import file_lock, write_atomic

TrustSource = Literal["flag", "setting", "saved", "once", "undecided"]
TRUST_SETTINGS: tuple[str, ...] = ("ask", "always", "never")
TRUST_FILE = "trust.json"
HOW_TO_TRUST = (
    "run with --approve (-a) for one run, or save trust for the folder with /trust in the interactive TUI "
    "(or \"defaultProjectTrust\": \"always\" in your own settings.json); see docs/security.md"
)


@dataclass(frozen=True)
class TrustDecision:
    """The trust decision for one working folder."""

    cwd: Path
    trusted: bool
    source: TrustSource
    # The folder whose saved decision applies (source "saved"), else None.
    decided_by: Path | None = None

    @property
    def undecided(self) -> bool:
        """`ask` with no saved decision: an interactive frontend may ask the user."""
        return self.source == "undecided"

    def trusted_once(self) -> TrustDecision:
        """Trust for this run only (the dialog's "trust once"): nothing is saved."""
        return replace(self, trusted=True, source="once", decided_by=None)

    def describe(self) -> str:
        state = "trusted" if self.trusted else "not trusted"
        why = {
            "flag": "command-line flag",
            "setting": "defaultProjectTrust setting",
            "saved": f"saved decision for {self.decided_by}",
            "once": "trusted for this run",
            "undecided": "no decision saved",
        }[self.source]
        return f"{self.cwd}: {state} ({why})"


def trust_change_message(new: TrustDecision, *, was_trusted: bool, loaded_project_extensions: list[str]) -> str:
    """What an interactive frontend says after the user changed the decision in a running session.

    Python cannot unload an imported module (its hooks, tools and commands stay registered), so a
    project's extensions keep running after trust is withdrawn; everything else the project brings
    is dropped at once. The message says so, naming the extensions, so nobody believes them gone."""
    message = f"Project trust: {new.describe()}"
    if was_trusted and not new.trusted and loaded_project_extensions:
        message += (
            f". The project's extensions already loaded ({', '.join(loaded_project_extensions)}) keep running "
            "in this session: withdrawing trust unloads them only when you restart Atomic. Its settings, "
            "skills, prompt templates, context files and MCP servers are no longer used"
        )
    return message


class TrustStore:
    """Decisions saved per folder in `<agent dir>/trust.json`: `{"folders": {"/abs": {"trusted": bool}}}`."""

    def __init__(self, agent_dir: Path) -> None:
        self.path = agent_dir / TRUST_FILE

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            raise ValueError(f"{self.path} is not valid JSON ({exc})") from exc
        if not isinstance(data, dict):
            raise ValueError(f"{self.path} must hold a JSON object")
        return data

    def decisions(self) -> dict[Path, bool]:
        """Every saved folder and whether it is trusted. A broken file counts as no decisions."""
        try:
            folders = self._read().get("folders")
        except ValueError:
            return {}
        if not isinstance(folders, dict):
            return {}
        out: dict[Path, bool] = {}
        for folder, entry in folders.items():
            if isinstance(entry, dict) and isinstance(entry.get("trusted"), bool):
                out[Path(folder)] = entry["trusted"]
        return out

    def lookup(self, cwd: Path) -> tuple[Path, bool] | None:
        """The closest saved folder at or above `cwd`, and its decision."""
        saved = self.decisions()
        folder = cwd.resolve()
        for candidate in (folder, *folder.parents):
            if candidate in saved:
                return candidate, saved[candidate]
        return None

    def save(self, folder: Path, trusted: bool) -> None:
        """Save a decision for `folder` (and everything under it without its own decision)."""
        self._change(folder, {"trusted": trusted, "savedAt": int(time.time() * 1000)})

    def forget(self, folder: Path) -> None:
        self._change(folder, None)

    def _change(self, folder: Path, entry: dict[str, Any] | None) -> None:
        with file_lock(self.path):
            # A broken file is never overwritten: the user may be editing it.
            data = self._read()
            folders = data.get("folders")
            if not isinstance(folders, dict):
                folders = {}
            key = str(folder.resolve())
            if entry is None:
                folders.pop(key, None)
            else:
                folders[key] = entry
            data["folders"] = folders
            write_atomic(self.path, json.dumps(data, indent=2) + "\n", mode=0o600)


def resolve_trust(
    cwd: Path,
    agent_dir: Path,
    *,
    setting: str | None = None,
    approve: bool | None = None,
) -> TrustDecision:
    """Decide whether the project at `cwd` is trusted (see the module docstring for the order).

    `setting` is `defaultProjectTrust` from the user's own settings (an unknown value means `ask`);
    `approve` is the one-run command-line choice (True: --approve, False: --no-approve)."""
    folder = cwd.resolve()
    if approve is not None:
        return TrustDecision(folder, approve, "flag")
    if setting == "always":
        return TrustDecision(folder, True, "setting")
    if setting == "never":
        return TrustDecision(folder, False, "setting")
    found = TrustStore(agent_dir).lookup(folder)
    if found is not None:
        return TrustDecision(folder, found[1], "saved", decided_by=found[0])
    return TrustDecision(folder, False, "undecided")
