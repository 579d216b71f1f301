"""Errors the engine raises to its callers."""

from __future__ import annotations


class PromptRejected(Exception):
    """A prompt refused before it was accepted (the RPC response is `success: false`)."""


class StartupError(Exception):
    """A problem with the options that makes starting impossible (the CLI prints it and exits 1)."""


class CompactionFailed(Exception):
    """A manual compaction that could not be done (the message says why)."""
