"""Load many LCM messages into PostgreSQL at once: binary COPY, encoding in worker processes,
the search indexes built after the rows.

Appending turn by turn pays, for every message, the upkeep of three GIN indexes (the
``pg_trgm`` one costs most) and the Python tokenizing, on one core: about 150-185 messages/s
on a loaded 2-core machine, two hours for a million. A bulk load (``storage migrate --to
postgres``) has all its rows up front, so:

* rows are encoded by :func:`~hermes_context_lcm.pg_store.message_values`, the function
  appends use, so a bulk-loaded store holds the same bytes; in blocks, by worker processes;
* they travel in one ``COPY ... (FORMAT BINARY)``: nothing to parse, no arrays to unpack;
* when ``lcm_messages`` is empty (no namespace holds a row) its non-unique indexes (word and
  trigram GINs, the session b-tree) are dropped in the same transaction and rebuilt once
  after the rows, from their own definitions: several times cheaper than growing them row
  by row. Unique indexes stay, so a duplicate is still refused. The table is locked
  exclusively meanwhile, which costs nobody anything while it is empty.

Everything is one transaction: a load cut off leaves no row and no missing index behind,
and is re-run from the start.
"""

from __future__ import annotations

import logging
import os
import struct
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from hermes_context_lcm.pg_store import MESSAGE_VALUE_COLUMNS, add_counts, message_values

if TYPE_CHECKING:
    import psycopg

    from hermes_context_lcm.pg_store import PgStore

logger = logging.getLogger(__name__)

Rows = Sequence[Sequence[Any]]  # message rows as message_values reads them
COPY_SIGNATURE = b"PGCOPY\n\xff\r\n\x00" + bytes(8)  # the header of PostgreSQL's binary COPY format, no flags
COPY_TRAILER = b"\xff\xff"
#: Below this many rows a bulk load encodes in-process (starting workers costs ~1 s).
WORKERS_FROM = 20_000

BUILD_MEMORY = "256MB"  # at least this much maintenance_work_mem for the index builds

_NULL = b"\xff\xff\xff\xff"
_FIELD_COUNT = struct.pack(">h", 1 + len(MESSAGE_VALUE_COLUMNS))
_INT8 = struct.Struct(">iq").pack  # each fixed-size field: its length, then its value
_INT4 = struct.Struct(">ii").pack
_INT2 = struct.Struct(">ih").pack
_FLOAT8 = struct.Struct(">id").pack
_LENGTH = struct.Struct(">i").pack


def _var(value: bytes | None) -> bytes:
    return _NULL if value is None else _LENGTH(len(value)) + value


def copy_block(namespace: str, rows: Rows) -> tuple[bytes, int]:
    """``rows`` as binary COPY rows of ``(namespace, *MESSAGE_VALUE_COLUMNS)``, and their FTS5
    token count. Module level and picklable: worker processes run it."""
    name = namespace.encode("utf-8")
    first = _FIELD_COUNT + _LENGTH(len(name)) + name
    out: list[bytes] = []
    ntokens = 0
    for row in rows:
        values, n = message_values(row)
        ntokens += n
        mid, sid, seq, role, data, kind, meta, tokens, created, ident, stoken, rtoken, coarse, parts, body = values
        out += (first, _INT8(8, mid), _var(sid.encode("utf-8")), _INT8(8, seq), _var(role.encode("utf-8")),
                _var(data), _INT2(2, kind), _var(meta.encode("utf-8")), _INT4(4, tokens), _FLOAT8(8, created),
                _var(None if ident is None else bytes(ident)), _var(stoken.encode("utf-8")),
                _var(rtoken.encode("utf-8")), _var(coarse), _var(parts), _var(body.encode("utf-8")))
    return b"".join(out), ntokens


def encoded_blocks(namespace: str, blocks: Iterable[Rows], workers: int) -> Iterator[tuple[bytes, int, int]]:
    """``(COPY bytes, tokens, rows)`` per block, in order; ``workers`` > 1 encodes in that many
    processes (spawned, never forked: the caller holds pool threads), a few blocks ahead.

    If the workers die (a script without an ``if __name__ == "__main__":`` guard makes every
    spawned worker fail at start), the blocks they held and the rest are encoded here, with a
    warning: slower, never lost."""
    if workers <= 1:
        for rows in blocks:
            data, ntokens = copy_block(namespace, rows)
            yield data, ntokens, len(rows)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    source = iter(blocks)
    ahead: deque[tuple[Any, Rows]] = deque()  # a block leaves only once its result is in hand

    def oldest() -> tuple[bytes, int, int]:
        future, rows = ahead[0]
        data, ntokens = future.result()
        ahead.popleft()
        return data, ntokens, len(rows)

    try:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            for rows in source:
                ahead.append((pool.submit(copy_block, namespace, rows), rows))
                if len(ahead) > 2 * workers:
                    yield oldest()
            while ahead:
                yield oldest()
    except BrokenProcessPool as exc:
        logger.warning("LCM bulk load: the encoding worker processes failed (%s); encoding in this process", exc)
        yield from encoded_blocks(namespace, [rows for _, rows in ahead], 1)
        yield from encoded_blocks(namespace, source, 1)


def default_workers(total: int) -> int:
    """Worker processes for a load of ``total`` rows: one per core (at most 4), none when small."""
    return 1 if total < WORKERS_FROM else max(1, min(4, os.cpu_count() or 1))


def _secondary_indexes(conn: psycopg.Connection[Any]) -> list[tuple[str, str]]:
    """``(name, CREATE INDEX statement)`` of every non-unique index of ``lcm_messages``."""
    return [(str(name), str(ddl)) for name, ddl in conn.execute(
        "SELECT indexrelid::regclass::text, pg_get_indexdef(indexrelid) FROM pg_index "
        "WHERE indrelid = 'lcm_messages'::regclass AND NOT indisunique ORDER BY indexrelid")]


def bulk_load(pg: PgStore, blocks: Callable[[], Iterable[Rows]], *, workers: int = 1,
              progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """COPY every message row of ``blocks()`` into ``pg``'s namespace, in one transaction, with
    the counts BM25 reads; the indexes are rebuilt after the rows when the table was empty.

    ``blocks`` is called again if the transaction is retried. ``progress(rows so far)`` after
    each block. Returns ``{"messages", "rebuilt_indexes"}``; a duplicate (an id, a session
    position or an identity already stored) fails the whole load and stores nothing."""

    def work(conn: psycopg.Connection[Any]) -> dict[str, Any]:
        empty = conn.execute("SELECT NOT EXISTS (SELECT 1 FROM lcm_messages)").fetchone()[0]  # type: ignore[index]
        rebuild: list[tuple[str, str]] = []
        if empty:
            conn.execute("LOCK TABLE lcm_messages IN ACCESS EXCLUSIVE MODE")
            if conn.execute("SELECT NOT EXISTS (SELECT 1 FROM lcm_messages)").fetchone()[0]:  # type: ignore[index]
                rebuild = _secondary_indexes(conn)
                for name, _ddl in rebuild:
                    conn.execute(f"DROP INDEX {name}")  # a name the catalog gave, not input
        done = ntokens = 0
        columns = ", ".join(("namespace", *MESSAGE_VALUE_COLUMNS))
        with conn.cursor() as cur, cur.copy(f"COPY lcm_messages ({columns}) FROM STDIN (FORMAT BINARY)") as copy:
            copy.write(COPY_SIGNATURE)
            for data, tokens, count in encoded_blocks(pg.namespace, blocks(), workers):
                copy.write(data)
                done += count
                ntokens += tokens
                if progress:
                    progress(done)
            copy.write(COPY_TRAILER)
        if rebuild:
            conn.execute(  # building a GIN index in memory; a server set higher keeps its setting
                "SELECT set_config('maintenance_work_mem', (greatest(pg_size_bytes(current_setting("
                "'maintenance_work_mem')), pg_size_bytes(%s)) / 1024)::text || 'kB', true)", (BUILD_MEMORY,))
            for _name, ddl in rebuild:
                conn.execute(ddl)
        if done:
            add_counts(conn, pg.namespace, "messages", done, ntokens)
            conn.execute("ANALYZE lcm_messages")  # the planner's view of the new rows, at once
        return {"messages": done, "rebuilt_indexes": [name for name, _ in rebuild]}

    return pg._run(work)  # type: ignore[no-any-return]
