"""Recognising, splitting and placing the summary message (seed 2.4, 2.6).

The summary travels inside an ordinary message that starts with ``SUMMARY_PREFIX``; when
it had to be merged into a neighbour, the neighbour's own content follows
``SUMMARY_END``. No private keys are added to messages, so providers never see them.
"""

from __future__ import annotations

from typing import Any

from hermes_compressor.constants import SUMMARY_ACK, SUMMARY_END, SUMMARY_PREFIX, SYSTEM_NOTE

Message = dict[str, Any]


def _first_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list) and content and isinstance(content[0], dict):
        text = content[0].get("text")
        return text if isinstance(text, str) else ""
    return ""


def is_summary(message: Message) -> bool:
    """Whether ``message`` carries a compaction summary (standalone or merged)."""
    return _first_text(message.get("content")).startswith(SUMMARY_PREFIX)


def split_summary(message: Message) -> tuple[str, Message | None]:
    """``(summary body, the merged neighbour's own message or None)``."""
    content = message.get("content")
    text = _first_text(content)[len(SUMMARY_PREFIX):]
    body, _, rest = text.partition(SUMMARY_END)
    remainder: Message | None = None
    if isinstance(content, list):
        if len(content) > 1:
            remainder = {**message, "content": content[1:]}
    elif rest.strip() or message.get("tool_calls"):
        remainder = {**message, "content": rest.strip("\n") or None}
    return body.strip(), remainder


def is_standalone_summary(message: Message) -> bool:
    return is_summary(message) and split_summary(message)[1] is None


def summary_block(body: str) -> str:
    return f"{SUMMARY_PREFIX}\n\n{body.strip()}\n\n{SUMMARY_END}"


def merge_into(message: Message, block: str) -> Message:
    """A copy of ``message`` with the summary block in front of its own content."""
    content = message.get("content")
    if isinstance(content, list):
        return {**message, "content": [{"type": "text", "text": block}, *content]}
    own = content if isinstance(content, str) else ""
    return {**message, "content": f"{block}\n\n{own}" if own else block}


def with_system_note(system: Message) -> Message:
    """A copy of the system message with the compaction note appended once."""
    content = system.get("content")
    if isinstance(content, list):
        if any(isinstance(p, dict) and p.get("text") == SYSTEM_NOTE for p in content):
            return system
        return {**system, "content": [*content, {"type": "text", "text": SYSTEM_NOTE}]}
    text = content if isinstance(content, str) else ""
    if SYSTEM_NOTE in text:
        return system
    return {**system, "content": f"{text}\n\n{SYSTEM_NOTE}" if text else SYSTEM_NOTE}


def place_summary(prefix: list[Message], block: str, tail: list[Message], locked: int | None) -> list[Message]:
    """Join ``prefix + summary + tail`` keeping user/assistant alternation.

    The summary becomes a user message after system/assistant/tool, an assistant message
    after a user; if that collides with the first tail message it flips role, else merges
    into that message, unless it is ``locked`` (the last real user message, which must
    stay verbatim): then a short assistant acknowledgement bridges the two user messages.
    """
    last = prefix[-1].get("role") if prefix else None
    first_tail = tail[0].get("role") if tail else None
    forced_user = last in (None, "system")
    role = "user" if forced_user or last in ("assistant", "tool") else "assistant"
    if role != first_tail:
        return [*prefix, {"role": role, "content": block}, *tail]
    flipped = "assistant" if role == "user" else "user"
    if not forced_user and flipped != last:
        return [*prefix, {"role": flipped, "content": block}, *tail]
    if locked != 0:
        return [*prefix, merge_into(tail[0], block), *tail[1:]]
    return [*prefix, {"role": "user", "content": block}, {"role": "assistant", "content": SUMMARY_ACK}, *tail]
