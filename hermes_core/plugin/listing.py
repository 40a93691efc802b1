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

from hermes_core.config.raw import provider_names, raw_selection, section
from hermes_core.plugin.discovery import Candidate, PluginLoadError, discover, load
from hermes_core.plugin.registration import RegistrationError, new_plugin_manager, register_checked
from hermes_core.records import PluginInfo


def list_plugins(home: Path, raw: dict[str, Any]) -> tuple[list[PluginInfo], list[str]]:
    """Every discovered plugin with its status, and warnings (clashes, refusals)."""
    engine, externals, disabled = raw_selection(raw)
    mem = section(raw, "memory")
    memory_on = bool(mem.get("memory_enabled", True) or mem.get("user_profile_enabled", True))
    candidates, warnings = discover(home)
    selected_providers = provider_names(memory_on, externals)
    # the one-external rule, as the host applies it: the first external wins
    refused = set(selected_providers[1 if memory_on else 0 :][1:])
    infos = []
    pm = new_plugin_manager()
    for cand in candidates:
        if cand.blocked_by(disabled):
            infos.append(cand.info("disabled"))
            continue
        wanted = (
            cand.kind == "plugin"
            or (cand.kind == "context_engine" and cand.name == engine)
            or (cand.kind == "memory_provider" and cand.name in selected_providers and cand.name not in refused)
        )
        if not wanted:
            error = "refused: only one external memory provider may be active" if cand.name in refused else ""
            infos.append(cand.info("available", error))
            continue
        infos.append(_check(cand, pm))
    known = {(i.kind, i.name) for i in infos}
    if ("context_engine", engine) not in known:
        warnings.append(f"context.engine '{engine}' is not installed")
    for name in selected_providers:
        if ("memory_provider", name) not in known:
            warnings.append(f"memory provider '{name}' is not installed")
    infos.sort(key=lambda i: (i.kind, i.name))
    return infos, warnings


def _check(cand: Candidate, pm: pluggy.PluginManager) -> PluginInfo:
    if cand.builtin:  # hermes-core's own defaults ship with the core: importing them proves nothing new
        return cand.info("active")
    try:
        obj = load(cand)
        if cand.kind == "plugin":
            register_checked(pm, obj, f"plugin:{cand.name}")
        elif inspect.isabstract(obj):  # the host could not construct it
            missing = ", ".join(sorted(getattr(obj, "__abstractmethods__", ())))
            return cand.info("failed", f"{cand.target} leaves abstract members unimplemented: {missing}")
    except PluginLoadError as exc:
        return cand.info("failed", exc.reason)
    except RegistrationError as exc:
        return cand.info("failed", str(exc))
    return cand.info("active")
