"""The ``hermes-core`` command line.

Each command lives in its own module with ``register(subparsers)`` and ``run(args)``.
Errors print one line on stderr (a traceback only with ``--debug``, which may appear
anywhere on the command line); exit codes are 0 for success, 1 for a refused or failed
operation, 2 for usage and config errors, 141 when stdout was closed early (``| head``),
quietly. Each distinct warning prints once.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

from hermes_core import __version__
from hermes_core.cli.output import CommandError

COMMANDS = ("plugins", "config", "memory", "compact", "prompt", "replay", "doctor", "tools", "scan", "storage")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser for every command, or for ``only`` one (imports only that command's module)."""
    parser = argparse.ArgumentParser(prog="hermes-core", description="Memory and context management for AI agents.")
    parser.add_argument("--config", metavar="PATH", help="config file (default: $HERMES_HOME/config.yaml)")
    parser.add_argument("--debug", action="store_true", help="show tracebacks and debug logs")
    parser.add_argument("--version", action="version", version=f"hermes-core {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS if only is None else (only,):
        module = importlib.import_module(f"hermes_core.cli.cmd_{name}")
        module.register(sub)
    return parser


class _OncePerRun(logging.Filter):
    """Drop a record whose level and text were already printed (config is read more than once)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: set[tuple[int, str]] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.levelno, record.getMessage())
        if key in self.seen:
            return False
        self.seen.add(key)
        return True


def _pop_debug(args: list[str]) -> tuple[list[str], bool]:
    """``--debug`` wherever it is (before a ``--``), removed so every subparser accepts the rest."""
    end = args.index("--") if "--" in args else len(args)
    debug = "--debug" in args[:end]
    return [a for i, a in enumerate(args) if not (i < end and a == "--debug")], debug


def _quiet_broken_pipe() -> int:
    """stdout was closed by the reader (``| head``): stop quietly, and keep the final flush quiet too."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 141


class _LogFormatter(logging.Formatter):
    """One line per record: ``warning: ...``, ``trace: ...`` (plugin tracing), ``error: ...``."""

    def __init__(self, debug: bool) -> None:
        super().__init__()
        self.debug = debug

    def format(self, record: logging.LogRecord) -> str:
        label = "trace" if record.name == "hermes_core.trace" else record.levelname.lower()
        where = f" {record.name}" if self.debug else ""
        text = f"{label}{where}: {record.getMessage()}"
        if record.exc_info and self.debug:
            text += "\n" + self.formatException(record.exc_info)
        return text


def requested_command(args: Sequence[str]) -> str | None:
    """The command named in ``args``, if any, skipping global options and their values."""
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg == "--config":
            skip = True
        elif arg in ("-h", "--help"):
            return None
        elif not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


# Collect the youngest generation after this many new container objects instead of 700
# while a command runs: a command builds its host, imports its plugins and reads its input
# in one go, and the default threshold spends about a tenth of a short `compact` in
# collections that find almost nothing. Cycles are still collected; the caller's own
# threshold is restored when the command returns.
_CLI_GC_THRESHOLD = 50_000


def main(argv: Sequence[str] | None = None) -> int:
    import gc

    saved = gc.get_threshold()
    gc.set_threshold(max(saved[0], _CLI_GC_THRESHOLD), *saved[1:])
    try:
        return _main(argv)
    finally:
        gc.set_threshold(*saved)


def _main(argv: Sequence[str] | None) -> int:
    args_list, debug = _pop_debug(list(sys.argv[1:] if argv is None else argv))
    parser = build_parser(requested_command(args_list))
    try:
        args = parser.parse_args(args_list)
    except SystemExit as exc:
        return int(exc.code or 0)
    args.debug = debug or args.debug
    handler = logging.StreamHandler()
    handler.setFormatter(_LogFormatter(args.debug))
    handler.addFilter(_OncePerRun())
    logging.basicConfig(level=logging.DEBUG if args.debug else logging.WARNING, handlers=[handler], force=True)
    if not args.command:
        parser.print_help()
        return 2
    try:
        code = int(args.run(args) or 0)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except RecursionError:
        if args.debug:
            raise
        print("error: the input is nested too deeply to process (RecursionError); rerun with --debug for details",
              file=sys.stderr)
        return 1
    except Exception as exc:
        if args.debug:
            raise
        from hermes_core.config.raw import ConfigError

        code = 2 if isinstance(exc, ConfigError) else getattr(exc, "code", 1)
        message = str(exc) if isinstance(exc, (CommandError, ConfigError)) else f"{type(exc).__name__}: {exc}"
        first, *rest = message.splitlines() or [""]
        print(f"error: {first}", file=sys.stderr)
        for line in rest:
            print(f"  {line}", file=sys.stderr)
        return int(code) if isinstance(code, int) else 1
