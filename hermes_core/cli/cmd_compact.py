"""``hermes-core compact FILE``: run the configured context engine on a transcript, forced.

Reads an OpenAI chat transcript (JSON list, object with ``messages``, or JSONL), compacts
it with ``--engine`` (default: ``context.engine``) as a manual ``/compact`` would, and
prints what happened: tokens and messages before/after, where the summary came from, the
time taken and the summary itself (only the summary, not every changed message).
``--json`` prints ``{"messages": [...], "report": {...}}``; ``-o OUT`` writes that same
document to a file. A forced run that compacts nothing exits 1 with the reason. The
engine runs on a scratch home that is discarded (LCM's lcm.db included) unless ``--live``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
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
    p.add_argument("--live", action="store_true",
                   help="run in $HERMES_HOME (engines may write there, e.g. lcm.db); default: a scratch home")
    p.set_defaults(run=run)


def _host(args: argparse.Namespace, home: Path) -> Any:
    """A host on ``home`` with the user's config (``--config`` or $HERMES_HOME/config.yaml)."""
    from hermes_core.cli.common import explicit_config
    from hermes_core.config.paths import config_path
    from hermes_core.plugin.host import build_host

    overrides: dict[str, Any] = {}
    if args.engine:
        overrides["context.engine"] = args.engine
    if args.context_length:
        overrides["model.context_length"] = int(args.context_length)
    user_config = explicit_config(args) or config_path()
    return build_host(home=home, config_path=user_config if user_config.is_file() else None, overrides=overrides,
                      plain_defaults=True)


def run(args: argparse.Namespace) -> int:
    from hermes_core.apps.transcripts import TranscriptError, load_transcript
    from hermes_core.config.paths import hermes_home

    if args.context_length is not None and args.context_length <= 0:
        raise CommandError("--context-length must be a positive number of tokens", code=2)
    try:
        messages = load_transcript(args.file).messages
    except TranscriptError as exc:
        raise CommandError(str(exc)) from None
    scratch = None if args.live else Path(tempfile.mkdtemp(prefix="hermes-compact-"))
    home = scratch or hermes_home()
    try:
        host = _host(args, home)
        try:
            if sys.stderr.isatty():
                print(f"compacting {len(messages)} messages with '{host.engine.name}'...", file=sys.stderr)
            started = time.perf_counter()
            outcome = host.compress(messages, focus_topic=args.focus, force=True)
            elapsed = time.perf_counter() - started
            engine = host.engine
            result = outcome.messages
            compacted = outcome.changed
            source = outcome.summary_source if compacted else "none"
            report: dict[str, Any] = {
                "file": str(args.file),
                "engine": engine.name,
                "context_length": engine.context_length,
                "threshold_tokens": engine.threshold_tokens,
                "tokens_before": outcome.tokens_before,
                "tokens_after": outcome.tokens_after,
                "messages_before": outcome.messages_before,
                "messages_after": outcome.messages_after,
                "messages_removed": outcome.messages_before - outcome.messages_after,
                "compacted": compacted,
                "summary_source": source,
                "note": outcome.note,
                "seconds": round(elapsed, 4),
                "home": "scratch (discarded; --live runs in $HERMES_HOME)" if scratch else str(home),
                "summary": _summary(outcome.summary, engine, messages, result) if compacted and source != "none"
                else "",
            }
        finally:
            host.close()
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    document = {"messages": result, "report": report}
    if args.output:
        Path(args.output).write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if args.json:
        emit_json(document)
    else:
        _print_report(report, args.output)
    if not compacted:
        print(f"hermes-core compact: nothing was compacted: {report['note'] or 'the engine returned the input'}",
              file=sys.stderr)
        return 1
    return 0


def _summary(summary: str, engine: Any, before: list[dict[str, Any]], after: list[dict[str, Any]]) -> str:
    """The summary itself: the result's, else the engine's ``last_summary`` when it offers
    one, else the text of the new messages that are not blank."""
    own = summary or getattr(engine, "last_summary", None)
    if isinstance(own, str) and own.strip():
        return own.strip()
    inputs = {_key(m) for m in before}
    added = [_text(m) for m in after if m.get("role") in ("user", "assistant") and _key(m) not in inputs]
    return "\n\n".join(t.strip() for t in added if t.strip())


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
    print(f"  home      {r['home']}")
    if r["note"]:
        print(f"  note      {r['note']}")
    if output:
        print(f"  written   {output}")
    if r["summary"]:
        print("\n" + r["summary"])
    elif r["compacted"]:
        print("\nno summary was written: long messages were trimmed instead (see note)")
    else:
        print("\nnothing was compacted")
