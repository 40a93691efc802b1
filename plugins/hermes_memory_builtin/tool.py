"""The ``memory`` tool: its schema, its argument model and the dispatcher (seed 1.4).

Results are plain dicts the provider serializes to JSON. A successful write says it is
done and does not echo entries, so models do not repeat it; a refusal says why and,
where it helps the model consolidate, shows usage and the current entries.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError

from hermes_memory_builtin.operations import Operation, Refused, apply_all, usage, validate_all, visible
from hermes_memory_builtin.store import MemoryStore, MemoryStoreError

log = logging.getLogger("hermes_memory_builtin")
Scan = Callable[[str, str], Iterable[Any]]
TOOL_NAME = "memory"
LABELS = {"memory": "memory", "user": "user profile"}
DONE_NOTE = "Write saved. This update is complete — do not repeat it."

GUIDANCE = """\
Save durable information to persistent memory that survives across sessions. Memory is \
injected into future system prompts, so keep it compact and focused on facts that will \
still matter later. Writes are saved at once and appear in the prompt from the next session.

WHEN TO SAVE (do this proactively, don't wait to be asked):
- User corrects you or says 'remember this' / 'don't do that again'
- User shares a preference, habit, or personal detail (name, role, timezone, style)
- You discover something about the environment (OS, installed tools, project layout)
- You learn a convention, API quirk, or workflow specific to this user's setup

PRIORITY: user preferences and corrections > environment facts > procedures.

Do NOT save task progress, session outcomes, completed-work logs, or temporary TODO \
state to memory; use session_search for those. Do not save secrets.

TARGETS: 'user' = who the user is (name, role, preferences, communication style); \
'memory' = your notes (environment facts, project conventions, tool quirks, lessons learned).

ACTIONS: add (new entry), replace (old_text picks the entry by a short unique substring, \
content is the new text), remove (old_text picks the entry), read (current entries). \
IF FULL: consolidate in ONE call with 'operations', a list of {action, content, old_text} \
applied all-or-nothing and checked against the limit only at the end."""


class MemoryOperationArgs(BaseModel):
    """One item of ``operations``."""

    model_config = ConfigDict(extra="forbid")

    action: Literal["add", "replace", "remove"]
    content: str | None = Field(None, validation_alias=AliasChoices("content", "new_content", "new_text"))
    old_text: str | None = None


class MemoryToolArgs(BaseModel):
    """Arguments of the ``memory`` tool, as models send them."""

    model_config = ConfigDict(extra="forbid")

    action: Literal["add", "replace", "remove", "read"] | None = None
    target: Literal["memory", "user"] | None = None
    content: str | None = Field(None, validation_alias=AliasChoices("content", "new_content", "new_text"))
    old_text: str | None = None
    operations: list[MemoryOperationArgs] | None = None


def tool_schema(targets: tuple[str, ...] = ("memory", "user")) -> dict[str, Any]:
    """The bare OpenAI function schema; ``targets`` lists the enabled stores."""
    op_props = {
        "action": {"type": "string", "enum": ["add", "replace", "remove"]},
        "content": {"type": "string", "description": "New entry text (add) or replacement text (replace)."},
        "old_text": {"type": "string", "description": "Short unique substring of the entry to replace or remove."},
    }
    return {
        "name": TOOL_NAME,
        "description": GUIDANCE,
        "parameters": {
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": ["add", "replace", "remove", "read"]},
                "target": {"type": "string", "enum": list(targets), "description": "Which store."},
                "content": op_props["content"],
                "old_text": op_props["old_text"],
                "operations": {
                    "type": "array",
                    "description": "Several edits to one target, applied all-or-nothing.",
                    "items": {"type": "object", "properties": op_props, "required": ["action"]},
                },
            },
            "required": ["target"],
        },
        # for the host, removed before the model sees the schema: which calls write memory
        "writes_memory": {"action": ["add", "replace", "remove"], "operations": "*"},
    }


def error(message: str, **details: Any) -> dict[str, Any]:
    return {"success": False, "error": message, **details}


def _argument_error(exc: ValidationError) -> dict[str, Any]:
    problems = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        problems.append(f"{where}: {err['msg']}")
    return error("Invalid memory arguments: " + "; ".join(problems))


def run_memory_tool(
    store: MemoryStore,
    raw_args: Any,
    targets: tuple[str, ...] = ("memory", "user"),
    on_write: Callable[[str, str, str], None] | None = None,
    scan: Scan | None = None,
) -> dict[str, Any]:
    """Validate ``raw_args``, run the action against ``store`` and describe the outcome.

    ``on_write(action, target, content)`` is called once per applied edit after a
    successful write (the provider passes ``ctx.memory_written``, so other providers and
    the session hear of it without parsing this tool's arguments). ``scan(text, source)``
    is the host's scanner (``ctx.scan``): every registered detector judges each new entry
    after the built-in rules, and any finding refuses the whole write.
    """
    try:
        args = MemoryToolArgs.model_validate(raw_args if raw_args is not None else {})
    except ValidationError as exc:
        return _argument_error(exc)
    target = args.target or "memory"
    if target not in targets:
        return error(f"The '{target}' store is disabled in config (memory.{_flag(target)}).")
    limit = store.limits[target]
    if args.action == "read" and not args.operations:
        try:
            entries = store.entries(target)
        except MemoryStoreError as exc:
            return error(str(exc), target=target, **exc.details)
        return {"success": True, "target": target, "entries": visible(entries, limit), "usage": usage(entries, limit),
                "entry_count": len(entries)}
    try:
        ops = _operations(args)
        ops = validate_all(ops, limit)
        detector_check(ops, scan, target)
        entries, message = store.mutate(target, lambda current: _applied(current, ops, limit, target))
    except MemoryStoreError as exc:
        details = dict(exc.details)
        if "current_entries" in details:
            details["current_entries"] = visible(details["current_entries"], limit)  # type: ignore[arg-type]
        return error(str(exc), target=target, **details)
    for op in ops if on_write is not None else ():
        on_write(op.action, target, op.old_text if op.action == "remove" else op.content)
    return {"success": True, "done": True, "target": target, "usage": usage(entries, limit),
            "entry_count": len(entries), "message": message, "note": DONE_NOTE}


def detector_check(ops: list[Operation], scan: Scan | None, target: str) -> None:
    """Refuse the write if any detector flags a new entry; a detector that fails judges nothing.

    The host already isolates and time-bounds each detector; this guard covers a ``scan``
    callable that itself raises, so a broken scanner never blocks a write it cannot judge.
    """
    if scan is None:
        return
    for n, op in enumerate(ops, 1):
        if op.action not in ("add", "replace"):
            continue
        try:
            findings = list(scan(op.content, f"memory:{target}") or ())
        except Exception as exc:
            log.warning("memory write scan failed, write judged by the built-in rules only: %s: %s",
                        type(exc).__name__, exc)
            return
        ids = sorted({str(getattr(f, "pattern_id", f)) for f in findings})
        if ids:
            where = f"Operation {n} ({op.action}): " if len(ops) > 1 else ""
            raise Refused(
                f"{where}Blocked: a registered detector flagged this content ({', '.join(repr(i) for i in ids)}). "
                "Memory is injected into the system prompt and must not carry injection payloads. "
                "No operations were applied.",
                patterns=ids,
            )


def _flag(target: str) -> str:
    return "memory_enabled" if target == "memory" else "user_profile_enabled"


Outcome = tuple[list[str], str]


def _applied(current: list[str], ops: list[Operation], limit: int, target: str) -> tuple[list[str], Outcome]:
    entries, message = apply_all(current, ops, limit, LABELS[target])
    return entries, (entries, message)


def _operations(args: MemoryToolArgs) -> list[Operation]:
    if args.operations:
        return [Operation(o.action, o.content or "", o.old_text or "") for o in args.operations]
    if args.operations is not None:
        raise Refused("'operations' is empty: give at least one {action, content, old_text}.")
    if args.action is None:
        raise Refused("Give an action: add, replace, remove or read (or a list of 'operations').")
    if args.action == "add" and not args.content:
        raise Refused("Content is required for 'add' action.")
    if args.action in ("replace", "remove") and not args.old_text:
        raise Refused(f"'{args.action}' needs old_text: a short unique substring of the entry (see 'read').")
    if args.action == "replace" and not args.content:
        raise Refused("content is required for 'replace' action (the new text of the entry).")
    return [Operation(args.action, args.content or "", args.old_text or "")]

