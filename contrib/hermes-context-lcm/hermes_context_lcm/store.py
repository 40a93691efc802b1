"""The immutable message store: every message verbatim, stable ids, a full-text index.

:class:`Store` is the small interface the engine needs, so a server database could back
it; :class:`SQLiteStore` is the embedded default (one file, WAL, FTS5).

**What is stored.** A message is its ``content`` plus a JSON ``meta`` of the other keys; see
:mod:`hermes_context_lcm.codec` for the encoding that takes anything an agent can produce
(lone surrogates, NUL, any nesting depth) and gives it back exactly.

Session ids and roles are stored as :func:`file_key` gives them (a lone surrogate, which
SQLite cannot bind, escaped; see :func:`hermes_context_lcm.codec.escape_key`) and read back exactly.

**Identity.** Ids are assigned at ingest (``(session_id, seq)`` unique, ``id`` global and
increasing). Each message also gets a content identity: a hash of its session, the identity
of the message before it in the conversation, and its own encoded form, under a UNIQUE
constraint. Appending a message whose identity exists returns the existing id, so
re-ingesting a transcript (a replay run twice, a resumed crash, a host that re-sends the
history) stores nothing twice, while the same text said twice in a conversation (a
different predecessor) stays two messages.

**Search.** The full-text index is contentless (the text lives once, in ``messages``) with
three columns: ``meta`` (a session and a role token), ``body`` (the text's coarse form) and
``parts`` (the parts of its identifiers and their pairs; see :mod:`hermes_context_lcm.textindex`).
It is filled in batches (an FTS5 commit costs far more than the rows it adds): a turn's
messages are durable when ``append`` returns, and a search first indexes what is pending.
A query with up to ``RANK_LIMIT`` matches in scope is ranked by BM25 (equal scores newest
first); a more common one comes newest first, so it costs a bounded probe, never a score
for each of its thousands of matches.

**Failures.** A damaged file (found by a cheap check at open, or by any later error that
says so) is moved aside to ``lcm.db.corrupt-<time>`` and a new store started; a file deleted
while open is noticed before the next write and recreated. Both bump :attr:`generation`
and are listed by :meth:`SQLiteStore.health`, so the engine re-stores its live context.
Files are created 0600, directories 0700.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Protocol, TypeVar

from hermes_context_lcm import codec
from hermes_context_lcm.textindex import coarse_text, parts_text, query_forms, single_run_pairs
from hermes_core.text.messages import text_of
from hermes_core.text.tokens import estimate_message_tokens

if TYPE_CHECKING:
    from hermes_context_lcm.dag import NewSummary
    from hermes_context_lcm.query import Term, TextQuery

log = logging.getLogger("hermes_context_lcm")

Message = dict[str, Any]
T = TypeVar("T")
SCHEMA_VERSION = 3  # 2 added layouts; 3 added message identity and the finer index text
RANK_LIMIT = 50  # a query with up to this many matches is ranked by BM25; one with more, newest first
Durability = Literal["normal", "full"]

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
    ident BLOB,
    UNIQUE (session_id, seq)
);
CREATE UNIQUE INDEX IF NOT EXISTS messages_ident ON messages (ident);
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(meta, body, parts, content='', columnsize=0);
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
CREATE VIRTUAL TABLE IF NOT EXISTS summaries_fts USING fts5(meta, body, parts, content='', columnsize=0);
CREATE TABLE IF NOT EXISTS state (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS layouts (session_id TEXT PRIMARY KEY, layout TEXT NOT NULL, upto INTEGER NOT NULL);
INSERT OR IGNORE INTO state (key, value) VALUES ('fts_upto', 0);
"""

#: From schema 2: identity column, and both indexes rebuilt with the new body text
#: (messages are re-indexed lazily by the next search; summaries here).
MIGRATE_2_TO_3 = """
ALTER TABLE messages ADD COLUMN ident BLOB;
CREATE UNIQUE INDEX IF NOT EXISTS messages_ident ON messages (ident);
DROP TABLE IF EXISTS messages_fts;
CREATE VIRTUAL TABLE messages_fts USING fts5(meta, body, parts, content='', columnsize=0);
UPDATE state SET value = 0 WHERE key = 'fts_upto';
DROP TABLE IF EXISTS summaries_fts;
CREATE VIRTUAL TABLE summaries_fts USING fts5(meta, body, parts, content='', columnsize=0);
"""

class StoreError(Exception):
    """The store cannot do what was asked; the message names the file and the cause.

    ``kind``: ``corrupt`` (not a database / malformed), ``busy`` (locked by another process
    past the timeout), ``full`` (disk or size limit), ``readonly`` (no write permission),
    ``gone`` (the file was deleted), ``newer`` (a newer schema) or ``other``.
    """

    def __init__(self, message: str, kind: str = "other") -> None:
        super().__init__(message)
        self.kind = kind


def error_kind(exc: BaseException) -> str:
    text = str(exc).lower()
    if any(sign in text for sign in ("not a database", "malformed", "file is encrypted", "corrupt",
                                     "vtable constructor failed", "disk image")):
        return "corrupt"
    if "locked" in text or "busy" in text:
        return "busy"
    if "full" in text or (isinstance(exc, OSError) and getattr(exc, "errno", None) == 28):
        return "full"
    if "readonly" in text or "read-only" in text or "permission" in text or "unable to open" in text:
        return "readonly"
    if "disk i/o" in text:
        return "other"
    return "other"


def _store_error(path: str, action: str, exc: BaseException) -> StoreError:
    return StoreError(f"{path}: {action}: {exc}", error_kind(exc))


class StoredMessage(NamedTuple):
    id: int
    session_id: str
    seq: int
    role: str
    content: str | bytes | None
    meta: str
    tokens: int
    created_at: float

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> StoredMessage:
        """A ``messages`` row (``SQLiteStore._COLUMNS``), its keys as given at ingest."""
        if row[1].startswith(codec.KEY_ESCAPE) or row[3].startswith(codec.KEY_ESCAPE):
            row = (row[0], codec.unescape_key(row[1]), row[2], codec.unescape_key(row[3]), *row[4:])
        return cls._make(row)

    def message(self) -> Message:
        """The original message dict, equal to what was ingested (same key order)."""
        return codec.decode_message(self.content, self.meta)

    def text(self) -> str:
        """The searchable text: content plus tool-call names and arguments."""
        if isinstance(self.content, str) and len(self.meta) < 48 and self.meta.endswith('"content": null}') and (
                self.meta.count('"') == 6):  # {"role": "...", "content": null}: the text is the content
            return self.content
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
    """What the engine and the tools need from storage (see /work/coord/lcm-store-interface.md)."""

    path: str
    generation: int

    def append(self, session_id: str, messages: Sequence[Message],
               parents: Sequence[int | None] | None = None) -> list[int]: ...
    def flush_index(self) -> None: ...
    def get_messages(self, ids: Sequence[int]) -> list[StoredMessage]: ...
    def session_messages(self, session_id: str, after_id: int = 0, limit: int = 100) -> list[StoredMessage]: ...
    def search_messages(self, query: TextQuery, *, session_id: str | None = None, role: str | None = None,
                        limit: int = 10, offset: int = 0) -> list[int]: ...
    def search_summaries(self, query: TextQuery, *, session_id: str | None = None, limit: int = 10,
                         offset: int = 0) -> list[int]: ...
    def scan_messages(self, session_id: str | None, before_id: int | None, limit: int) -> list[StoredMessage]: ...
    def add_summary(self, summary: NewSummary, children: Sequence[int] = ()) -> int: ...
    def get_summaries(self, ids: Sequence[int]) -> list[SummaryRow]: ...
    def roots(self, session_id: str) -> list[SummaryRow]: ...
    def all_summaries(self, session_id: str | None) -> list[SummaryRow]: ...
    def session_size(self, session_id: str) -> int: ...
    def save_layout(self, session_id: str, layout: Any, upto: int) -> None: ...
    def load_layout(self, session_id: str) -> tuple[Any, int] | None: ...
    def stats(self, session_id: str | None) -> dict[str, Any]: ...
    def health(self) -> dict[str, Any]: ...
    def close(self) -> None: ...


def file_key(value: str) -> str:
    """A session id or role as the SQLite store's columns hold it (reversible; NUL kept as is)."""
    return codec.escape_key(value, nul=False)


def session_token(session_id: str) -> str:
    """One FTS token per session (ids may hold any characters)."""
    return "s" + hashlib.sha1(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:16]


@functools.lru_cache(maxsize=64)
def role_token(role: str) -> str:
    return "r" + "".join(ch for ch in role if ch.isalnum())


def _args_text(args: Any) -> str:
    """Tool-call arguments as searchable text (JSON-escaped non-ASCII decoded)."""
    if not isinstance(args, str):
        return codec.dumps(args) if args is not None else ""
    if "\\u" in args:
        try:
            decoded = codec.loads(args)
        except ValueError:
            return args
        return f"{args}\n{codec.dumps(decoded)}"
    return args


def search_text(msg: Message) -> str:
    """What a search sees of a message: its text and its tool calls (never raises)."""
    try:
        parts = [text_of(msg.get("content"))]
    except RecursionError:
        parts = [codec.dumps(msg.get("content"))]
    calls = msg.get("tool_calls")
    for call in calls if isinstance(calls, list | tuple) else ():
        fn = call.get("function") if isinstance(call, dict) else None
        if isinstance(fn, dict):
            parts.append(f"{fn.get('name') or ''} {_args_text(fn.get('arguments'))}")
    return "\n".join(p for p in parts if p)


def message_tokens(msg: Message) -> int:
    """The core's estimate; for a value too deep to walk, its encoded size."""
    try:
        return estimate_message_tokens(msg)
    except RecursionError:
        return len(codec.dumps(msg)) // 4 + 10


#: What ``append`` stores per message: role (as given: each store escapes its keys), content, meta, token estimate.
Row = tuple[str, str | bytes | None, str, int]


def encode_rows(messages: Sequence[Message], parents: Sequence[int | None] | None) -> list[Row]:
    """The rows both stores' ``append`` write, after checking ``parents`` against ``messages``."""
    if parents is not None and len(parents) != len(messages):
        raise ValueError("parents must have one entry per message")
    rows = []
    for msg in messages:
        content, meta = codec.encode_message(msg)
        rows.append((str(msg.get("role") or ""), content, meta, message_tokens(msg)))
    return rows


def split_message(msg: Message) -> tuple[str | bytes | None, str]:
    """``(content, meta)`` as stored (kept for callers of the old name)."""
    return codec.encode_message(msg)


def _identity(session_id: str, parent: bytes, content: str | bytes | None, meta: str) -> bytes:
    h = hashlib.blake2b(digest_size=16)
    h.update(session_id.encode("utf-8", "surrogatepass"))
    h.update(b"\0")
    h.update(parent)
    h.update(b"\0")
    if isinstance(content, bytes):
        h.update(b"b")
        h.update(content)
    elif content is not None:
        h.update(b"s")
        h.update(content.encode("utf-8"))
    h.update(b"\0")
    h.update(meta.encode("utf-8"))
    return h.digest()


def _fts_phrase(tokens: str, prefix: bool) -> str:
    return '"' + tokens.replace('"', '""') + '"' + ("*" if prefix else "")


def term_expression(term: Term) -> str:
    """One term as FTS5.

    * one identifier-like run of several parts (``getUserName``, ``1.2.3``, ``max_retry``):
      its pair tokens in ``parts`` (plus the whole word in ``body`` when it is one token);
    * otherwise its coarse form over ``body`` and ``parts`` (one pass over each token's list),
      or, when its fine form differs, coarse in ``body`` or fine in ``parts``.
    """
    coarse, fine = query_forms(term.text)
    pairs = single_run_pairs(term.text)
    if pairs:
        by_pairs = f"parts : {_fts_phrase(pairs, term.prefix)}"
        return by_pairs if " " in coarse else f"(body : {_fts_phrase(coarse, term.prefix)} OR {by_pairs})"
    if coarse == fine:
        return f"{{body parts}} : {_fts_phrase(coarse, term.prefix)}"
    return f"(body : {_fts_phrase(coarse, term.prefix)} OR parts : {_fts_phrase(fine, term.prefix)})"


def fts_match(query: TextQuery, meta_tokens: Sequence[str] = ()) -> str:
    """A parsed query as one FTS5 expression (every word quoted: user text cannot break it)."""
    groups = []
    for group in query.groups:
        expr = " AND ".join(term_expression(t) for t in group.must)
        if group.must_not:
            expr = f"({expr}) NOT ({' OR '.join(term_expression(t) for t in group.must_not)})"
        groups.append(f"({expr})")
    match = " OR ".join(groups)
    if meta_tokens:
        match = f"({match})" + "".join(f" AND meta : {token}" for token in meta_tokens)
    return match


def _index_row(rowid: int, meta: str, text: str) -> tuple[int, str, str, str]:
    """What the index holds of a text: its coarse form, and the fine parts of its identifiers."""
    text = codec.storable_text(text)
    return rowid, meta, coarse_text(text), parts_text(text)


class SQLiteStore:
    """The embedded store. Thread-safe (one connection behind a lock); many processes may
    share the file (WAL, ``BEGIN IMMEDIATE`` writes, a busy timeout)."""

    def __init__(self, path: Path | str, *, busy_timeout_ms: int = 5000, index_batch: int = 512,
                 durability: Durability = "normal") -> None:
        self.path = str(path)
        self.index_batch = index_batch
        self.busy_timeout_ms = busy_timeout_ms
        self.durability = durability
        self.generation = 0
        self.events: list[dict[str, Any]] = []
        self.last_error = ""
        self._lock = threading.RLock()
        self._file_id: tuple[int, int] | None = None
        self._closed = False
        self._reset_positions()
        try:
            self._open()
        except StoreError as exc:
            if exc.kind != "corrupt":
                raise
            self._quarantine(str(exc))
            self._open()

    # -- opening, checking, recovering ------------------------------------------------

    def _reset_positions(self) -> None:
        # Write positions cached between transactions (see _positions).
        self._version: int | None = None
        self._next_id = 1
        self._next_seq: dict[str, int] = {}
        self._last_ident: dict[str, bytes] = {}
        self._fts_upto = 0

    def _open(self) -> None:
        """Connect, check cheaply, create or migrate the schema. Raises StoreError."""
        memory = self.path == ":memory:"
        try:
            if not memory:
                _private_file(Path(self.path))
            self.conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                                        timeout=self.busy_timeout_ms / 1000)
        except (sqlite3.Error, OSError) as exc:
            raise _store_error(self.path, "cannot open the LCM store", exc) from None
        try:
            self.conn.execute(f"PRAGMA busy_timeout={int(self.busy_timeout_ms)}")
            version = self.conn.execute("PRAGMA user_version").fetchone()[0]
            if self.conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute(f"PRAGMA synchronous={'FULL' if self.durability == 'full' else 'NORMAL'}")
            if version > SCHEMA_VERSION:
                raise StoreError(f"{self.path}: written by a newer hermes-context-lcm (schema {version}, this "
                                 f"one reads {SCHEMA_VERSION}); upgrade hermes-context-lcm or set "
                                 "plugins.lcm.db_path to another file", "newer")
            if version != SCHEMA_VERSION:
                self._create_schema()
            else:
                self._quick_check()
            if not memory:
                for suffix in ("-wal", "-shm"):
                    _tighten(Path(f"{self.path}{suffix}"))
                st = os.stat(self.path)
                self._file_id = (st.st_dev, st.st_ino)
        except StoreError:
            self.conn.close()
            raise
        except (sqlite3.Error, OSError) as exc:
            self.conn.close()
            raise _store_error(self.path, "cannot open the LCM store", exc) from None

    def _quick_check(self) -> None:
        """A cheap check at open: the schema and both ends of each table's b-tree read back.

        A full ``PRAGMA quick_check`` reads every page (seconds on a large store); damage it
        would find elsewhere is caught when a query first touches it, and handled the same way.
        """
        conn = self.conn
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        for table in ("messages", "summaries"):  # one aggregate each: SQLite then reads only one b-tree edge
            conn.execute(f"SELECT min(id) FROM {table}").fetchone()
            conn.execute(f"SELECT max(id) FROM {table}").fetchone()
        conn.execute("SELECT value FROM state WHERE key = 'fts_upto'").fetchone()
        conn.execute("SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'meta : zlcmcheck' LIMIT 1").fetchall()

    def _create_schema(self) -> None:
        with self._write(check_file=False) as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version == 2:
                for statement in filter(str.strip, MIGRATE_2_TO_3.split(";")):
                    conn.execute(statement)
                rows = conn.execute("SELECT id, session_id, depth, content, hint FROM summaries").fetchall()
                conn.executemany("INSERT INTO summaries_fts (rowid, meta, body, parts) VALUES (?, ?, ?, ?)",
                                 [_index_row(i, f"{session_token(sid)} d{d}", f"{c}\n{h}") for i, sid, d, c, h in rows])
            elif version < SCHEMA_VERSION:
                for statement in filter(str.strip, SCHEMA.split(";")):
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def _quarantine(self, reason: str) -> None:
        """Move the damaged file aside (never delete it) and start a new store there."""
        try:
            self.conn.close()
        except Exception:
            pass
        aside = quarantine(Path(self.path)) if self.path != ":memory:" else None
        self._event("corrupt", f"{reason}; moved the damaged database to {aside} and started a new one"
                    if aside else f"{reason}; started a new in-memory store")
        self.generation += 1
        self._reset_positions()

    def _event(self, kind: str, message: str) -> None:
        log.warning("LCM store: %s", message)
        self.events.append({"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "kind": kind,
                            "message": message})
        del self.events[:-20]

    def _check_file(self) -> None:
        """Before a write: the file we hold is still the file at ``path`` (not deleted or replaced)."""
        if self._file_id is None:
            return
        try:
            st = os.stat(self.path)
            same = (st.st_dev, st.st_ino) == self._file_id
        except FileNotFoundError:
            same, st = False, None
        if same:
            return
        what = "was deleted" if st is None else "was replaced by another file"
        self.conn.close()
        self._event("gone", f"{self.path} {what} while open; started a new store there (messages written "
                            "to the old file since are not in it)")
        self.generation += 1
        self._reset_positions()
        self._open()
        raise StoreError(f"{self.path} {what} while open; a new store was started: store the context again", "gone")

    def _recover(self, exc: BaseException) -> None:
        """After a failed statement: if the file is damaged, move it aside and start anew."""
        kind = error_kind(exc)
        if kind not in ("corrupt", "other") or (isinstance(exc, StoreError) and exc.kind == "gone"):
            return
        if kind == "other":
            try:
                with self._lock:
                    row = self.conn.execute("PRAGMA quick_check(1)").fetchone()
                if row and row[0] == "ok":
                    return
            except sqlite3.Error:
                pass
        self._quarantine(f"{self.path} is damaged ({exc})")
        self._open()

    def _guard(self, action: str, fn: Callable[[], T]) -> T:
        """Run one store operation; a damaged file is recovered and reported as a StoreError."""
        with self._lock:
            if self._closed:
                raise StoreError(f"{self.path}: the store is closed", "other")
            try:
                result = fn()
                self.last_error = ""
                return result
            except StoreError as exc:
                self.last_error = str(exc)
                if exc.kind in ("corrupt", "other"):
                    self._recover_quietly(exc)
                raise
            except (sqlite3.Error, OSError) as exc:
                err = _store_error(self.path, action, exc)
                self.last_error = str(err)
                self._recover_quietly(exc)
                raise err from None

    def _recover_quietly(self, exc: BaseException) -> None:
        try:
            self._recover(exc)
        except Exception as again:
            self.last_error = f"{self.last_error}; recovery failed: {again}"
            log.warning("LCM store: %s", self.last_error)

    @contextmanager
    def _write(self, check_file: bool = True) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken up front so concurrent writers queue on the lock."""
        with self._lock:
            if check_file:
                self._check_file()
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise _store_error(self.path, "cannot write", exc) from None
            try:
                yield self.conn
                self.conn.execute("COMMIT")
            except BaseException as exc:
                if self.conn.in_transaction:
                    try:
                        self.conn.execute("ROLLBACK")
                    except sqlite3.Error:
                        pass
                if isinstance(exc, sqlite3.Error):
                    raise _store_error(self.path, "cannot write", exc) from None
                raise

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return self._guard("cannot read", lambda: self.conn.execute(sql, params).fetchall())

    # -- messages --------------------------------------------------------------------

    def append(self, session_id: str, messages: Sequence[Message],
               parents: Sequence[int | None] | None = None) -> list[int]:
        """Store ``messages`` in one transaction; one id per message (an existing one when the
        message's identity is stored already). ``parents[i]``: the stored id of the message
        before ``messages[i]`` in the conversation, ``0`` for none, ``None`` for the previous
        element (for the first: the session's newest stored message)."""
        if not messages:
            return []
        rows = encode_rows(messages, parents)
        now = time.time()
        return self._guard("cannot write", lambda: self._append(session_id, rows, parents, now))

    def _append(self, session_id: str, rows: list[Row],
                parents: Sequence[int | None] | None, now: float) -> list[int]:
        try:
            with self._write() as conn:
                first_id, seq = self._positions(conn, session_id)
                wanted = [p for p in parents or () if p]
                known = self._idents(conn, wanted)
                idents: list[bytes] = []
                for i, (_role, content, meta, _tokens) in enumerate(rows):
                    parent = parents[i] if parents is not None else None
                    if parent is None:
                        before = idents[-1] if i else self._session_last(conn, session_id)
                    elif parent == 0:
                        before = b""
                    else:
                        before = known.get(parent, b"id:%d" % parent)
                    idents.append(_identity(session_id, before, content, meta))
                existing = self._existing(conn, idents)
                ids: list[int] = []
                new_rows = []
                next_id = first_id
                key = file_key(session_id)
                for ident, (role, content, meta, tokens) in zip(idents, rows, strict=True):
                    mid = existing.get(ident)
                    if mid is None:
                        mid = existing[ident] = next_id
                        new_rows.append((mid, key, seq, file_key(role), content, meta, tokens, now, ident))
                        next_id += 1
                        seq += 1
                    ids.append(mid)
                if new_rows:
                    conn.executemany(
                        "INSERT INTO messages (id, session_id, seq, role, content, meta, tokens, created_at, ident)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", new_rows)
                    upto = self._index_pending(conn, next_id - 1, self.index_batch)
                else:
                    upto = self._fts_upto
        except BaseException:
            self._version = None  # positions are re-read next time
            raise
        self._next_id, self._fts_upto = next_id, upto
        if new_rows:
            self._next_seq[session_id] = seq
            self._last_ident[session_id] = new_rows[-1][-1]
        return ids

    @staticmethod
    def _idents(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, bytes]:
        out: dict[int, bytes] = {}
        wanted = list(dict.fromkeys(ids))
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for mid, ident in conn.execute(f"SELECT id, ident FROM messages WHERE id IN ({marks})", chunk):
                out[mid] = ident if ident is not None else b"id:%d" % mid
        return out

    @staticmethod
    def _existing(conn: sqlite3.Connection, idents: Sequence[bytes]) -> dict[bytes, int]:
        out: dict[bytes, int] = {}
        wanted = list(dict.fromkeys(idents))
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            out.update(conn.execute(f"SELECT ident, id FROM messages WHERE ident IN ({marks})", chunk).fetchall())
        return out

    def _session_last(self, conn: sqlite3.Connection, session_id: str) -> bytes:
        """Identity of the session's newest stored message (b"" for an empty session)."""
        cached = self._last_ident.get(session_id)
        if cached is not None:
            return cached
        row = conn.execute("SELECT id, ident FROM messages WHERE session_id = ? ORDER BY seq DESC LIMIT 1",
                           (file_key(session_id),)).fetchone()
        ident = b"" if row is None else (row[1] if row[1] is not None else b"id:%d" % row[0])
        self._last_ident[session_id] = ident
        return ident

    def _positions(self, conn: sqlite3.Connection, session_id: str) -> tuple[int, int]:
        """Next id and next seq of ``session_id``, re-read only when another connection wrote.

        ``PRAGMA data_version`` changes exactly when someone else committed, so a single
        writer (the common case) skips three lookups per turn.
        """
        self._sync(conn)
        seq = self._next_seq.get(session_id)
        if seq is None:
            last = conn.execute("SELECT max(seq) FROM messages WHERE session_id = ?",
                                (file_key(session_id),)).fetchone()[0]
            seq = 0 if last is None else last + 1
        return self._next_id, seq

    def _sync(self, conn: sqlite3.Connection) -> None:
        """Re-read the cached positions if another connection committed since they were read."""
        version = conn.execute("PRAGMA data_version").fetchone()[0]
        if version != self._version:
            self._version = version
            self._next_id = (conn.execute("SELECT max(id) FROM messages").fetchone()[0] or 0) + 1
            self._next_seq = {}
            self._last_ident = {}
            self._fts_upto = conn.execute("SELECT value FROM state WHERE key = 'fts_upto'").fetchone()[0]

    def _index_pending(self, conn: sqlite3.Connection, last_id: int, at_least: int) -> int:
        """Add messages after the index watermark to the FTS index once enough wait; the new mark."""
        upto = self._fts_upto
        if last_id - upto < max(at_least, 1):
            return upto
        rows = conn.execute(
            f"SELECT {self._COLUMNS} FROM messages WHERE id > ? AND id <= ? ORDER BY id", (upto, last_id)
        ).fetchall()
        conn.executemany(
            "INSERT INTO messages_fts (rowid, meta, body, parts) VALUES (?, ?, ?, ?)",
            [_index_row(m.id, f"{session_token(m.session_id)} {role_token(m.role)}", m.text())
             for m in map(StoredMessage.from_row, rows)],
        )
        conn.execute("UPDATE state SET value = ? WHERE key = 'fts_upto'", (last_id,))
        return last_id

    def flush_index(self) -> None:
        """Index every stored message now (searches call this first; a no-op when nothing
        waits, known without a read when no other connection wrote since)."""
        def flush() -> None:
            self._sync(self.conn)
            if self._fts_upto >= self._next_id - 1:
                return
            try:
                with self._write() as conn:
                    self._positions(conn, "")
                    self._fts_upto = self._index_pending(conn, self._next_id - 1, 1)
            except BaseException:
                self._version = None
                raise

        self._guard("cannot index", flush)

    _COLUMNS = "id, session_id, seq, role, content, meta, tokens, created_at"

    def get_messages(self, ids: Sequence[int]) -> list[StoredMessage]:
        """Messages by id, in the order asked; unknown ids are left out."""
        found: dict[int, StoredMessage] = {}
        wanted = list(dict.fromkeys(int(i) for i in ids))
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for row in self._read(f"SELECT {self._COLUMNS} FROM messages WHERE id IN ({marks})", chunk):
                found[row[0]] = StoredMessage.from_row(row)
        return [found[i] for i in wanted if i in found]

    def session_messages(self, session_id: str, after_id: int = 0, limit: int = 100) -> list[StoredMessage]:
        rows = self._read(
            f"SELECT {self._COLUMNS} FROM messages WHERE session_id = ? AND id > ? ORDER BY seq LIMIT ?",
            (file_key(session_id), after_id, limit),
        )
        return [StoredMessage.from_row(r) for r in rows]

    def scan_messages(self, session_id: str | None, before_id: int | None, limit: int) -> list[StoredMessage]:
        """Newest first, for regex scans that page by id."""
        before = before_id if before_id is not None else 1 << 62
        if session_id is None:
            rows = self._read(f"SELECT {self._COLUMNS} FROM messages WHERE id < ? ORDER BY id DESC LIMIT ?",
                              (before, limit))
        else:
            rows = self._read(
                f"SELECT {self._COLUMNS} FROM messages WHERE session_id = ? AND id < ? ORDER BY seq DESC LIMIT ?",
                (file_key(session_id), before, limit),
            )
        return [StoredMessage.from_row(r) for r in rows]

    def search_messages(self, query: TextQuery, *, session_id: str | None = None, role: str | None = None,
                        limit: int = 10, offset: int = 0) -> list[int]:
        """Ids of matching messages: BM25 when the query has up to ``RANK_LIMIT`` matches in
        scope (equal scores newest first), newest first when it has more."""
        self.flush_index()
        if session_id is not None:
            return self._in_session(query, session_id, role, limit, offset)
        return self._ranked("messages_fts", query, [role_token(role)] if role else [], limit, offset)

    def _in_session(self, query: TextQuery, session_id: str, role: str | None, limit: int,
                    offset: int) -> list[int]:
        """A session's matches, with no cost that grows with the session's size.

        One probe walks the store's newest ``RANK_LIMIT + 1`` matches and keeps the session's.
        A query rare in the whole store (the probe saw all its matches) is then ranked by BM25.
        A common one is answered newest first: from the probe when the session's newest
        matches were among the store's newest (the live session, usually), else by walking
        the rest of the session's id range, the session checked through the messages table.
        Only where other sessions' rows crowd that range does the walk fall back to the
        session's index token, whose cost follows the session's size.
        """
        match = fts_match(query)
        want = offset + limit
        keep = "m.session_id = ?" + (" AND m.role = ?" if role else "")
        params = (file_key(session_id), *((file_key(role),) if role else ()))

        def walk(cap: int, *between: int) -> list[tuple[int, int]]:
            span = " AND rowid BETWEEN ? AND ?" if between else ""  # (an open-ended range costs a probe more)
            return self._search(
                f"SELECT f.rowid, {keep} FROM (SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?{span} "
                f"ORDER BY rowid DESC LIMIT {cap}) f JOIN messages m ON m.id = f.rowid ORDER BY f.rowid DESC",
                (*params, match, *between))

        probe = walk(RANK_LIMIT + 1)
        found = [rowid for rowid, here in probe if here]
        if len(probe) <= RANK_LIMIT:
            return self._by_bm25("messages_fts", match, found)[offset:want]
        if len(found) >= want:
            return found[offset:want]
        lo, hi = self._read("SELECT (SELECT id FROM messages WHERE session_id = ? ORDER BY seq LIMIT 1), "
                            "(SELECT id FROM messages WHERE session_id = ? ORDER BY seq DESC LIMIT 1)",
                            (params[0], params[0]))[0]
        if lo is None:
            return []
        below = min(hi, probe[-1][0] - 1)
        cap = 4 * (want - len(found)) + 64  # past this many other sessions' rows, use the session's token
        rows = walk(cap, lo, below) if below >= lo else []
        found += [rowid for rowid, here in rows if here]
        if len(found) >= want or len(rows) < cap:
            return found[offset:want]
        tokens = [session_token(session_id)] + ([role_token(role)] if role else [])
        rest = self._search("SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? AND rowid BETWEEN ? AND ? "
                            "ORDER BY rowid DESC LIMIT ?", (fts_match(query, tokens), lo, rows[-1][0] - 1,
                                                           want - len(found)))
        return (found + [r[0] for r in rest])[offset:want]

    def _by_bm25(self, table: str, match: str, ids: list[int]) -> list[int]:
        """``ids`` (matches of ``match``, newest first) by BM25, equal scores newest first.

        Scoring is a second pass over the few matches' rowid range only: a score costs more
        than finding the row, and the probe that found them did not know yet they were few."""
        if len(ids) < 2:
            return ids
        wanted = set(ids)
        rows = self._search(f"SELECT rowid, bm25({table}, 0.0, 1.0, 0.5) FROM {table} WHERE {table} MATCH ? "
                            "AND rowid BETWEEN ? AND ?", (match, min(ids), max(ids)))
        return [rowid for rowid, _ in sorted((r for r in rows if r[0] in wanted), key=lambda r: (r[1], -r[0]))]

    def _ranked(self, table: str, query: TextQuery, tokens: Sequence[str], limit: int, offset: int) -> list[int]:
        """One page of the matches of ``query`` (plus meta ``tokens``) in the whole table:
        BM25 when it has at most ``RANK_LIMIT`` matches, else newest first."""
        match = fts_match(query, tokens)
        probe = self._search(f"SELECT rowid FROM {table} WHERE {table} MATCH ? ORDER BY rowid DESC "
                             f"LIMIT {RANK_LIMIT + 1}", (match,))
        if len(probe) <= RANK_LIMIT:
            return self._by_bm25(table, match, [r[0] for r in probe])[offset : offset + limit]
        if offset + limit <= len(probe):
            return [r[0] for r in probe[offset : offset + limit]]
        rows = self._search(f"SELECT rowid FROM {table} WHERE {table} MATCH ? ORDER BY rowid DESC "
                            "LIMIT ? OFFSET ?", (match, limit, offset))
        return [r[0] for r in rows]

    def _search(self, sql: str, params: Sequence[Any]) -> list[Any]:
        def run() -> list[Any]:
            try:
                return self.conn.execute(sql, params).fetchall()
            except sqlite3.OperationalError as exc:
                if error_kind(exc) == "other" and ("fts5" in str(exc) or "syntax" in str(exc)):
                    raise ValueError("the search could not be run; simplify the pattern (words, \"a phrase\", "
                                     "prefix*, AND / OR / NOT)") from None
                raise

        return self._guard("cannot search", run)

    def search_summaries(self, query: TextQuery, *, session_id: str | None = None, limit: int = 10,
                         offset: int = 0) -> list[int]:
        where, params = ("WHERE session_id = ?", (file_key(session_id),)) if session_id is not None else ("", ())
        if not self._read(f"SELECT EXISTS (SELECT 1 FROM summaries {where})", params)[0][0]:
            return []  # nothing compacted in scope yet: an index lookup instead of a full-text query
        tokens = [session_token(session_id)] if session_id is not None else []
        return self._ranked("summaries_fts", query, tokens, limit, offset)

    # -- summaries --------------------------------------------------------------------

    _SUMMARY_COLUMNS = ("id, session_id, depth, content, hint, tokens, source, covers_kind, covers,"
                        " first_message, last_message, message_count, parent_id, created_at")

    def add_summary(self, summary: NewSummary, children: Sequence[int] = ()) -> int:
        """Persist a summary and, in the same transaction, mark ``children`` as condensed."""
        def add() -> int:
            with self._write() as conn:
                content = codec.storable_text(summary.content)
                hint = codec.storable_text(summary.hint)
                cur = conn.execute(
                    "INSERT INTO summaries (session_id, depth, content, hint, tokens, source, covers_kind, covers,"
                    " first_message, last_message, message_count, parent_id, created_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)",
                    (file_key(summary.session_id), summary.depth, content, hint, summary.tokens, summary.source,
                     summary.covers_kind, codec.dumps(summary.covers), summary.first_message,
                     summary.last_message, summary.message_count, time.time()),
                )
                sid = int(cur.lastrowid or 0)
                conn.execute("INSERT INTO summaries_fts (rowid, meta, body, parts) VALUES (?, ?, ?, ?)",
                             _index_row(sid, f"{session_token(summary.session_id)} d{summary.depth}",
                                        f"{content}\n{hint}"))
                if children:
                    marks = ",".join("?" * len(children))
                    conn.execute(f"UPDATE summaries SET parent_id = ? WHERE id IN ({marks})", (sid, *children))
            return sid

        return self._guard("cannot write", add)

    def _summaries(self, where: str, params: Sequence[Any]) -> list[SummaryRow]:
        rows = self._read(f"SELECT {self._SUMMARY_COLUMNS} FROM summaries WHERE {where}", params)
        return [
            SummaryRow(r[0], codec.unescape_key(r[1]), *r[2:8], tuple(codec.loads(r[8])), *r[9:])  # type: ignore[call-arg]
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
        return self._summaries("session_id = ? AND parent_id IS NULL ORDER BY id", (file_key(session_id),))

    def all_summaries(self, session_id: str | None) -> list[SummaryRow]:
        if session_id is None:
            return self._summaries("1 ORDER BY id", ())
        return self._summaries("session_id = ? ORDER BY id", (file_key(session_id),))

    # -- the active context, for resuming a session in a new process -------------------

    def save_layout(self, session_id: str, layout: Any, upto: int) -> None:
        """What the engine last returned for the session, by id, and the last id it held."""
        def save() -> None:
            with self._write() as conn:
                conn.execute("INSERT OR REPLACE INTO layouts (session_id, layout, upto) VALUES (?, ?, ?)",
                             (file_key(session_id), codec.dumps(layout), upto))

        self._guard("cannot write", save)

    def load_layout(self, session_id: str) -> tuple[Any, int] | None:
        rows = self._read("SELECT layout, upto FROM layouts WHERE session_id = ?", (file_key(session_id),))
        return (codec.loads(rows[0][0]), int(rows[0][1])) if rows else None

    # -- status -----------------------------------------------------------------------

    def session_size(self, session_id: str) -> int:
        """How many messages the session has stored."""
        row = self._read("SELECT max(seq) FROM messages WHERE session_id = ?", (file_key(session_id),))[0][0]
        return 0 if row is None else int(row) + 1

    def stats(self, session_id: str | None) -> dict[str, Any]:
        total = self._read("SELECT max(id) FROM messages")[0][0] or 0  # ids are dense: a count without a scan
        size = sum(Path(f"{self.path}{suffix}").stat().st_size for suffix in ("", "-wal")
                   if Path(f"{self.path}{suffix}").is_file())
        out: dict[str, Any] = {"db_path": self.path, "db_bytes": size, "messages_total": total,
                               "durability": self.durability}
        if session_id is not None:
            out["messages_session"] = self.session_size(session_id)
            depths = self._read(
                "SELECT depth, count(*), sum(parent_id IS NULL) FROM summaries WHERE session_id = ? GROUP BY depth",
                (file_key(session_id),),
            )
            out["summaries_by_depth"] = {f"d{d}": {"count": n, "uncondensed": u} for d, n, u in depths}
        return out

    def health(self) -> dict[str, Any]:
        """``{"state", "summary", "events"}``: ok, degraded (recovered from something), unavailable."""
        aside = sorted(Path(self.path).parent.glob(f"{Path(self.path).name}.corrupt-*[0-9]")) \
            if self.path != ":memory:" else []
        if self.last_error:
            state, summary = "unavailable", f"LCM store error: {self.last_error}"
        elif self.events:
            state, summary = "degraded", f"LCM store recovered: {self.events[-1]['message']}"
        elif aside:
            state, summary = "degraded", (f"LCM store {self.path}: ok; {len(aside)} damaged database(s) were moved "
                                          f"aside earlier, newest {aside[-1]}")
        else:
            state, summary = "ok", f"LCM store {self.path}: ok"
        return {"state": state, "summary": summary, "events": list(self.events)}

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                try:
                    self.conn.close()
                except sqlite3.Error:
                    pass


def _tighten(path: Path) -> None:
    """Make an existing file owner-only (it holds whole transcripts)."""
    try:
        if path.is_file() and path.stat().st_mode & 0o077:
            path.chmod(0o600)
    except OSError:
        pass


def _private_file(path: Path) -> None:
    """Create ``path`` (and missing parent directories) owner-only before SQLite opens it."""
    private_dir(path.parent)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        _tighten(path)
    else:
        os.close(fd)


def private_dir(directory: Path) -> None:
    """Create ``directory`` and its missing parents as 0700 (existing ones are left alone)."""
    missing = []
    while not directory.exists():
        missing.append(directory)
        directory = directory.parent
    for new in reversed(missing):
        new.mkdir(mode=0o700, exist_ok=True)


def quarantine(path: Path) -> Path:
    """Move a damaged database (and its WAL files) aside so a new one can start."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while aside.exists():
        n += 1
        aside = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
    for suffix in ("", "-wal", "-shm"):
        src = Path(f"{path}{suffix}")
        if src.exists():
            src.rename(f"{aside}{suffix}")
    return aside
