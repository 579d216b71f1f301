"""Modal screens of the terminal UI. Each is a `ModalScreen[T]` that dismisses with a typed result (None
when cancelled): a `ModelChoice`, a `TreeChoice`, an entry id … The caller (atomic.tui.commands) applies
the result through the engine; a screen does not change the session itself.

The command that opens a screen imports its class inside the handler, so opening the app does not pay
for screens nobody opened.
"""
