"""Threat scanning for text that will reach the model: memory writes and context files.

One shared module (seed 3.4): the memory store refuses content with findings, the
prompt builder replaces a context file's content with a BLOCKED notice. Findings are
structured so tools can show them.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Finding:
    """One hit: which pattern, on which 1-based line, and a short excerpt."""

    pattern_id: str
    line: int
    excerpt: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


THREAT_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"ignore\s+(previous|all|above|prior)\s+instructions", "prompt_injection"),
    (r"do\s+not\s+tell\s+the\s+user", "deception_hide"),
    (r"system\s+prompt\s+override", "sys_prompt_override"),
    (r"disregard\s+(your|all|any)\s+(instructions|rules|guidelines)", "disregard_rules"),
    (
        r"act\s+as\s+(if|though)\s+you\s+(have\s+no|don't\s+have)\s+(restrictions|limits|rules)",
        "bypass_restrictions",
    ),
    (r"<!--[^>]*(?:ignore|override|system|secret|hidden)[^>]*-->", "html_comment_injection"),
    (r"<\s*div\s+style\s*=\s*[\"'][\s\S]*?display\s*:\s*none", "hidden_div"),
    (r"translate\s+.*\s+into\s+.*\s+and\s+(execute|run|eval)", "translate_execute"),
    (r"curl\s+[^\n]*\$\{?\w*(KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|API)", "exfil_curl"),
    (r"cat\s+[^\n]*(\.env|credentials|\.netrc|\.pgpass)", "read_secrets"),
)

INVISIBLE_CHARS = frozenset("\u200b\u200c\u200d\u2060\ufeff\u202a\u202b\u202c\u202d\u202e")

_COMPILED = tuple((re.compile(p, re.IGNORECASE), pid) for p, pid in THREAT_PATTERNS)


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def scan_text(text: str) -> list[Finding]:
    """All findings in ``text``, in order of position; empty when clean."""
    findings: list[Finding] = []
    for rx, pid in _COMPILED:
        for m in rx.finditer(text):
            findings.append(Finding(pid, _line_of(text, m.start()), m.group(0)[:80]))
    for i, ch in enumerate(text):
        if ch in INVISIBLE_CHARS:
            findings.append(Finding("invisible_unicode", _line_of(text, i), f"U+{ord(ch):04X}"))
            break
    findings.sort(key=lambda f: f.line)
    return findings


def pattern_ids(findings: list[Finding]) -> list[str]:
    """Distinct pattern ids, in first-seen order."""
    return list(dict.fromkeys(f.pattern_id for f in findings))
