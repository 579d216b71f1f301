"""The OS sandbox for the model's commands (docs/security.md, "The sandbox").

policy.py turns the settings into rules; bubblewrap.py (Linux) and seatbelt.py (macOS) enforce them on
a command; probe.py finds out whether the OS can; command.py is what tools call; escalation.py lets
the user lift the sandbox for one command; control.py is the session's side.
"""
