"""The engine's own section of config.yaml (``plugins.lcm``)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

#: ``db_path`` value for a store that lives in memory and is gone when the process ends.
SCRATCH = ":memory:"


class LCMSettings(BaseModel):
    """Tuning for the LCM engine. Unknown keys are errors so typos do not pass silently."""

    model_config = ConfigDict(extra="forbid")

    #: SQLite file; empty means ``$HERMES_HOME/lcm.db``; a relative path is under ``$HERMES_HOME``;
    #: ``:memory:`` is a scratch store (also chosen by env ``HERMES_LCM_SCRATCH=1``).
    db_path: str = ""
    #: ``normal``: WAL with synchronous=NORMAL (a power cut may lose the last commits, never
    #: corrupts); ``full``: synchronous=FULL (every commit survives a power cut; slower ingest).
    durability: Literal["normal", "full"] = "normal"
    #: Overrides ``context.threshold_percent`` when set.
    threshold_percent: float | None = Field(None, gt=0, le=1)
    #: Recent raw messages kept verbatim after a compaction, at most this many tokens ...
    fresh_tail_tokens: int = Field(8000, ge=0)
    #: ... and at most this share of the threshold (so small windows still converge).
    fresh_tail_ratio: float = Field(0.35, gt=0, lt=1)
    #: A compaction aims for this share of the threshold, so the next one is not due at once.
    target_ratio: float = Field(0.6, gt=0, le=1)
    #: Raw messages per leaf summary, in tokens; a compaction writes at most ``max_leaf_calls``
    #: leaves (a longer span is split evenly), so it costs at most that many summary calls
    #: plus one condensation.
    leaf_chunk_tokens: int = Field(20_000, gt=0)
    max_leaf_calls: int = Field(1, ge=1)
    leaf_summary_tokens: int = Field(1200, gt=0)
    condensed_summary_tokens: int = Field(1600, gt=0)
    #: Same-depth summaries condensed into one of the next depth.
    condensation_fanin: int = Field(4, ge=2)
    max_depth: int = Field(4, ge=0)
    #: Tool outputs longer than this are replaced in the active context by a reference.
    large_output_chars: int = Field(12_000, gt=0)
    #: Characters per page when the tools return stored outputs.
    page_chars: int = Field(4000, gt=0)
    #: Bounds on one compaction: summary calls and wall time (then deterministic).
    max_summary_calls: int = Field(24, ge=0)
    compaction_deadline_s: float = Field(60.0, gt=0)
    #: Messages added to the full-text index per batch: larger ingests faster, smaller makes
    #: the first search after a burst of messages (which indexes what is pending) quicker.
    index_batch: int = Field(512, ge=1)
    #: How long a writer waits for another process holding the database.
    busy_timeout_ms: int = Field(5000, ge=0)

    def resolved_db_path(self, home: Path) -> Path:
        if self.db_path == SCRATCH:
            return Path(SCRATCH)
        return home / Path(self.db_path).expanduser() if self.db_path else home / "lcm.db"
