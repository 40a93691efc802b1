"""``hermes-core replay``: placeholder until its issue lands."""

from __future__ import annotations

import argparse

from hermes_core.cli.output import CommandError


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("replay", help="(not yet available)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    raise CommandError("'replay' is not implemented yet")
