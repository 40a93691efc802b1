"""``hermes-core memory``: show and edit MEMORY.md / USER.md through the ``memory`` tool.

Edits go through the same tool call the model makes, so the CLI enforces the same rules
(limits, scanning, locking). It prints what happened for a person; ``--json`` prints the
tool's JSON result (which is written for the model) for scripts. Exit code 1 when refused.

``memory pending`` lists the writes ``memory.untrusted_writes: confirm`` held (kept in
``$HERMES_HOME``, so they outlive the agent's process); ``memory confirm ID`` applies one
through the same tool call (it still passes every scan), ``memory drop ID`` discards it.
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
        edit.add_argument("--json", action="store_true", help="print the tool's JSON result")
    _register_outbox(actions)
    _register_held(actions)
    p.set_defaults(run=run, memory_parser=p)


def _register_held(actions: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """``memory pending|confirm|drop``: writes held by ``memory.untrusted_writes: confirm``."""
    pending = actions.add_parser("pending", help="list memory writes held for your confirmation")
    pending.add_argument("--json", action="store_true", help="print the held writes as JSON")
    confirm = actions.add_parser("confirm", help="apply a held memory write (it still passes every scan)")
    drop = actions.add_parser("drop", help="discard a held memory write")
    for p in (confirm, drop):
        p.add_argument("write_id", metavar="ID", help="the id `memory pending` shows")
        p.add_argument("--json", action="store_true", help="print the result as JSON")


def _register_outbox(actions: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """``memory outbox list|retry|drop``: writes the external provider could not deliver and set
    aside (a provider offers this through ``manage_outbox(action, ids, cause)``)."""
    box = actions.add_parser("outbox", help="list, re-send or drop writes the external provider set aside")
    box.add_argument("outbox_action", choices=("list", "retry", "drop"), help="what to do")
    box.add_argument("ids", nargs="*", type=int, help="entry ids (default: all set-aside entries)")
    box.add_argument("--cause", help="only entries set aside for this cause (e.g. payload, server, session)")
    box.add_argument("--json", action="store_true", help="print the result as JSON")


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
        if action == "outbox":
            return _outbox(host, args)
        if action in ("pending", "confirm", "drop"):
            return _held(host, args)
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


def _outbox(host: Any, args: argparse.Namespace) -> int:
    provider = host.memory.external
    manage = getattr(provider, "manage_outbox", None)
    if manage is None:
        name = provider.name if provider is not None else "none"
        raise CommandError(f"the external memory provider ({name}) keeps no outbox (memory.provider)")
    result = manage(args.outbox_action, args.ids or None, args.cause)
    if args.json:
        emit_json(result)
        return 0
    verb = {"retry": "put back in the queue", "drop": "dropped"}.get(args.outbox_action)
    if verb:
        print(f"{result['changed']} entr{'y' if result['changed'] == 1 else 'ies'} {verb}")
    aside = result.get("set_aside") or []
    print(f"{result['path']}: {result.get('counts', {}).get('pending', 0)} queued, {len(aside)} set aside")
    for entry in aside:
        print(f"  {entry['id']:>6}  {entry['kind']:<10} {entry['session']}  {entry['chars']} chars  "
              f"{entry['cause']}: {entry['reason']}")
    return 0


def _held(host: Any, args: argparse.Namespace) -> int:
    from hermes_core.memory import held_writes

    try:
        if args.memory_action == "pending":
            entries = held_writes.pending(host.home)
            if args.json:
                emit_json(entries)
                return 0
            where = held_writes.store_path(host.home)
            print(f"{len(entries)} memory write{'' if len(entries) == 1 else 's'} held for confirmation ({where})")
            for entry in entries:
                print(f"  {entry['id']}  {entry.get('held_at', '?')}  session {entry.get('session', '?')} "
                      f"turn {entry.get('turn', '?')}")
                print(f"      {describe_write(entry)}")
            if entries:
                print("confirm one with `hermes-core memory confirm ID`, discard it with `hermes-core memory drop ID`")
            return 0
        entry = held_writes.take(host.home, args.write_id)
    except held_writes.HeldWriteError as exc:
        raise CommandError(str(exc)) from exc
    if args.memory_action == "drop":
        if args.json:
            emit_json({"success": True, "dropped": entry})
        else:
            print(f"dropped held write {entry['id']}: {describe_write(entry)}")
        return 0
    try:
        raw = host.handle_tool_call(str(entry["tool"]), dict(entry["arguments"]))
    except BaseException:
        held_writes.put_back(host.home, entry)  # not applied: keep it held
        raise
    try:
        result = json.loads(raw)
    except ValueError:
        result = {"success": False, "error": f"unexpected result {raw!r}"}
    result = {**result, "untrusted_context": True} if isinstance(result, dict) else {"success": False,
                                                                                     "error": repr(result)}
    if args.json:
        emit_json(result)
    elif result.get("success") is True:
        print(f"applied held write {entry['id']}: {describe_write(entry)}")
    else:
        print(f"held write {entry['id']} was refused and discarded: {_printable(str(result.get('error')))}")
    return 0 if result.get("success") is True else 1


def describe_write(entry: dict[str, Any]) -> str:
    """One line for a person: the built-in tool's action, store and text; any other tool's arguments."""
    args = entry.get("arguments") if isinstance(entry.get("arguments"), dict) else {}
    tool = str(entry.get("tool"))
    if tool == "memory" and "operations" not in args:
        text = args.get("content") or args.get("old_text") or ""
        line = f"memory {args.get('action')} ({args.get('target')}): {text}"
    else:
        line = f"{tool} {json.dumps(args, ensure_ascii=False, sort_keys=True)}"
    line = _printable(line).replace("\n", " ")
    return line if len(line) <= 160 else line[:157] + "..."


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
