"""The frozen system-prompt snapshot of both stores (seed 1.2).

Rendered once per session: writes reach the disk at once but the prompt only in the next
session, so a provider's prefix cache is never broken mid-session. Entries that fail the
threat scan (a hand-edited file) are replaced in the snapshot only, so the model never
sees them but the user can still find and remove them.
"""

from __future__ import annotations

import logging

from hermes_core.scanning import pattern_ids, scan_text
from hermes_memory_builtin.operations import usage
from hermes_memory_builtin.store import FILES, MemoryStore, MemoryStoreError, joined_size, serialize

log = logging.getLogger("hermes_memory_builtin")

RULE = "═" * 46
HEADERS = {"memory": "MEMORY (your personal notes)", "user": "USER PROFILE (who the user is)"}


def safe_entry(target: str, entry: str) -> str:
    findings = scan_text(entry)
    if not findings:
        return entry
    ids = ", ".join(pattern_ids(findings))
    return (f"[BLOCKED: {FILES[target]} entry contained threat pattern(s): {ids}. Removed from the system prompt; "
            "use memory(action=remove) to delete the original.]")


def _capped(entries: list[str], limit: int) -> list[str]:
    """Entries to show for a store edited far past its limit: about 70 % head, 20 % tail.

    Keeps a mangled 50 MB file out of the prompt; the tool still sees every entry.
    """
    cap = max(2 * limit, 4000)
    if joined_size(entries) <= cap:
        return entries
    entries = [e if len(e) <= limit else e[:limit] + " […]" for e in entries]
    head: list[str] = []
    tail: list[str] = []
    for budget, source, kept in ((cap * 0.7, entries, head), (cap * 0.2, entries[::-1], tail)):
        used = 0
        for entry in source[: len(entries) - len(head)]:
            used += len(entry) + 3
            if used > budget:
                break
            kept.append(entry)
    omitted = len(entries) - len(head) - len(tail)
    if not omitted:
        return [*head, *tail[::-1]]
    plural = "y" if omitted == 1 else "ies"
    return [*head, f"[… {omitted} entr{plural} omitted: this store is far over its limit; consolidate it]", *tail[::-1]]


def render_block(target: str, entries: list[str], limit: int) -> str:
    """One store as a prompt block; ``""`` when it is empty."""
    if not entries:
        return ""
    shown = _capped(entries, limit)
    # One scan of the whole store is ~40x cheaper than one per entry; only a hit needs those.
    if scan_text(serialize(shown)):
        shown = [safe_entry(target, e) for e in shown]
    over = " ⚠ OVER BUDGET" if joined_size(entries) > limit else ""
    return f"{RULE}\n{HEADERS[target]} [{usage(entries, limit)}]{over}\n{RULE}\n{serialize(shown)}"


def build_snapshot(store: MemoryStore, targets: tuple[str, ...]) -> str:
    """Both blocks joined by a blank line; an unreadable file is skipped with a warning."""
    blocks = []
    for target in targets:
        try:
            entries = store.entries(target)
        except MemoryStoreError as exc:
            log.warning("memory snapshot: %s skipped: %s", FILES[target], exc)
            continue
        block = render_block(target, entries, store.limits[target])
        if block:
            blocks.append(block)
    return "\n\n".join(blocks)
