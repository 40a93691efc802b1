"""``builtin``: MEMORY.md and USER.md as a memory provider, built on the public API only."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from hermes_core import MemoryProvider
from hermes_memory_builtin.snapshot import build_snapshot
from hermes_memory_builtin.store import MemoryStore

if TYPE_CHECKING:
    from hermes_core.plugin.context import PluginContext
    from hermes_memory_builtin.pg_store import PgMemoryStore

MAX_CONSOLIDATION_FAILURES = 3
STOP_RETRYING = (
    "Memory consolidation failed {n} times this turn. Stop retrying memory calls: leave memory unchanged "
    "for now and continue with your reply to the user."
)


class BuiltinMemoryProvider(MemoryProvider):
    """The agent's notes (``memory``) and the user profile (``user``) under ``$HERMES_HOME/memories``.

    ``initialize`` freezes the system-prompt snapshot for the session; the ``memory`` tool
    writes to disk at once, and the next session's snapshot shows the change. After
    three failed consolidation attempts in one turn (over the limit, no match) the tool
    tells the model to stop retrying, so a full store cannot trap it in a loop.
    """

    def __init__(self, ctx: PluginContext | None = None) -> None:
        super().__init__(ctx)
        mem = self.ctx.config.memory
        enabled = (("memory", mem.memory_enabled), ("user", mem.user_profile_enabled))
        self.targets = tuple(target for target, on in enabled if on)
        limits = {"memory": mem.memory_char_limit, "user": mem.user_char_limit}
        storage = getattr(self.ctx.config, "storage", None)
        if storage is not None and storage.backend == "postgres":  # storage: in config.yaml
            from hermes_memory_builtin.pg_store import PgMemoryStore

            self.store: MemoryStore | PgMemoryStore = PgMemoryStore(storage, limits)
        else:
            self.store = MemoryStore(self.ctx.home / "memories", limits)
        self._snapshot: str | None = None
        self._failures = 0  # consolidation failures this turn

    @property
    def name(self) -> str:
        return "builtin"

    def is_available(self) -> tuple[bool, str]:
        if not self.targets:
            return False, "memory.memory_enabled and memory.user_profile_enabled are both false"
        return True, ""

    def initialize(self, session_id: str) -> None:
        self._snapshot = build_snapshot(self.store, self.targets)

    def system_prompt_block(self) -> str:
        if self._snapshot is None:
            self._snapshot = build_snapshot(self.store, self.targets)
        return self._snapshot

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        from hermes_memory_builtin.tool import tool_schema  # pydantic: loaded on first use, not at import

        return [tool_schema(self.targets)]

    def get_status(self, probe: bool = False) -> dict[str, Any]:
        """On PostgreSQL, ``probe`` reads the store once, so ``doctor`` shows a down or misconfigured server."""
        location = getattr(self.store, "location", None)
        if location is None or not probe:
            return super().get_status(probe)
        from hermes_memory_builtin.store import MemoryStoreError

        try:
            count = len(self.store.entries(self.targets[0])) if self.targets else 0
        except MemoryStoreError as exc:
            return {"provider": self.name, "state": "unavailable", "summary": f"{self.name}: {exc}"}
        return {"provider": self.name, "state": "ok",
                "summary": f"{self.name}: ok ({location(self.targets[0])}, {count} entries)"}

    def on_turn_start(self, turn_number: int, message: str) -> None:
        self._failures = 0

    def handle_tool_call(self, name: str, args: dict[str, Any]) -> str | None:
        from hermes_memory_builtin.tool import TOOL_NAME, run_memory_tool

        if name != TOOL_NAME:
            return None
        result = run_memory_tool(self.store, args, self.targets, on_write=self.ctx.memory_written,
                                 scan=self.ctx.scan)
        if result["success"]:
            self._failures = 0
        elif "current_entries" in result:  # over the limit or no match: the model is consolidating
            self._failures += 1
            if self._failures > MAX_CONSOLIDATION_FAILURES:
                result = {"success": False, "done": True, "error": STOP_RETRYING.format(n=self._failures)}
        return json.dumps(result, ensure_ascii=False)
