"""Every kept message keeps every key it carries, and a forced compaction summarizes.

Messages carry ``reasoning_content``, ``name``, ``cache_control`` and unknown ``x_*``
keys; whatever the compressor keeps (head, pinned user message, tail, pruned or trimmed
copies) must still carry all of them. Only messages the compaction writes itself (the
summary, its acknowledgement, stub results) may lack them.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hermes_compressor.constants import SUMMARY_ACK, SUMMARY_PREFIX

from hermes_core.text.messages import STUB_TOOL_RESULT, api_problems, text_of

EXTRA = {"user": ("name", "x_meta"), "assistant": ("reasoning_content", "cache_control", "x_trace"),
         "tool": ("name", "x_meta")}


def conversation(seed: int, turns: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "sys", "x_id": 0}]

    def add(msg: dict[str, Any]) -> None:
        for key in EXTRA[msg["role"]]:
            msg[key] = {"type": "ephemeral"} if key == "cache_control" else f"{key}-{len(msgs)}"
        msg["x_id"] = len(msgs)
        msgs.append(msg)

    for t in range(turns):
        add({"role": "user", "content": f"ask {t} " + "u" * rng.randrange(10, 3000)})
        for c in range(rng.randrange(0, 3)):
            cid = f"c{t}_{c}"
            add({"role": "assistant", "content": rng.choice([None, "calling"]), "tool_calls": [
                {"id": cid, "type": "function", "function": {"name": "bash", "arguments": '{"command": "ls"}'}}]})
            add({"role": "tool", "tool_call_id": cid, "content": "o" * rng.randrange(10, 5000)})
        add({"role": "assistant", "content": f"done {t} " + "a" * rng.randrange(10, 2000)})
    return msgs


def _written_by_compaction(msg: dict[str, Any]) -> bool:
    text = text_of(msg.get("content"))
    return text.startswith(SUMMARY_PREFIX) or text == SUMMARY_ACK or text == STUB_TOOL_RESULT


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("force", [True, False])
def test_kept_messages_keep_every_key(seed: int, force: bool, make_engine: Any) -> None:
    msgs = conversation(seed, turns=4 + seed * 3)
    by_id = {m["x_id"]: m for m in msgs}
    engine = make_engine(context_length=[8_000, 16_000, 64_000][seed % 3])
    out = engine.compress(msgs, current_tokens=10**9, force=force).messages
    assert api_problems(out) == []
    for msg in out:
        if _written_by_compaction(msg) and "x_id" not in msg:
            continue
        original = by_id[msg["x_id"]]  # KeyError: a kept message lost its keys
        lost = [k for k in original if k not in msg]
        assert lost == [], (msg.get("role"), lost)


def test_forced_compaction_of_a_short_conversation_summarizes(make_engine: Any) -> None:
    msgs = conversation(3, turns=6)
    engine = make_engine(context_length=64_000)
    out = engine.compress(msgs, force=True).messages
    assert engine.last_summary_source == "deterministic", engine.last_compaction_note
    assert sum(_written_by_compaction(m) for m in out) >= 1
    last_user = max(i for i, m in enumerate(msgs) if m["role"] == "user")
    kept_ids = {m.get("x_id") for m in out}
    assert msgs[last_user]["x_id"] in kept_ids
    assert not kept_ids & {m["x_id"] for m in msgs[1:last_user] if len(msgs) - msgs.index(m) > 3}
