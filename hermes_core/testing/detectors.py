"""Example injection detectors for tests of the ``hermes_scan_text`` hook: one that finds, one that fails.

A real detector would call a classifier or a remote guard; the contract is the same. Register an
instance on a host (``host.pm.register(KeywordDetector())``) beside the built-in rules.
"""

from __future__ import annotations

from hermes_core import hookimpl


class KeywordDetector:
    """Flags any line that mentions 'pineapple'."""

    @hookimpl
    def hermes_scan_text(self, text: str, source: str) -> list[dict]:
        return [{"pattern_id": "example.pineapple", "line": n, "excerpt": line}
                for n, line in enumerate(text.split("\n"), 1) if "pineapple" in line.lower()]


class CrashingDetector:
    """Raises, as a guard whose service is down would: the host must isolate it."""

    @hookimpl
    def hermes_scan_text(self, text: str, source: str) -> list[dict]:
        raise RuntimeError("guard service down")
