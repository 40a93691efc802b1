"""The built-in injection model: a second detector beside the rules, registered like any third-party one.

It implements :func:`hermes_core.hookspecs.hermes_scan_text` with a linear model over word
n-grams (:mod:`hermes_injection_model.model`), trained on the dev halves of the scanner's sets by
``benchmarks/train_injection_model.py``. Each passage it scores above its threshold is a finding
``injection_model`` at the passage's first line, so the prompt builder withholds that passage as it
does for a rule's finding. Disable it alone with ``plugins.disabled: [injection_model]``.

Memory writes (source ``memory:...``) are left to the rules: an entry is a line or two in the
user's own words ("always reply in French from now on"), where word counts cannot tell a
preference from an order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hermes_core import hookimpl

if TYPE_CHECKING:
    from hermes_core.text.scanning import Finding

PATTERN_ID = "injection_model"
SKIPPED_SOURCES = ("memory:",)


def findings(text: str) -> list[Finding]:
    from hermes_core.text.scanning import Finding

    from . import model

    # a unit starts on a non-blank line: that line is the excerpt
    return [Finding(PATTERN_ID, line + 1, first.strip()[:80]) for line, first, _score in model.load().flagged(text)]


@hookimpl
def hermes_scan_text(text: str, source: str) -> list[Finding]:
    return [] if source.startswith(SKIPPED_SOURCES) else findings(text)
