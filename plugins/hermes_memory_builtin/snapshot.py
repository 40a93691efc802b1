"""The frozen system-prompt snapshot of both stores (seed 1.2).

Rendered once per session: writes reach the disk at once but the prompt only in the next
session, so a provider's prefix cache is never broken mid-session. Entries that a write
would refuse (threat patterns or hidden characters, in a hand-edited file) are replaced in
the snapshot only, so the model never sees them but the user can still find and remove them.
"""

from __future__ import annotations

import logging

from hermes_memory_builtin.operations import hidden_character, usage, visible
from hermes_memory_builtin.store import FILES, MemoryStore, MemoryStoreError, joined_size, serialize

log = logging.getLogger("hermes_memory_builtin")

RULE = "═" * 46
HEADERS = {"memory": "MEMORY (your personal notes)", "user": "USER PROFILE (who the user is)"}


def entry_threats(entry: str) -> list[str]:
    """Pattern ids that would refuse ``entry`` as a write: the scanner's, then hidden characters."""
    from hermes_core.text.scanning import pattern_ids, scan_text

    ids = pattern_ids(scan_text(entry))
    if hidden_character(entry) and "invisible_unicode" not in ids:
        ids.append("invisible_unicode")
    return ids


def safe_entry(target: str, entry: str) -> str:
    ids = ", ".join(entry_threats(entry))
    if not ids:
        return entry
    return (f"[BLOCKED: {FILES[target]} entry contained threat pattern(s): {ids}. Removed from the system prompt; "
            "use memory(action=remove) to delete the original.]")


def render_block(target: str, entries: list[str], limit: int) -> str:
    """One store as a prompt block; ``""`` when it is empty."""
    if not entries:
        return ""
    shown = visible(entries, limit)
    # One check of the whole store is ~40x cheaper than one per entry; only a hit needs those.
    whole = serialize(shown)
    from hermes_core.text.scanning import scan_text

    if hidden_character(whole) or scan_text(whole):
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
