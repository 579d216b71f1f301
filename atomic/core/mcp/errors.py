"""The one exception type of the MCP client."""

from __future__ import annotations


class McpError(Exception):
    """A failure talking to an MCP server, worded for the model and the user."""
