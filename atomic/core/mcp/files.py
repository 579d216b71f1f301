"""The names of the MCP configuration files, apart from config.py so that the project scan
(project_offer.py) can look for them without importing the configuration's parsing."""

USER_MCP_FILE = "mcp.json"  # in the agent dir
PROJECT_MCP_FILE = ".mcp.json"  # Claude Code's file, in the project folder
