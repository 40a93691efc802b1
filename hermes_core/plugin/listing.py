"""What ``hermes-core plugins`` shows, computed without building a host.

Reads package metadata and the raw config; imports only third-party code a host would
import anyway (general plugins and the selected engine and providers), so a broken one
shows as ``failed``. Unselected engines and providers are never imported, nor are
hermes-core's own defaults. Pydantic is not loaded.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pluggy

from hermes_core.plugin.discovery import Candidate, PluginLoadError, discover, load
from hermes_core.plugin.registration import RegistrationError, new_plugin_manager, register_checked
from hermes_core.plugin.selection import from_raw
from hermes_core.records import PluginInfo


def list_plugins(home: Path, raw: dict[str, Any]) -> tuple[list[PluginInfo], list[str]]:
    """Every discovered plugin with its status, and warnings (clashes, refusals)."""
    chosen = from_raw(raw)  # the host's own policy
    engine, disabled, selected_providers, refused = chosen.engine, chosen.disabled, chosen.providers, chosen.refused
    candidates, warnings = discover(home)
    infos = []
    pm = new_plugin_manager()
    where: dict[str, str] = {}
    for cand in candidates:
        if cand.blocked_by(disabled):
            infos.append(cand.info("disabled"))
            continue
        wanted = (
            cand.kind == "plugin"
            or (cand.kind == "context_engine" and cand.name == engine)
            or (cand.kind == "memory_provider" and cand.name in selected_providers)
        )
        if not wanted:
            error = chosen.refusal(cand.name) if cand.kind == "memory_provider" and cand.name in refused else ""
            infos.append(cand.info("available", error))
            continue
        infos.append(_check(cand, pm, where))
    known = {(i.kind, i.name) for i in infos}
    if ("context_engine", engine) not in known:
        warnings.append(f"context.engine '{engine}' is not installed")
    for name in (*selected_providers, *refused):
        if ("memory_provider", name) not in known:
            warnings.append(f"memory provider '{name}' is not installed")
    infos.sort(key=lambda i: (i.kind, i.name))
    return infos, warnings


def _check(cand: Candidate, pm: pluggy.PluginManager, where: dict[str, str]) -> PluginInfo:
    if cand.builtin:  # hermes-core's own defaults ship with the core: importing them proves nothing new
        return cand.info("active")
    try:
        obj = load(cand)
        if cand.kind == "plugin":
            name = f"plugin:{cand.name}"
            register_checked(pm, obj, name, lambda n: f"{n.removeprefix('plugin:')} ({where.get(n, n)})")
            where[name] = cand.where
        elif inspect.isabstract(obj):  # the host could not construct it
            missing = ", ".join(sorted(getattr(obj, "__abstractmethods__", ())))
            return cand.info("failed", f"{cand.target} leaves abstract members unimplemented: {missing}")
    except PluginLoadError as exc:
        return cand.info("failed", exc.reason)
    except RegistrationError as exc:
        return cand.info("failed", str(exc))
    return cand.info("active")
