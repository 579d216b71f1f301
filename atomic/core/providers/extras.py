"""Optional libraries a cloud provider needs, imported only when that provider is used.

botocore (Bedrock) and google-auth (Vertex AI with Application Default Credentials) are extras of
the package, not dependencies: start-up never imports them, and a user without them who picks such
a model gets an error that names the exact command that fixes it.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from atomic.core.providers.base import ProviderError

# The extra of `atomic-agent` that installs each library.
EXTRA_FOR = {"botocore": "bedrock", "google.auth": "vertex"}


def install_hint(extra: str) -> str:
    return f"pip install 'atomic-agent[{extra}]'"


def require(module: str, purpose: str) -> ModuleType:
    """Import `module` (one of EXTRA_FOR's libraries, or a submodule); a clear error when it is missing."""
    root = next((name for name in EXTRA_FOR if module == name or module.startswith(name + ".")), module)
    try:
        return importlib.import_module(module)
    except ImportError:
        extra = EXTRA_FOR.get(root, "")
        raise ProviderError(
            f"{purpose} needs the {root} library, which is not installed. Run: {install_hint(extra)}",
            kind="fatal",
        ) from None
