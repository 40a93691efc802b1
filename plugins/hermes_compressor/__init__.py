"""The built-in ``compressor`` context engine (placeholder: passes messages through)."""

from __future__ import annotations

from typing import Any

from hermes_core import ContextEngine


class CompressorEngine(ContextEngine):
    @property
    def name(self) -> str:
        return "compressor"

    def update_from_response(self, usage: dict[str, Any]) -> None:
        self.last_prompt_tokens = int(usage.get("prompt_tokens") or 0)
        self.last_completion_tokens = int(usage.get("completion_tokens") or 0)

    def should_compress(self, prompt_tokens: int | None = None) -> bool:
        tokens = self.last_prompt_tokens if prompt_tokens is None else prompt_tokens
        return bool(self.threshold_tokens) and tokens >= self.threshold_tokens

    def compress(self, messages, current_tokens=None, focus_topic=None, force=False):  # type: ignore[no-untyped-def]
        return messages
