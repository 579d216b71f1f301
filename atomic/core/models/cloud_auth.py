"""Whether a cloud provider (Bedrock, Vertex AI) has credentials, without loading its SDK.

These providers authenticate with the cloud's own credential chain, not a key Atomic holds: AWS
credentials, profiles, SSO or a Bedrock API key; Google's Application Default Credentials or a
service account file. Deciding that one is configured must stay cheap (it runs for the model list
and at start-up), so this looks only at environment variables and whether the usual files
exist; the provider resolves the real credentials (with botocore or google-auth) when it sends.
"""

from __future__ import annotations

import os
from pathlib import Path

BEDROCK_API = "bedrock-converse-stream"
VERTEX_API = "google-vertex"

# Variables any one of which points the AWS credential chain at credentials.
_AWS_VARIABLES = (
    "AWS_BEARER_TOKEN_BEDROCK",
    "AWS_PROFILE",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
)


def _set(name: str) -> bool:
    return bool(os.environ.get(name, "").strip())


def _aws_files() -> tuple[Path, ...]:
    home = Path.home()
    credentials = os.environ.get("AWS_SHARED_CREDENTIALS_FILE") or str(home / ".aws" / "credentials")
    config = os.environ.get("AWS_CONFIG_FILE") or str(home / ".aws" / "config")
    return Path(credentials), Path(config)


def aws_credential_label() -> str | None:
    """What would authenticate a Bedrock request (a variable's name or a file), else None."""
    if _set("AWS_ACCESS_KEY_ID") and _set("AWS_SECRET_ACCESS_KEY"):
        return "AWS_ACCESS_KEY_ID"
    for name in _AWS_VARIABLES:
        if _set(name):
            return name
    for path in _aws_files():
        if path.is_file():
            return str(path)
    return None


def vertex_project() -> str | None:
    for name in ("GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT"):
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


def adc_file() -> Path | None:
    """The Application Default Credentials file google-auth would read first, if there is one."""
    named = os.environ.get("GOOGLE_APPLICATION_CREDENTIALS", "").strip()
    if named:
        return Path(named)
    config = os.environ.get("CLOUDSDK_CONFIG", "").strip()
    root = Path(config) if config else Path.home() / ".config" / "gcloud"
    default = root / "application_default_credentials.json"
    return default if default.is_file() else None


def vertex_credential_label() -> str | None:
    """An express-mode API key, or ADC with a project to bill; else None."""
    if _set("GOOGLE_CLOUD_API_KEY"):
        return "GOOGLE_CLOUD_API_KEY"
    if _set("GOOGLE_APPLICATION_CREDENTIALS"):
        # A service account file names its own project.
        return "GOOGLE_APPLICATION_CREDENTIALS"
    found = adc_file()
    if found is not None and vertex_project() is not None:
        return str(found)
    return None


def cloud_credential_label(api: str) -> str | None:
    """For a cloud api, what would authenticate it; None for other apis or without credentials."""
    if api == BEDROCK_API:
        return aws_credential_label()
    if api == VERTEX_API:
        return vertex_credential_label()
    return None


def cloud_setup_hint(api: str) -> str | None:
    """What to set up for a cloud api without credentials (None for other apis)."""
    if api == BEDROCK_API:
        return ("AWS credentials (AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY) or a Bedrock API key "
                "in AWS_BEARER_TOKEN_BEDROCK")
    if api == VERTEX_API:
        return ("Google credentials (`gcloud auth application-default login` and GOOGLE_CLOUD_PROJECT, or "
                "GOOGLE_APPLICATION_CREDENTIALS) or an express-mode key in GOOGLE_CLOUD_API_KEY")
    return None


def is_cloud_api(api: str) -> bool:
    return api in (BEDROCK_API, VERTEX_API)
