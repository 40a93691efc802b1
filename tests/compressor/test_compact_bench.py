"""compact-bench at CI size: its gates hold, and each gate can go red.

Two seeded sessions of ~60k tokens at a 32k window, six arms, four repeated-compaction
cycles, 150 fuzzed cycles. Gates (``run.gate``): no structural violation; for compressor
arms no request over the window and at most one auxiliary call per compaction; for
verified ones a superseded-fact error of at most 2 % and recall after 10 cycles at least
90 % of recall after 1; no recall below the stored baseline's bootstrap interval
(``benchmarks/compact_bench/baseline_ci.json``; rewrite it with
``python tests/compressor/test_compact_bench.py`` only when a change is meant to move the numbers).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
CI = {"sessions": 2, "tokens": 60_000, "context_length": 32_000, "cycles": (1, 2, 5, 10),
      "arms": ("truncation", "compressor+deterministic", "compressor+echo", "compressor+lossy",
               "compressor+lossy-unverified", "lcm", "lcm+recovery")}

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
    # one lcm_grep + lcm_expand round trip brings back facts the LCM context lacks
    assert rows["lcm+recovery"]["round_trips"] > 0
    assert rows["lcm+recovery"]["identifier"][0] > rows["lcm"]["identifier"][0]
    assert rows["truncation"]["cache_breaks_per_100_requests"] > 0  # measured, not assumed


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


def test_sabotage_superseded_and_survival_gates_go_red(bench: Any, result: dict[str, Any]) -> None:
    """Verification switched off on the lossy arm: old values answered, recall decays."""
    run = bench[0]
    sabotaged = json.loads(json.dumps(result))
    sabotaged["arms"]["compressor+lossy"] = sabotaged["arms"]["compressor+lossy-unverified"]
    for row in sabotaged["arms"].values():  # JSON made the cycle keys strings
        if "survival" in row:
            row["survival"]["recall_at"] = {int(k): v for k, v in row["survival"]["recall_at"].items()}
    failures = run.gate(sabotaged, None)
    assert any(f.startswith("compressor+lossy: superseded-fact error") for f in failures), failures
    assert any(f.startswith("compressor+lossy: recall after 10 cycles") for f in failures), failures


def test_sabotage_aux_call_gate_goes_red(bench: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A compressor that asks its summarizer twice per compaction."""
    run = bench[0]
    from compact_bench.generator import CLASSES, generate
    from compact_bench.score import fact_outcomes

    build = run.build

    def twice(arm: str, context_length: int, drop_rate: float) -> Any:
        compact, engine = build(arm, context_length, drop_rate)
        summarize = engine._summarize
        engine._summarize = lambda request: (summarize(request), summarize(request))[1]
        return compact, engine

    monkeypatch.setattr(run, "build", twice)
    session = generate(3, 30_000)
    _, rows = run.play_all(("compressor+deterministic",), [(session.messages, session.facts)], 16_000, 0.5, (),
                           fact_outcomes, CLASSES)
    assert any("auxiliary calls per compaction" in f for f in run.gate({"arms": rows}, None)), rows


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


if __name__ == "__main__":  # rewrite the stored CI baseline
    sys.path.insert(0, str(BENCH))
    from compact_bench import run as bench_run

    fresh = bench_run.run(CI["sessions"], CI["tokens"], CI["context_length"], CI["arms"], cycles=CI["cycles"])
    (BENCH / "compact_bench" / "baseline_ci.json").write_text(json.dumps(bench_run.baseline_of(fresh), indent=1) + "\n")
    print(bench_run.markdown(fresh))
