"""Project context files (seed 3.3): exactly one source, first match wins.

1. ``.hermes.md`` / ``HERMES.md``, the nearest one from the working directory up to the
   git root (with no git root: the working directory only);
2. ``AGENTS.md`` / ``agents.md`` in the working directory;
3. ``CLAUDE.md`` / ``claude.md`` in the working directory;
4. ``.cursorrules`` plus ``.cursor/rules/*.mdc`` (sorted) in the working directory.

A source whose files cannot be used (unreadable, not a regular file, binary, not UTF-8,
too large) is reported as skipped and the next source is tried. A file that fails the
injection scan is replaced by the BLOCKED notice; it still counts as the match. A working
directory outside any git repository is an ``info`` finding: nothing was left out.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hermes_core.records import PromptSection

from .files import Skip, load_guarded

ORDER = 400
HERMES_NAMES = (".hermes.md", "HERMES.md")
CWD_SOURCES: tuple[tuple[str, ...], ...] = (("AGENTS.md", "agents.md"), ("CLAUDE.md", "claude.md"))
HEADER = (
    "# Project Context\n\n"
    "The following project context files have been loaded and should be followed:\n\n"
)


def find_git_root(start: Path) -> Path | None:
    """The nearest directory at or above ``start`` holding ``.git`` (a directory or a file)."""
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return None


def _present(path: Path) -> bool:
    """There and not a directory: a FIFO or device is then reported by the reader, not passed over."""
    return path.exists() and not path.is_dir()


def find_hermes_md(cwd: Path, git_root: Path | None) -> Path | None:
    """The nearest ``.hermes.md``/``HERMES.md`` from ``cwd`` up to ``git_root`` (cwd only without one)."""
    for directory in (cwd, *cwd.parents):
        for name in HERMES_NAMES:
            candidate = directory / name
            if _present(candidate):
                return candidate
        if git_root is None or directory == git_root:
            return None
    return None


def _first_file(cwd: Path, names: tuple[str, ...]) -> Path | None:
    return next((cwd / n for n in names if _present(cwd / n)), None)


def _cursor_files(cwd: Path) -> list[Path]:
    files = [cwd / ".cursorrules"] if _present(cwd / ".cursorrules") else []
    rules = cwd / ".cursor" / "rules"
    if rules.is_dir():
        try:
            files += sorted(p for p in rules.glob("*.mdc") if _present(p))
        except OSError:
            pass
    return files


def candidate_sources(cwd: Path, git_root: Path | None) -> Iterator[list[Path]]:
    """Each source in precedence order, as the list of files it consists of."""
    hermes = find_hermes_md(cwd, git_root)
    if hermes:
        yield [hermes]
    for names in CWD_SOURCES:
        found = _first_file(cwd, names)
        if found:
            yield [found]
    cursor = _cursor_files(cwd)
    if cursor:
        yield cursor


def context_files_section(cwd: Path, max_chars: int) -> PromptSection:
    """The first usable source, scanned and truncated, with what was skipped on the way."""
    try:
        cwd = cwd.resolve()
    except OSError:
        pass
    findings: list[dict[str, Any]] = []
    git_root = find_git_root(cwd)
    if git_root is None:
        findings.append({"kind": "info", "path": str(cwd),  # how the search ran; nothing was left out
                         "reason": "no git root above the working directory: .hermes.md searched in cwd only"})
    for files in candidate_sources(cwd, git_root):
        parts: list[str] = []
        for path in files:
            name = os.path.relpath(path, cwd)
            loaded = load_guarded(path, name, max_chars, strip_header=True, within=git_root or cwd)
            if isinstance(loaded, Skip):
                findings.append(loaded.finding())
                continue
            body, part_findings = loaded
            findings.extend(part_findings)
            if body:
                parts.append(f"## {name}\n\n{body}")
        if parts:
            text = HEADER + "\n\n".join(parts)
            return PromptSection("context_files", text, order=ORDER, source=str(files[0]), findings=findings)
    return PromptSection("context_files", "", order=ORDER, source="", findings=findings)
