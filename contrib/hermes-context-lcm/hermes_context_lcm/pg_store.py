"""The LCM store in PostgreSQL: the same :class:`~hermes_context_lcm.store.Store` as SQLite.

Selected by ``storage.backend: postgres``. Every row carries the ``namespace`` of the
``storage:`` section and every statement filters on it (a bound parameter), so tenants
share tables but never rows. Messages are stored as the SQLite store stores them
(``content`` string + JSON ``meta``, from :func:`split_message`), so
:meth:`StoredMessage.message` rebuilds the ingested dict byte for byte.

Search: each message gets a ``tsvector`` (GIN) built here from the same tokens SQLite's
``unicode61`` tokenizer produces (letters, digits and private-use characters, case
folded, Latin diacritics removed), with positions, so the tools' FTS5 expressions
(phrases, ``prefix*``, AND / OR / NOT, session and role scope) translate to ``tsquery``
with the same matches, newest first. ``search_substring`` uses a ``pg_trgm`` GIN index
for what a word index cannot find (a word inside CJK text, part of an identifier).

One live engine per session across hosts: :meth:`PgStore.session_lock` takes a
session-level advisory lock (released when the host's connection dies).
"""

from __future__ import annotations

import base64
import json
import re
import time
import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from hermes_context_lcm.store import (
    Message,
    StoredMessage,
    StoreError,
    SummaryRow,
    role_token,
    search_text,
    session_token,
    split_message,
)
from hermes_core.storage.errors import StorageError
from hermes_core.storage.locks import advisory_key, session_locks
from hermes_core.storage.schema import Component, migrate
from hermes_core.text.tokens import estimate_message_tokens

if TYPE_CHECKING:
    import psycopg

    from hermes_context_lcm.dag import NewSummary
    from hermes_core.config.models import StorageConfig
    from hermes_core.storage.pool import Database

MAX_POSITION = 16383  # tsvector positions stop there; later tokens share it (phrases that far in may miss)

LCM_SCHEMA = Component("lcm", migrations=(
    """
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
    CREATE TABLE lcm_messages (
        namespace text NOT NULL,
        id bigint NOT NULL,
        session_id text NOT NULL,
        seq bigint NOT NULL,
        role text NOT NULL,
        content text,
        meta text NOT NULL,
        tokens integer NOT NULL,
        created_at double precision NOT NULL,
        escaped smallint NOT NULL DEFAULT 0,
        stoken text NOT NULL,
        rtoken text NOT NULL,
        words tsvector NOT NULL,
        body text NOT NULL,
        PRIMARY KEY (namespace, id),
        UNIQUE (namespace, session_id, seq)
    );
    CREATE INDEX lcm_messages_words ON lcm_messages USING gin (words);
    CREATE INDEX lcm_messages_session ON lcm_messages (namespace, stoken, id);
    CREATE INDEX lcm_messages_body_trgm ON lcm_messages USING gin (body gin_trgm_ops);
    CREATE SEQUENCE lcm_ids;
    CREATE TABLE lcm_summaries (
        namespace text NOT NULL,
        id bigint NOT NULL,
        session_id text NOT NULL,
        depth integer NOT NULL,
        content text NOT NULL,
        hint text NOT NULL,
        tokens integer NOT NULL,
        source text NOT NULL,
        covers_kind text NOT NULL,
        covers text NOT NULL,
        first_message bigint NOT NULL,
        last_message bigint NOT NULL,
        message_count integer NOT NULL,
        parent_id bigint,
        created_at double precision NOT NULL,
        escaped smallint NOT NULL DEFAULT 0,
        stoken text NOT NULL,
        words tsvector NOT NULL,
        PRIMARY KEY (namespace, id)
    );
    CREATE INDEX lcm_summaries_roots ON lcm_summaries (namespace, session_id, parent_id, id);
    CREATE INDEX lcm_summaries_words ON lcm_summaries USING gin (words);
    CREATE TABLE lcm_layouts (
        namespace text NOT NULL,
        session_id text NOT NULL,
        layout text NOT NULL,
        upto bigint NOT NULL,
        PRIMARY KEY (namespace, session_id)
    );
    """,
))

# -- tokens, as FTS5's unicode61 makes them --------------------------------------------------

#: unicode61's token characters: letters and digits (Unicode L*, N*) ...
_WORD = re.compile(r"[^\W_]+")
#: ... and private-use characters (Co), rare enough to get a slower pattern of their own.
_PRIVATE = re.compile("[\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd]")
_WORD_OR_PRIVATE = re.compile("(?:[^\\W_]|[\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd])+")
MAX_POSITIONS = 256  # per lexeme, as PostgreSQL keeps at most
MAX_LEXEME_BYTES = 2046  # PostgreSQL's longest word in a tsvector
MAX_VECTOR_BYTES = 900_000  # safely under a tsvector's 1 MB


def _fold(ch: str) -> str:
    low = ch.lower()
    if len(low) != 1:
        low = ch
    if ord(low) < 0x250 and not low.isascii():  # Latin letters lose their diacritics
        base = unicodedata.normalize("NFD", low)[0]
        if base.isascii():
            return base.lower()
    return low


def tokens(text: str) -> list[str]:
    """The words of ``text`` as SQLite's ``unicode61`` tokenizer (remove_diacritics=1) sees them."""
    if text.isascii():
        return _WORD.findall(text.lower())
    found = (_WORD_OR_PRIVATE if _PRIVATE.search(text) else _WORD).findall(text)
    return [w.lower() if w.isascii() else "".join(map(_fold, w)) for w in found]


def tsvector_literal(text: str) -> str:
    """A ``tsvector`` of ``text``'s tokens with their positions (built here, not by a PG parser).

    Tokens are letters and digits only, so they never need escaping inside the quotes.
    """
    positions: dict[str, list[int]] = {}
    size = 0
    for n, token in enumerate(tokens(text), 1):
        at = positions.get(token)
        if at is None:
            if len(token) * 4 > MAX_LEXEME_BYTES and len(token.encode("utf-8")) > MAX_LEXEME_BYTES:
                continue  # PostgreSQL refuses longer words: not searchable by word (lcm_grep regex finds it)
            size += len(token) * 4 + 16
            if size > MAX_VECTOR_BYTES:
                break  # a tsvector holds at most 1 MB: the rest of a huge text is not indexed by word
            positions[token] = [min(n, MAX_POSITION)]
        elif len(at) < MAX_POSITIONS and at[-1] < MAX_POSITION:
            at.append(min(n, MAX_POSITION))
    return " ".join(f"'{t}':{','.join(map(str, p))}" for t, p in positions.items())


# -- text PostgreSQL cannot hold ---------------------------------------------------------------------


def to_pg(value: str | None) -> tuple[str | None, bool]:
    """``(stored text, escaped)``: text with NUL or lone surrogates (which a PostgreSQL ``text``
    cannot hold) is stored as base64 of its UTF-8 (surrogatepass) bytes, so it reads back exactly."""
    if value is None:
        return None, False
    if "\x00" not in value:
        try:
            value.encode("utf-8")
            return value, False
        except UnicodeEncodeError:
            pass
    return base64.b64encode(value.encode("utf-8", "surrogatepass")).decode("ascii"), True


def from_pg(value: str | None, escaped: bool) -> str | None:
    if value is None or not escaped:
        return value
    return base64.b64decode(value).decode("utf-8", "surrogatepass")


def searchable(text: str) -> str:
    """What the indexes see: NUL dropped, lone surrogates replaced."""
    text = text.replace("\x00", "")
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


def encode_row(first: str | None, second: str | None) -> tuple[str | None, str | None, int]:
    """Two text columns as stored, and the ``escaped`` bits (1: the first, 2: the second)."""
    a, ea = to_pg(first)
    b, eb = to_pg(second)
    return a, b, int(ea) | (int(eb) << 1)


def decode_message(row: Sequence[Any]) -> StoredMessage:
    """A row of ``MESSAGE_COLUMNS`` as the :class:`StoredMessage` that was stored."""
    escaped = row[8]
    return StoredMessage(row[0], row[1], row[2], row[3], from_pg(row[4], bool(escaped & 1)),
                         from_pg(row[5], bool(escaped & 2)) or "", row[6], row[7])


def decode_summary(row: Sequence[Any]) -> SummaryRow:
    """A row of ``SUMMARY_COLUMNS`` as the :class:`SummaryRow` that was stored."""
    escaped = row[14]
    return SummaryRow(row[0], row[1], row[2], from_pg(row[3], bool(escaped & 1)) or "",  # type: ignore[call-arg]
                      from_pg(row[4], bool(escaped & 2)) or "", row[5], row[6], row[7], tuple(json.loads(row[8])),
                      *row[9:14])


MESSAGE_COLUMNS = "id, session_id, seq, role, content, meta, tokens, created_at, escaped"
SUMMARY_COLUMNS = ("id, session_id, depth, content, hint, tokens, source, covers_kind, covers,"
                   " first_message, last_message, message_count, parent_id, created_at, escaped")


# -- the tools' FTS5 expressions, as tsquery ----------------------------------------------------

_MATCH = re.compile(r"^body : \((?P<expr>.*)\)(?P<meta>(?: AND meta : [A-Za-z0-9]+)*)$", re.S)
_EXPR_TOKEN = re.compile(r'"((?:[^"]|"")*)"(\*?)|(AND|OR|NOT)|(\S+)')


def _phrase(text: str, prefix: bool) -> str | None:
    words = [w for w in tokens(searchable(text)) if len(w.encode("utf-8")) <= MAX_LEXEME_BYTES]
    if not words:
        return None
    parts = [f"'{w}'" for w in words]  # tokens are letters and digits: no quoting needed
    if prefix:
        parts[-1] += ":*"
    return "(" + " <-> ".join(parts) + ")" if len(parts) > 1 else parts[0]


def translate(match: str) -> tuple[str, list[str]]:
    """``(tsquery text, meta tokens)`` for a match string the LCM tools build.

    FTS5 precedence: NOT binds tightest (``a NOT b`` = a and not b), then AND (also implied
    between adjacent phrases), then OR.
    """
    found = _MATCH.match(match)
    if not found:
        raise ValueError(f"bad full-text query {match!r}")
    meta = found.group("meta").split(" AND meta : ")[1:]
    groups: list[list[str]] = [[]]
    negate = False
    pending_op = True  # at the start, or after an operator
    for m in _EXPR_TOKEN.finditer(found.group("expr")):
        quoted, star, op, bare = m.groups()
        if op:
            if pending_op:
                raise ValueError(f"bad full-text query {match!r}: misplaced {op}")
            if op == "OR":
                groups.append([])
            negate = op == "NOT"
            pending_op = True
            continue
        if bare is not None:
            raise ValueError(f"bad full-text query {match!r}: unexpected {bare!r}")
        phrase = _phrase(quoted.replace('""', '"'), bool(star))
        if phrase is None:  # FTS5: a phrase without tokens matches nothing
            phrase = "'-'"  # a lexeme no text has: tokens are letters and digits only
        groups[-1].append(("!" if negate else "") + phrase)
        negate, pending_op = False, False
    if pending_op:
        raise ValueError(f"bad full-text query {match!r}: ends with an operator")
    return " | ".join("(" + " & ".join(g) + ")" for g in groups), meta


def structured_query(query: Any) -> str:
    """``tsquery`` text for a structured query: any group matches; a group needs all its ``must``
    terms (phrases; ``prefix`` on the last word) and none of its ``must_not`` terms."""
    groups = []
    for group in query.groups:
        parts = [_phrase(t.text, t.prefix) or "'-'" for t in group.must]
        parts += ["!" + (_phrase(t.text, t.prefix) or "'-'") for t in group.must_not]
        if parts:
            groups.append("(" + " & ".join(parts) + ")")
    if not groups:
        raise ValueError("the query has no searchable words")
    return " | ".join(groups)


def _meta_filter(meta: list[str]) -> tuple[str, list[Any]]:
    """SQL conditions for the tools' ``meta`` tokens (session, role or depth) and their parameters."""
    sql, params = "", []
    for token in meta:
        if token.startswith("s"):
            sql += " AND stoken = %s"
        elif token.startswith("r"):
            sql += " AND rtoken = %s"
        else:
            sql += " AND 'd' || depth = %s"
        params.append(token)
    return sql, params


class PgStore:
    """The LCM store in one PostgreSQL namespace. Thread-safe (pooled connections)."""

    def __init__(self, storage: StorageConfig, *, environ: dict[str, str] | None = None,
                 durable: bool = False) -> None:
        """``durable``: wait for the WAL flush on every write. Off by default, matching the SQLite
        store (WAL, ``synchronous=NORMAL``): a server crash may forget the last fraction of a
        second of writes, never corrupt them, and a commit is ~10x cheaper on a plain disk."""
        from hermes_core.storage.pool import database
        from hermes_core.storage.settings import postgres_target

        self.namespace = storage.namespace
        self._commit_mode = "on" if durable else "off"
        try:
            target = postgres_target(storage, environ)
            self.db: Database = database(target)
            self.db.ensure(LCM_SCHEMA.name, self._migrate)
        except StorageError as exc:
            raise _store_error(exc) from None
        self.path = f"{self.db.display}#{self.namespace}"

    @staticmethod
    def _migrate(conn: psycopg.Connection[Any]) -> None:
        migrate(conn, LCM_SCHEMA)

    def _write(self, work: Any, **kw: Any) -> Any:
        def with_commit_mode(conn: psycopg.Connection[Any]) -> Any:
            if self._commit_mode != "on":
                conn.execute(b"SET LOCAL synchronous_commit TO off")
            return work(conn)

        return self._run(with_commit_mode, **kw)

    def _run(self, work: Any, **kw: Any) -> Any:
        try:
            return self.db.transact(work, **kw)
        except StorageError as exc:
            raise _store_error(exc) from None

    # -- messages ----------------------------------------------------------------------

    def append(self, session_id: str, messages: Sequence[Message]) -> list[int]:
        """Store ``messages`` at the end of the session in one transaction; their ids."""
        if not messages:
            return []
        now = time.time()
        stoken = session_token(session_id)
        rows = []
        for msg in messages:
            content, meta, escaped = encode_row(*split_message(msg))
            text = searchable(search_text(msg))
            role = str(msg.get("role") or "")
            rows.append((role, content, meta, estimate_message_tokens(msg), now, escaped, stoken, role_token(role),
                         tsvector_literal(text), text))
        state: dict[str, int] = {}

        def work(conn: psycopg.Connection[Any]) -> list[int]:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (advisory_key("lcm", self.namespace, session_id),))
            # A statement of its own, after the lock: its snapshot then includes the last append.
            last, ids = conn.execute(
                "SELECT (SELECT max(seq) FROM lcm_messages WHERE namespace = %s AND session_id = %s),"
                " (SELECT array_agg(nextval('lcm_ids')) FROM generate_series(1, %s))",
                (self.namespace, session_id, len(rows))).fetchone()  # type: ignore[misc]
            first_seq = 0 if last is None else int(last) + 1
            values = ", ".join(["(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s::tsvector, %s)"] * len(rows))
            params: list[Any] = []
            for i, (mid, r) in enumerate(zip(ids, rows, strict=True)):
                params += [self.namespace, mid, session_id, first_seq + i, *r]
            conn.execute(
                "INSERT INTO lcm_messages (namespace, id, session_id, seq, role, content, meta, tokens, created_at,"
                f" escaped, stoken, rtoken, words, body) VALUES {values}", params)
            state["first_id"] = ids[0]
            return [int(i) for i in ids]

        def committed(conn: psycopg.Connection[Any]) -> bool:
            return conn.execute("SELECT 1 FROM lcm_messages WHERE namespace = %s AND id = %s",
                                (self.namespace, state.get("first_id", -1))).fetchone() is not None

        return self._write(work, resolve_unknown=committed)  # type: ignore[no-any-return]

    def flush_index(self) -> None:
        """Nothing to do: rows are indexed in the transaction that stores them."""

    _COLUMNS = MESSAGE_COLUMNS

    def _rows(self, sql: str, params: Sequence[Any]) -> list[Any]:
        return self._run(lambda conn: conn.execute(sql, params).fetchall())  # type: ignore[no-any-return]

    def get_messages(self, ids: Sequence[int]) -> list[StoredMessage]:
        wanted = list(dict.fromkeys(int(i) for i in ids))
        if not wanted:
            return []
        rows = self._rows(f"SELECT {self._COLUMNS} FROM lcm_messages WHERE namespace = %s AND id = ANY(%s)",
                          (self.namespace, wanted))
        found = {r[0]: decode_message(r) for r in rows}
        return [found[i] for i in wanted if i in found]

    def session_messages(self, session_id: str, after_id: int = 0, limit: int = 100) -> list[StoredMessage]:
        rows = self._rows(
            f"SELECT {self._COLUMNS} FROM lcm_messages WHERE namespace = %s AND session_id = %s AND id > %s "
            "ORDER BY seq LIMIT %s", (self.namespace, session_id, after_id, min(limit, 1 << 62)))
        return [decode_message(r) for r in rows]

    def scan_messages(self, session_id: str | None, before_id: int | None, limit: int) -> list[StoredMessage]:
        before = before_id if before_id is not None else 1 << 62
        if session_id is None:
            rows = self._rows(f"SELECT {self._COLUMNS} FROM lcm_messages WHERE namespace = %s AND id < %s "
                              "ORDER BY id DESC LIMIT %s", (self.namespace, before, limit))
        else:
            rows = self._rows(
                f"SELECT {self._COLUMNS} FROM lcm_messages WHERE namespace = %s AND session_id = %s AND id < %s "
                "ORDER BY seq DESC LIMIT %s", (self.namespace, session_id, before, limit))
        return [decode_message(r) for r in rows]

    def search_messages(self, match: Any, limit: int = 10, offset: int = 0, *, session_id: str | None = None,
                        role: str | None = None) -> list[int]:
        """Ids of matching messages, newest first, one page.

        ``match`` is the tools' FTS5 expression, or a structured query (``groups`` of ``must`` /
        ``must_not`` terms with ``text`` and ``prefix``) scoped by ``session_id`` and ``role``.
        """
        return self._search("lcm_messages", match, limit, offset, session_id, role)

    def search_summaries(self, match: Any, limit: int = 10, offset: int = 0, *,
                         session_id: str | None = None) -> list[int]:
        return self._search("lcm_summaries", match, limit, offset, session_id, None)

    def _search(self, table: str, match: Any, limit: int, offset: int, session_id: str | None,
                role: str | None) -> list[int]:
        if isinstance(match, str):
            query, meta = translate(match)
        else:
            query, meta = structured_query(match), []
        if session_id is not None:
            meta.append(session_token(session_id))
        if role is not None:
            meta.append(role_token(role))
        where, params = _meta_filter(meta)
        sql = (f"SELECT id FROM {table} WHERE namespace = %s AND words @@ %s::tsquery{where} "
               "ORDER BY id DESC LIMIT %s OFFSET %s")
        return [int(r[0]) for r in self._rows(sql, (self.namespace, query, *params, limit, offset))]

    def search_substring(self, text: str, session_id: str | None, limit: int, offset: int = 0) -> list[int]:
        """Ids of messages whose searchable text contains ``text`` (any script), newest first (pg_trgm)."""
        text = searchable(text)
        pattern = "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        scope, params = ("", []) if session_id is None else (" AND session_id = %s", [session_id])
        rows = self._rows(f"SELECT id FROM lcm_messages WHERE namespace = %s AND body ILIKE %s{scope} "
                          "ORDER BY id DESC LIMIT %s OFFSET %s", (self.namespace, pattern, *params, limit, offset))
        return [int(r[0]) for r in rows]

    # -- summaries -----------------------------------------------------------------------

    _SUMMARY_COLUMNS = SUMMARY_COLUMNS

    def add_summary(self, summary: NewSummary, children: Sequence[int] = ()) -> int:
        content, hint, escaped = encode_row(summary.content, summary.hint)

        def work(conn: psycopg.Connection[Any]) -> int:
            sid = int(conn.execute("SELECT nextval('lcm_ids')").fetchone()[0])  # type: ignore[index]
            conn.execute(
                "INSERT INTO lcm_summaries (namespace, id, session_id, depth, content, hint, tokens, source,"
                " covers_kind, covers, first_message, last_message, message_count, parent_id, created_at, escaped,"
                " stoken, words)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, NULL, %s, %s, %s, %s::tsvector)",
                (self.namespace, sid, summary.session_id, summary.depth, content, hint,
                 summary.tokens, summary.source, summary.covers_kind, json.dumps(summary.covers),
                 summary.first_message, summary.last_message, summary.message_count, time.time(), escaped,
                 session_token(summary.session_id), tsvector_literal(searchable(f"{summary.content}\n{summary.hint}"))),
            )
            if children:
                conn.execute("UPDATE lcm_summaries SET parent_id = %s WHERE namespace = %s AND id = ANY(%s)",
                             (sid, self.namespace, list(children)))
            return sid

        return self._write(work)  # type: ignore[no-any-return]

    def _summaries(self, where: str, params: Sequence[Any]) -> list[SummaryRow]:
        rows = self._rows(f"SELECT {self._SUMMARY_COLUMNS} FROM lcm_summaries WHERE namespace = %s AND {where}",
                          (self.namespace, *params))
        return [decode_summary(r) for r in rows]

    def get_summaries(self, ids: Sequence[int]) -> list[SummaryRow]:
        wanted = list(dict.fromkeys(int(i) for i in ids))
        if not wanted:
            return []
        found = {s.id: s for s in self._summaries("id = ANY(%s)", (wanted,))}
        return [found[i] for i in wanted if i in found]

    def roots(self, session_id: str) -> list[SummaryRow]:
        return self._summaries("session_id = %s AND parent_id IS NULL ORDER BY id", (session_id,))

    def all_summaries(self, session_id: str | None) -> list[SummaryRow]:
        if session_id is None:
            return self._summaries("true ORDER BY id", ())
        return self._summaries("session_id = %s ORDER BY id", (session_id,))

    # -- layouts, status, the session lock --------------------------------------------------

    def save_layout(self, session_id: str, layout: Any, upto: int) -> None:
        self._write(lambda conn: conn.execute(
            "INSERT INTO lcm_layouts (namespace, session_id, layout, upto) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (namespace, session_id) DO UPDATE SET layout = EXCLUDED.layout, upto = EXCLUDED.upto",
            (self.namespace, session_id, json.dumps(layout), upto)))

    def load_layout(self, session_id: str) -> tuple[Any, int] | None:
        rows = self._rows("SELECT layout, upto FROM lcm_layouts WHERE namespace = %s AND session_id = %s",
                          (self.namespace, session_id))
        return (json.loads(rows[0][0]), int(rows[0][1])) if rows else None

    def session_size(self, session_id: str) -> int:
        row = self._rows("SELECT max(seq) FROM lcm_messages WHERE namespace = %s AND session_id = %s",
                         (self.namespace, session_id))[0][0]
        return 0 if row is None else int(row) + 1

    def stats(self, session_id: str | None) -> dict[str, Any]:
        total, size = self._rows(
            "SELECT (SELECT count(*) FROM lcm_messages WHERE namespace = %s), "
            "pg_total_relation_size('lcm_messages') + pg_total_relation_size('lcm_summaries')",
            (self.namespace,))[0]
        out: dict[str, Any] = {"db_path": self.path, "db_bytes": int(size), "messages_total": int(total)}
        if session_id is not None:
            out["messages_session"] = self.session_size(session_id)
            depths = self._rows(
                "SELECT depth, count(*), count(*) FILTER (WHERE parent_id IS NULL) FROM lcm_summaries "
                "WHERE namespace = %s AND session_id = %s GROUP BY depth ORDER BY depth",
                (self.namespace, session_id))
            out["summaries_by_depth"] = {f"d{d}": {"count": n, "uncondensed": u} for d, n, u in depths}
        return out

    def session_lock(self, session_id: str) -> _PgSessionLock | None:
        """Ownership of ``session_id`` in this namespace, or None while a live engine anywhere holds it."""
        locks = session_locks(self.db.dsn)
        parts = ("lcm-session", self.namespace, session_id)
        try:
            if not locks.acquire(*parts):
                return None
        except StorageError as exc:
            raise _store_error(exc) from None
        return _PgSessionLock(locks, parts)

    def close(self) -> None:
        """The pool is shared by every store of the process; nothing to close per store."""


class _PgSessionLock:
    def __init__(self, locks: Any, parts: tuple[str, ...]) -> None:
        self._locks, self._parts = locks, parts

    def release(self) -> None:
        if self._parts:
            self._locks.release(*self._parts)
            self._parts = ()


def _store_error(exc: StorageError) -> StoreError:
    kind = "busy" if exc.retryable else "other"
    return StoreError(f"PostgreSQL LCM store: {exc}", kind)
