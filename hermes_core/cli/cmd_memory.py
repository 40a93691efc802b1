"""``hermes-core memory``: show and edit MEMORY.md / USER.md through the ``memory`` tool.

Edits go through the same tool call the model makes, so the CLI enforces the same rules
(limits, scanning, locking). It prints what happened for a person; ``--json`` prints the
tool's JSON result (which is written for the model) for scripts. Exit code 1 when refused.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from hermes_core.cli.output import CommandError, emit_json

TARGETS = ("memory", "user")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("memory", help="show or edit the built-in memory (MEMORY.md / USER.md)")
    actions = p.add_subparsers(dest="memory_action", metavar="ACTION")

    show = actions.add_parser("show", help="print the current entries with usage")
    show.add_argument("--target", choices=TARGETS, help="one store only (default: both)")
    show.add_argument("--json", action="store_true", help="print the tool's read results as JSON")

    add = actions.add_parser("add", help="add an entry")
    add.add_argument("content", help="the entry text")

    replace = actions.add_parser("replace", help="replace the entry containing OLD_TEXT")
    replace.add_argument("old_text", help="a short unique substring of the entry")
    replace.add_argument("content", help="the new entry text")

    remove = actions.add_parser("remove", help="remove the entry containing OLD_TEXT")
    remove.add_argument("old_text", help="a short unique substring of the entry")

    for edit in (add, replace, remove):
        edit.add_argument("--target", choices=TARGETS, default="memory", help="which store (default: memory)")
        edit.add_argument("--json", action="store_true", help="print the tool's JSON result")
    p.set_defaults(run=run, memory_parser=p)


def _call(host: Any, args: dict[str, Any]) -> dict[str, Any]:
    result = json.loads(host.handle_tool_call("memory", args))
    return result if isinstance(result, dict) else {"success": False, "error": f"unexpected result {result!r}"}


def run(args: argparse.Namespace) -> int:
    from hermes_core.cli.common import host_from_args

    action = getattr(args, "memory_action", None)
    if action is None:
        args.memory_parser.print_help()
        return 2
    host = host_from_args(args)
    try:
        if not host.memory.has_tool("memory"):
            raise CommandError("the built-in memory is off (memory.memory_enabled and memory.user_profile_enabled)")
        if action == "show":
            return _show(host, args)
        call: dict[str, Any] = {"action": action, "target": args.target}
        if action in ("replace", "remove"):
            call["old_text"] = args.old_text
        if action in ("add", "replace"):
            call["content"] = args.content
        result = _call(host, call)
        if args.json:
            emit_json(result)
        else:
            _print_edit(result)
        return 0 if result.get("success") is True else 1
    finally:
        host.close()


def _show(host: Any, args: argparse.Namespace) -> int:
    targets = [args.target] if args.target else [t for t in TARGETS if _enabled(host, t)]
    results = {target: _call(host, {"action": "read", "target": target}) for target in targets}
    if args.json:
        emit_json(results if not args.target else results[args.target])
    else:
        for n, (target, result) in enumerate(results.items()):
            if n:
                print()
            _print_store(target, result)
    return 0 if all(r.get("success") is True for r in results.values()) else 1


def _enabled(host: Any, target: str) -> bool:
    mem = host.config.memory
    return bool(mem.memory_enabled if target == "memory" else mem.user_profile_enabled)


def _print_store(target: str, result: dict[str, Any]) -> None:
    title = "MEMORY.md (memory)" if target == "memory" else "USER.md (user)"
    if result.get("success") is not True:
        print(f"{title}: error: {result.get('error')}")
        return
    entries = result.get("entries") or []
    print(f"{title}  {result.get('usage')}  {len(entries)} entr{'y' if len(entries) == 1 else 'ies'}")
    for i, entry in enumerate(entries, 1):
        first, *rest = str(entry).splitlines() or [""]
        print(f"  {i:>2}. {first}")
        for line in rest:
            print(f"      {line}")
    if not entries:
        print("  (empty)")


def _print_edit(result: dict[str, Any]) -> None:
    """One line for a person: what happened to which file, and its usage; refusals on stderr."""
    import sys

    name = "USER.md" if result.get("target") == "user" else "MEMORY.md"
    if result.get("success") is True:
        count = result.get("entry_count", "?")
        print(f"{name}: {result.get('message') or 'done.'}  ({result.get('usage')}, "
              f"{count} entr{'y' if count == 1 else 'ies'})")
        return
    print(f"error: {name}: {result.get('error')}", file=sys.stderr)
    if result.get("remediation"):
        print(f"  fix: {result['remediation']}", file=sys.stderr)
    for key, label in (("matches", "matches"), ("current_entries", "entries")):
        values = result.get(key) or []
        if values:
            print(f"  {label}:", file=sys.stderr)
            for value in values:
                print(f"    - {str(value).splitlines()[0] if str(value) else ''}", file=sys.stderr)
    if result.get("backup"):
        print(f"  a copy of the file is at {result['backup']}", file=sys.stderr)
