"""The immutable message store: every message verbatim, stable ids, a full-text index.

:class:`Store` is the small interface the engine needs, so a server database could back
it; :class:`SQLiteStore` is the embedded default (one file, WAL, FTS5).

Ids are assigned by position at ingest (``(session_id, seq)`` unique, ``id`` global and
increasing) and are never looked up by content, so duplicate messages stay distinct.
A message is stored as its ``content`` string plus a JSON ``meta`` of the other keys (with
``content`` kept as a placeholder so key order survives); :meth:`StoredMessage.message`
rebuilds the original dict exactly.

The full-text index is contentless (the text lives once, in ``messages``) and carries a
``meta`` column with a session token and a role token, so scoping a search is part of the
FTS query and ``ORDER BY rowid DESC LIMIT k`` stops after k hits however common the word.
It is filled in batches (an FTS5 commit costs far more than the rows it adds): a turn's
messages are durable when ``append`` returns, and a search first indexes what is pending.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from hermes_core.text.messages import text_of
from hermes_core.text.tokens import estimate_message_tokens

if TYPE_CHECKING:
    from hermes_context_lcm.dag import NewSummary

Message = dict[str, Any]
SCHEMA_VERSION = 2  # 2 added layouts (additive: CREATE ... IF NOT EXISTS)

SCHEMA = """
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL,
    content TEXT,
    meta TEXT NOT NULL,
    tokens INTEGER NOT NULL,
    created_at REAL NOT NULL,
    UNIQUE (session_id, seq)
);
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(meta, body, content='', columnsize=0);
CREATE TABLE IF NOT EXISTS summaries (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    depth INTEGER NOT NULL,
    content TEXT NOT NULL,
    hint TEXT NOT NULL,
    tokens INTEGER NOT NULL,
    source TEXT NOT NULL,
    covers_kind TEXT NOT NULL,
    covers TEXT NOT NULL,
    first_message INTEGER NOT NULL,
    last_message INTEGER NOT NULL,
    message_count INTEGER NOT NULL,
    parent_id INTEGER,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS summaries_roots ON summaries (session_id, parent_id, id);
CREATE VIRTUAL TABLE IF NOT EXISTS summaries_fts USING fts5(meta, body, content='', columnsize=0);
CREATE TABLE IF NOT EXISTS state (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS layouts (session_id TEXT PRIMARY KEY, layout TEXT NOT NULL, upto INTEGER NOT NULL);
INSERT OR IGNORE INTO state (key, value) VALUES ('fts_upto', 0);
"""


class StoreError(Exception):
    """The store cannot do what was asked; the message names the file and the cause.

    ``kind`` is ``corrupt`` (not a database / malformed), ``busy`` (locked by another
    process past the timeout), ``full`` (disk or size limit) or ``other``.
    """

    def __init__(self, message: str, kind: str = "other") -> None:
        super().__init__(message)
        self.kind = kind


def _store_error(path: str, action: str, exc: BaseException) -> StoreError:
    text = str(exc).lower()
    kind = "other"
    if "not a database" in text or "malformed" in text or "file is encrypted" in text:
        kind = "corrupt"
    elif "locked" in text or "busy" in text:
        kind = "busy"
    elif "full" in text or (isinstance(exc, OSError) and getattr(exc, "errno", None) == 28):
        kind = "full"
    return StoreError(f"{path}: {action}: {exc}", kind)


class StoredMessage(NamedTuple):
    id: int
    session_id: str
    seq: int
    role: str
    content: str | None
    meta: str
    tokens: int
    created_at: float

    def message(self) -> Message:
        """The original message dict, equal to what was ingested (same key order)."""
        msg: Message = json.loads(self.meta)
        if self.content is not None:
            msg["content"] = self.content
        return msg

    def text(self) -> str:
        """The searchable text: content plus tool-call names and arguments."""
        return search_text(self.message())


@dataclass(frozen=True)
class SummaryRow:
    id: int
    session_id: str
    depth: int
    content: str
    hint: str
    tokens: int
    source: str
    covers_kind: str  # "messages" | "summaries"
    covers: tuple[int, ...]
    first_message: int
    last_message: int
    message_count: int
    parent_id: int | None
    created_at: float


class Store(Protocol):
    """What the engine and the tools need from storage."""

    path: str

    def append(self, session_id: str, messages: Sequence[Message]) -> list[int]: ...
    def flush_index(self) -> None: ...
    def get_messages(self, ids: Sequence[int]) -> list[StoredMessage]: ...
    def session_messages(self, session_id: str, after_id: int = 0, limit: int = 100) -> list[StoredMessage]: ...
    def search_messages(self, match: str, limit: int, offset: int = 0) -> list[int]: ...
    def search_summaries(self, match: str, limit: int, offset: int = 0) -> list[int]: ...
    def scan_messages(self, session_id: str | None, before_id: int | None, limit: int) -> list[StoredMessage]: ...
    def add_summary(self, summary: NewSummary, children: Sequence[int] = ()) -> int: ...
    def get_summaries(self, ids: Sequence[int]) -> list[SummaryRow]: ...
    def roots(self, session_id: str) -> list[SummaryRow]: ...
    def all_summaries(self, session_id: str | None) -> list[SummaryRow]: ...
    def session_size(self, session_id: str) -> int: ...
    def save_layout(self, session_id: str, layout: Any, upto: int) -> None: ...
    def load_layout(self, session_id: str) -> tuple[Any, int] | None: ...
    def stats(self, session_id: str | None) -> dict[str, Any]: ...
    def close(self) -> None: ...


def session_token(session_id: str) -> str:
    """One FTS token per session (ids may hold any characters)."""
    return "s" + hashlib.sha1(session_id.encode("utf-8")).hexdigest()[:16]


def role_token(role: str) -> str:
    return "r" + "".join(ch for ch in role if ch.isalnum())


def search_text(msg: Message) -> str:
    """What a search sees of a message: its text and its tool calls."""
    parts = [text_of(msg.get("content"))]
    for call in msg.get("tool_calls") or ():
        fn = call.get("function") if isinstance(call, dict) else None
        if isinstance(fn, dict):
            args = fn.get("arguments")
            parts.append(f"{fn.get('name') or ''} {args if isinstance(args, str) else json.dumps(args)}")
    return "\n".join(p for p in parts if p)


_PLAIN_META: dict[str, str] = {}


def split_message(msg: Message) -> tuple[str | None, str]:
    """``(content, meta)``: a string content apart, the rest as JSON with a placeholder."""
    content = msg.get("content")
    if isinstance(content, str):
        role = msg.get("role")
        if len(msg) == 2 and isinstance(role, str) and next(iter(msg)) == "role":  # the common shape, cached
            meta = _PLAIN_META.get(role)
            if meta is None:
                meta = _PLAIN_META.setdefault(role, json.dumps({"role": role, "content": None}, ensure_ascii=False))
            return content, meta
        return content, json.dumps({**msg, "content": None}, ensure_ascii=False)
    return None, json.dumps(msg, ensure_ascii=False, default=str)


class SQLiteStore:
    """The embedded store. Thread-safe (one connection behind a lock); many processes may
    share the file (WAL, ``BEGIN IMMEDIATE`` writes, a busy timeout)."""

    def __init__(self, path: Path | str, *, busy_timeout_ms: int = 5000, index_batch: int = 512) -> None:
        self.path = str(path)
        self.index_batch = index_batch
        self._lock = threading.RLock()
        # Write positions cached between transactions (see _positions).
        self._version: int | None = None
        self._next_id = 1
        self._next_seq: dict[str, int] = {}
        self._fts_upto = 0
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                                        timeout=busy_timeout_ms / 1000)
            self.conn.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
            version = self.conn.execute("PRAGMA user_version").fetchone()[0]
            if self.conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            if version != SCHEMA_VERSION:
                self._create_schema()
        except (sqlite3.Error, OSError) as exc:
            raise _store_error(self.path, "cannot open the LCM store", exc) from None

    def _create_schema(self) -> None:
        with self._write() as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(f"{self.path}: written by a newer hermes-context-lcm (schema {version})")
            if version < SCHEMA_VERSION:
                for statement in filter(str.strip, SCHEMA.split(";")):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken up front so concurrent writers queue on the lock."""
        with self._lock:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise _store_error(self.path, "cannot write", exc) from None
            try:
                yield self.conn
                self.conn.execute("COMMIT")
            except BaseException as exc:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise _store_error(self.path, "cannot write", exc) from None
                raise

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            try:
                return self.conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise _store_error(self.path, "cannot read", exc) from None

    # -- messages --------------------------------------------------------------------

    def append(self, session_id: str, messages: Sequence[Message]) -> list[int]:
        """Store ``messages`` at the end of the session in one transaction; their ids."""
        if not messages:
            return []
        now = time.time()
        rows = []
        for msg in messages:
            content, meta = split_message(msg)
            rows.append((session_id, str(msg.get("role") or ""), content, meta, estimate_message_tokens(msg), now))
        try:
            with self._write() as conn:
                first_id, first_seq = self._positions(conn, session_id)
                ids = list(range(first_id, first_id + len(rows)))
                conn.executemany(
                    "INSERT INTO messages (id, session_id, seq, role, content, meta, tokens, created_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [(mid, r[0], first_seq + i, *r[1:]) for i, (mid, r) in enumerate(zip(ids, rows, strict=True))],
                )
                upto = self._index_pending(conn, ids[-1], self.index_batch)
        except BaseException:
            self._version = None  # positions are re-read next time
            raise
        self._next_id, self._next_seq[session_id], self._fts_upto = ids[-1] + 1, first_seq + len(rows), upto
        return ids

    def _positions(self, conn: sqlite3.Connection, session_id: str) -> tuple[int, int]:
        """Next id and next seq of ``session_id``, re-read only when another connection wrote.

        ``PRAGMA data_version`` changes exactly when someone else committed, so a single
        writer (the common case) skips three lookups per turn.
        """
        version = conn.execute("PRAGMA data_version").fetchone()[0]
        if version != self._version:
            self._version = version
            self._next_id = (conn.execute("SELECT max(id) FROM messages").fetchone()[0] or 0) + 1
            self._next_seq = {}
            self._fts_upto = conn.execute("SELECT value FROM state WHERE key = 'fts_upto'").fetchone()[0]
        seq = self._next_seq.get(session_id)
        if seq is None:
            last = conn.execute("SELECT max(seq) FROM messages WHERE session_id = ?", (session_id,)).fetchone()[0]
            seq = 0 if last is None else last + 1
        return self._next_id, seq

    def _index_pending(self, conn: sqlite3.Connection, last_id: int, at_least: int) -> int:
        """Add messages after the index watermark to the FTS index once enough wait; the new mark."""
        upto = self._fts_upto
        if last_id - upto < max(at_least, 1):
            return upto
        rows = conn.execute(
            f"SELECT {self._COLUMNS} FROM messages WHERE id > ? AND id <= ? ORDER BY id", (upto, last_id)
        ).fetchall()
        conn.executemany(
            "INSERT INTO messages_fts (rowid, meta, body) VALUES (?, ?, ?)",
            [(m.id, f"{session_token(m.session_id)} {role_token(m.role)}", m.text())
             for m in map(StoredMessage._make, rows)],
        )
        conn.execute("UPDATE state SET value = ? WHERE key = 'fts_upto'", (last_id,))
        return last_id

    def flush_index(self) -> None:
        """Index every stored message now (searches call this first)."""
        with self._lock:
            last_id = self.conn.execute("SELECT max(id) FROM messages").fetchone()[0] or 0
            upto = self.conn.execute("SELECT value FROM state WHERE key = 'fts_upto'").fetchone()[0]
            if last_id <= upto:
                return
            try:
                with self._write() as conn:
                    self._positions(conn, "")
                    self._fts_upto = self._index_pending(conn, self._next_id - 1, 1)
            except BaseException:
                self._version = None
                raise

    _COLUMNS = "id, session_id, seq, role, content, meta, tokens, created_at"

    def get_messages(self, ids: Sequence[int]) -> list[StoredMessage]:
        """Messages by id, in the order asked; unknown ids are left out."""
        found: dict[int, StoredMessage] = {}
        wanted = list(dict.fromkeys(int(i) for i in ids))
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for row in self._read(f"SELECT {self._COLUMNS} FROM messages WHERE id IN ({marks})", chunk):
                found[row[0]] = StoredMessage(*row)
        return [found[i] for i in wanted if i in found]

    def session_messages(self, session_id: str, after_id: int = 0, limit: int = 100) -> list[StoredMessage]:
        rows = self._read(
            f"SELECT {self._COLUMNS} FROM messages WHERE session_id = ? AND id > ? ORDER BY seq LIMIT ?",
            (session_id, after_id, limit),
        )
        return [StoredMessage(*r) for r in rows]

    def scan_messages(self, session_id: str | None, before_id: int | None, limit: int) -> list[StoredMessage]:
        """Newest first, for regex scans that page by id."""
        before = before_id if before_id is not None else 1 << 62
        if session_id is None:
            rows = self._read(f"SELECT {self._COLUMNS} FROM messages WHERE id < ? ORDER BY id DESC LIMIT ?",
                              (before, limit))
        else:
            rows = self._read(
                f"SELECT {self._COLUMNS} FROM messages WHERE session_id = ? AND id < ? ORDER BY seq DESC LIMIT ?",
                (session_id, before, limit),
            )
        return [StoredMessage(*r) for r in rows]

    def search_messages(self, match: str, limit: int, offset: int = 0) -> list[int]:
        """Ids of messages matching an FTS5 expression, newest first, one page."""
        return self._search("messages_fts", match, limit, offset)

    def search_summaries(self, match: str, limit: int, offset: int = 0) -> list[int]:
        return self._search("summaries_fts", match, limit, offset)

    def _search(self, table: str, match: str, limit: int, offset: int) -> list[int]:
        if table == "messages_fts":
            self.flush_index()
        sql = f"SELECT rowid FROM {table} WHERE {table} MATCH ? ORDER BY rowid DESC LIMIT ? OFFSET ?"
        with self._lock:
            try:
                rows = self.conn.execute(sql, (match, limit, offset)).fetchall()
            except sqlite3.OperationalError as exc:
                if "locked" in str(exc) or "busy" in str(exc):
                    raise _store_error(self.path, "cannot search", exc) from None
                raise ValueError(f"bad full-text query {match!r}: {exc}") from None
            except sqlite3.Error as exc:
                raise _store_error(self.path, "cannot search", exc) from None
        return [r[0] for r in rows]

    # -- summaries --------------------------------------------------------------------

    _SUMMARY_COLUMNS = ("id, session_id, depth, content, hint, tokens, source, covers_kind, covers,"
                        " first_message, last_message, message_count, parent_id, created_at")

    def add_summary(self, summary: NewSummary, children: Sequence[int] = ()) -> int:
        """Persist a summary and, in the same transaction, mark ``children`` as condensed."""
        with self._write() as conn:
            cur = conn.execute(
                "INSERT INTO summaries (session_id, depth, content, hint, tokens, source, covers_kind, covers,"
                " first_message, last_message, message_count, parent_id, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)",
                (summary.session_id, summary.depth, summary.content, summary.hint, summary.tokens, summary.source,
                 summary.covers_kind, json.dumps(summary.covers), summary.first_message, summary.last_message,
                 summary.message_count, time.time()),
            )
            sid = int(cur.lastrowid or 0)
            conn.execute(
                "INSERT INTO summaries_fts (rowid, meta, body) VALUES (?, ?, ?)",
                (sid, f"{session_token(summary.session_id)} d{summary.depth}", f"{summary.content}\n{summary.hint}"),
            )
            if children:
                marks = ",".join("?" * len(children))
                conn.execute(f"UPDATE summaries SET parent_id = ? WHERE id IN ({marks})", (sid, *children))
        return sid

    def _summaries(self, where: str, params: Sequence[Any]) -> list[SummaryRow]:
        rows = self._read(f"SELECT {self._SUMMARY_COLUMNS} FROM summaries WHERE {where}", params)
        return [
            SummaryRow(*r[:8], tuple(json.loads(r[8])), *r[9:])  # type: ignore[call-arg]
            for r in rows
        ]

    def get_summaries(self, ids: Sequence[int]) -> list[SummaryRow]:
        wanted = list(dict.fromkeys(int(i) for i in ids))
        if not wanted:
            return []
        found = {s.id: s for s in self._summaries(f"id IN ({','.join('?' * len(wanted))})", wanted)}
        return [found[i] for i in wanted if i in found]

    def roots(self, session_id: str) -> list[SummaryRow]:
        """Summaries not yet condensed into a higher one, oldest first."""
        return self._summaries("session_id = ? AND parent_id IS NULL ORDER BY id", (session_id,))

    def all_summaries(self, session_id: str | None) -> list[SummaryRow]:
        if session_id is None:
            return self._summaries("1 ORDER BY id", ())
        return self._summaries("session_id = ? ORDER BY id", (session_id,))

    # -- the active context, for resuming a session in a new process -------------------

    def save_layout(self, session_id: str, layout: Any, upto: int) -> None:
        """What the engine last returned for the session, by id, and the last id it held."""
        with self._write() as conn:
            conn.execute("INSERT OR REPLACE INTO layouts (session_id, layout, upto) VALUES (?, ?, ?)",
                         (session_id, json.dumps(layout), upto))

    def load_layout(self, session_id: str) -> tuple[Any, int] | None:
        rows = self._read("SELECT layout, upto FROM layouts WHERE session_id = ?", (session_id,))
        return (json.loads(rows[0][0]), int(rows[0][1])) if rows else None

    # -- status -----------------------------------------------------------------------

    def session_size(self, session_id: str) -> int:
        """How many messages the session has stored."""
        row = self._read("SELECT max(seq) FROM messages WHERE session_id = ?", (session_id,))[0][0]
        return 0 if row is None else int(row) + 1

    def stats(self, session_id: str | None) -> dict[str, Any]:
        total = self._read("SELECT max(id) FROM messages")[0][0] or 0
        size = sum(Path(f"{self.path}{suffix}").stat().st_size for suffix in ("", "-wal")
                   if Path(f"{self.path}{suffix}").is_file())
        out: dict[str, Any] = {"db_path": self.path, "db_bytes": size, "messages_total": total}
        if session_id is not None:
            out["messages_session"] = self.session_size(session_id)
            depths = self._read(
                "SELECT depth, count(*), sum(parent_id IS NULL) FROM summaries WHERE session_id = ? GROUP BY depth",
                (session_id,),
            )
            out["summaries_by_depth"] = {f"d{d}": {"count": n, "uncondensed": u} for d, n, u in depths}
        return out

    def close(self) -> None:
        with self._lock:
            self.conn.close()
