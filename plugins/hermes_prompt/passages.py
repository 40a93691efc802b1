"""Passages of a Markdown file, so one flagged line withholds its paragraph, not the file.

A false positive used to drop a whole SOUL.md or AGENTS.md. Withholding only the passage
that holds a finding (its paragraph, list item, fenced code block, HTML element or comment)
keeps the other instructions and the persona; a visible ``[BLOCKED: ...]`` notice takes
the passage's place, so neither the model nor the user is left guessing.

Passages come from one linear pass over the lines: a fence runs to its closing fence, an
HTML comment to ``-->``, a block-level HTML element to the line that closes it (at most
:data:`MAX_ELEMENT_LINES` lines, so an unclosed ``<div>`` cannot swallow the file), a list
item to the next item or blank line, a heading is its own passage, any other run of
non-blank lines is a paragraph.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from hermes_core.text.scanning import Finding, pattern_ids

MAX_ELEMENT_LINES = 200
WHOLE_FILE_SHARE = 0.5  # withheld lines above this share of non-blank lines: withhold the file

_FENCE_RX = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_ITEM_RX = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+")
_HEADING_RX = re.compile(r"^[ \t]{0,3}#{1,6}(?:[ \t]|$)")
_TAG_RX = re.compile(r"^[ \t]*<([a-zA-Z][\w-]*)\b")


@dataclass(frozen=True)
class Passage:
    """Lines ``first``..``last`` (1-based, inclusive)."""

    first: int
    last: int


def _block_end(lines: list[str], i: int) -> int:
    """Index of the last line of the passage starting at ``lines[i]`` (a non-blank line)."""
    line = lines[i]
    fence = _FENCE_RX.match(line)
    if fence:
        marker = fence.group(1)
        for j in range(i + 1, len(lines)):
            if lines[j].lstrip().startswith(marker[0] * len(marker)):
                return j
        return len(lines) - 1
    if line.lstrip().startswith("<!--"):
        for j in range(i, len(lines)):
            if "-->" in lines[j][(line.index("<!--") + 4) if j == i else 0 :]:
                return j
        return len(lines) - 1
    tag = _TAG_RX.match(line)
    if tag and f"</{tag.group(1)}" not in line and not line.rstrip().endswith("/>"):
        closer = f"</{tag.group(1).lower()}"
        for j in range(i + 1, min(len(lines), i + MAX_ELEMENT_LINES)):
            if closer in lines[j].lower():
                return j
    if _HEADING_RX.match(line):
        return i
    j = i
    while j + 1 < len(lines) and lines[j + 1].strip() and not _starts_block(lines[j + 1]):
        j += 1
    return j


def _starts_block(line: str) -> bool:
    """A line that ends the paragraph or list item before it."""
    return bool(_FENCE_RX.match(line) or _HEADING_RX.match(line) or _ITEM_RX.match(line)
                or line.lstrip().startswith("<!--"))


def split(text: str) -> list[Passage]:
    """The passages of ``text`` in order; blank lines belong to none."""
    lines = text.split("\n")
    passages, i = [], 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        end = _block_end(lines, i)
        passages.append(Passage(i + 1, end + 1))
        i = end + 1
    return passages


def notice(name: str, passage: Passage, findings: list[Finding]) -> str:
    where = f"line {passage.first}" if passage.first == passage.last else f"lines {passage.first}-{passage.last}"
    return (f"[BLOCKED: {name} {where} withheld: potential prompt injection (rule {', '.join(pattern_ids(findings))})."
            " The rest of the file is loaded.]")


def withhold(text: str, name: str, findings: list[Finding]) -> tuple[str, list[tuple[Passage, list[Finding]]]] | None:
    """``text`` with each passage holding a finding replaced by its notice, and what was withheld;
    ``None`` when the withheld passages cover most of the file (then the caller blocks it whole)."""
    lines = text.split("\n")
    by_passage: list[tuple[Passage, list[Finding]]] = []
    passages = split(text)
    starts = [p.first for p in passages]
    for finding in findings:
        k = bisect.bisect_right(starts, finding.line) - 1
        passage = passages[k] if k >= 0 and passages[k].last >= finding.line else Passage(finding.line, finding.line)
        if by_passage and by_passage[-1][0] == passage:
            by_passage[-1][1].append(finding)
        elif (found := next((hits for p, hits in by_passage if p == passage), None)) is not None:
            found.append(finding)
        else:
            by_passage.append((passage, [finding]))
    withheld = sum(p.last - p.first + 1 for p, _hits in by_passage)
    nonblank = sum(1 for line in lines if line.strip()) or 1
    if withheld > WHOLE_FILE_SHARE * nonblank:
        return None
    out: list[str] = []
    cursor = 0
    for passage, hits in sorted(by_passage, key=lambda ph: ph[0].first):
        out.extend(lines[cursor : passage.first - 1])
        out.append(notice(name, passage, hits))
        cursor = passage.last
    out.extend(lines[cursor:])
    return "\n".join(out), by_passage
