"""Text helpers shared by the core and the built-in plugins."""
