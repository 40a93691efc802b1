"""How long each hook's implementation may take, in seconds.

Keys are hook names without the ``hermes_`` prefix (``memory_prefetch``,
``engine_compress``, ``system_prompt_sections``). ``hooks.timeouts`` in config.yaml
overrides any of them, ``hooks.timeouts.default`` every hook not listed here. The table is
repeated in PLUGIN_GUIDE.md ("Time bounds"); a test keeps the two equal.
"""

from __future__ import annotations

from collections.abc import Mapping

#: The bound of every hook not listed below.
DEFAULT_TIMEOUT = 5.0

DEFAULT_BOUNDS: dict[str, float] = {
    # memory providers
    "memory_is_available": 5.0,
    "memory_initialize": 10.0,
    "memory_system_prompt_block": 10.0,
    "memory_prefetch": 8.0,  # memory.prefetch_timeout when set
    "memory_on_turn_start": 2.0,
    "memory_on_pre_compress": 10.0,
    "memory_on_memory_write": 2.0,
    "memory_on_delegation": 2.0,
    "memory_get_tool_schemas": 5.0,
    "memory_handle_tool_call": 30.0,
    "memory_get_status": 10.0,
    "memory_shutdown": 10.0,
    # background work, queued in order on the provider's own worker: the drain bound at shutdown
    "memory_sync_turn": 5.0,
    "memory_queue_prefetch": 5.0,
    "memory_on_session_end": 10.0,
    # the context engine
    "engine_compress": 300.0,
    "engine_handle_tool_call": 30.0,
    # general plugins
    "system_prompt_sections": 5.0,
    "compaction_started": 10.0,
    "compaction_finished": 5.0,
    "turn_finished": 5.0,
    "register_summarizers": 10.0,
    "config_migrations": 10.0,
}


class Bounds:
    """The effective bounds: the defaults with config overrides on top."""

    def __init__(self, overrides: Mapping[str, float] | None = None) -> None:
        overrides = dict(overrides or {})
        self.default = float(overrides.pop("default", DEFAULT_TIMEOUT))
        self._table = {**DEFAULT_BOUNDS, **{k: float(v) for k, v in overrides.items()}}

    def __getitem__(self, hook: str) -> float:
        """The bound of ``hook`` (a full ``hermes_*`` name or the short key)."""
        return self._table.get(hook.removeprefix("hermes_"), self.default)

    def __setitem__(self, hook: str, seconds: float) -> None:
        self._table[hook.removeprefix("hermes_")] = float(seconds)

    def as_dict(self) -> dict[str, float]:
        return {**self._table, "default": self.default}
