"""Small typed records that cross the plugin boundary.

Plain dataclasses: they are created on hot paths (every prompt build, every compaction)
and must stay cheap. Pydantic lives at the edges (config, tool arguments, CLI reports).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from hermes_core.config.models import HermesConfig

PluginKind = Literal["context_engine", "memory_provider", "plugin"]
PluginStatus = Literal["active", "available", "disabled", "failed"]
SummarySource = Literal["llm", "fallback", "deterministic", "none"]


@dataclass
class PluginInfo:
    """One row of ``hermes-core plugins``: what is installed and what became of it."""

    name: str
    kind: PluginKind
    distribution: str
    version: str
    status: PluginStatus = "available"
    error: str = ""
    source: str = "entry point"  # "entry point", "drop-in", "builtin" or "in-process"
    target: str = ""  # "module:attr" for entry points, a directory for drop-ins

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class PromptContext:
    """What a system-prompt section may depend on. Equal contexts give equal prompts."""

    home: Path
    cwd: Path
    platform: str = "cli"
    model: str = ""
    config: HermesConfig | None = None
    memory_blocks: tuple[str, ...] = ()
    compacted: bool = False


@dataclass
class PromptSection:
    """One part of the system prompt.

    ``order`` places it (identity 100, platform 200, skills 300, context files 400,
    memory 500, guidance 600, others 700); ``findings`` lists what was blocked, skipped
    or truncated, for reports and ``doctor``.
    """

    name: str
    text: str
    order: int = 700
    source: str = ""
    findings: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class CompactionReport:
    """Before/after figures of one compaction, passed to ``hermes_compaction_finished``."""

    engine: str
    session_id: str
    tokens_before: int
    tokens_after: int
    messages_before: int
    messages_after: int
    summary_source: SummarySource = "none"
    duration_s: float = 0.0
    forced: bool = False
    focus_topic: str | None = None
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class ConfigMigration:
    """A one-time change to the raw config mapping, offered by a plugin.

    ``apply`` mutates the mapping in place and returns True when it changed something.
    The host runs it at most once per ``$HERMES_HOME`` (keyed by ``id``).
    """

    id: str
    description: str
    apply: Callable[[dict[str, Any]], bool]
