"""The environment the model's commands see: the user's, without what looks like a secret.

A variable is held back when its name contains KEY, SECRET, TOKEN, PASSWORD, PASSWD or CREDENTIAL
(any case), or when it is a provider key Atomic knows (the catalog's variables and the ones
models.json names). The `shellEnv.pass` setting lists names that get through anyway;
`shellEnv.passSecrets: true` turns the filter off. Every runner of the model's commands (the bash
tool, a sandboxed launcher) calls `model_command_env`; the user's own `!commands` are not filtered.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

_SECRET_NAME = re.compile(r"KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
# Names that contain a marker but hold nothing secret, and that tools need.
_HARMLESS = frozenset({"SSH_AUTH_SOCK", "GPG_AGENT_INFO", "KEYTIMEOUT", "XKB_DEFAULT_KEYMAP"})


def looks_secret(name: str) -> bool:
    return name not in _HARMLESS and _SECRET_NAME.search(name) is not None


def known_provider_key_names() -> set[str]:
    """The catalog's key variables (and the ones that opt a local provider in)."""
    from atomic.core.models.catalog import builtin_providers

    names: set[str] = set()
    for spec in builtin_providers().values():
        if spec.env_var:
            names.add(spec.env_var)
    return names


def model_command_env(
    env: Mapping[str, str],
    *,
    pass_names: Iterable[str] = (),
    pass_secrets: bool = False,
    secret_names: Iterable[str] = (),
) -> dict[str, str]:
    """`env` without secrets (see the module doc). `secret_names` adds names to hold back (the
    variables models.json names); `pass_names` always get through, `pass_secrets` passes all."""
    if pass_secrets:
        return dict(env)
    allowed = set(pass_names)
    held = known_provider_key_names() | set(secret_names)
    return {
        name: value
        for name, value in env.items()
        if name in allowed or not (name in held or looks_secret(name))
    }


def withheld_names(env: Mapping[str, str], filtered: Mapping[str, str]) -> list[str]:
    """Which names the filter held back (for a note in the docs or a debug line; never the values)."""
    return sorted(name for name in env if name not in filtered)
