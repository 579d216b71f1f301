"""The MCP client: tools from Model Context Protocol servers (see docs/mcp.md).

Importing this package is cheap and imports nothing: `config.py` reads the configuration (no SDK),
`manager.py` is imported only when some server is configured (engine/project_trust.py `start_mcp`),
and the `mcp` SDK itself only in a worker thread when a server starts.
"""
