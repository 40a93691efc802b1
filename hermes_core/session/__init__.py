"""The session runtime: the turn flow and the system-prompt assembly."""
