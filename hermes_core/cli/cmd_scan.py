"""``hermes-core scan PATH...``: what the injection detectors find in files, and trusting reviewed ones.

Every registered detector runs (the built-in rules and any ``hermes_scan_text`` plugin),
the same ones the prompt uses. Each finding shows file, line, rule and excerpt. A
directory is scanned for the context files the prompt would load (SOUL.md, AGENTS.md,
CLAUDE.md, .hermes.md, .cursorrules, .cursor/rules/*.mdc, Markdown files) at its top level.
``--trust FILE`` records the file's content hash in ``$HERMES_HOME/trusted_files.json``:
it then loads whole until it changes. Exit code 1 when anything was found.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from hermes_core.cli.output import CommandError, emit_json

MAX_BYTES = 4 * 1024 * 1024
CONTEXT_NAMES = ("SOUL.md", "AGENTS.md", "agents.md", "CLAUDE.md", "claude.md", ".hermes.md", "HERMES.md",
                 ".cursorrules")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("scan", help="scan files for prompt injection (line, rule, excerpt); trust reviewed files")
    p.add_argument("paths", nargs="+", metavar="PATH", help="files, or directories (their context files)")
    p.add_argument("--trust", action="store_true",
                   help="trust the given files as they are now (by content hash, kept in $HERMES_HOME)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=run)


def _targets(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            found = [path / n for n in CONTEXT_NAMES if (path / n).is_file()]
            found += sorted((path / ".cursor" / "rules").glob("*.mdc")) if (path / ".cursor" / "rules").is_dir() else []
            found += sorted(p for p in path.glob("*.md") if p not in found and p.is_file())
            out += found
        elif path.exists():
            out.append(path)
        else:
            raise CommandError(f"{raw}: no such file or directory", code=2)
    return out


def _read(path: Path) -> str:
    """The file's text, or raises CommandError naming what is wrong with it."""
    try:
        data = path.read_bytes()[: MAX_BYTES + 1]
    except OSError as exc:
        raise CommandError(f"{path}: unreadable: {exc.strerror or type(exc).__name__}") from None
    if len(data) > MAX_BYTES:
        raise CommandError(f"{path}: larger than {MAX_BYTES:,} bytes; not a context file")
    if b"\x00" in data[:8192]:
        raise CommandError(f"{path}: binary file (contains NUL bytes)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CommandError(f"{path}: not UTF-8 (invalid byte at offset {exc.start})") from None


def run(args: argparse.Namespace) -> int:
    from hermes_core.cli.common import host_from_args
    from hermes_core.text import trust
    from hermes_core.text.detectors import HostScanner

    targets = _targets(args.paths)
    host = host_from_args(args)
    try:
        if args.trust:
            rows = [{"path": str(p), "sha256": trust.trust(host.home, p, _read(p))} for p in targets]
            if args.json:
                emit_json({"trusted": rows, "store": str(host.home / trust.STORE_NAME)})
            else:
                for row in rows:
                    print(f"trusted {row['path']} (sha256 {row['sha256'][:12]}…); it loads whole until it changes")
            return 0
        scanner = HostScanner(host)
        results: list[dict[str, Any]] = []
        for path in targets:
            text = _read(path)
            trusted = scanner.is_trusted(text)
            findings = [] if trusted else scanner(text, str(path))
            results.append({"path": str(path), "trusted": trusted,
                            "findings": [{**f.to_dict(), "excerpt": _printable(f.excerpt)} for f in findings]})
    finally:
        host.close()
    flagged = sum(bool(r["findings"]) for r in results)
    if args.json:
        emit_json({"files": results, "flagged": flagged})
    else:
        for r in results:
            if r["trusted"]:
                print(f"{r['path']}: trusted (content unchanged since --trust)")
            elif not r["findings"]:
                print(f"{r['path']}: clean")
            for f in r["findings"]:
                print(f"{r['path']}:{f['line']}: {f['pattern_id']}: {f['excerpt']}")
        print(f"{len(results)} file(s) scanned, {flagged} with findings", file=sys.stderr)
    return 1 if flagged else 0


def _printable(text: str) -> str:
    """An excerpt safe for a terminal: control and format characters shown as ``\\uXXXX``."""
    import unicodedata

    return "".join(ch if ch.isprintable() and unicodedata.category(ch) != "Cf" else f"\\u{ord(ch):04x}"
                   for ch in text)
