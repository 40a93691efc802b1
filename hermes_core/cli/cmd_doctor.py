"""``hermes-core doctor``: check memory, config, plugins, the summary model and the prompt."""

from __future__ import annotations

import argparse
from pathlib import Path

from hermes_core.cli.output import emit_json, table

MARKS = {"ok": "ok", "info": "info", "warn": "WARN", "error": "ERROR"}


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("doctor", help="diagnose memory, config, plugins, auxiliary model and prompt size")
    p.add_argument("--json", action="store_true", help="machine-readable findings")
    p.add_argument("--cwd", type=Path, metavar="DIR", help="project whose context files to check (default: .)")
    p.add_argument("--timeout", type=float, default=3.0, metavar="SECONDS",
                   help="how long to wait for the auxiliary model (default 3)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from hermes_core.apps.doctor import run_doctor
    from hermes_core.cli.common import config_file
    from hermes_core.config.paths import hermes_home

    report = run_doctor(hermes_home(), config_file(args), cwd=args.cwd, aux_timeout=args.timeout)
    if args.json:
        emit_json(report.to_dict())
        return 0 if report.ok else 1
    for f in report.findings:
        print(f"[{MARKS[f.level]:>5}] {f.check}: {f.message}")
        if f.fix and f.level in ("warn", "error", "info"):
            print(f"        fix: {f.fix}")
    if report.prompt_parts:
        print()
        table([(p.name, f"{p.chars:,}", f"{p.tokens:,}", p.source) for p in report.prompt_parts],
              ("PROMPT PART", "CHARS", "~TOKENS", "SOURCE"))
    problems = sum(f.level == "error" for f in report.findings)
    warnings = sum(f.level == "warn" for f in report.findings)
    print(f"\n{problems} problem(s), {warnings} warning(s)")
    return 0 if report.ok else 1
