"""An example context engine: keep the system prompt and the newest messages.

Everything a third-party engine needs is here: a ContextEngine subclass with no
decorators, a pydantic model for its own config section, and the standard attributes.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from hermes_core import CompactionResult, ContextEngine
from hermes_core.text.messages import sanitize_tool_pairs
from hermes_core.text.tokens import estimate_message_tokens, estimate_messages_tokens


class ExampleSettings(BaseModel):
    """``plugins.example`` in config.yaml."""

    keep_last: int = Field(12, ge=2, description="how many of the newest messages to keep")


class ExampleEngine(ContextEngine):
    config_model = ExampleSettings

    @property
    def name(self) -> str:
        return "example"

    def update_from_response(self, usage: dict[str, Any]) -> None:
        self.last_prompt_tokens = int(usage.get("prompt_tokens") or 0)
        self.last_completion_tokens = int(usage.get("completion_tokens") or 0)

    def should_compress(self, prompt_tokens: int | None = None) -> bool:
        tokens = self.last_prompt_tokens if prompt_tokens is None else prompt_tokens
        return tokens >= self.threshold_tokens > 0

    def compress(
        self,
        messages: list[dict[str, Any]],
        current_tokens: int | None = None,
        focus_topic: str | None = None,
        force: bool = False,
    ) -> CompactionResult:
        tokens = current_tokens if current_tokens is not None else estimate_messages_tokens(messages)
        if not force and tokens + self.request_overhead_tokens < self.threshold_tokens:
            return self.result(messages, note="below the threshold: nothing to do")
        keep = self.ctx.settings.keep_last if isinstance(self.ctx.settings, ExampleSettings) else 12
        head = messages[:1] if messages and messages[0].get("role") == "system" else []
        users = [i for i, m in enumerate(messages) if m.get("role") == "user" and i >= len(head)]
        if not users:
            return self.result(messages, note="no user turn to keep: nothing was dropped")
        anchor = users[-1]  # the newest user turn is always kept, verbatim
        # the newest messages after it, within half the threshold and `keep_last` messages
        budget = self.threshold_tokens // 2 - self.request_overhead_tokens
        used = estimate_messages_tokens([*head, messages[anchor]])
        start = len(messages)
        while start - 1 > anchor and len(messages) - start < keep:
            cost = estimate_message_tokens(messages[start - 1])
            if used + cost > budget:
                break
            used += cost
            start -= 1
        while start < len(messages) and messages[start].get("role") == "tool":
            start += 1  # never start inside a tool-call group
        dropped = (anchor - len(head)) + (start - anchor - 1)
        if dropped <= 0:
            return self.result(messages, note="only the newest user turn and what follows it are left: nothing to drop")
        self.compression_count += 1
        # Kept messages are never edited; the note and a short acknowledgement keep roles
        # alternating before the newest user turn.
        note = {"role": "user", "content": f"[{dropped} earlier messages were dropped to save context space]"}
        ack = {"role": "assistant", "content": "Understood; continuing from the newest turn."}
        result = sanitize_tool_pairs([*head, note, ack, messages[anchor], *messages[start:]])
        over = estimate_messages_tokens(result) + self.request_overhead_tokens >= self.threshold_tokens
        why = "the kept turns alone exceed the threshold (this engine drops, it does not summarize)" if over else ""
        return self.result(result, summary_source="none", note=why)
