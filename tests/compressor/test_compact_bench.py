"""compact-bench at CI size: its gates hold, and each gate can go red.

Two seeded sessions of ~60k tokens at a 32k window, four arms, four repeated-compaction
cycles, 150 fuzzed cycles. Gates: no structural violation, no compressor request over
the window, no recall below the stored baseline's bootstrap interval
(``benchmarks/compact_bench/baseline_ci.json``; rewrite it with ``--write-baseline``
only when a change is meant to move the numbers).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
CI = {"sessions": 2, "tokens": 60_000, "context_length": 32_000, "cycles": (1, 2, 5, 10),
      "arms": ("truncation", "compressor+deterministic", "compressor+lossy", "compressor+lossy-unverified")}

pytestmark = pytest.mark.compact_bench


@pytest.fixture(scope="module")
def bench() -> Any:
    sys.path.insert(0, str(BENCH))
    try:
        from compact_bench import arms, fuzz, run

        yield run, arms, fuzz
    finally:
        sys.path.remove(str(BENCH))


@pytest.fixture(scope="module")
def result(bench: Any) -> dict[str, Any]:
    run = bench[0]
    return run.run(CI["sessions"], CI["tokens"], CI["context_length"], CI["arms"], cycles=CI["cycles"])


def baseline() -> dict[str, Any]:
    return json.loads((BENCH / "compact_bench" / "baseline_ci.json").read_text())


def test_gates_hold(bench: Any, result: dict[str, Any]) -> None:
    run = bench[0]
    assert run.gate(result, baseline()) == []
    rows = result["arms"]
    assert rows["compressor+deterministic"]["aux_calls_per_compaction"] <= 1.0
    verified, unverified = rows["compressor+lossy"], rows["compressor+lossy-unverified"]
    assert verified["identifier"][0] > unverified["identifier"][1]  # what verification buys, outside the noise


def test_no_structural_violation_in_fuzzed_cycles(bench: Any) -> None:
    arms, fuzz = bench[1], bench[2]
    from hermes_summarizers.deterministic import DeterministicSummarizer

    outcome = fuzz.fuzz(lambda n: arms.compressor(DeterministicSummarizer(), n)[1], 150)
    assert outcome["violations"] == 0 and outcome["changed"] > 100, outcome


def test_sabotage_regression_gate_goes_red(bench: Any, result: dict[str, Any]) -> None:
    """The lossy arm with verification switched off, scored as if it were the verified one."""
    run = bench[0]
    sabotaged = json.loads(json.dumps(result))
    sabotaged["arms"]["compressor+lossy"] = sabotaged["arms"]["compressor+lossy-unverified"]
    failures = run.gate(sabotaged, baseline())
    assert any(f.startswith("compressor+lossy: identifier recall") for f in failures), failures


def test_sabotage_structural_gate_goes_red(bench: Any) -> None:
    """An arm that drops a tool result: every compaction it makes is API-invalid."""
    run, arms = bench[0], bench[1]
    from compact_bench.generator import generate

    def broken(messages: list[dict[str, Any]], tokens: int) -> list[dict[str, Any]]:
        out = arms.truncation(messages, tokens)
        return [m for m in out if m.get("role") != "tool"][:-1] + out[-1:] if len(out) > 3 else out

    session = generate(3, 30_000)
    played = arms.play("broken", session.messages, 16_000, broken)
    fake = {"arms": {"broken": {"violations": played.violations, "over_window": 0}}}
    assert played.compactions and run.gate(fake, None) == [f"broken: {played.violations} structural violations"]
