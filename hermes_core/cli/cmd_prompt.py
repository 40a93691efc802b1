"""``hermes-core prompt``: print the system prompt a session would start with, or its budget."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from hermes_core.cli.output import CommandError, emit_json, table


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("prompt", help="show the assembled system prompt, or its per-part size report")
    p.add_argument("--cwd", metavar="DIR", help="working directory for project context files (default: .)")
    p.add_argument("--platform", metavar="NAME", help="platform hint to use (default: config prompt.platform)")
    p.add_argument("--model", metavar="NAME", help="model name, for model-specific guidance (default: config)")
    p.add_argument("--report", action="store_true", help="per-part characters and tokens, and what was skipped")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from hermes_core.cli.common import host_from_args
    from hermes_core.records import PromptContext
    from hermes_core.session.prompt import build_system_prompt

    cwd = Path(args.cwd).expanduser() if args.cwd else Path.cwd()
    if not cwd.is_dir():
        raise CommandError(f"--cwd {cwd} is not a directory", code=2)
    host = host_from_args(args)
    try:
        host.memory.initialize_all("cli-prompt")
        ctx = PromptContext(
            home=host.home, cwd=cwd, platform=args.platform or host.config.prompt.platform,
            model=args.model or host.config.model.name, config=host.config,
            memory_blocks=tuple(host.memory.system_prompt_blocks()),
        )
        prompt = build_system_prompt(host, ctx)
    finally:
        host.close()
    report = prompt.report()
    if args.json:
        emit_json(report if args.report else {"text": prompt.text, **report})
    elif args.report:
        print_report(report)
    else:
        sys.stdout.write(prompt.text + "\n")
        counts = {kind: n for kind, n in report["counts"].items() if n}
        if counts:  # the prompt goes to stdout; say on stderr that something was left out
            summary = ", ".join(f"{n} {kind}" for kind, n in counts.items())
            print(f"note: {summary} (details: hermes-core prompt --report)", file=sys.stderr)
    return 0


def print_report(report: dict[str, Any]) -> None:
    rows = [
        (p["name"], p["order"], f"{p['chars']:,}", f"{p['tokens']:,}", f"{p['share']:.0%}", p["source"])
        for p in report["parts"]
    ]
    table(rows, ("PART", "ORDER", "CHARS", "TOKENS", "SHARE", "SOURCE"))
    print(f"\ntotal: {report['chars']:,} chars, ~{report['tokens']:,} tokens (4 chars/token)")
    if report["largest"]:
        print(f"largest: {', '.join(report['largest'])}")
    for f in report["findings"]:
        where = f.get("path") or ""
        print(f"{f.get('kind', '?')}: [{f['section']}] {where}{': ' if where else ''}{_why(f)}")


def _why(finding: dict[str, Any]) -> str:
    if finding.get("kind") == "blocked" and finding.get("findings"):  # a file: where in it
        lines = ", ".join(f"{h['pattern_id']} (line {h['line']})" for h in finding.get("findings", [])[:8])
        return f"injection patterns {lines}"
    if finding.get("kind") == "truncated":
        return f"{finding['chars']:,} chars, kept {finding['kept']:,}, omitted {finding['omitted']:,}"
    return str(finding.get("reason", ""))
