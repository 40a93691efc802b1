"""Shrinking a summary to a size without destroying it (the trimming fallback).

When the list must be trimmed and it already carries a summary, cutting that summary
blindly to its head and tail loses its sections, the user's asks in the middle and, in
small windows, even the prefix that marks it as a summary. Instead its lines are dropped
by priority: tool patterns and finished steps first, then decisions and the anchor index's
weaker items, then context and files, then the anchor index's identifiers (its
newest-first lists lose their oldest first) and errors, and the user's asks and
constraints last (clipped before they are dropped). Every section heading stays, and one
closing line says what was cut. Only when headings alone do not fit is the text cut, with
a marker. Works on any markdown summary (``## `` sections); sections it does
not know are treated like files and identifiers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hermes_core.text.ledger import ANCHOR_HEADING

#: How early each summary section's lines go (lower first); unknown sections get DEFAULT_TIER.
SECTION_TIERS = {
    "Tools & Patterns": 0,
    "Resolved Questions": 1,
    "Key Decisions": 2,
    "Remaining Work": 2,
    "Critical Context": 4,
    "Relevant Files": 4,
    "Progress (Done / In Progress / Blocked)": 5,
    "Constraints & Preferences": 8,
    "Pending User Asks": 8,
    "Goal": 9,
}
DEFAULT_TIER = 4
#: Anchor index lines by kind (see hermes_core.text.ledger.KINDS): its identifiers are the
#: densest carriers of what a continuing assistant cannot re-derive, so they go after files.
ANCHOR_TIERS = {"said": 2, "finding": 2, "decision": 2, "identifier": 5, "file": 5, "error": 6, "ask": 8,
                "constraint": 8}
DONE_TIER = 1  # a finished step ("Done: ...") of the progress section
CLIP_CHARS = 240  # asks, constraints and the goal are clipped to this before any is dropped
CLIP_FROM_TIER = 7
KEEP_TIER = 10  # placeholders ("- None.") keep a section readable and cost nothing


@dataclass
class _Line:
    lead: str  # "- " or "- identifier: "
    pieces: list[str]  # one piece, or the " | "-joined items of an anchor identifier/file line
    tier: int
    newest_first: bool  # the anchor index lists newest first: drop from its end
    dropped: bool = False

    def render(self) -> str:
        return self.lead + " | ".join(self.pieces)


@dataclass
class _Section:
    heading: str  # "" for the text before the first heading
    lines: list[_Line] = field(default_factory=list)
    cut: int = 0


def _parse(body: str) -> list[_Section]:
    sections = [_Section("")]
    for raw in body.splitlines():
        if raw.startswith("## "):
            sections.append(_Section(raw))
            continue
        if not raw.strip():
            continue
        sec = sections[-1]
        title = sec.heading[3:].strip()
        if sec.heading == ANCHOR_HEADING:
            kind, sep, rest = raw.removeprefix("- ").partition(": ")
            if sep and kind in ANCHOR_TIERS:
                pieces = rest.split(" | ") if kind in ("identifier", "file") else [rest]
                sec.lines.append(_Line(f"- {kind}: ", pieces, ANCHOR_TIERS[kind], True))
            else:
                sec.lines.append(_Line("", [raw], 2, True))
            continue
        tier = SECTION_TIERS.get(title, DEFAULT_TIER)
        if raw.strip() == "- None.":
            tier = KEEP_TIER
        elif tier == SECTION_TIERS["Progress (Done / In Progress / Blocked)"] and raw.startswith("- Done"):
            tier = DONE_TIER
        sec.lines.append(_Line("", [raw], tier, False))
    return sections if sections[0].lines else sections[1:]


def _render(sections: list[_Section], note: str) -> str:
    blocks = []
    for sec in sections:
        lines = [ln.render() for ln in sec.lines if not ln.dropped]
        if sec.cut and not lines:
            lines.append(f"- [{sec.cut} lines cut to fit the window]")
        blocks.append("\n".join(([sec.heading] if sec.heading else []) + lines))
    text = "\n\n".join(blocks)
    return f"{text}\n\n{note}" if note else text


def _note(sections: list[_Section], pieces: int) -> str:
    cut = [f"{sec.heading[3:].split(' (')[0] or 'preamble'} {sec.cut}" for sec in sections if sec.cut]
    if not cut and not pieces:
        return ""
    items = f"; {pieces} anchor items" if pieces else ""
    return f"[Summary shortened to fit the window: lines cut: {', '.join(cut) or 'none'}{items}]"


def _clip_all(sections: list[_Section]) -> int:
    """Clip every long ask, constraint and goal line; the characters saved."""
    saved = 0
    for sec in sections:
        for ln in sec.lines:
            if ln.tier >= CLIP_FROM_TIER and len(ln.pieces[0]) > CLIP_CHARS:
                saved += len(ln.pieces[0]) - CLIP_CHARS
                ln.pieces[0] = ln.pieces[0][: CLIP_CHARS - 3] + "..."
    return saved


def shrink_summary(body: str, max_chars: int) -> str:
    """``body`` within ``max_chars``: itself when it fits, else with lines dropped by priority
    (see the module docstring), headings kept and a closing note saying what was cut."""
    if len(body) <= max_chars:
        return body
    sections = _parse(body)
    # within a tier, document order, except that newest-first lists lose their end first
    units = sorted(((ln.tier, -i if ln.newest_first else i, sec, ln) for sec in sections
                    for i, ln in enumerate(sec.lines)), key=lambda u: u[:2])
    size = len(_render(sections, "")) + 120  # an estimate, for the note and the "[n lines cut]" markers
    pieces_cut, clipped, k = 0, False, 0
    text = ""
    while k < len(units):
        if size <= max_chars:  # the estimate fits: check the real text, drop on while it does not
            text = _render(sections, _note(sections, pieces_cut))
            if len(text) <= max_chars:
                return text
            size = len(text)
        tier, _, sec, line = units[k]
        if tier >= CLIP_FROM_TIER and not clipped:  # before the first ask goes, clip all of them
            clipped = True
            size -= _clip_all(sections)
            continue
        if len(line.pieces) > 1:  # one item of a joined anchor line at a time
            size -= len(line.pieces.pop(-1 if line.newest_first else 0)) + 3
            pieces_cut += 1
            continue
        size -= len(line.render()) + 1
        line.dropped = True
        sec.cut += 1
        k += 1
    text = _render(sections, _note(sections, pieces_cut))
    if len(text) > max_chars:  # headings alone do not fit
        marker = "\n...[summary cut to fit the window]"
        text = text[: max_chars - len(marker)] + marker if max_chars > len(marker) else text[: max(0, max_chars)]
    return text
