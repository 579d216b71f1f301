"""The Atomic engine. Imports neither frontend, nor Textual."""
