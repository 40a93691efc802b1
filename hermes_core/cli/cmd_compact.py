"""``hermes-core compact FILE``: run the configured context engine on a transcript, forced.

Reads an OpenAI chat transcript (JSON list, object with ``messages``, or JSONL), compacts
it with ``--engine`` (default: ``context.engine``) as a manual ``/compact`` would, and
prints what happened: tokens and messages before/after, where the summary came from, the
time taken and the summary itself. ``--json`` prints ``{"messages": [...], "report": {...}}``;
``-o OUT`` writes that same document to a file.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from hermes_core.cli.output import CommandError, emit_json


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("compact", help="compact a chat transcript with the context engine")
    p.add_argument("file", metavar="FILE", help="OpenAI chat transcript: JSON list, {'messages': [...]} or JSONL")
    p.add_argument("--engine", metavar="NAME", help="context engine to use (default: context.engine)")
    p.add_argument("--focus", metavar="TOPIC", help="keep more detail about TOPIC (like /compact TOPIC)")
    p.add_argument("--context-length", type=int, metavar="N", help="pretend the model's window is N tokens")
    p.add_argument("--json", action="store_true", help='print {"messages": [...], "report": {...}}')
    p.add_argument("-o", "--output", metavar="OUT", help="also write the compacted transcript and report to OUT")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from hermes_core.apps.transcripts import TranscriptError, load_transcript
    from hermes_core.cli.common import host_from_args
    from hermes_core.text.tokens import estimate_messages_tokens

    if args.context_length is not None and args.context_length <= 0:
        raise CommandError("--context-length must be a positive number of tokens", code=2)
    try:
        messages = load_transcript(args.file).messages
    except TranscriptError as exc:
        raise CommandError(str(exc)) from None
    host = host_from_args(args)
    try:
        if sys.stderr.isatty():
            print(f"compacting {len(messages)} messages with '{host.engine.name}'...", file=sys.stderr)
        started = time.perf_counter()
        result = host.compress(messages, focus_topic=args.focus, force=True)
        elapsed = time.perf_counter() - started
        engine = host.engine
        inputs = {_key(m) for m in messages}
        added = [m for m in result if m.get("role") in ("user", "assistant") and _key(m) not in inputs]
        report: dict[str, Any] = {
            "file": str(args.file),
            "engine": engine.name,
            "context_length": engine.context_length,
            "threshold_tokens": engine.threshold_tokens,
            "tokens_before": estimate_messages_tokens(messages),
            "tokens_after": estimate_messages_tokens(result),
            "messages_before": len(messages),
            "messages_after": len(result),
            "messages_removed": len(messages) - len(result),
            "compacted": result is not messages,
            "summary_source": getattr(engine, "last_summary_source", "none") if result is not messages else "none",
            "note": getattr(engine, "last_compaction_note", ""),
            "seconds": round(elapsed, 4),
            "summary": "\n\n".join(_text(m) for m in added),
        }
    finally:
        host.close()
    document = {"messages": result, "report": report}
    if args.output:
        Path(args.output).write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if args.json:
        emit_json(document)
    else:
        _print_report(report, args.output)
    return 0


def _key(message: dict[str, Any]) -> str:
    return json.dumps(message, sort_keys=True, default=repr)


def _text(message: dict[str, Any]) -> str:
    from hermes_core.text.messages import text_of

    return text_of(message.get("content"))


def _print_report(r: dict[str, Any], output: str | None) -> None:
    print(f"{r['file']}: engine {r['engine']}, context {r['context_length']:,} tokens "
          f"(threshold {r['threshold_tokens']:,})")
    print(f"  tokens    {r['tokens_before']:>9,} -> {r['tokens_after']:,}")
    print(f"  messages  {r['messages_before']:>9,} -> {r['messages_after']:,} ({r['messages_removed']:,} fewer)")
    print(f"  summary   {r['summary_source']}")
    print(f"  time      {r['seconds'] * 1000:>9.1f} ms")
    if r["note"]:
        print(f"  note      {r['note']}")
    if output:
        print(f"  written   {output}")
    if r["summary"]:
        print("\n" + r["summary"])
    elif not r["compacted"]:
        print("\nnothing was compacted")
