"""Scoring by exact matching: recall per fact class, superseded-fact errors, bootstrap
intervals (seeded), and repeated-compaction survival."""

from __future__ import annotations

import random
import statistics
from collections.abc import Sequence
from typing import Any

from compact_bench.arms import retained_text
from compact_bench.generator import CLASSES, Fact
from hermes_core.text.messages import api_problems
from hermes_core.text.tokens import estimate_messages_tokens

Message = dict[str, Any]
BOOTSTRAP_SEED = 11
BOOTSTRAP_REPS = 1000


def kept(fact: Fact, text: str) -> bool:
    return all(v in text for v in fact.values)


def fact_outcomes(facts: Sequence[Fact], context: list[Message]) -> dict[str, list[int]]:
    """Per class, 1/0 per fact: kept or not. ``superseded_error``: the old value answered."""
    text = retained_text(context)
    out: dict[str, list[int]] = {cls: [] for cls in CLASSES}
    out["superseded_error"] = []
    for fact in facts:
        out[fact.cls].append(int(kept(fact, text)))
        if fact.old:
            out["superseded_error"].append(int(fact.old in text and not kept(fact, text)))
    return out


def interval(values: Sequence[int | float], seed: int = BOOTSTRAP_SEED) -> tuple[float, float, float]:
    """Mean and its bootstrap 95 % interval."""
    if not values:
        return float("nan"), float("nan"), float("nan")
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(values[rng.randrange(n)] for _ in range(n)) / n for _ in range(BOOTSTRAP_REPS))
    return statistics.fmean(values), means[int(0.025 * BOOTSTRAP_REPS)], means[int(0.975 * BOOTSTRAP_REPS) - 1]


def paired(a: Sequence[int], b: Sequence[int], seed: int = BOOTSTRAP_SEED) -> tuple[float, float, float]:
    """Mean of ``a - b`` over the same facts, with its bootstrap 95 % interval."""
    return interval([x - y for x, y in zip(a, b, strict=True)], seed)


def survival(engine: Any, context: list[Message], facts: Sequence[Fact],
             cycles: Sequence[int] = (1, 2, 5, 10, 40)) -> dict[str, Any]:
    """Force-compact the retained context again and again (a short turn between cycles):
    recall after each listed cycle, freed fraction per cycle, and the first cycle that
    freed nothing (or None)."""
    recall_at: dict[int, float] = {}
    freed: list[float] = []
    violations = 0
    stuck_at = None
    current = list(context)
    for cycle in range(1, max(cycles) + 1):
        if current[-1].get("role") == "user":
            current.append({"role": "assistant", "content": "Nothing new."})
        current.append({"role": "user", "content": f"cycle {cycle}: go on."})
        before = estimate_messages_tokens(current)
        answer = engine.compress(current, force=True)
        after_list = getattr(answer, "messages", answer)  # a CompactionResult or a bare list
        after = estimate_messages_tokens(after_list)
        violations += bool(api_problems(after_list))
        freed.append(max(0.0, (before - after) / before))
        if after >= before and stuck_at is None:
            stuck_at = cycle
        current = list(after_list)
        if cycle in cycles:
            outcome = fact_outcomes(facts, current)
            scored = [v for cls in CLASSES for v in outcome[cls]]
            recall_at[cycle] = sum(scored) / len(scored)
    return {"recall_at": recall_at, "freed_median": statistics.median(freed), "first_cycle_freeing_nothing": stuck_at,
            "violations": violations, "tokens_after_last": estimate_messages_tokens(current)}
