"""What add, replace and remove do to a list of entries (seed 1.4), with no I/O.

The store runs these under its lock on freshly read entries. A batch is applied to a
working copy and checked against the char limit only in its final state, so a model can
free room and use it in one all-or-nothing call.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from hermes_memory_builtin.store import MemoryStoreError, entry_problem, joined_size


@dataclass(frozen=True)
class Operation:
    """One edit. ``content`` is the new text for add/replace; ``old_text`` picks the entry."""

    action: str
    content: str = ""
    old_text: str = ""


class Refused(MemoryStoreError):
    """The operation breaks a rule; the model can fix its call and retry."""


def usage(entries: list[str], limit: int) -> str:
    current = joined_size(entries)
    return f"{min(100, int(current / limit * 100))}% — {current:,}/{limit:,} chars"


def visible(entries: list[str], limit: int) -> list[str]:
    """Entries to show the model: all of them, unless a hand edit put the store far past
    its limit; then about 70 % head and 20 % tail, so a mangled 50 MB file never floods
    the prompt or a tool result.
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


def validate(op: Operation, limit: int) -> Operation:
    """Check one operation before taking the lock; return it with stripped text."""
    content = op.content.replace("\r\n", "\n").replace("\r", "\n").strip()  # files use \n only
    old_text = op.old_text.replace("\r\n", "\n").strip()
    if op.action in ("replace", "remove") and not old_text:
        raise Refused(f"old_text cannot be empty: '{op.action}' needs a short unique substring of the entry.")
    if op.action == "add" and not content:
        raise Refused("Content cannot be empty.")
    if op.action == "replace" and not content:
        raise Refused("New content cannot be empty. Use 'remove' to delete entries.")
    if op.action in ("add", "replace"):
        if len(content) > limit:
            raise Refused(
                f"This entry is {len(content):,} chars; the whole store holds {limit:,}. Write a shorter entry."
            )
        problem = entry_problem(content)
        if problem:
            raise Refused(f"Content cannot be stored: {problem}.")
        control = control_character(content)
        if control:
            raise Refused(
                f"Blocked: content contains the control character {control}. Memory is shown in terminals and "
                "injected into the system prompt; escape sequences there can rewrite what a user sees. Write plain "
                "text (newlines and tabs are fine).",
                patterns=["control_character"],
            )
        from hermes_core.text.scanning import pattern_ids, scan_text

        findings = scan_text(content)
        if findings:
            ids = pattern_ids(findings)
            raise Refused(
                f"Blocked: content matches threat pattern(s) {', '.join(repr(i) for i in ids)}. Memory is "
                "injected into the system prompt and must not contain injection or exfiltration payloads "
                "or invisible characters.",
                patterns=ids,
            )
        hidden = hidden_character(content)
        if hidden:
            raise Refused(
                f"Blocked: content contains the invisible character {hidden}. Memory is injected into the system "
                "prompt; write it without hidden formatting characters.",
                patterns=["invisible_unicode"],
            )
    return Operation(op.action, content, old_text)


def control_character(content: str) -> str | None:
    """The first control character other than newline and tab (ESC, BEL, backspace, C1 controls...)."""
    for ch in content:
        if ch not in "\n\t" and unicodedata.category(ch) == "Cc":
            name = unicodedata.name(ch, "") or {"\x1b": "ESCAPE", "\x07": "BELL", "\x08": "BACKSPACE",
                                                  "\x7f": "DELETE", "\x9b": "CONTROL SEQUENCE INTRODUCER"}.get(ch, "")
            return f"U+{ord(ch):04X}{' ' + name if name else ''}"
    return None


def hidden_character(content: str) -> str | None:
    """The first format character (zero-width, bidi, tag, soft hyphen...) in ``content``.

    Stricter than the shared scanner, which tolerates a lone zero-width character in a
    context file: memory lands in every system prompt, so writes and the snapshot both
    apply it. ZWJ and ZWNJ are left to the scanner (it flags them when they split a word)
    because scripts and emoji need them.
    """
    for ch in content:
        if ch not in "\u200c\u200d" and unicodedata.category(ch) == "Cf":
            return f"U+{ord(ch):04X} {unicodedata.name(ch, 'UNNAMED')}"
    return None


def validate_all(ops: list[Operation], limit: int) -> list[Operation]:
    """:func:`validate` each operation; in a batch, a refusal names the operation."""
    if len(ops) == 1:
        return [validate(ops[0], limit)]
    checked = []
    for n, op in enumerate(ops, 1):
        try:
            checked.append(validate(op, limit))
        except Refused as exc:
            raise _in_batch(n, op, exc) from None
    return checked


def _in_batch(n: int, op: Operation, exc: Refused) -> Refused:
    return Refused(f"Operation {n} ({op.action}): {exc} No operations were applied (batch is all-or-nothing).",
                   **exc.details)


def _preview(entry: str) -> str:
    return entry if len(entry) <= 80 else entry[:80] + "…"


def _find(entries: list[str], old_text: str) -> int:
    """Index of the one entry containing ``old_text``; identical duplicates use the first."""
    hits = [i for i, entry in enumerate(entries) if old_text in entry]
    if not hits:
        raise Refused(
            f"No entry matched '{old_text}'. Check current_entries and retry with a substring of the entry.",
            current_entries=list(entries),
        )
    if len({entries[i] for i in hits}) > 1:
        raise Refused(
            f"Multiple entries matched '{old_text}'. Be more specific.",
            matches=[_preview(entries[i]) for i in hits],
        )
    return hits[0]


def apply(entries: list[str], op: Operation) -> str:
    """Apply one validated operation to ``entries`` in place; return what happened."""
    if op.action == "add":
        if op.content in entries:
            return "Entry already exists (no duplicate added)."
        entries.append(op.content)
        return "Entry added."
    index = _find(entries, op.old_text)
    if op.action == "replace":
        entries[index] = op.content
        return "Entry replaced."
    if op.action == "remove":
        del entries[index]
        return "Entry removed."
    raise Refused(f"Unknown action '{op.action}'. Use: add, replace, remove.")


def apply_all(entries: list[str], ops: list[Operation], limit: int, label: str) -> tuple[list[str], str]:
    """Apply ``ops`` to a copy of ``entries``; all or nothing, size checked at the end.

    A store already over its limit (edited by hand, or the limit lowered) still accepts
    changes that do not make it bigger, so it can be consolidated.
    """
    work = list(entries)
    batch = len(ops) > 1
    messages = []
    for n, op in enumerate(ops, 1):
        try:
            messages.append(apply(work, op))
        except Refused as exc:
            if not batch:
                raise
            raise _in_batch(n, op, exc) from None
    before, after = joined_size(entries), joined_size(work)
    if after > limit and after > before:
        raise Refused(_over_limit(ops, before, after, limit, label), usage=usage(entries, limit),
                      current_entries=list(entries))
    return work, " ".join(messages) if not batch else f"Applied {len(ops)} operation(s)."


def _over_limit(ops: list[Operation], before: int, after: int, limit: int, label: str) -> str:
    consolidate = ("'replace' entries with shorter merged versions or 'remove' stale ones (see current_entries), "
                   "in one call with 'operations' if you like, then retry.")
    if len(ops) > 1:
        return (f"After applying all {len(ops)} operations, {label} would be at {after:,}/{limit:,} chars. "
                f"Consolidate: {consolidate} No operations were applied (batch is all-or-nothing).")
    if ops[0].action == "add":
        return (f"{label.capitalize()} at {before:,}/{limit:,} chars. Adding this entry ({len(ops[0].content):,} "
                f"chars) would exceed the limit. Consolidate now: {consolidate}")
    return (f"Replacement would put {label} at {after:,}/{limit:,} chars. "
            f"Shorten the new content, or free room: {consolidate}")
