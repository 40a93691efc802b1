"""An example memory provider: every finished turn in a local SQLite file, recalled by keyword.

Everything a third-party provider needs is here: a MemoryProvider subclass, a pydantic
model for its config section (``plugins.example``), ``is_available`` that never touches the
network (``hermes-core doctor`` calls ``get_status()`` and ``is_available()`` before
``initialize()``), slow work off the turn (``queue_prefetch`` fills what ``prefetch``
returns at once), and ``shutdown`` that is safe to call twice.
"""

from __future__ import annotations

import sqlite3
import threading
from typing import Any

from pydantic import BaseModel, Field

from hermes_core import MemoryProvider


class ExampleSettings(BaseModel):
    """``plugins.example`` in config.yaml."""

    database: str = Field("example-memory.sqlite3", description="file under $HERMES_HOME")
    recall_limit: int = Field(3, ge=1, le=20, description="how many earlier turns to recall")


class ExampleMemory(MemoryProvider):
    config_model = ExampleSettings

    def __init__(self, ctx: Any = None) -> None:
        super().__init__(ctx)
        self._db: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        self._recalled = ""
        self.session_id = ""

    @property
    def settings(self) -> ExampleSettings:
        s = self.ctx.settings
        return s if isinstance(s, ExampleSettings) else ExampleSettings.model_validate(s or {})

    @property
    def name(self) -> str:
        return "example"

    def is_available(self) -> tuple[bool, str]:
        return True, ""  # a real provider checks its key or URL here, without network calls

    def get_status(self, probe: bool = False) -> dict[str, Any]:
        return {"name": self.name, "connected": self._db is not None,  # may run before initialize()
                "database": str(self.ctx.home / self.settings.database)}

    def initialize(self, session_id: str) -> None:
        self.session_id = session_id
        if self._db is None:
            self._db = sqlite3.connect(self.ctx.home / self.settings.database, check_same_thread=False)
            self._db.execute("CREATE TABLE IF NOT EXISTS turns (session TEXT, user TEXT, assistant TEXT)")

    def sync_turn(self, user_content: str, assistant_content: str) -> None:
        if self._db is None:
            return
        with self._lock, self._db:
            self._db.execute("INSERT INTO turns VALUES (?, ?, ?)", (self.session_id, user_content, assistant_content))

    def queue_prefetch(self, query: str) -> None:
        self._recalled = self._search(query)  # cheap here; a networked provider starts a thread

    def prefetch(self, query: str) -> str:
        return self._recalled or self._search(query)

    def _search(self, query: str) -> str:
        words = [w for w in query.lower().split() if 3 < len(w) <= 40][:8]  # LIKE patterns have a size limit
        if self._db is None or not words:
            return ""
        where = " OR ".join("lower(user) LIKE ?" for _ in words)
        try:
            with self._lock:
                rows = self._db.execute(f"SELECT user, assistant FROM turns WHERE {where} ORDER BY rowid DESC "
                                        "LIMIT ?", [*(f"%{w}%" for w in words), self.settings.recall_limit]).fetchall()
        except sqlite3.Error:  # recall is best effort: a failed lookup must not cost the turn
            return ""
        return "\n".join(f"- earlier: {user} -> {assistant}" for user, assistant in rows)

    def shutdown(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
