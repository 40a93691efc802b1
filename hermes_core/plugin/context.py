"""What the host hands an engine or provider when it builds one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hermes_core.config.models import HermesConfig
    from hermes_core.engine.summarizer import Summarizer
    from hermes_core.text.scanning import Finding


@dataclass
class PluginContext:
    """Everything a plugin object may read at construction.

    ``settings`` is the plugin's own config section (``plugins.<name>`` in config.yaml),
    validated against the class's ``config_model`` when it declares one, else a dict.
    ``summarizer`` is the backend selected by ``auxiliary.summarizer``; engines call it
    instead of talking to a model themselves; ``fallback_summarizer`` is the offline one
    (``deterministic``) to use when the selected one fails. ``pre_compress(messages)`` asks the memory
    providers what a summary of ``messages`` must keep (their ``on_pre_compress``); an
    engine calls it right before it summarizes and folds the text into the summary input
    (general plugins answer there too, through ``hermes_compaction_started``).
    ``memory_written(action, target, content)`` is what the built-in memory tool calls after
    each successful edit: the host mirrors it to the other providers' ``on_memory_write``
    and to the session's event log, so the core never parses that tool's arguments.
    ``scan(text, source)`` runs every registered injection detector (``hermes_scan_text``, the
    built-in rules included) through the host, each isolated and time-bounded, and returns
    the combined findings; the built-in memory tool calls it on every write. ``None`` outside a host.
    """

    home: Path
    config: HermesConfig
    settings: Any = field(default_factory=dict)
    summarizer: Summarizer | None = None
    fallback_summarizer: Summarizer | None = None
    pre_compress: Callable[[list[dict[str, Any]]], str] = field(default=lambda messages: "")
    memory_written: Callable[[str, str, str], None] = field(default=lambda action, target, content: None)
    scan: Callable[[str, str], list[Finding]] | None = None
    extras: dict[str, Any] = field(default_factory=dict)

    @property
    def model(self) -> str:
        return self.config.model.name

    @property
    def context_length(self) -> int:
        return self.config.model.context_length

    @classmethod
    def default(cls, home: Path | None = None, **overrides: Any) -> PluginContext:
        """A context with default config, for tests and scripts."""
        from hermes_core.config.models import HermesConfig
        from hermes_core.config.paths import hermes_home

        config = overrides.pop("config", None) or HermesConfig()
        return cls(home=home or hermes_home(), config=config, **overrides)
