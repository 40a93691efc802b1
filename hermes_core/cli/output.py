"""Small output helpers shared by the CLI commands: tables, JSON, progress."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TextIO, TypeVar

T = TypeVar("T")


class CommandError(Exception):
    """A user-facing failure: printed as one line on stderr, exit code ``code``."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def emit_json(data: Any, out: TextIO | None = None) -> None:
    (out or sys.stdout).write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")


def table(rows: Sequence[Sequence[Any]], headers: Sequence[str], out: TextIO | None = None) -> None:
    """A plain aligned text table."""
    cells = [[str(h) for h in headers], *[[str(c) for c in r] for r in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    stream = out or sys.stdout
    for n, row in enumerate(cells):
        stream.write("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() + "\n")
        if n == 0:
            stream.write("  ".join("-" * w for w in widths) + "\n")


def progress(items: Iterable[T], total: int, label: str = "", stream: TextIO | None = None) -> Iterator[T]:
    """Yield ``items`` while drawing a progress bar on stderr (only on a terminal)."""
    out = stream or sys.stderr
    if not out.isatty() or total <= 0:
        yield from items
        return
    width, last = 30, 0.0
    for i, item in enumerate(items, 1):
        now = time.monotonic()
        if now - last > 0.05 or i == total:
            filled = width * i // total
            out.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {i}/{total}")
            out.flush()
            last = now
        yield item
    out.write("\n")
