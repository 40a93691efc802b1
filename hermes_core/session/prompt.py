"""Assembling the system prompt from plugin sections (seed section 3).

:func:`build_system_prompt` asks every plugin for sections
(``hermes_system_prompt_sections``), adds the memory snapshot the session passes in
``ctx.memory_blocks`` (order 500) and, after a compaction, the seed's compaction note
(2.4), then joins the non-empty sections in order. Nothing here reads a clock or a
random source, so equal inputs give a byte-identical prompt, which keeps the provider's
prefix cache warm for the whole session.

:meth:`SystemPrompt.report` answers "why is my prompt this long?": characters and
estimated tokens per part, the largest parts, and every blocked, truncated or skipped
input.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hermes_core.records import PromptContext, PromptSection
from hermes_core.text.tokens import CHARS_PER_TOKEN

if TYPE_CHECKING:
    from hermes_core.plugin.host import PluginHost

__all__ = ["COMPACTION_NOTE", "MEMORY_ORDER", "SystemPrompt", "build_system_prompt"]

MEMORY_ORDER = 500
COMPACTION_ORDER = 900  # last: the note must not shift the cached prefix before it
SEPARATOR = "\n\n"
COMPACTION_NOTE = (
    "[Note: Some earlier conversation turns have been compacted into a handoff summary to preserve "
    "context space. The current session state may still reflect earlier work, so build on that "
    "summary and state rather than re-doing work.]"
)
LARGEST_PARTS = 3


def _tokens(chars: int) -> int:
    return (chars + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


@dataclass
class SystemPrompt:
    """The assembled prompt and the sections it came from (empty ones included, for reports)."""

    text: str
    sections: list[PromptSection]

    def report(self) -> dict[str, Any]:
        """Per-part size and the findings, as a JSON-able mapping.

        ``counts`` covers what was left out or changed (blocked, truncated, skipped);
        ``info`` findings only say how inputs were looked for and are not counted.
        """
        parts = [
            {"name": s.name, "order": s.order, "source": s.source, "chars": len(s.text),
             "tokens": _tokens(len(s.text)), "share": round(len(s.text) / len(self.text), 3) if self.text else 0.0}
            for s in self.sections
        ]
        by_size = sorted((s for s in self.sections if s.text), key=lambda s: (-len(s.text), s.order))
        findings = [{"section": s.name, **f} for s in self.sections for f in s.findings]
        return {
            "chars": len(self.text),
            "tokens": _tokens(len(self.text)),
            "parts": parts,
            "largest": [s.name for s in by_size[:LARGEST_PARTS]],
            "findings": findings,
            "counts": {kind: sum(1 for f in findings if f.get("kind") == kind)
                       for kind in ("blocked", "truncated", "skipped")},
        }


def build_system_prompt(host: PluginHost, ctx: PromptContext) -> SystemPrompt:
    """Every plugin's sections, plus memory and the compaction note, in seed order."""
    sections = list(host.prompt_sections(ctx))
    memory = SEPARATOR.join(block.strip() for block in ctx.memory_blocks if block and block.strip())
    if memory:
        sections.append(PromptSection("memory", memory, order=MEMORY_ORDER, source="memory providers"))
    if ctx.compacted:
        sections.append(PromptSection("compaction_note", COMPACTION_NOTE, order=COMPACTION_ORDER, source="core"))
    sections.sort(key=lambda s: s.order)  # stable: ties keep plugin call order
    text = SEPARATOR.join(s.text.strip() for s in sections if s.text and s.text.strip())
    return SystemPrompt(text=text, sections=sections)
