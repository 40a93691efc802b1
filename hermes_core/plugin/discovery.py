"""Finding plugins without importing them, and importing one defensively.

Sources, in the order their names are claimed (a later source never overrides an
earlier name; the clash is reported instead):

0. hermes-core's own :data:`DEFAULT_PLUGINS` (no metadata scan needed);
1. third-party entry points ``hermes.context_engines``, ``hermes.memory_providers`` (name = the name
   written in config, value = the class) and ``hermes.plugins`` (modules with hookimpls);
2. drop-in directories ``$HERMES_HOME/plugins/context_engine/<name>/`` and
   ``$HERMES_HOME/plugins/memory/<name>/`` holding an ``__init__.py`` that defines exactly
   one subclass of the base class (seed 4.2).

Listing reads package metadata and directory names only; :func:`load` imports.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hermes_core.records import PluginInfo, PluginKind

GROUPS: dict[PluginKind, str] = {
    "context_engine": "hermes.context_engines",
    "memory_provider": "hermes.memory_providers",
    "plugin": "hermes.plugins",
}
DROPIN_DIRS: dict[PluginKind, str] = {"context_engine": "context_engine", "memory_provider": "memory"}
CORE_DISTRIBUTION = "hermes-core"

#: hermes-core's own plugins, ``(kind, name, "module[:attr]")``: always known, loaded without
#: an entry-point scan, registered before any third party (so theirs run first, LIFO), and
#: blocked by ``plugins.disabled`` like any other.
DEFAULT_PLUGINS: tuple[tuple[PluginKind, str, str], ...] = (
    ("plugin", "prompt", "hermes_prompt"),
    ("plugin", "summarizers", "hermes_summarizers"),
    ("plugin", "scanner", "hermes_scanner"),
    ("plugin", "injection_model", "hermes_injection_model"),
    ("context_engine", "compressor", "hermes_compressor:CompressorEngine"),
    ("memory_provider", "builtin", "hermes_memory_builtin:BuiltinMemoryProvider"),
)


class PluginLoadError(Exception):
    """A plugin could not be imported or is not what its entry point claims."""

    def __init__(self, candidate: Candidate, message: str) -> None:
        super().__init__(f"plugin '{candidate.name}' ({candidate.where}): {message}")
        self.candidate = candidate
        self.reason = message


@dataclass
class Candidate:
    """A plugin that could be loaded: where it comes from, not yet imported."""

    name: str
    kind: PluginKind
    distribution: str
    version: str
    source: str  # "entry point" | "drop-in"
    target: str  # "module:attr" or a directory

    @property
    def builtin(self) -> bool:
        return self.distribution == CORE_DISTRIBUTION

    @property
    def where(self) -> str:
        if self.source == "drop-in":
            return f"drop-in {self.target}"
        return f"{self.distribution} {self.version}".strip()

    def blocked_by(self, disabled: set[str] | frozenset[str]) -> bool:
        """Disabled by its name or by its distribution's name."""
        return self.name in disabled or self.distribution in disabled

    def info(self, status: str = "available", error: str = "") -> PluginInfo:
        return PluginInfo(
            name=self.name,
            kind=self.kind,
            distribution=self.distribution,
            version=self.version,
            status=status,  # type: ignore[arg-type]
            error=error,
            source="builtin" if self.builtin else self.source,
            target=self.target,
        )


def default_candidates() -> list[Candidate]:
    """The :data:`DEFAULT_PLUGINS`, as candidates of the hermes-core distribution."""
    from hermes_core import __version__

    return [
        Candidate(name, kind, CORE_DISTRIBUTION, __version__, "builtin", target)
        for kind, name, target in DEFAULT_PLUGINS
    ]


def iter_entry_points() -> Iterator[Candidate]:
    """Every third-party entry point in the three groups, from metadata only (cached, see below).

    hermes-core's own entry points (an older install may still declare them) are skipped:
    the built-ins are :data:`DEFAULT_PLUGINS`.
    """
    for cand in _entry_point_candidates(_path_signature()):
        if not cand.builtin:
            yield cand


def _path_signature() -> tuple[tuple[str, int], ...]:
    """``sys.path`` with each entry's mtime: installing or removing a distribution changes it."""
    sig = []
    for entry in sys.path:
        try:
            sig.append((entry, os.stat(entry or ".").st_mtime_ns))
        except OSError:
            sig.append((entry, -1))
    return tuple(sig)


@functools.lru_cache(maxsize=4)
def _entry_point_candidates(signature: tuple[tuple[str, int], ...]) -> tuple[Candidate, ...]:
    """One metadata scan for all three groups, reused while the path is unchanged (in this
    process, and between processes through :mod:`hermes_core.plugin.entry_point_cache`)."""
    from hermes_core.plugin import entry_point_cache

    rows = entry_point_cache.read(signature)
    if rows is None:
        rows = _scan()
        entry_point_cache.write(signature, rows)
    kinds = {group: kind for kind, group in GROUPS.items()}
    return tuple(Candidate(name=row["name"], kind=kinds[row["group"]], distribution=row["distribution"],
                           version=row["version"], source="entry point", target=row["value"])
                 for row in rows if row["group"] in kinds)


def _scan() -> list[dict[str, str]]:
    """Every entry point of the three groups, as importlib_metadata lists them."""
    groups = set(GROUPS.values())
    rows = []
    for ep in _metadata().entry_points():
        if ep.group in groups:
            dist_name, version = _name_and_version(getattr(ep, "dist", None))
            rows.append({"name": ep.name, "group": ep.group, "value": ep.value, "distribution": dist_name,
                         "version": version})
    return rows


def _metadata() -> Any:
    try:  # the backport is faster on large environments and always current
        import importlib_metadata as metadata
    except ImportError:  # pragma: no cover
        import importlib.metadata as metadata  # type: ignore[no-redef]
    return metadata


def _name_and_version(dist: Any) -> tuple[str, str]:
    """A distribution's name and version from the METADATA header alone.

    ``Distribution.name`` parses the whole file with the email parser (long READMEs
    included); the two header fields are all a listing needs.
    """
    if dist is None:
        return "unknown", ""
    fields: dict[str, str] = {}
    for line in (dist.read_text("METADATA") or dist.read_text("PKG-INFO") or "").splitlines():
        if not line.strip():
            break
        key, _, value = line.partition(":")
        if key in ("Name", "Version") and key not in fields:
            fields[key] = value.strip()
    return fields.get("Name") or "unknown", fields.get("Version", "")


def iter_dropins(home: Path) -> Iterator[Candidate]:
    """Drop-in plugin directories under ``$HERMES_HOME/plugins``."""
    for kind, sub in DROPIN_DIRS.items():
        root = home / "plugins" / sub
        try:
            entries = sorted(root.iterdir())
        except OSError:
            continue
        for path in entries:
            if path.name.startswith((".", "_")) or not (path / "__init__.py").is_file():
                continue
            yield Candidate(path.name, kind, "drop-in", "", "drop-in", str(path))


def discover(home: Path) -> tuple[list[Candidate], list[str]]:
    """All candidates (defaults first), first claim of a ``(kind, name)`` wins; plus clash warnings."""
    seen: dict[tuple[str, str], Candidate] = {}
    warnings: list[str] = []
    for cand in (*default_candidates(), *iter_entry_points(), *iter_dropins(home)):
        key = (cand.kind, cand.name)
        if key in seen:
            first = seen[key]
            if (first.distribution, first.target) != (cand.distribution, cand.target):
                warnings.append(
                    f"{cand.kind} '{cand.name}' is provided by both {first.where} and {cand.where}; using {first.where}"
                )
            continue
        seen[key] = cand
    return list(seen.values()), warnings


def load(candidate: Candidate) -> Any:
    """Import a candidate: the class for engines/providers, the module for plugins."""
    try:
        if candidate.source == "drop-in":
            obj = _load_dropin(candidate)
        elif candidate.source == "entry point":  # loaded exactly as importlib_metadata loads it
            obj = _metadata().EntryPoint(candidate.name, candidate.target, GROUPS[candidate.kind]).load()
        else:  # a default plugin: "module[:attr]"
            module_name, _, attr = candidate.target.partition(":")
            obj = importlib.import_module(module_name)
            obj = getattr(obj, attr) if attr else obj
    except PluginLoadError:
        raise
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise PluginLoadError(candidate, f"failed to import: {type(exc).__name__}: {exc}") from exc
    _check_kind(candidate, obj)
    return obj


def _check_kind(candidate: Candidate, obj: Any) -> None:
    from hermes_core.engine.base import ContextEngine
    from hermes_core.memory.base import MemoryProvider

    base = {"context_engine": ContextEngine, "memory_provider": MemoryProvider}.get(candidate.kind)
    if base is not None and not (isinstance(obj, type) and issubclass(obj, base)):
        raise PluginLoadError(candidate, f"{candidate.target} is not a {base.__name__} subclass")


def _load_dropin(candidate: Candidate) -> Any:
    from hermes_core.engine.base import ContextEngine
    from hermes_core.memory.base import MemoryProvider

    base = ContextEngine if candidate.kind == "context_engine" else MemoryProvider
    directory = Path(candidate.target)
    modname = f"hermes_dropin_{candidate.kind}_{candidate.name}".replace("-", "_")
    spec = importlib.util.spec_from_file_location(
        modname, directory / "__init__.py", submodule_search_locations=[str(directory)]
    )
    if spec is None or spec.loader is None:
        raise PluginLoadError(candidate, "cannot build an import spec")
    module = importlib.util.module_from_spec(spec)
    sys.modules[modname] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(modname, None)
        raise
    found = [
        v
        for v in vars(module).values()
        if isinstance(v, type) and issubclass(v, base) and v is not base and v.__module__ == modname
    ]
    if len(found) != 1:
        raise PluginLoadError(
            candidate, f"__init__.py must define exactly one {base.__name__} subclass, found {len(found)}"
        )
    return found[0]
