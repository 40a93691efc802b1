"""Installed entry points, read the way ``importlib_metadata.entry_points()`` reads them, faster.

Why: every host lists the installed plugins. ``importlib_metadata`` (with ``zipp``,
``email`` and ``platform`` behind it) costs about 15 ms to import and its scan about 10 ms
more, a tenth of a short ``hermes-core compact``. For the common layout (plain
directories on ``sys.path`` holding ``*.dist-info`` / ``*.egg-info`` directories, no other
distribution finder) this module reads the same files in the same order and gives the same
entry points: the same distributions, valid ones (with METADATA or PKG-INFO) first, the
first of each normalized name, each ``entry_points.txt`` parsed the same way. Anything
else (a zip or an ``.egg`` on the path, another finder that supplies distributions, a
metadata directory whose suffix is not lower case, a file that does not decode or parse)
answers ``None``, and the caller asks ``importlib_metadata`` itself, which then says what
it always said. ``tests/host/test_entry_points_fast.py`` holds both to each other.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import sys
from typing import Any

_SUFFIXES = (".dist-info", ".egg-info")
_EXPECTED_FINDERS = ("_frozen_importlib_external", "importlib_metadata")  # the stdlib's and the backport's
_READ_ERRORS = (FileNotFoundError, IsADirectoryError, KeyError, NotADirectoryError, PermissionError)
_REFERENCE = r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$"


class MetadataDir:
    """A ``*.dist-info`` / ``*.egg-info`` directory: what a listing reads of a distribution."""

    __slots__ = ("path",)

    def __init__(self, path: str) -> None:
        self.path = path

    def read_text(self, filename: str) -> str | None:
        try:
            with open(os.path.join(self.path, filename), encoding="utf-8") as f:
                return f.read()
        except _READ_ERRORS:
            return None

    def _has_metadata(self) -> bool:
        return (os.path.exists(os.path.join(self.path, "METADATA"))
                or os.path.exists(os.path.join(self.path, "PKG-INFO")) or os.path.isfile(self.path))


class EntryPoint:
    """``name = value`` of ``group`` in ``dist``; :meth:`load` imports it as importlib_metadata does."""

    __slots__ = ("dist", "group", "name", "value")

    def __init__(self, name: str, value: str, group: str, dist: MetadataDir) -> None:
        self.name, self.value, self.group, self.dist = name, value, group, dist

    def load(self) -> Any:
        match = re.match(_REFERENCE, self.value)
        if not match:
            raise ValueError("Invalid object reference. See https://packaging.python.org"
                             "/en/latest/specifications/entry-points/#data-model", self.value)
        module = importlib.import_module(match.group("module"))
        attrs = filter(None, (match.group("attr") or "").split("."))
        return functools.reduce(getattr, attrs, module)

    def __repr__(self) -> str:
        return f"EntryPoint(name={self.name!r}, value={self.value!r}, group={self.group!r})"


class _Unsupported(Exception):
    """The environment holds something only importlib_metadata reads right."""


def entry_points(path: list[str] | None = None) -> list[EntryPoint] | None:
    """Every entry point of every distribution on ``path`` (default ``sys.path``), in
    importlib_metadata's order; ``None`` when this reader cannot promise the same answer."""
    try:
        return _entry_points(sys.path if path is None else path)
    except _Unsupported:
        return None


def _entry_points(path: list[str]) -> list[EntryPoint]:
    for finder in sys.meta_path:
        if getattr(finder, "find_distributions", None) is not None and \
                getattr(finder, "__module__", None) not in _EXPECTED_FINDERS:
            raise _Unsupported
    found = [(d, d._has_metadata()) for d in map(MetadataDir, _metadata_dirs(path))]
    ordered = [d for d, valid in found if valid] + [d for d, valid in found if not valid]  # valid ones first
    seen: set[str] = set()
    out: list[EntryPoint] = []
    for dist in ordered:
        key = _normalize(os.path.basename(dist.path).rpartition(".")[0].partition("-")[0])
        if key in seen:
            continue
        seen.add(key)
        out += _parse(dist.read_text("entry_points.txt") or "", dist)
    return out


def _metadata_dirs(path: list[str]) -> list[str]:
    """The metadata directories on ``path``: per entry, grouped by normalized name in the
    order the names first appear in the directory listing."""
    dirs: list[str] = []
    for root in path:
        if not isinstance(root, str) or os.path.basename(root).lower().endswith(".egg"):
            raise _Unsupported
        try:
            children = os.listdir(root or ".")
        except Exception:
            if os.path.exists(root or "."):  # perhaps a zip file: importlib_metadata reads those
                raise _Unsupported from None
            continue
        by_name: dict[str, list[str]] = {}
        for child in children:
            low = child.lower()
            if low.endswith(_SUFFIXES):
                if not child.endswith(_SUFFIXES):
                    raise _Unsupported  # importlib_metadata then names it from its METADATA
                by_name.setdefault(_normalize(low.rpartition(".")[0].partition("-")[0]), []).append(
                    os.path.join(root, child) if root else child)
        for paths in by_name.values():
            dirs += paths
    return dirs


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower().replace("-", "_")


def _parse(text: str, dist: MetadataDir) -> list[EntryPoint]:
    """``entry_points.txt``: ``[group]`` lines and ``name = value`` lines, ``#`` comments."""
    out = []
    group = None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            group = line.strip("[]")
            continue
        if group is None:
            continue
        name, sep, value = line.partition("=")
        if not sep:
            raise _Unsupported  # importlib_metadata raises its own error for this line
        out.append(EntryPoint(name.strip(), value.strip(), group, dist))
    return out
