"""The built-in provider passes the conformance suite every provider author runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from hermes_memory_builtin import BuiltinMemoryProvider

from hermes_core.plugin.context import PluginContext
from hermes_core.testing.provider_conformance import ProviderConformance


class TestBuiltinConformance(ProviderConformance):
    @pytest.fixture
    def provider_factory(self, tmp_path: Path):  # type: ignore[no-untyped-def]
        return lambda: BuiltinMemoryProvider(PluginContext.default(home=tmp_path))
