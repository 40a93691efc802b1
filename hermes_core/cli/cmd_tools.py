"""``hermes-core tools``: list and call the tools the model would see (memory, engine, providers)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from hermes_core.cli.output import CommandError, emit_json, table

if TYPE_CHECKING:
    from hermes_core.plugin.host import PluginHost


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("tools", help="list or call the tools offered to the model")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--engine", metavar="NAME", help="context engine whose tools to include (default: config)")
    tools = p.add_subparsers(dest="tools_command", metavar="ACTION", required=True)
    ls = tools.add_parser("list", parents=[common], help="every tool with the plugin that owns it")
    ls.add_argument("--json", action="store_true", help="full schemas, machine-readable")
    call = tools.add_parser("call", parents=[common], help="run one tool and print its JSON result")
    call.add_argument("--json", action="store_true", help="print the tool's JSON result exactly as returned")
    call.add_argument("name", help="tool name, as in 'tools list'")
    call.add_argument("arguments", nargs="?", default="{}", help="JSON object of arguments (default: {})")
    call.add_argument("--session", metavar="ID", help="session id the engine and providers see")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from hermes_core.cli.common import host_from_args

    host = host_from_args(args)
    try:
        return list_tools(host, args.json) if args.tools_command == "list" else call_tool(host, args)
    finally:
        host.close()


def owners(host: PluginHost) -> dict[str, str]:
    """Tool name -> who offers it (``memory:<provider>`` or ``engine:<name>``)."""
    found: dict[str, str] = {}
    for provider in host.memory.providers:
        try:
            schemas = provider.get_tool_schemas()
        except Exception:  # the host already logs and skips a failing provider
            continue
        for schema in schemas:
            inner = schema.get("function", schema) if isinstance(schema, dict) else {}
            found.setdefault(str(inner.get("name")), f"memory:{provider.name}")
    return found


def list_tools(host: PluginHost, as_json: bool) -> int:
    schemas = host.tool_schemas()
    by = owners(host)
    rows: list[dict[str, Any]] = [
        {"name": s["name"], "owner": by.get(s["name"], f"engine:{host.engine.name}"),
         "description": str(s.get("description") or "").strip(), "schema": s}
        for s in schemas
    ]
    if as_json:
        emit_json({"tools": rows, "warnings": host.warnings})
        return 0
    if not rows:
        print("no tools: memory is off and the engine offers none")
        return 0
    table([(r["name"], r["owner"], _first_line(r["description"])) for r in rows], ("NAME", "OWNER", "DESCRIPTION"))
    return 0


def call_tool(host: PluginHost, args: argparse.Namespace) -> int:
    from hermes_core.session.session import Session
    from hermes_core.text.json_depth import loads_bounded

    try:
        parsed = loads_bounded(args.arguments, "the tool arguments")
    except json.JSONDecodeError as exc:
        raise CommandError(f"arguments are not valid JSON: {exc.msg} (column {exc.colno})", code=2) from None
    if not isinstance(parsed, dict):
        raise CommandError("arguments must be a JSON object, e.g. '{\"action\": \"read\"}'", code=2)
    known = {s["name"] for s in host.tool_schemas()}
    if args.name not in known:
        listing = ", ".join(sorted(known)) or "none"
        hint = "" if args.name.startswith("memory") else (
            f" (engine tools come from the active engine '{host.engine.name}': try --engine NAME or context.engine)")
        raise CommandError(f"unknown tool '{args.name}'. Available: {listing}{hint}", code=2)
    session = Session(host, session_id=args.session or "cli-tools", close_host=False)
    try:
        result = session.call_tool(args.name, parsed)
    finally:
        session.close()
    sys.stdout.write((result if args.json else _pretty(result)) + "\n")
    return 1 if _failed(result) else 0


def _pretty(result: str) -> str:
    try:
        return json.dumps(json.loads(result), indent=2, ensure_ascii=False)
    except (TypeError, ValueError):
        return result


def _failed(result: str) -> bool:
    try:
        data = json.loads(result)
    except (TypeError, ValueError):
        return False
    return isinstance(data, dict) and (data.get("success") is False or ("error" in data and not data.get("success")))


def _first_line(text: str, limit: int = 90) -> str:
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"
