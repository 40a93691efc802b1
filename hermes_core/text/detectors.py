"""Every registered injection detector, called through the host: findings combined, failures isolated.

The prompt plugin and ``hermes-core scan`` call :class:`HostScanner` instead of the
built-in rules directly, so a third-party detector (``hermes_scan_text``) adds findings
beside them. A detector that raises or overruns its time bound is logged by the host and
skipped; one that returns something other than findings is logged here and skipped. Findings are logged once per
file content (by hash), not on every prompt build.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hermes_core.plugin.host import PluginHost
    from hermes_core.text.scanning import Finding

log = logging.getLogger("hermes_core.scanning")
HOOK = "hermes_scan_text"
_logged: set[str] = set()  # content digests whose findings were logged in this process
_MAX_LOGGED = 10_000


def _as_finding(item: Any) -> Finding | None:
    from hermes_core.text.scanning import Finding

    if isinstance(item, Finding):
        return item
    if isinstance(item, dict) and "pattern_id" in item:
        try:
            return Finding(str(item["pattern_id"]), max(1, int(item.get("line", 1))), str(item.get("excerpt", ""))[:80])
        except (TypeError, ValueError):
            return None
    return None


def combine(results: Iterable[tuple[str, Any]]) -> tuple[list[Finding], list[str]]:
    """All detectors' findings, deduplicated by (pattern id, line) and sorted; and the problems seen."""
    seen: set[tuple[str, int]] = set()
    findings: list[Finding] = []
    problems: list[str] = []
    for plugin_name, result in results:
        if result is None:
            continue
        items = list(result) if isinstance(result, list | tuple | set) else [result]
        for item in items:
            finding = _as_finding(item)
            if finding is None:
                problems.append(f"detector {plugin_name} returned {type(item).__name__}, not a finding")
                continue
            if (finding.pattern_id, finding.line) not in seen:
                seen.add((finding.pattern_id, finding.line))
                findings.append(finding)
    findings.sort(key=lambda f: f.line)
    return findings, problems


class HostScanner:
    """``scanner(text, source)`` -> findings from every detector; ``is_trusted(text)`` for reviewed files."""

    def __init__(self, host: PluginHost) -> None:
        self.host = host
        self.home: Path = host.home

    @property
    def key(self) -> tuple[Any, ...]:
        """Part of the prompt's file-cache key: which detectors run, and the trust store's version."""
        from hermes_core.text import trust

        try:
            stamp = (self.home / trust.STORE_NAME).stat().st_mtime_ns
        except OSError:
            stamp = 0
        return (*(impl.plugin_name for impl in self.host.pm.hook.hermes_scan_text.get_hookimpls()), stamp)

    def __call__(self, text: str, source: str) -> list[Finding]:
        # the host isolates each implementation: one that raises or overruns its time bound is logged and
        # counts as None, so the others' findings still arrive
        results = self.host.pm.hook.hermes_scan_text(text=text, source=source)
        findings, problems = combine((f"#{n}", result) for n, result in enumerate(results or (), 1))
        for problem in problems:
            log.warning("%s", problem)
        if findings:
            from hermes_core.text import trust
            from hermes_core.text.scanning import pattern_ids

            digest = trust.digest(text)
            if digest not in _logged and len(_logged) < _MAX_LOGGED:
                _logged.add(digest)
                log.info("%s: potential prompt injection (%s), lines %s", source, ", ".join(pattern_ids(findings)),
                            ", ".join(str(n) for n in sorted({f.line for f in findings})[:10]))
        return findings

    def __deepcopy__(self, memo: dict[int, Any]) -> HostScanner:
        """A service, not data: the host deep-copies hook arguments (a PromptContext carries this)."""
        return self

    def is_trusted(self, text: str) -> bool:
        from hermes_core.text import trust

        return trust.digest(text) in trust.trusted_digests(self.home)
