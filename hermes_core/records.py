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
class CompactionResult:
    """What one ``compress()`` produced: the new messages, where the summary came from, the figures.

    An engine returns one from :meth:`~hermes_core.ContextEngine.compress` (usually through
    :meth:`~hermes_core.ContextEngine.result`) with ``messages``, ``summary``,
    ``summary_source`` and ``note``; the host fills in the figures and hands the same
    object to ``hermes_compaction_finished`` observers, to the session and to
    ``compact --json``. ``changed`` is false when the messages came back as they were
    (``note`` then says why: the engine declined, failed, or returned an unusable list).
    """

    messages: list[dict[str, Any]] = field(default_factory=list)
    summary: str = ""
    summary_source: SummarySource = "none"
    note: str = ""
    engine: str = ""
    session_id: str = ""
    tokens_before: int = 0
    tokens_after: int = 0
    messages_before: int = 0
    messages_after: int = 0
    duration_s: float = 0.0
    forced: bool = False
    focus_topic: str | None = None
    changed: bool = True
    repairs: tuple[str, ...] = ()  # what the host fixed in the engine's list (tool pairs)

    @property
    def reason(self) -> str:
        """The note, under the name compaction reports used before results were typed."""
        return self.note

    def to_dict(self, *, with_messages: bool = False) -> dict[str, Any]:
        """The figures as JSON-able data; the messages only when asked for."""
        data = {k: v for k, v in asdict(self).items() if k != "messages"}
        if with_messages:
            data["messages"] = self.messages
        return data


#: The figures of a compaction are part of its result; the old name stays for observers.
CompactionReport = CompactionResult


@dataclass
class TurnReport:
    """One finished turn, passed to ``hermes_turn_finished`` observers."""

    session_id: str
    turn: int
    user_content: str
    assistant_content: str
    tool_calls: int = 0
    usage: dict[str, Any] = field(default_factory=dict)
    compactions: int = 0  # compactions that ran during the turn

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
