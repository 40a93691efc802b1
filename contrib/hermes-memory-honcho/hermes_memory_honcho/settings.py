"""The ``plugins.honcho`` section of config.yaml."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

SessionStrategy = Literal["per-session", "per-directory", "per-repo", "global"]
RecallMode = Literal["hybrid", "context", "tools"]
ReasoningLevel = Literal["minimal", "low", "medium", "high", "max"]
PRODUCTION_URL = "https://api.honcho.dev"
ID_PATTERN = re.compile(r"^[a-zA-Z0-9_-]+$")  # the server's own rule for workspace, peer and session ids
ID_MAX = 512
SERVER_MAX_CHARS = 25_000  # the server refuses longer message content (422)


class HonchoSettings(BaseModel):
    """Where Honcho is, who talks, and how hard to try.

    Timeouts are short on purpose: every network call runs off the turn's thread, and a
    write that fails waits in the local outbox, so a slow server costs nothing but delay.
    """

    model_config = ConfigDict(extra="forbid")

    base_url: str = Field("", description="Honcho server URL; empty means the hosted API")
    api_key_env: str = Field("HONCHO_API_KEY", description="environment variable holding the API key")
    workspace: str = Field("hermes", min_length=1)
    user_peer: str = Field("user", min_length=1)
    assistant_peer: str = Field("hermes", min_length=1)
    session_strategy: SessionStrategy = "per-directory"
    recall_mode: RecallMode = "hybrid"
    timeout: float = Field(5.0, gt=0, description="seconds per HTTP request")
    first_turn_wait: float = Field(0.5, ge=0, description="how long the first prefetch may wait for recall")
    context_chars: int = Field(4000, ge=200, description="budget of the recalled-context block")
    dialectic: bool = Field(False, description="also ask Honcho's dialectic for an answer each turn")
    dialectic_max_chars: int = Field(600, ge=50)
    reasoning_level: ReasoningLevel = "low"
    dialectic_timeout: float = Field(30.0, gt=0, description="seconds for one dialectic answer (an LLM call)")
    message_max_chars: int = Field(SERVER_MAX_CHARS, ge=100, le=SERVER_MAX_CHARS,
                                   description="longer messages are split; the server takes at most 25,000")
    redact_secrets: bool = Field(True, description="replace API keys, passwords and tokens before sending")
    outbox_max_pending: int = Field(10_000, ge=10, description="queued turns kept during an outage; "
                                    "past it the oldest queued turns are dropped (conclusions never)")
    mirror_user_memory: bool = Field(True, description="mirror built-in USER.md additions as conclusions")
    outbox_path: str = Field("", description="durable outbox file; default $HERMES_HOME/honcho/outbox.sqlite3")
    retry_initial: float = Field(0.5, gt=0)
    retry_max: float = Field(30.0, gt=0)
    flush_wait: float = Field(3.0, ge=0, description="how long session end and shutdown wait for delivery")

    @field_validator("workspace", "user_peer", "assistant_peer")
    @classmethod
    def _honcho_id(cls, value: str) -> str:
        if not ID_PATTERN.fullmatch(value) or len(value) > ID_MAX:
            hint = re.sub(r"[^a-zA-Z0-9_-]+", "_", value).strip("_")[:ID_MAX] or "hermes"
            raise ValueError(f"{value!r} is not a valid Honcho id: use 1-{ID_MAX} letters, digits, '_' or '-' "
                             f"(the server refuses anything else), e.g. {hint!r}")
        return value

    @property
    def api_key(self) -> str | None:
        return os.environ.get(self.api_key_env) or None

    @property
    def url(self) -> str:
        """The base URL without a trailing ``/v3`` (the SDK adds it)."""
        url = (self.base_url or PRODUCTION_URL).rstrip("/")
        return url[: -len("/v3")] if url.endswith("/v3") else url

    def configured(self) -> tuple[bool, str]:
        """Configured = a base URL, or an API key in the environment (hosted API)."""
        if self.base_url or self.api_key:
            return True, ""
        return False, f"set plugins.honcho.base_url or the {self.api_key_env} environment variable"

    def outbox_file(self, home: Path) -> Path:
        return Path(self.outbox_path).expanduser() if self.outbox_path else home / "honcho" / "outbox.sqlite3"
