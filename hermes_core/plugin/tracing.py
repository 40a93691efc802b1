"""``HERMES_TRACE_PLUGINS=1``: every hook call, its implementations and result, on the trace log."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

import pluggy

trace_log = logging.getLogger("hermes_core.trace")


def enable_tracing(pm: pluggy.PluginManager) -> None:
    """Log each hook call with its implementations (in call order) and result, with timings."""
    local = threading.local()

    def before(hook_name: str, impls: Sequence[pluggy.HookImpl], kwargs: Mapping[str, Any]) -> None:
        local.__dict__.setdefault("stack", []).append(time.perf_counter())
        order = [i.plugin_name for i in reversed(impls)]
        trace_log.info("-> %s(%s) impls=%s", hook_name, short(kwargs), order)

    def after(
        outcome: pluggy.Result[Any], hook_name: str, impls: Sequence[pluggy.HookImpl], kwargs: Mapping[str, Any]
    ) -> None:
        started = local.stack.pop() if getattr(local, "stack", None) else time.perf_counter()
        shown = repr(outcome.exception) if outcome.exception else short(outcome.get_result())
        trace_log.info("<- %s = %s [%.3f ms]", hook_name, shown, (time.perf_counter() - started) * 1000)

    pm.add_hookcall_monitoring(before, after)
    if not logging.getLogger().handlers and not trace_log.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("[trace] %(message)s"))
        trace_log.addHandler(handler)
    trace_log.setLevel(logging.INFO)


def short(value: Any, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
