"""The built-in ``builtin`` memory provider (placeholder)."""

from __future__ import annotations

from hermes_core import MemoryProvider


class BuiltinMemoryProvider(MemoryProvider):
    @property
    def name(self) -> str:
        return "builtin"

    def is_available(self) -> tuple[bool, str]:
        return True, ""

    def initialize(self, session_id: str) -> None:
        pass
