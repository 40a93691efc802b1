"""Copy an LCM store between ``lcm.db`` (SQLite) and PostgreSQL, verified row by row.

Ids, sequence numbers, summaries (with their parents), layouts and every byte of
``content`` / ``meta`` are copied as stored, so a summary's ``covers`` and a layout's ids
still point at the same messages, and files -> postgres -> files gives back the same rows.
Safe to re-run: rows already at the destination are compared, not copied again; a
destination row with the same id and different data stops the copy with an error naming
it (nothing is overwritten).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermes_context_lcm import codec
from hermes_context_lcm.pg_bulk import bulk_load, default_workers
from hermes_context_lcm.pg_store import (
    PgStore,
    add_counts,
    decode_content,
    encode_row,
    from_pg,
    index_row,
    insert_messages,
    key_from_pg,
    key_to_pg,
    use_tsvectors,
)
from hermes_context_lcm.store import (
    SCHEMA_VERSION,
    SQLiteStore,
    StoreError,
    _index_row,
    file_key,
    session_token,
)
from hermes_core.storage.migration import MigrationError, MigrationRequest

BATCH = 2000
BULK_BATCH = 5000  # rows per block a bulk load encodes at once
MSG_COLS = ("id", "session_id", "seq", "role", "content", "meta", "tokens", "created_at", "ident")
#: The same columns in PostgreSQL (content is a bytea and its kind there; see pg_store).
PG_MSG_COLS = ("id", "session_id", "seq", "role", "content", "content_kind", "meta", "tokens", "created_at", "ident")
SUM_COLS = ("id", "session_id", "depth", "content", "hint", "tokens", "source", "covers_kind", "covers",
            "first_message", "last_message", "message_count", "parent_id", "created_at")
Progress = Callable[[str, int, int], None]


class TransferError(MigrationError):
    """The copy cannot go on without overwriting something; nothing was overwritten."""


@dataclass
class TransferReport:
    messages: int = 0
    summaries: int = 0
    layouts: int = 0
    copied: dict[str, int] = field(default_factory=lambda: {"messages": 0, "summaries": 0, "layouts": 0})
    verified: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {"messages": self.messages, "summaries": self.summaries, "layouts": self.layouts,
                "copied": self.copied, "verified": self.verified}


def _sqlite_rows(conn: sqlite3.Connection, table: str, cols: tuple[str, ...],
                 batch: int = BATCH) -> Iterator[list[tuple[Any, ...]]]:
    """The rows of ``table`` by id, a batch at a time, their keys as given (see :func:`_from_file`)."""
    last = -1 << 62
    while True:
        rows = conn.execute(f"SELECT {', '.join(cols)} FROM {table} WHERE id > ? ORDER BY id LIMIT ?",
                            (last, batch)).fetchall()
        if not rows:
            return
        yield [_from_file(table, r) for r in rows]
        last = rows[-1][0]


def _from_file(table: str, row: Sequence[Any]) -> tuple[Any, ...]:
    """A row of the SQLite file with its keys (session id; a message's role) as given: the file
    holds them as :func:`~hermes_context_lcm.store.file_key` makes them."""
    out = list(row)
    out[1] = codec.unescape_key(out[1])
    if table == "messages":
        out[3] = codec.unescape_key(out[3])
    return tuple(out)


def _to_file(table: str, row: Sequence[Any]) -> tuple[Any, ...]:
    out = list(row)
    out[1] = file_key(out[1])
    if table == "messages":
        out[3] = file_key(out[3])
    return tuple(out)


def _decoded(table: str, row: Sequence[Any]) -> tuple[Any, ...]:
    """A PostgreSQL row as the SQLite store holds it (content and escaped text decoded)."""
    if table == "lcm_messages":
        mid, session_id, seq, role, content, kind, meta, tokens, created_at, ident = row
        return (mid, key_from_pg(session_id), seq, key_from_pg(role), decode_content(content, kind), meta, tokens,
                created_at, None if ident is None else bytes(ident))
    *values, escaped = row
    values[1] = key_from_pg(values[1])
    values[3], values[4] = from_pg(values[3], bool(escaped & 1)), from_pg(values[4], bool(escaped & 2))
    return tuple(values)


def _pg_select(table: str, cols: tuple[str, ...]) -> str:
    return ", ".join(PG_MSG_COLS) if table == "lcm_messages" else ", ".join((*cols, "escaped"))


def _pg_rows(pg: PgStore, table: str, cols: tuple[str, ...], ids: list[int]) -> dict[int, tuple[Any, ...]]:
    rows = pg._rows(f"SELECT {_pg_select(table, cols)} FROM {table} WHERE namespace = %s AND id = ANY(%s)",
                    (pg.namespace, ids))
    return {r[0]: _decoded(table, r) for r in rows}


def _open_source(db_path: Path) -> sqlite3.Connection:
    """``db_path`` read-only, at the schema this code reads (an older file is first upgraded by
    opening it once with the store, as any engine start would; a newer one is refused)."""
    probe = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        version = probe.execute("PRAGMA user_version").fetchone()[0]
    finally:
        probe.close()
    if version > SCHEMA_VERSION:
        raise TransferError(f"{db_path}: written by a newer hermes-context-lcm (schema {version}, this one reads "
                            f"{SCHEMA_VERSION}); upgrade hermes-context-lcm before migrating it")
    if version < SCHEMA_VERSION:
        SQLiteStore(db_path).close()
    return sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)


def _conflict(what: str, row_id: int, where: str) -> TransferError:
    return TransferError(f"{where} already holds a different {what} with id {row_id}; refusing to overwrite it. "
                         "Copy into an empty namespace (--namespace) or an empty file.")


def _new_rows(rows: Sequence[Sequence[Any]], present: dict[int, tuple[Any, ...]], what: str,
              where: str) -> list[tuple[Any, ...]]:
    """The rows ``where`` does not hold yet; a row it holds must be equal (a re-run copies nothing)."""
    fresh = []
    for row in rows:
        held = present.get(row[0])
        if held is None:
            fresh.append(tuple(row))
        elif held != tuple(row):
            raise _conflict(what, row[0], where)
    return fresh


def to_postgres(db_path: Path, pg: PgStore, progress: Progress | None = None,
                workers: int | None = None) -> TransferReport:
    """Copy ``db_path`` into ``pg``'s namespace; verify every row.

    Into a namespace without messages, the messages go by :func:`~hermes_context_lcm.pg_bulk.bulk_load`
    (one binary COPY, encoded by ``workers`` processes, default one per core for large files);
    otherwise batch by batch, each row compared with what the namespace holds."""
    report = TransferReport()
    source = _open_source(db_path)
    try:
        total = source.execute("SELECT count(*) FROM messages").fetchone()[0]
        held = pg._rows("SELECT EXISTS (SELECT 1 FROM lcm_messages WHERE namespace = %s)", (pg.namespace,))[0][0]
        if total and not held:
            report.messages = report.copied["messages"] = _bulk_messages(source, pg, total, progress, workers)
        else:
            for batch in _sqlite_rows(source, "messages", MSG_COLS):
                present = _pg_rows(pg, "lcm_messages", MSG_COLS, [r[0] for r in batch])
                fresh = _new_rows(batch, present, "message", pg.path)
                if fresh:
                    _copy_messages(pg, fresh)
                report.messages += len(batch)
                report.copied["messages"] += len(fresh)
                if progress:
                    progress("messages", report.messages, total)
        for batch in _sqlite_rows(source, "summaries", SUM_COLS):
            present = _pg_rows(pg, "lcm_summaries", SUM_COLS, [r[0] for r in batch])
            fresh = _new_rows(batch, present, "summary", pg.path)
            _copy_summaries(pg, fresh)
            report.summaries += len(batch)
            report.copied["summaries"] += len(fresh)
        for stored_id, layout, upto in source.execute("SELECT session_id, layout, upto FROM layouts"):
            session_id = codec.unescape_key(stored_id)
            there = pg._rows("SELECT layout, upto FROM lcm_layouts WHERE namespace = %s AND session_id = %s",
                             (pg.namespace, key_to_pg(session_id)))
            if there and tuple(there[0]) != (layout, upto):
                raise _conflict(f"layout of session {session_id!r}", 0, pg.path)
            if not there:
                pg._run(lambda conn, s=session_id, lay=layout, u=upto: conn.execute(
                    "INSERT INTO lcm_layouts (namespace, session_id, layout, upto) VALUES (%s, %s, %s, %s)",
                    (pg.namespace, key_to_pg(s), lay, u)))
                report.copied["layouts"] += 1
            report.layouts += 1
        pg._run(lambda conn: conn.execute(
            "SELECT setval('lcm_ids', greatest((SELECT last_value FROM lcm_ids), %s))",
            (max(_max_id(source, "messages"), _max_id(source, "summaries"), 1),)))
        report.verified = verify(source, pg)
    finally:
        source.close()
    return report


def _max_id(conn: sqlite3.Connection, table: str) -> int:
    return int(conn.execute(f"SELECT coalesce(max(id), 0) FROM {table}").fetchone()[0])


def _copy_messages(pg: PgStore, rows: list[tuple[Any, ...]]) -> None:
    """Rows as the PostgreSQL store writes them (the same encoding and index), and the counts."""
    def work(conn: Any) -> None:
        insert_messages(conn, pg.namespace, [row[:9] for row in rows])

    try:
        pg._run(work)
    except Exception as exc:
        if "duplicate key" in str(exc):
            raise TransferError(f"{pg.path} already holds messages at the same session positions: {exc}") from None
        raise


def _bulk_messages(source: sqlite3.Connection, pg: PgStore, total: int, progress: Progress | None,
                   workers: int | None) -> int:
    def step(done: int) -> None:
        if progress:
            progress("messages", done, total)

    try:
        loaded = bulk_load(pg, lambda: _sqlite_rows(source, "messages", MSG_COLS, BULK_BATCH),
                           workers=default_workers(total) if workers is None else workers, progress=step)
    except Exception as exc:
        if "duplicate key" in str(exc):
            raise TransferError(f"{pg.path} already holds messages at the same session positions or with the "
                                f"same content identity: {exc}") from None
        raise
    return int(loaded["messages"])


def _copy_summaries(pg: PgStore, rows: list[tuple[Any, ...]]) -> None:
    if not rows:
        return

    def work(conn: Any) -> None:
        use_tsvectors(conn)
        values, ntokens = [], 0
        for r in rows:
            index = index_row(f"{r[3]}\n{r[4]}")
            ntokens += index.ntokens
            content, hint, escaped = encode_row(r[3], r[4])
            values.append((pg.namespace, r[0], key_to_pg(r[1]), r[2], content, hint, *r[5:], escaped,
                           session_token(r[1]), index.coarse, index.parts))
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO lcm_summaries (namespace, id, session_id, depth, content, hint, tokens, source,"
                " covers_kind, covers, first_message, last_message, message_count, parent_id, created_at, escaped,"
                " stoken, coarse, parts) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s,"
                " %b, %b)", values)
        add_counts(conn, pg.namespace, "summaries", len(rows), ntokens)

    pg._run(work)


def verify(source: sqlite3.Connection, pg: PgStore) -> bool:
    """Every message and summary of ``source`` is in ``pg`` with identical columns."""
    for table, pg_table, cols in (("messages", "lcm_messages", MSG_COLS), ("summaries", "lcm_summaries", SUM_COLS)):
        for batch in _sqlite_rows(source, table, cols):
            there = _pg_rows(pg, pg_table, cols, [r[0] for r in batch])
            for row in batch:
                if there.get(row[0]) != tuple(row):
                    raise TransferError(f"verification failed: {table[:-1]} {row[0]} differs in {pg.path}")
    return True


def to_sqlite(pg: PgStore, db_path: Path, progress: Progress | None = None) -> TransferReport:
    """Copy ``pg``'s namespace into ``db_path`` (created; an existing file must hold the same rows)."""
    report = TransferReport()
    SQLiteStore(db_path).close()  # the schema, as the SQLite store makes it
    conn = sqlite3.connect(db_path, isolation_level=None)
    try:
        total = int(pg._rows("SELECT count(*) FROM lcm_messages WHERE namespace = %s", (pg.namespace,))[0][0])
        conn.execute("BEGIN IMMEDIATE")
        for rows in _pg_batches(pg, "lcm_messages", MSG_COLS):
            fresh = _fresh(conn, "messages", MSG_COLS, rows, str(db_path))
            conn.executemany(f"INSERT INTO messages ({', '.join(MSG_COLS)}) VALUES ({', '.join('?' * len(MSG_COLS))})",
                             [_to_file("messages", r) for r in fresh])
            report.messages += len(rows)
            report.copied["messages"] += len(fresh)
            if progress:
                progress("messages", report.messages, total)
        for rows in _pg_batches(pg, "lcm_summaries", SUM_COLS):
            fresh = _fresh(conn, "summaries", SUM_COLS, rows, str(db_path))
            conn.executemany(f"INSERT INTO summaries ({', '.join(SUM_COLS)}) VALUES ({', '.join('?' * 14)})",
                             [_to_file("summaries", r) for r in fresh])
            conn.executemany("INSERT INTO summaries_fts (rowid, meta, body, parts) VALUES (?, ?, ?, ?)",
                             [_index_row(r[0], f"{session_token(r[1])} d{r[2]}", f"{r[3]}\n{r[4]}") for r in fresh])
            report.summaries += len(rows)
            report.copied["summaries"] += len(fresh)
        for stored_id, layout, upto in pg._rows(
                "SELECT session_id, layout, upto FROM lcm_layouts WHERE namespace = %s", (pg.namespace,)):
            session_id = key_from_pg(stored_id)
            there = conn.execute("SELECT layout, upto FROM layouts WHERE session_id = ?",
                                 (file_key(session_id),)).fetchone()
            if there and tuple(there) != (layout, upto):
                raise _conflict(f"layout of session {session_id!r}", 0, str(db_path))
            if not there:
                conn.execute("INSERT INTO layouts (session_id, layout, upto) VALUES (?, ?, ?)",
                             (file_key(session_id), layout, upto))
                report.copied["layouts"] += 1
            report.layouts += 1
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    finally:
        conn.close()
    store = SQLiteStore(db_path)
    try:
        store.flush_index()  # the message index is filled from the rows, as the store does it
    finally:
        store.close()
    source = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        report.verified = verify(source, pg) and _counts_match(source, pg)
    finally:
        source.close()
    return report


def _counts_match(source: sqlite3.Connection, pg: PgStore) -> bool:
    for table, pg_table in (("messages", "lcm_messages"), ("summaries", "lcm_summaries")):
        here = source.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        there = pg._rows(f"SELECT count(*) FROM {pg_table} WHERE namespace = %s", (pg.namespace,))[0][0]
        if here != there:
            raise TransferError(f"verification failed: {here} {table} in the file, {there} in {pg.path}")
    return True


def _pg_batches(pg: PgStore, table: str, cols: tuple[str, ...]) -> Iterator[list[tuple[Any, ...]]]:
    last = -1 << 62
    while True:
        rows = pg._rows(f"SELECT {_pg_select(table, cols)} FROM {table} WHERE namespace = %s AND id > %s "
                        "ORDER BY id LIMIT %s", (pg.namespace, last, BATCH))
        if not rows:
            return
        yield [_decoded(table, r) for r in rows]
        last = rows[-1][0]


def _fresh(conn: sqlite3.Connection, table: str, cols: tuple[str, ...], rows: list[tuple[Any, ...]],
           where: str) -> list[tuple[Any, ...]]:
    marks = ",".join("?" * len(rows))
    present = {r[0]: _from_file(table, r) for r in conn.execute(
        f"SELECT {', '.join(cols)} FROM {table} WHERE id IN ({marks})", [r[0] for r in rows])}
    return _new_rows(rows, present, table[:-1], where)




class LCMMigration:
    """``hermes-core storage migrate`` for ``lcm.db`` (entry point ``hermes.storage_migrations``)."""

    name = "lcm"

    def _db_path(self, request: MigrationRequest) -> Path:
        from hermes_context_lcm.settings import LCMSettings

        return LCMSettings.model_validate(request.config.plugins.section("lcm")).resolved_db_path(request.home)

    def copy(self, to: str, request: MigrationRequest) -> dict[str, Any]:
        db_path = self._db_path(request)
        try:
            pg = PgStore(request.storage)
            if to == "postgres":
                if not db_path.is_file():
                    return {"skipped": f"no LCM database at {db_path}", "db_path": str(db_path)}
                report = to_postgres(db_path, pg, request.progress)
            else:
                held = pg.stats(None)["messages_total"] + len(pg.all_summaries(None))
                if not held and not db_path.exists():
                    return {"skipped": f"namespace {pg.namespace!r} holds no LCM data", "db_path": str(db_path)}
                report = to_sqlite(pg, db_path, request.progress)
        except (TransferError, StoreError, sqlite3.Error) as exc:
            raise MigrationError(str(exc)) from None
        return {"db_path": str(db_path), **report.as_dict()}

    def status(self, request: MigrationRequest) -> dict[str, Any]:
        try:
            pg = PgStore(request.storage)
            return {"messages": pg.stats(None)["messages_total"], "summaries": len(pg.all_summaries(None))}
        except StoreError as exc:
            raise MigrationError(str(exc)) from None
