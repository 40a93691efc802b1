"""The provider conformance check ``sync_ordered`` really checks order: a delivery that reorders fails it."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from hermes_memory_builtin import BuiltinMemoryProvider

from hermes_core import PluginContext
from hermes_core.guard import Guard
from hermes_core.testing.provider_conformance import ConformanceOptions, check_sync_ordered


def builtin(tmp_path: Path) -> Any:
    return lambda: BuiltinMemoryProvider(PluginContext.default(home=tmp_path))


def test_the_built_in_provider_receives_turns_in_order(tmp_path):
    assert check_sync_ordered(builtin(tmp_path), ConformanceOptions(turns=9)) == []


def test_a_delivery_that_reorders_turns_fails_the_check(tmp_path, monkeypatch):
    def unordered_submit(self: Guard, hook: str, fn: Any, *args: Any) -> None:
        threading.Thread(target=lambda: self.run(hook, fn, *args), daemon=True).start()

    monkeypatch.setattr(Guard, "submit", unordered_submit)
    problems = check_sync_ordered(builtin(tmp_path), ConformanceOptions(turns=12))
    assert any("out of order" in p for p in problems), problems
