"""The built-in ``builtin`` memory provider: MEMORY.md / USER.md and the ``memory`` tool.

Modules: :mod:`.store` (file format, lock, atomic write), :mod:`.operations` (what add,
replace and remove do), :mod:`.snapshot` (the frozen prompt block), :mod:`.tool` (schema,
arguments, dispatcher), :mod:`.provider` (the provider class).
"""

from __future__ import annotations

from hermes_memory_builtin.provider import BuiltinMemoryProvider

__all__ = ["BuiltinMemoryProvider"]
