"""Checkpoints: the project's files as they were before each prompt changed any (docs/sessions.md).

coverage.py says which files count, store.py keeps their contents and the manifests outside the
project, snapshot.py takes the state incrementally, restore.py and diff.py use it, entries.py ties
checkpoints to prompts in the session file, and manager.py is the session's component.
"""
