"""Small in-test plugins for the session tests: a compacting engine and a recording provider."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from hermes_core import ContextEngine, MemoryProvider
from hermes_core.text.messages import sanitize_tool_pairs, text_of
from hermes_core.text.tokens import estimate_messages_tokens


class TailEngine(ContextEngine):
    """Keeps the first message (with a one-line summary folded in) and a tail of ~1/3 threshold."""

    calls: list[tuple[str, Any]]

    @property
    def name(self) -> str:
        return "tail"

    def update_from_response(self, usage: dict[str, Any]) -> None:
        self.last_prompt_tokens = int(usage.get("prompt_tokens") or 0)

    def should_compress(self, prompt_tokens: int | None = None) -> bool:
        self.__dict__.setdefault("calls", []).append(("should_compress", prompt_tokens))
        tokens = self.last_prompt_tokens if prompt_tokens is None else prompt_tokens
        return tokens >= self.threshold_tokens

    def compress(self, messages, current_tokens=None, focus_topic=None, force=False):  # type: ignore[no-untyped-def]
        budget = self.threshold_tokens // 3
        start = len(messages)
        while start > 1 and estimate_messages_tokens(messages[start - 1:]) <= budget:
            start -= 1
        while start < len(messages) and messages[start].get("role") != "assistant":
            start += 1
        if start <= 1 and not force:
            return messages
        keep = self.ctx.pre_compress(messages[1:start])
        summary = f"[summary: {start - 1} messages compacted. {keep}]"
        head = messages[0]
        if head.get("role") == "system":
            system = dict(head, content=f"{text_of(head.get('content'))}\n\n{summary}")
        else:
            system = {"role": "system", "content": summary}
        # the newest user message before the tail stays, verbatim (it may be the last one)
        anchor = [messages[i] for i in range(start) if messages[i].get("role") == "user"][-1:]
        self.compression_count += 1
        self.last_summary_source = "deterministic"
        return sanitize_tool_pairs([system, *anchor, *messages[start:]])


class Recorder(MemoryProvider):
    """An external provider that records every hook call in ``Recorder.log``."""

    log: ClassVar[list[tuple[Any, ...]]] = []
    recall = "the user prefers tea"
    block_counter = 0

    @property
    def name(self) -> str:
        return "recorder"

    def is_available(self) -> tuple[bool, str]:
        return True, ""

    def initialize(self, session_id: str) -> None:
        self.log.append(("initialize", session_id))

    def system_prompt_block(self) -> str:
        # Changes on every call: the session must not rebuild the prompt except after compaction.
        type(self).block_counter += 1
        return f"recorder block #{type(self).block_counter}"

    def prefetch(self, query: str) -> str:
        self.log.append(("prefetch", query))
        return self.recall

    def queue_prefetch(self, query: str) -> None:
        self.log.append(("queue_prefetch", query))

    def sync_turn(self, user_content: str, assistant_content: str) -> None:
        self.log.append(("sync_turn", user_content, assistant_content))

    def on_turn_start(self, turn_number: int, message: str) -> None:
        self.log.append(("on_turn_start", turn_number, message))

    def on_pre_compress(self, messages: list[dict[str, Any]]) -> str:
        self.log.append(("on_pre_compress", len(messages)))
        return "KEEP-THIS"

    def on_memory_write(self, action: str, target: str, content: str) -> None:
        self.log.append(("on_memory_write", action, target, content))

    def on_delegation(self, task: str, result: str) -> None:
        self.log.append(("on_delegation", task, result))

    def on_session_end(self, session_id: str, messages: list[dict[str, Any]]) -> None:
        self.log.append(("on_session_end", session_id, len(messages)))

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        return [{"name": "recall_search", "description": "search", "parameters": {"type": "object", "properties": {}}}]

    def handle_tool_call(self, name: str, args: dict[str, Any]) -> str | None:
        self.log.append(("tool", name, args))
        return '{"found": 1}' if name == "recall_search" else None

    def shutdown(self) -> None:
        self.log.append(("shutdown",))


@pytest.fixture
def tail_engine() -> type[TailEngine]:
    return TailEngine


@pytest.fixture
def recorder() -> type[Recorder]:
    """A fresh Recorder class per test (its log and counter are class-level)."""
    return type("Recorder", (Recorder,), {"log": [], "block_counter": 0})
