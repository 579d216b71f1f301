"""Loading the HTTP stack (`httpx2`, `httpcore2`) for less than it costs by default.

Two costs of the stack are not needed by a run that talks plain HTTP to a local server, and the
first is not needed by any run:

- `httpx2` and `httpcore2` read their own version at import with `importlib.metadata`, which
  imports `email`, `csv` and `zipfile` and scans `sys.path` (~70 M instructions, ~4 % of a short
  `-p` run). `import_httpx` answers those two look-ups from the package's `.dist-info` folder name
  (the same string the metadata holds) and falls back to `importlib.metadata` when there is none.
- A verifying TLS context loads the system's CA bundle (~240 M instructions, ~12 % of that run).
  `tls_context` returns a client context whose CAs are loaded only when a request to an `https`
  URL is about to be sent (`trust_hook`, run before each request, redirects included), with what
  `httpcore2.default_ssl_context` loads on this platform. Until then no certificate is trusted,
  so a handshake could only fail, never succeed without verification.
"""

from __future__ import annotations

import asyncio
import os
import platform
import re
import ssl
import sys
import threading
import types
import weakref
from pathlib import Path
from typing import Any

# Where `httpcore2` looks on Linux when OpenSSL's compiled-in paths are unusable (its `_ssl.py`).
CA_FILE_CANDIDATES = (
    "/etc/ssl/cert.pem",
    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
    "/etc/pki/tls/cert.pem",
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/ssl/ca-bundle.pem",
)
_STACK = ("httpx2", "httpcore2")

_trust_lock = threading.Lock()
_trusted: weakref.WeakSet[ssl.SSLContext] = weakref.WeakSet()
_made: weakref.WeakSet[ssl.SSLContext] = weakref.WeakSet()


def dist_info_version(name: str) -> str | None:
    """The version in `<name>-<version>.dist-info` beside the installed package, if exactly one."""
    for entry in sys.path:
        folder = Path(entry or ".")
        if not (folder / name).is_dir():
            continue
        found = [p.name for p in folder.glob(f"{name}-*.dist-info")]
        if len(found) == 1:
            return found[0][len(name) + 1 : -len(".dist-info")]
        return None
    return None


def _real_version(name: str) -> str:
    import importlib.metadata

    return importlib.metadata.version(name)


def _version(name: str) -> str:
    if name in _STACK:
        found = dist_info_version(name)
        if found is not None:
            return found
    return _real_version(name)


class _MetadataStandIn(types.ModuleType):
    """Stands for `importlib.metadata` while the stack imports: `version` of the stack's own
    packages is answered from the folder name; any other name (another thread importing the real
    module meanwhile) loads the real module and answers from it."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # the import system asks for `__path__` and the like
            raise AttributeError(name)
        if sys.modules.get("importlib.metadata") is self:
            del sys.modules["importlib.metadata"]
        import importlib.metadata

        values = vars(importlib.metadata)
        if name not in values:
            raise AttributeError(name)
        return values[name]


def import_httpx() -> types.ModuleType:
    """`httpx2` (and `httpcore2`), imported without loading `importlib.metadata` when it is not
    loaded yet."""
    if "httpcore2" in sys.modules or "importlib.metadata" in sys.modules:
        import httpx2

        return httpx2
    stand_in = _MetadataStandIn("importlib.metadata")
    stand_in.version = _version  # type: ignore[attr-defined]
    sys.modules["importlib.metadata"] = stand_in
    try:
        import httpcore2  # noqa: F401  (httpx2 imports it when its first pool is built)
        import httpx2
    finally:
        if sys.modules.get("importlib.metadata") is stand_in:
            del sys.modules["importlib.metadata"]
    return httpx2


def tls_context() -> ssl.SSLContext | bool:
    """The `verify` for a new pool: a context without CAs yet on Linux (loaded by `trust_hook`),
    `True` elsewhere (macOS and Windows verify through the OS's store, which costs nothing up front)."""
    if platform.system() in ("Windows", "Darwin"):
        return True
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    _made.add(context)
    return context


def preload_trust() -> None:
    """Read the CAs of every pool built so far now (a warm-up thread of an `https` provider, so
    that its first request does not wait for them)."""
    for context in list(_made):
        load_trust(context)


def load_trust(context: ssl.SSLContext) -> None:
    """Load into `context` the CAs `httpcore2.default_ssl_context()` would (once per context)."""
    with _trust_lock:
        if context in _trusted:
            return
        cafile, capath, from_env = _trust_locations()
        if cafile or capath:
            context.load_verify_locations(cafile, capath)
        keylog = os.environ.get("SSLKEYLOGFILE")
        if from_env and keylog and not sys.flags.ignore_environment:
            context.keylog_filename = keylog  # what ssl.create_default_context adds for SSL_CERT_*
        _trusted.add(context)


def _trust_locations() -> tuple[str | None, str | None, bool]:
    if cafile := os.environ.get("SSL_CERT_FILE"):
        return cafile, None, True
    if capath := os.environ.get("SSL_CERT_DIR"):
        return None, capath, True
    paths = ssl.get_default_verify_paths()
    found_file = paths.openssl_cafile if os.path.isfile(paths.openssl_cafile) else None
    found_path = paths.openssl_capath if os.path.isdir(paths.openssl_capath) else None
    if found_path and not found_file:
        if not any(re.fullmatch(r"[0-9a-fA-F]{8}\.\d", name) for name in os.listdir(found_path)):
            found_path = None
    if not found_file and not found_path:
        found_file = next(filter(os.path.isfile, CA_FILE_CANDIDATES), None)
    return found_file, found_path, False


def trust_hook(context: ssl.SSLContext) -> Any:
    """A request event hook that loads `context`'s CAs before the first `https` request."""

    async def before_request(request: Any) -> None:
        if request.url.scheme == "https" and context not in _trusted:
            # Reading the CA bundle takes ~50 ms: off the loop, as the warm-up's work is.
            await asyncio.to_thread(load_trust, context)

    return before_request
