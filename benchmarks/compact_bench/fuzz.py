"""Fuzzed compaction cycles: hostile conversations compacted again and again.

Inputs carry non-string content, images, bad JSON arguments, reasoning fields, duplicate
ids, orphan results, unanswered calls and unknown roles. A *violation* is a kind of API
problem in what the engine returns that its input did not have: an engine cannot be
asked to repair every broken transcript it keeps, but it must never break one.
"""

from __future__ import annotations

import random
import re
from typing import Any

from hermes_core.text.messages import api_problems

Message = dict[str, Any]


def hostile_conversation(rng: random.Random) -> list[Message]:
    msgs: list[Message] = [{"role": "system", "content": "sys"}] if rng.random() < 0.9 else []
    call = 0
    for _ in range(rng.randrange(2, 40)):
        roll = rng.random()
        if roll < 0.3:
            content: Any = rng.choice(["ask " * rng.randrange(1, 400), [{"type": "text", "text": "img"},
                                       {"type": "image_url", "image_url": {"url": "data:x"}}], None, 42])
            msgs.append({"role": "user", "content": content})
        elif roll < 0.6:
            calls = []
            for _ in range(rng.randrange(1, 4)):
                call += 1
                cid = f"c{call if rng.random() < 0.9 else 1}"  # some duplicate ids
                calls.append({"id": cid, "type": "function",
                              "function": {"name": "bash", "arguments": rng.choice(['{"a": 1}', "{bad json", "{}"])}})
            msgs.append({"role": "assistant", "content": rng.choice([None, "calling", ""]), "tool_calls": calls,
                         "reasoning_content": "hmm"})
            for c in calls:
                if rng.random() < 0.85:  # some calls stay orphaned
                    msgs.append({"role": "tool", "tool_call_id": c["id"], "content": "out " * rng.randrange(1, 2000)})
        elif roll < 0.9:
            msgs.append({"role": "assistant", "content": "said " * rng.randrange(1, 600)})
        elif roll < 0.95:
            msgs.append({"role": "tool", "tool_call_id": f"orphan{rng.randrange(9)}", "content": "stray"})
        else:
            msgs.append({"role": rng.choice(["developer", "function", "critic"]), "content": "odd role"})
    msgs.append({"role": "user", "content": "last question"})
    return msgs


def valid_hostile_conversation(rng: random.Random) -> list[Message]:
    """API-valid structure (alternation, every call answered once) with hostile content:
    non-string and missing content, images, bad JSON arguments, huge messages, extra keys."""
    msgs: list[Message] = [{"role": "system", "content": "sys"}]
    call = 0
    for turn in range(rng.randrange(1, 25)):
        content: Any = rng.choice(["ask " * rng.randrange(1, 800), [{"type": "text", "text": "look"},
                                   {"type": "image_url", "image_url": {"url": "data:x"}}], f"ask {turn}"])
        msgs.append({"role": "user", "content": content, "x_meta": turn})
        for _ in range(rng.randrange(0, 3)):
            calls = []
            for _ in range(rng.randrange(1, 4)):
                call += 1
                args = rng.choice(['{"a": 1}', "{bad json", "{}", '{"x": "%s"}' % ("y" * 3000)])
                calls.append({"id": f"c{call}", "type": "function", "function": {"name": "bash", "arguments": args}})
            msgs.append({"role": "assistant", "content": rng.choice([None, "calling", ""]), "tool_calls": calls,
                         "reasoning_content": "hmm", "cache_control": {"type": "ephemeral"}})
            msgs += [{"role": "tool", "tool_call_id": c["id"], "content": "out\n" * rng.randrange(1, 1500)}
                     for c in calls]
        msgs.append({"role": "assistant", "content": "said " * rng.randrange(1, 600), "name": "bot"})
    msgs.append({"role": "user", "content": "last question"})
    return msgs


def problem_kinds(messages: list[Message]) -> set[str]:
    return {re.sub(r"'[^']*'|\[[^\]]*\]|\d+", "_", p) for p in api_problems(messages)}


def fuzz(engine_factory: Any, cycles: int, seed: int = 5, valid_input: bool = True) -> dict[str, int]:
    """``cycles`` compactions of hostile conversations (each compacted up to 3 times in a row).

    With ``valid_input`` the structure is API-valid and any problem in a returned list is
    a violation; otherwise structure is hostile too and only new kinds of problem count.
    """
    rng = random.Random(seed)
    done = violations = changed = 0
    while done < cycles:
        engine = engine_factory(rng.choice([2_000, 8_000, 32_000]))
        msgs = valid_hostile_conversation(rng) if valid_input else hostile_conversation(rng)
        for _ in range(3):
            answer = engine.compress(msgs, current_tokens=10**7, force=rng.random() < 0.5)
            out = getattr(answer, "messages", answer)  # a CompactionResult or a bare list
            done += 1
            if out is not msgs:
                changed += 1
                violations += bool(api_problems(out) if valid_input else problem_kinds(out) - problem_kinds(msgs))
                msgs = [*out, {"role": "assistant", "content": "ok"}, {"role": "user", "content": "more"}]
            if done >= cycles:
                break
    return {"cycles": done, "changed": changed, "violations": violations}
