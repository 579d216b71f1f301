"""Errors the engine raises to its callers."""

from __future__ import annotations


class PromptRejected(Exception):
    """A prompt refused before it was accepted (the RPC response is `success: false`)."""
