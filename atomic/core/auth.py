"""Stored provider credentials: `<agentDir>/auth.json`.

Format: `{"<provider>": {"type": "api_key", "key": "..."}}`, or for a subscription login
(`atomic/core/oauth/`) `{"type": "oauth", "access": "...", "refresh": "...", "expires": <ms>, ...}`
with the login's own extra fields (the Copilot API base URL, the ChatGPT account id). Entries of
other types are kept untouched when the file is rewritten.

The folder is kept at 0700 and the file at 0600. Every write is a read-modify-write under
`atomic_io.file_lock` followed by `atomic_io.write_atomic`, so a concurrent Atomic process never
sees half a file and never loses another process's change. A file that cannot be parsed is
reported in `errors` and refused for writing: silently replacing it would throw away the user's
other keys.

Key values may be literal keys, the name of an environment variable, or `!command` (the stdout
of a shell command, run each time the key is needed). See `resolve_value`.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from atomic.core.atomic_io import file_lock, write_atomic

AUTH_FILE_NAME = "auth.json"
_DIR_MODE = 0o700
_FILE_MODE = 0o600
_COMMAND_TIMEOUT_S = 30.0


class AuthStorageError(Exception):
    """auth.json could not be read or written (the message never contains a key)."""


def resolve_value(value: str | None) -> str | None:
    """Turn a configured credential/header value into the real value.

    `!command` -> stripped stdout of the shell command (None if it fails or prints nothing);
    otherwise the value of the environment variable with that name, if set and non-empty;
    otherwise the literal text.
    """
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    if text.startswith("!"):
        return _run_key_command(text[1:])
    from_env = os.environ.get(text)
    if from_env:
        return from_env
    return text


def _run_key_command(command: str) -> str | None:
    if not command.strip():
        return None
    try:
        completed = subprocess.run(
            command,
            shell=True,
            capture_output=True,
            text=True,
            timeout=_COMMAND_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if completed.returncode != 0:
        return None
    output = completed.stdout.strip()
    return output or None


class AuthStorage:
    """Reads and writes `<agent_dir>/auth.json`. Never prints, logs or reprs a key."""

    def __init__(self, agent_dir: Path) -> None:
        self.agent_dir = Path(agent_dir)
        self.path = self.agent_dir / AUTH_FILE_NAME
        self.errors: list[str] = []
        self._entries: dict[str, dict[str, Any]] = {}
        self.reload()

    def __repr__(self) -> str:
        return f"AuthStorage(path={str(self.path)!r}, providers={sorted(self._entries)!r})"

    __str__ = __repr__

    # ------------------------------------------------------------------ reading

    def reload(self) -> None:
        self.errors = []
        try:
            self._entries = {k: v for k, v in self._read_raw().items() if isinstance(v, dict)}
        except AuthStorageError as exc:
            self._entries = {}
            self.errors.append(str(exc))

    def _read_raw(self) -> dict[str, Any]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise AuthStorageError(f"Cannot read {self.path}: {exc.strerror or exc}") from None
        if not text.strip():
            return {}
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            # The position only, never the text around it: the file holds secrets.
            raise AuthStorageError(
                f"{self.path} is not valid JSON (line {exc.lineno}, column {exc.colno}); "
                "fix or remove it. Atomic will not overwrite it."
            ) from None
        if not isinstance(data, dict):
            raise AuthStorageError(f"{self.path} must contain a JSON object; Atomic will not overwrite it.")
        return data

    def providers(self) -> list[str]:
        return sorted(self._entries)

    def get(self, provider: str) -> dict[str, Any] | None:
        """The stored entry for a provider (a copy), or None."""
        entry = self._entries.get(provider)
        return dict(entry) if entry is not None else None

    def has_api_key(self, provider: str) -> bool:
        entry = self._entries.get(provider)
        if not entry or entry.get("type") != "api_key":
            return False
        key = entry.get("key")
        return isinstance(key, str) and bool(key.strip())

    def api_key(self, provider: str) -> str | None:
        """The resolved stored key (`!command` / env name / literal), or None."""
        if not self.has_api_key(provider):
            return None
        return resolve_value(self._entries[provider]["key"])

    def resolve_value(self, value: str | None) -> str | None:
        return resolve_value(value)

    def has_oauth(self, provider: str) -> bool:
        entry = self._entries.get(provider) or {}
        return entry.get("type") == "oauth" and isinstance(entry.get("refresh"), str)

    def oauth(self, provider: str) -> dict[str, Any] | None:
        """A copy of the provider's stored login (type "oauth"), or None."""
        return self.get(provider) if self.has_oauth(provider) else None

    def has_credential(self, provider: str) -> bool:
        return self.has_api_key(provider) or self.has_oauth(provider)

    # ------------------------------------------------------------------ writing

    def set_api_key(self, provider: str, key: str) -> None:
        if not provider:
            raise ValueError("provider must not be empty")
        if not key or not key.strip():
            raise ValueError("key must not be empty")

        def change(entries: dict[str, Any]) -> bool:
            entries[provider] = {"type": "api_key", "key": key.strip()}
            return True

        self._update(change)

    def set_oauth(self, provider: str, credential: dict[str, Any]) -> None:
        """Store a login's tokens (replacing whatever the provider had)."""
        if not provider:
            raise ValueError("provider must not be empty")

        def change(entries: dict[str, Any]) -> bool:
            entries[provider] = {**credential, "type": "oauth"}
            return True

        self._update(change)

    def update_oauth(self, provider: str, refresh: Any) -> dict[str, Any] | None:
        """Refresh a stored login under the file lock, so two Atomic processes never both spend the
        same refresh token: `refresh(current)` sees the entry as it is on disk now and returns the
        new entry (or None to keep it, e.g. another process refreshed it meanwhile). Returns the
        entry in force afterwards, None when there is no login. Exceptions from `refresh` propagate
        and leave the file as it was."""
        result: dict[str, Any] | None = None

        def change(entries: dict[str, Any]) -> bool:
            nonlocal result
            current = entries.get(provider)
            if not isinstance(current, dict) or current.get("type") != "oauth":
                return False
            fresh = refresh(dict(current))
            if fresh is None:
                result = dict(current)
                return False
            entries[provider] = {**fresh, "type": "oauth"}
            result = dict(entries[provider])
            return True

        self._update(change)
        return result

    def remove(self, provider: str) -> bool:
        """Forget a provider's stored credential. True if there was one."""
        removed = False

        def change(entries: dict[str, Any]) -> bool:
            nonlocal removed
            removed = entries.pop(provider, None) is not None
            return removed

        self._update(change)
        return removed

    def _update(self, change: Any) -> None:
        self._ensure_private_dir()
        with file_lock(self.path):
            # Re-read inside the lock so another process's change is kept, and refuse to
            # replace a file we cannot understand.
            try:
                current = self._read_raw()
            except AuthStorageError as exc:
                self.errors = [str(exc)]
                raise
            if change(current):
                payload = json.dumps(current, indent=2) + "\n"
                write_atomic(self.path, payload, mode=_FILE_MODE)
            self._entries = {k: v for k, v in current.items() if isinstance(v, dict)}
            self.errors = []
        self._tighten_file_mode()

    def _ensure_private_dir(self) -> None:
        self.agent_dir.mkdir(parents=True, exist_ok=True, mode=_DIR_MODE)
        try:
            os.chmod(self.agent_dir, _DIR_MODE)
        except OSError:
            pass  # Not our folder to fix (e.g. owned by someone else); the file mode still protects it.

    def _tighten_file_mode(self) -> None:
        try:
            if self.path.exists():
                os.chmod(self.path, _FILE_MODE)
        except OSError:
            pass
