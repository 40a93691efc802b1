"""Regular expressions compiled the first time they are used, not at import.

A module of rules defines many patterns, and most texts never reach most of them: the
scanner's context checks run only where a rule has already matched. Compiling them all at
import made the first scan in a fresh process (every ``hermes-core memory add``) pay for
every one (``tests/prompt/test_scan_startup.py`` counts compilations).
"""

from __future__ import annotations

import re
from typing import Any


class LazyPattern:
    """Stands in for ``re.compile(pattern, flags)``: its attributes are the compiled
    pattern's, and the first one asked for compiles it. Each attribute read through the
    compiled pattern is kept on this object, so later reads (``RX.search`` in a loop) are
    plain attribute lookups that never come back here."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self.pattern, self._flags)
        value = getattr(compiled, name)
        setattr(self, name, value)
        return value
