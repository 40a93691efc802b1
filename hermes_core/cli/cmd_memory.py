"""``hermes-core memory``: show and edit MEMORY.md / USER.md through the ``memory`` tool.

Edits go through the same tool call the model makes, so the CLI enforces the same rules
(limits, scanning, locking) and prints the same JSON result. Exit code 1 when refused.
"""

from __future__ import annotations

import argparse
import json
import unicodedata
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
        edit.add_argument("--json", action="store_true", help="accepted for scripts; edits always print JSON")
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
        emit_json(result)
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


def _printable(text: str) -> str:
    """Entries as a terminal should show them: control and format characters (escape sequences,
    bidi overrides) as ``\\uXXXX``, never raw; newlines kept."""
    return "".join(ch if ch == "\n" or (ch.isprintable() and unicodedata.category(ch) != "Cf") or ch == "\t"
                   else f"\\u{ord(ch):04x}" for ch in text)


def _print_store(target: str, result: dict[str, Any]) -> None:
    title = "MEMORY.md (memory)" if target == "memory" else "USER.md (user)"
    if result.get("success") is not True:
        print(f"{title}: error: {result.get('error')}")
        return
    entries = result.get("entries") or []
    print(f"{title}  {result.get('usage')}  {len(entries)} entr{'y' if len(entries) == 1 else 'ies'}")
    for i, entry in enumerate(entries, 1):
        first, *rest = _printable(str(entry)).split("\n") or [""]
        print(f"  {i:>2}. {first}")
        for line in rest:
            print(f"      {line}")
    if not entries:
        print("  (empty)")
