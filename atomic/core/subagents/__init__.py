"""Subagents: child agents the model starts with the `task` tool (docs/subagents.md)."""
