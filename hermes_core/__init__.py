"""hermes-core: memory and context management for AI agents, as a small plugin host.

Importing this package is cheap: names load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "hookimpl": "hermes_core.hookspecs",
    "ContextEngine": "hermes_core.engine.base",
    "MemoryProvider": "hermes_core.memory.base",
    "PluginContext": "hermes_core.plugin.context",
    "PluginHost": "hermes_core.plugin.host",
    "build_host": "hermes_core.plugin.host",
    "HermesConfig": "hermes_core.config.models",
    "load_config": "hermes_core.config.models",
    "ConfigError": "hermes_core.config.raw",
    "CompactionReport": "hermes_core.records",
    "CompactionResult": "hermes_core.records",
    "TurnReport": "hermes_core.records",
    "ConfigMigration": "hermes_core.records",
    "PromptContext": "hermes_core.records",
    "PromptSection": "hermes_core.records",
    "Session": "hermes_core.session.session",
    "AsyncSession": "hermes_core.session.async_session",
    "Summarizer": "hermes_core.engine.summarizer",
    "SummaryError": "hermes_core.engine.summarizer",
    "SummaryRequest": "hermes_core.engine.summarizer",
    "SummaryResult": "hermes_core.engine.summarizer",
}

__all__ = [
    "AsyncSession",
    "CompactionReport",
    "CompactionResult",
    "ConfigError",
    "ConfigMigration",
    "ContextEngine",
    "HermesConfig",
    "MemoryProvider",
    "PluginContext",
    "PluginHost",
    "PromptContext",
    "PromptSection",
    "Session",
    "Summarizer",
    "SummaryError",
    "SummaryRequest",
    "SummaryResult",
    "TurnReport",
    "__version__",
    "build_host",
    "hookimpl",
    "load_config",
]

if TYPE_CHECKING:
    from hermes_core.config.models import HermesConfig, load_config
    from hermes_core.config.raw import ConfigError
    from hermes_core.engine.base import ContextEngine
    from hermes_core.engine.summarizer import Summarizer, SummaryError, SummaryRequest, SummaryResult
    from hermes_core.hookspecs import hookimpl
    from hermes_core.memory.base import MemoryProvider
    from hermes_core.plugin.context import PluginContext
    from hermes_core.plugin.host import PluginHost, build_host
    from hermes_core.records import (
        CompactionReport,
        CompactionResult,
        ConfigMigration,
        PromptContext,
        PromptSection,
        TurnReport,
    )
    from hermes_core.session.async_session import AsyncSession
    from hermes_core.session.session import Session


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'hermes_core' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
