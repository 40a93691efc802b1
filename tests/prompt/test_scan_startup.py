"""The scanner's first use in a process stays cheap: rules are compiled when a text comes near them.

Every ``hermes-core memory add`` and every first Session.open scans a short text in a fresh
process; compiling all ~800 rule regexes there cost 0.2-0.5 s of CPU. The bound is a count of
regex compilations (the expensive part, and not noisy like a timing on a shared machine).
"""

from __future__ import annotations

import json
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_core.text.intent_scan import _Gate, _plan

# Counts every compilation that misses re's cache during import of the scanner and one short scan.
_PROBE = r"""
import json, re, re._compiler as compiler
count = 0
original = compiler.compile
def counting(*args, **kwargs):
    global count
    count += 1
    return original(*args, **kwargs)
compiler.compile = counting
import hermes_core
before = count
from hermes_core.text.scanning import scan_text
from hermes_core.text.intent_scan import _plan
findings = scan_text("Prefers tea with milk; two sugars. Lives in Lyon.")
print(json.dumps({"compiled": count - before, "alternatives": len(_plan().sources), "findings": len(findings)}))
"""
MAX_COMPILED_FOR_A_SHORT_TEXT = 80  # measured: 50 (module-level regexes included); all rules: ~800


def test_a_short_scan_in_a_fresh_process_compiles_few_regexes() -> None:
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True)
    probe = json.loads(done.stdout)
    assert probe["findings"] == 0
    assert probe["alternatives"] > 500  # the rules are all there, just not compiled
    assert probe["compiled"] <= MAX_COMPILED_FOR_A_SHORT_TEXT, probe


_WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=12)


@settings(max_examples=100, deadline=None)
@given(st.lists(_WORDS, max_size=150))
def test_both_ways_of_gating_on_words_agree(words: list[str]) -> None:
    """Short texts enumerate their words' prefixes, long ones binary-search: the same live set."""
    plan = _plan()
    text = " ".join(words)
    expected = {h for h in plan.heads if any(w.startswith(h) for w in set(words))}
    assert _Gate.live_heads(_Gate.words(text), plan.heads, plan.longest) == expected
