"""The LCM store in PostgreSQL: the same :class:`~hermes_context_lcm.store.Store` as SQLite.

Selected by ``storage.backend: postgres``. Every row carries the ``namespace`` of the
``storage:`` section and every statement filters on it (a bound parameter), so tenants
share tables but never rows.

**What is stored** is what the SQLite store stores, from the same helpers: a message's
``(content, meta)`` from :func:`hermes_context_lcm.codec.encode_message` (``content`` in a
``bytea`` with a kind: none, text as UTF-8 - NUL included, which a PostgreSQL ``text``
cannot hold - or the surrogate-holding bytes as they are), so :meth:`StoredMessage.message`
rebuilds the ingested dict byte for byte; and the same content identity (the store's
``_identity``) under ``UNIQUE (namespace, ident)``, so a re-ingest returns the existing ids.

**Search** indexes what SQLite's FTS5 indexes: :func:`~hermes_context_lcm.textindex.coarse_text`
and :func:`~hermes_context_lcm.textindex.parts_text` of the searchable text, each a ``tsvector``
(GIN) of the tokens FTS5's ``unicode61`` makes (built here, with positions; phrases are
``<->``). A :class:`~hermes_context_lcm.query.TextQuery` becomes the same phrases over the
same columns as :func:`hermes_context_lcm.store.term_expression`. Ranking follows the SQLite
store: a query with up to ``RANK_LIMIT`` matches is ordered by FTS5's BM25, computed here
with FTS5's own formula and statistics (row and token counts per namespace are kept in
``lcm_counts``), equal scores newest first; a more common one newest first.
``search_substring`` uses a ``pg_trgm`` GIN index for plain substrings.

One live engine per session across hosts: :meth:`PgStore.session_lock` takes a
session-level advisory lock (released when the host's connection dies).
"""

from __future__ import annotations

import base64
import functools
import itertools
import math
import re
import struct
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hermes_context_lcm import codec
from hermes_context_lcm.store import (
    RANK_LIMIT,
    Message,
    StoredMessage,
    StoreError,
    SummaryRow,
    _identity,
    encode_rows,
    role_token,
    session_token,
)
from hermes_context_lcm.textindex import coarse_text, parts_text, query_forms, single_run_pairs
from hermes_core.storage.errors import StorageError
from hermes_core.storage.locks import advisory_key, session_locks
from hermes_core.storage.schema import Component, migrate

if TYPE_CHECKING:
    import psycopg

    from hermes_context_lcm.dag import NewSummary
    from hermes_context_lcm.query import Term, TextQuery
    from hermes_core.config.models import StorageConfig
    from hermes_core.storage.pool import Database

DENSE_WINDOW = 1000  # a query with RANK_LIMIT + 1 matches among this many newest rows is read newest first
MAX_POSITION = 16383  # tsvector positions stop there; later tokens share it (phrases that far in may miss)

#: Version 1 is the only one: the PostgreSQL backend is unreleased, so its first schema was
#: rewritten in place for the store's identity and index text (no database holds the old one).
LCM_SCHEMA = Component("lcm", migrations=(
    """
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
    CREATE TABLE lcm_messages (
        namespace text NOT NULL,
        id bigint NOT NULL,
        session_id text NOT NULL,
        seq bigint NOT NULL,
        role text NOT NULL,
        content bytea,
        content_kind smallint NOT NULL,
        meta text NOT NULL,
        tokens integer NOT NULL,
        created_at double precision NOT NULL,
        ident bytea,
        stoken text NOT NULL,
        rtoken text NOT NULL,
        coarse tsvector NOT NULL,
        parts tsvector NOT NULL,
        body text NOT NULL,
        PRIMARY KEY (namespace, id),
        UNIQUE (namespace, session_id, seq),
        UNIQUE (namespace, ident)
    );
    CREATE INDEX lcm_messages_coarse ON lcm_messages USING gin (coarse);
    CREATE INDEX lcm_messages_parts ON lcm_messages USING gin (parts);
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
        coarse tsvector NOT NULL,
        parts tsvector NOT NULL,
        PRIMARY KEY (namespace, id)
    );
    CREATE INDEX lcm_summaries_roots ON lcm_summaries (namespace, session_id, parent_id, id);
    CREATE INDEX lcm_summaries_coarse ON lcm_summaries USING gin (coarse);
    CREATE INDEX lcm_summaries_parts ON lcm_summaries USING gin (parts);
    CREATE TABLE lcm_layouts (
        namespace text NOT NULL,
        session_id text NOT NULL,
        layout text NOT NULL,
        upto bigint NOT NULL,
        PRIMARY KEY (namespace, session_id)
    );
    CREATE TABLE lcm_counts (
        namespace text NOT NULL,
        kind text NOT NULL,
        rows bigint NOT NULL,
        tokens bigint NOT NULL,
        PRIMARY KEY (namespace, kind)
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
#: A text this long or shorter has at most 2 tokens per character in a column (CJK one per
#: character, identifier parts and pairs two), so under ``MAX_POSITION`` and ``MAX_VECTOR_BYTES``:
#: its search vectors hold every position of every word (but of one seen over ``MAX_POSITIONS`` times).
EXACT_POSITIONS_UPTO = 8000


def _fold(ch: str) -> str:
    low = ch.lower()
    if len(low) != 1:
        low = ch
    if ord(low) < 0x250 and not low.isascii():  # Latin letters lose their diacritics
        base = unicodedata.normalize("NFD", low)[0]
        if base.isascii():
            return base.lower()
    return low


class _FoldTable(dict):  # type: ignore[type-arg]
    """``str.translate`` table of :func:`_fold`, filled as characters are met (bounded).

    Folding maps a letter to a letter and anything else to itself, so folding a whole text
    and then splitting it into words gives the words folded one character at a time."""

    def __missing__(self, code: int) -> str:
        folded = _fold(chr(code))
        if len(self) < 65536:
            self[code] = folded
        return folded


_FOLD = _FoldTable()
_ASCII_WORD = re.compile(r"[a-z0-9]+")


def tokens(text: str) -> list[str]:
    """The words of ``text`` as SQLite's ``unicode61`` tokenizer (remove_diacritics=1) sees them."""
    if text.isascii():
        return _ASCII_WORD.findall(text.lower())
    return (_WORD_OR_PRIVATE if _PRIVATE.search(text) else _WORD).findall(text.translate(_FOLD))


def word_positions(words: Sequence[str]) -> dict[str, int | list[int]]:
    """Each word of ``words`` with its positions 1, 2, ... (an int when it occurs once), capped as
    PostgreSQL caps a ``tsvector``: positions at 16383, 256 per word (kept by :func:`vector_bytes`),
    no word over 2046 bytes, at most ~1 MB in all.

    Texts far from the caps (nearly all) take the first loop; the second applies them."""
    if len(words) <= MAX_POSITION and (not words or max(map(len, words)) * 4 <= MAX_LEXEME_BYTES):
        found: dict[str, int | list[int]] = {}
        for n, word in enumerate(words, 1):
            at = found.get(word)
            if at is None:
                found[word] = n
            elif type(at) is int:
                found[word] = [at, n]
            else:
                at.append(n)  # type: ignore[union-attr]
        if sum(map(len, found)) * 4 + 16 * len(found) <= MAX_VECTOR_BYTES:
            return found
    capped: dict[str, int | list[int]] = {}
    size = 0
    for n, token in enumerate(words, 1):
        at = capped.get(token)
        if at is None:
            if len(token) * 4 > MAX_LEXEME_BYTES and len(token.encode("utf-8")) > MAX_LEXEME_BYTES:
                continue  # PostgreSQL refuses longer words: not searchable by word (lcm_grep regex finds it)
            size += len(token) * 4 + 16
            if size > MAX_VECTOR_BYTES:
                break  # a tsvector holds at most 1 MB: the rest of a huge text is not indexed by word
            capped[token] = [min(n, MAX_POSITION)]
        elif len(at) < MAX_POSITIONS and at[-1] < MAX_POSITION:  # type: ignore[index, operator]
            at.append(min(n, MAX_POSITION))  # type: ignore[union-attr]
    return capped


class TsVector(bytes):
    """A ``tsvector`` in PostgreSQL's binary form, sent as it is (see :func:`tsvector_dumper`)."""


@functools.cache
def _one_position(n: int) -> bytes:
    return b"\x00\x00\x01" + n.to_bytes(2, "big")  # the lexeme's NUL terminator, 1 position, the position


def vector_bytes(words: Sequence[str]) -> TsVector:
    """The ``tsvector`` of ``words`` in the binary form ``tsvectorrecv`` reads: the number of
    lexemes; then each lexeme NUL-terminated, its number of positions and the positions.

    Built here at about the cost of a text literal, because parsing a literal was the
    server's largest cost per message (~10x that of reading the binary form); the server
    sorts the lexemes. Tokens are letters and digits, so none holds a NUL."""
    found = word_positions(words)
    lexemes = "\0".join(found).encode("utf-8").split(b"\0") if found else []
    tails = [_one_position(at) if type(at) is int else _positions(at) for at in found.values()]  # type: ignore[arg-type]
    body = b"".join(itertools.chain.from_iterable(zip(lexemes, tails, strict=True)))
    return TsVector(len(found).to_bytes(4, "big") + body)


def _positions(at: list[int]) -> bytes:
    kept = at[:MAX_POSITIONS]
    return struct.pack(f">xH{len(kept)}H", len(kept), *kept)


TSVECTOR_OID = 3614  # pg_type.oid of tsvector, the same in every PostgreSQL


@functools.cache
def tsvector_dumper() -> type:
    """The psycopg dumper sending a :class:`TsVector` as a binary ``tsvector`` parameter."""
    from psycopg.adapt import Dumper
    from psycopg.pq import Format

    class TsVectorDumper(Dumper):
        format = Format.BINARY
        oid = TSVECTOR_OID

        def dump(self, obj: Any) -> bytes:
            return obj  # type: ignore[no-any-return]

    return TsVectorDumper


def use_tsvectors(conn: psycopg.Connection[Any]) -> None:
    """Let ``conn`` send :class:`TsVector` parameters (a dict entry per connection)."""
    conn.adapters.register_dumper(TsVector, tsvector_dumper())


# -- what is stored ------------------------------------------------------------------------------

CONTENT_NONE, CONTENT_TEXT, CONTENT_BYTES = 0, 1, 2


def encode_content(content: str | bytes | None) -> tuple[bytes | None, int]:
    """The codec's ``content`` as ``(bytea, kind)``: text as UTF-8 (NUL kept), bytes as they are."""
    if content is None:
        return None, CONTENT_NONE
    if isinstance(content, bytes):
        return content, CONTENT_BYTES
    return content.encode("utf-8"), CONTENT_TEXT


def decode_content(data: bytes | memoryview | None, kind: int) -> str | bytes | None:
    if data is None or kind == CONTENT_NONE:
        return None
    data = bytes(data)
    return data.decode("utf-8") if kind == CONTENT_TEXT else data


def to_pg(value: str | None) -> tuple[str | None, bool]:
    """``(stored text, escaped)`` for a summary's text: a text with NUL (which a PostgreSQL
    ``text`` cannot hold) is stored as base64 of its UTF-8, so it reads back exactly."""
    if value is None or "\x00" not in value:
        return value, False
    return base64.b64encode(value.encode("utf-8", "surrogatepass")).decode("ascii"), True


def from_pg(value: str | None, escaped: bool) -> str | None:
    if value is None or not escaped:
        return value
    return base64.b64decode(value).decode("utf-8", "surrogatepass")


#: A ``session_id`` or ``role`` as its ``text`` column holds it: as it is, or - when it holds what
#: a PostgreSQL ``text`` refuses (NUL, a lone surrogate) or starts with ``KEY_ESCAPE`` - the
#: marker and base64 of its UTF-8 (:func:`hermes_context_lcm.codec.escape_key`, the form the
#: SQLite store uses for what SQLite refuses), so every value is stored, found and read back exactly.
KEY_ESCAPE = codec.KEY_ESCAPE
key_to_pg = codec.escape_key
key_from_pg = codec.unescape_key


def _newest(dense: bool) -> str:
    """Newest first: down the primary key for a dense query, else by a sort of what the word
    indexes found (``id + 0`` is not the key, so the planner cannot walk it)."""
    return "id DESC" if dense else "id + 0 DESC"


def searchable(text: str) -> str:
    """What the indexes see: lone surrogates replaced (as SQLite's index sees them), NUL a space
    (FTS5 splits words on it as on a space; a PostgreSQL ``text`` cannot hold it)."""
    return codec.storable_text(text).replace("\x00", " ")


def encode_row(first: str | None, second: str | None) -> tuple[str | None, str | None, int]:
    """Two text columns as stored, and the ``escaped`` bits (1: the first, 2: the second)."""
    a, ea = to_pg(first)
    b, eb = to_pg(second)
    return a, b, int(ea) | (int(eb) << 1)


@dataclass(frozen=True)
class IndexRow:
    """What the word indexes hold of one text, and its size as FTS5 counts it (for BM25)."""

    coarse: TsVector
    parts: TsVector
    ntokens: int


def index_row(text: str) -> IndexRow:
    """The SQLite store's index columns for ``text`` (``body`` = coarse, ``parts``) as tsvectors."""
    clean = searchable(text)
    coarse, parts = tokens(coarse_text(clean)), tokens(parts_text(clean))
    return IndexRow(vector_bytes(coarse), vector_bytes(parts), 2 + len(coarse) + len(parts))  # 2: meta


def decode_message(row: Sequence[Any]) -> StoredMessage:
    """A row of ``MESSAGE_COLUMNS`` as the :class:`StoredMessage` the SQLite store returns."""
    return StoredMessage(row[0], key_from_pg(row[1]), row[2], key_from_pg(row[3]), decode_content(row[4], row[5]),
                         row[6], row[7], row[8])


def decode_summary(row: Sequence[Any]) -> SummaryRow:
    """A row of ``SUMMARY_COLUMNS`` as the :class:`SummaryRow` that was stored."""
    escaped = row[14]
    return SummaryRow(row[0], key_from_pg(row[1]), row[2], from_pg(row[3], bool(escaped & 1)) or "",  # type: ignore[call-arg]
                      from_pg(row[4], bool(escaped & 2)) or "", row[5], row[6], row[7], tuple(codec.loads(row[8])),
                      *row[9:14])


MESSAGE_COLUMNS = "id, session_id, seq, role, content, content_kind, meta, tokens, created_at"
SUMMARY_COLUMNS = ("id, session_id, depth, content, hint, tokens, source, covers_kind, covers,"
                   " first_message, last_message, message_count, parent_id, created_at, escaped")


def add_counts(conn: psycopg.Connection[Any], namespace: str, kind: str, rows: int, ntokens: int) -> None:
    """Keep the row and token totals FTS5 keeps for BM25 (``kind``: messages or summaries)."""
    conn.execute("INSERT INTO lcm_counts (namespace, kind, rows, tokens) VALUES (%s, %s, %s, %s) "
                 "ON CONFLICT (namespace, kind) DO UPDATE SET rows = lcm_counts.rows + EXCLUDED.rows, "
                 "tokens = lcm_counts.tokens + EXCLUDED.tokens", (namespace, kind, rows, ntokens))


# -- a TextQuery as the SQLite store's FTS5 expression, in SQL --------------------------------------


@dataclass(frozen=True)
class Phrase:
    """One FTS5 phrase of a query: its tokens, a prefix last token, the columns it may match in."""

    words: tuple[str, ...]
    prefix: bool
    columns: tuple[str, ...]  # "coarse" (FTS5 ``body``) and/or "parts"

    def tsquery(self) -> str:
        parts = [f"'{w}'" for w in self.words if len(w.encode("utf-8")) <= MAX_LEXEME_BYTES] or ["'-'"]
        if self.prefix:
            parts[-1] += ":*"
        return " <-> ".join(parts)  # a lexeme no text has ('-') when no word is left: FTS5 matches nothing


def _phrase(text: str, prefix: bool, *columns: str) -> Phrase:
    return Phrase(tuple(tokens(text)), prefix, columns)


def term_phrases(term: Term) -> list[Phrase]:
    """The phrases :func:`hermes_context_lcm.store.term_expression` writes for ``term``, in its order."""
    coarse, fine = query_forms(term.text)
    pairs = single_run_pairs(term.text)
    if pairs:
        by_pairs = _phrase(pairs, term.prefix, "parts")
        return [by_pairs] if " " in coarse else [_phrase(coarse, term.prefix, "coarse"), by_pairs]
    if coarse == fine:
        return [_phrase(coarse, term.prefix, "coarse", "parts")]
    return [_phrase(coarse, term.prefix, "coarse"), _phrase(fine, term.prefix, "parts")]


def _phrase_sql(phrase: Phrase, params: list[Any]) -> str:
    tests = []
    for column in phrase.columns:
        tests.append(f"{column} @@ %s::tsquery")
        params.append(phrase.tsquery())
    return "(" + " OR ".join(tests) + ")"


def match_sql(query: TextQuery) -> tuple[str, list[Any], list[Phrase]]:
    """``(SQL condition, its parameters, the phrases in FTS5's order)`` for ``query``."""
    params: list[Any] = []
    phrases: list[Phrase] = []

    def term_sql(term: Term) -> str:
        found = term_phrases(term)
        phrases.extend(found)
        return "(" + " OR ".join(_phrase_sql(p, params) for p in found) + ")"

    groups = []
    for group in query.groups:
        expr = " AND ".join(term_sql(t) for t in group.must)
        if group.must_not:
            expr = f"{expr} AND NOT ({' OR '.join(term_sql(t) for t in group.must_not)})"
        groups.append(f"({expr})")
    if not groups:
        raise ValueError("the query has no searchable words")
    return "(" + " OR ".join(groups) + ")", params, phrases


# -- BM25 as FTS5 computes it ------------------------------------------------------------------------

K1, B = 1.2, 0.75
WEIGHTS = {"coarse": 1.0, "parts": 0.5}  # bm25(fts, 0.0, 1.0, 0.5): meta, body, parts
#: FTS5 with ``columnsize=0`` on a contentless table reports each column's size as -1, so
#: the document length in its BM25 is minus the number of columns (meta, body, parts).
DOC_LENGTH = -3.0


def _instances(words: Sequence[str], phrase: Phrase) -> int:
    """How often ``phrase`` occurs in ``words`` (overlapping, as FTS5 counts instances)."""
    n = len(phrase.words)
    if not n:
        return 0
    first, last = phrase.words[0], phrase.words[-1]
    count = 0
    for i in range(len(words) - n + 1):
        if words[i] != first and not (n == 1 and phrase.prefix and words[i].startswith(first)):
            continue
        body = all(words[i + k] == phrase.words[k] for k in range(1, n - 1))
        end = words[i + n - 1]
        if body and (end.startswith(last) if phrase.prefix else end == last):
            count += 1
    return count


def phrase_frequencies(words: dict[str, Sequence[str]], phrases: Sequence[Phrase]) -> list[float]:
    """Per phrase, its instances in each column weighted as FTS5 weighs them (``words``: each
    column's tokens, or :class:`PositionWords` of its search vector)."""
    out = []
    for phrase in phrases:
        freq = 0.0
        for column in ("coarse", "parts"):  # FTS5 adds each instance's column weight, in column order
            if column in phrase.columns:
                found = words[column]
                count = found.instances(phrase) if isinstance(found, PositionWords) else _instances(found, phrase)
                for _ in range(count):
                    freq += WEIGHTS[column]
        out.append(freq)
    return out


class PositionWords(dict):  # type: ignore[type-arg]
    """A column's words as its search vector holds them: lexeme -> positions (1-based token
    numbers). Counts instances as :func:`_instances` counts them over the token list, which it
    equals while no position was capped (see :func:`word_positions`)."""

    def _at(self, word: str, prefix: bool) -> set[int]:
        if not prefix:
            return set(self.get(word, ()))
        return {p for lexeme, at in self.items() if lexeme.startswith(word) for p in at}

    def instances(self, phrase: Phrase) -> int:
        words = phrase.words
        if not words:
            return 0
        last = len(words) - 1
        first = self._at(words[0], phrase.prefix and last == 0)
        rest = [self._at(w, phrase.prefix and k == last) for k, w in enumerate(words[1:], 1)]
        return sum(1 for p in first if all(p + k in at for k, at in enumerate(rest, 1)))


def bm25_scores(freqs: dict[int, list[float]], hits: Sequence[int], rows: int,
                total_tokens: int) -> dict[int, float]:
    """FTS5's ``bm25()`` (negative: lower is better) of each row, from its weighted phrase
    frequencies, the rows matching each phrase (``hits``) and the table's row and token totals."""
    avgdl = total_tokens / rows if rows else 0.0
    idf = []
    for n in hits:
        value = math.log((0.5 + rows - n) / (0.5 + n))
        idf.append(value if value > 0.0 else 1e-6)
    out: dict[int, float] = {}
    for rowid, row_freqs in freqs.items():
        score = 0.0
        for i, freq in enumerate(row_freqs):
            if freq:
                score += idf[i] * ((freq * (K1 + 1.0)) / (freq + K1 * (1 - B + B * DOC_LENGTH / avgdl)))
        out[rowid] = -1.0 * score
    return out


def text_words(text: str) -> dict[str, Sequence[str]]:
    """The tokens of each indexed column of ``text``, as the indexes make them."""
    clean = searchable(text)
    return {"coarse": tokens(coarse_text(clean)), "parts": tokens(parts_text(clean))}


def bm25(texts: dict[int, str], phrases: Sequence[Phrase], hits: Sequence[int], rows: int,
         total_tokens: int) -> dict[int, float]:
    """FTS5's ``bm25()`` of each row's index text (see :func:`bm25_scores`)."""
    freqs = {rowid: phrase_frequencies(text_words(text), phrases) for rowid, text in texts.items()}
    return bm25_scores(freqs, hits, rows, total_tokens)


#: The columns of ``lcm_messages`` a message row fills, after ``namespace``, in the order of
#: :func:`message_values` (the unnest of :func:`insert_messages`, the COPY of ``pg_bulk``).
MESSAGE_VALUE_COLUMNS = ("id", "session_id", "seq", "role", "content", "content_kind", "meta", "tokens",
                         "created_at", "ident", "stoken", "rtoken", "coarse", "parts", "body")


def message_values(row: Sequence[Any]) -> tuple[tuple[Any, ...], int]:
    """A message row ``(id, session_id, seq, role, content, meta, tokens, created_at, ident)`` (the
    codec's ``content``) as the values of ``MESSAGE_VALUE_COLUMNS``, and its FTS5 token count:
    the one encoding every way of storing a message uses, so all store the same bytes."""
    mid, session_id, seq, role, content, meta, tokens_, created_at, ident = row
    text = searchable(StoredMessage(mid, session_id, seq, role, content, meta, tokens_, created_at).text())
    index = index_row(text)
    data, kind = encode_content(content)
    return ((mid, key_to_pg(session_id), seq, key_to_pg(role), data, kind, meta, tokens_, created_at, ident,
             session_token(session_id), role_token(role), index.coarse, index.parts, text), index.ntokens)


def insert_messages(conn: psycopg.Connection[Any], namespace: str, rows: Sequence[Sequence[Any]]) -> None:
    """Insert message rows (as :func:`message_values` reads them) with their index columns, in one
    statement, and count them.

    The columns travel as binary arrays (text arrays are not escaped, ``tsvector`` as
    :func:`vector_bytes` built them) into one ``INSERT ... SELECT FROM unnest(...)``."""
    if not rows:
        return
    use_tsvectors(conn)
    columns: list[list[Any]] = [[] for _ in MESSAGE_VALUE_COLUMNS]
    ntokens = 0
    for row in rows:
        values, n = message_values(row)
        ntokens += n
        for column, value in zip(columns, values, strict=True):
            column.append(value)
    conn.execute(
        f"INSERT INTO lcm_messages (namespace, {', '.join(MESSAGE_VALUE_COLUMNS)}) SELECT %s, * FROM unnest("
        "%b::int8[], %b::text[], %b::int8[], %b::text[], %b::bytea[], %b::int2[], %b::text[], %b::int4[], "
        "%b::float8[], %b::bytea[], %b::text[], %b::text[], %b::tsvector[], %b::tsvector[], %b::text[])",
        (namespace, *columns))
    add_counts(conn, namespace, "messages", len(rows), ntokens)


class PgStore:
    """The LCM store in one PostgreSQL namespace. Thread-safe (pooled connections)."""

    generation = 0  # the database is never replaced under the store

    def __init__(self, storage: StorageConfig, *, environ: dict[str, str] | None = None,
                 durable: bool = False) -> None:
        """``durable``: wait for the WAL flush on every write. Off by default, matching the SQLite
        store (WAL, ``synchronous=NORMAL``): a server crash may forget the last fraction of a
        second of writes, never corrupt them, and a commit is ~10x cheaper on a plain disk."""
        from hermes_core.storage.pool import database
        from hermes_core.storage.settings import postgres_target

        self.namespace = storage.namespace
        self.last_error = ""
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
            # Pipelined: statements travel together until a result is read (one round trip each).
            with conn.pipeline():
                if self._commit_mode != "on":
                    conn.execute(b"SET LOCAL synchronous_commit TO off")
                return work(conn)

        return self._run(with_commit_mode, **kw)

    def _run(self, work: Any, **kw: Any) -> Any:
        try:
            result = self.db.transact(work, **kw)
        except StorageError as exc:
            error = _store_error(exc)
            self.last_error = str(error)
            raise error from None
        self.last_error = ""
        return result

    # -- messages ----------------------------------------------------------------------

    def append(self, session_id: str, messages: Sequence[Message],
               parents: Sequence[int | None] | None = None) -> list[int]:
        """Store ``messages`` in one transaction; one id per message (the existing one when the
        message's identity is stored already). ``parents`` as in the SQLite store: the stored id
        before each message, ``0`` for none, ``None`` for the previous element.

        Three round trips, pipelined: the session lock with the session's last row, the named
        parents and fresh ids; the identities already stored (skipped when the batch continues
        the session's last row: no stored row is chained on the newest one); the new rows
        (:func:`insert_messages`); then COMMIT."""
        if not messages:
            return []
        rows = encode_rows(messages, parents)
        now = time.time()
        wanted = list(dict.fromkeys(p for p in parents or () if p))

        def work(conn: psycopg.Connection[Any]) -> list[int]:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (advisory_key("lcm", self.namespace, session_id),))
            # Statements of their own, after the lock: their snapshot includes the last append.
            last_cur = conn.execute("SELECT seq, id, ident FROM lcm_messages WHERE namespace = %s AND session_id = %s "
                                    "ORDER BY seq DESC LIMIT 1", (self.namespace, key_to_pg(session_id)))
            known_cur = conn.execute("SELECT id, ident FROM lcm_messages WHERE namespace = %s AND id = ANY(%s)",
                                     (self.namespace, wanted)) if wanted else None
            # Ids for every message, in order (those of messages already stored are left unused).
            ids_cur = conn.execute("SELECT nextval('lcm_ids') FROM generate_series(1, %s)", (len(rows),))
            last = last_cur.fetchone()
            known = {int(i): _ident_of(i, ident) for i, ident in known_cur} if known_cur else {}
            seq = 0 if last is None else int(last[0]) + 1
            session_last = b"" if last is None else _ident_of(last[1], last[2])
            idents: list[bytes] = []
            for i, (_role, content, meta, _tokens) in enumerate(rows):
                parent = parents[i] if parents is not None else None
                if parent is None:
                    before = idents[-1] if i else session_last
                elif parent == 0:
                    before = b""
                else:
                    before = known.get(parent, b"id:%d" % parent)
                idents.append(_identity(session_id, before, content, meta))
            continues_last = last is not None and (parents is None or (
                parents[0] in (None, last[1]) and all(p is None for p in parents[1:])))
            existing = {} if continues_last else {bytes(ident): int(mid) for ident, mid in conn.execute(
                "SELECT ident, id FROM lcm_messages WHERE namespace = %s AND ident = ANY(%s)",
                (self.namespace, list(dict.fromkeys(idents))))}
            fresh, seen = [], set(existing)
            for n, ident in enumerate(idents):  # a message repeated within the batch is stored once
                if ident not in seen:
                    seen.add(ident)
                    fresh.append(n)
            new_ids = [int(r[0]) for r in ids_cur]
            stored = []
            for k, n in enumerate(fresh):
                role, content, meta, tokens_ = rows[n]
                existing[idents[n]] = new_ids[k]
                stored.append((new_ids[k], session_id, seq + k, role, content, meta, tokens_, now, idents[n]))
            insert_messages(conn, self.namespace, stored)
            return [existing[ident] for ident in idents]

        # A commit cut off is resolved by running again: an append of stored messages stores nothing.
        return self._write(work, resolve_unknown=lambda conn: False)  # type: ignore[no-any-return]

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
            "ORDER BY seq LIMIT %s", (self.namespace, key_to_pg(session_id), after_id, min(limit, 1 << 62)))
        return [decode_message(r) for r in rows]

    def scan_messages(self, session_id: str | None, before_id: int | None, limit: int) -> list[StoredMessage]:
        """Newest first, for regex scans that page by id (as the SQLite store)."""
        before = before_id if before_id is not None else 1 << 62
        if session_id is None:
            rows = self._rows(f"SELECT {self._COLUMNS} FROM lcm_messages WHERE namespace = %s AND id < %s "
                              "ORDER BY id DESC LIMIT %s", (self.namespace, before, limit))
        else:
            rows = self._rows(
                f"SELECT {self._COLUMNS} FROM lcm_messages WHERE namespace = %s AND session_id = %s AND id < %s "
                "ORDER BY seq DESC LIMIT %s", (self.namespace, key_to_pg(session_id), before, limit))
        return [decode_message(r) for r in rows]

    def search_messages(self, query: TextQuery, *, session_id: str | None = None, role: str | None = None,
                        limit: int = 10, offset: int = 0) -> list[int]:
        """Ids of matching messages, ranked as the SQLite store ranks them: BM25 when the query
        has up to ``RANK_LIMIT`` matches (in the whole namespace; a session search then keeps
        the session's), equal scores newest first; newest first when it has more."""
        match, params, phrases = match_sql(query)
        if session_id is None:
            scope, scope_params = ("", []) if role is None else (" AND rtoken = %s", [role_token(role)])
            return self._ranked("lcm_messages", "messages", match, params, phrases, scope, scope_params, limit,
                                offset)
        probe, dense = self._probe("lcm_messages", f"id, session_id = %s{' AND role = %s' if role else ''}",
                                   [key_to_pg(session_id), *((key_to_pg(role),) if role else ())], match, params,
                                   "", [])
        if len(probe) <= RANK_LIMIT:
            kept = [int(r[0]) for r in probe if r[1]]
            return self._order("lcm_messages", "messages", kept, phrases)[offset : offset + limit]
        scope = " AND stoken = %s" + (" AND rtoken = %s" if role else "")
        rows = self._rows(f"SELECT id FROM lcm_messages WHERE namespace = %s AND {match}{scope} "
                          f"ORDER BY {_newest(dense)} LIMIT %s OFFSET %s",
                          (self.namespace, *params, session_token(session_id),
                           *((role_token(role),) if role else ()), limit, offset))
        return [int(r[0]) for r in rows]

    def search_summaries(self, query: TextQuery, *, session_id: str | None = None, limit: int = 10,
                         offset: int = 0) -> list[int]:
        match, params, phrases = match_sql(query)
        scope, scope_params = ("", []) if session_id is None else (" AND stoken = %s", [session_token(session_id)])
        return self._ranked("lcm_summaries", "summaries", match, params, phrases, scope, scope_params, limit, offset)

    def _ranked(self, table: str, kind: str, match: str, params: list[Any], phrases: list[Phrase], scope: str,
                scope_params: list[Any], limit: int, offset: int) -> list[int]:
        """One page of the matches in scope: BM25 for at most ``RANK_LIMIT``, else newest first."""
        probe, dense = self._probe(table, "id", [], match, params, scope, scope_params)
        ids = [int(r[0]) for r in probe]
        if len(probe) <= RANK_LIMIT:
            return self._order(table, kind, ids, phrases)[offset : offset + limit]
        if offset + limit <= len(ids):  # the probe already holds this page: the newest matches in scope
            return ids[offset : offset + limit]
        rows = self._rows(f"SELECT id FROM {table} WHERE namespace = %s AND {match}{scope} ORDER BY {_newest(dense)} "
                          "LIMIT %s OFFSET %s", (self.namespace, *params, *scope_params, limit, offset))
        return [int(r[0]) for r in rows]

    def _probe(self, table: str, columns: str, column_params: list[Any], match: str, params: list[Any],
               scope: str, scope_params: list[Any]) -> tuple[list[Any], bool]:
        """The newest ``RANK_LIMIT + 1`` matches (``columns`` of each), and whether the query is
        dense: found that often among the newest ``DENSE_WINDOW`` rows.

        Why two statements: PostgreSQL plans ``ORDER BY id DESC LIMIT n`` as a walk down the
        primary key, filtering each row, because it assumes matches are spread evenly and
        overestimates a rare word's count; a word with a few matches then reads the whole table
        (0.6 s at 100k rows, over 1 s at 1M). So the walk is bounded to the newest rows first,
        which answers common words at once; anything sparser is read through the word indexes
        (``id + 0`` keeps the planner off the key) and sorted, which costs its few matches.
        """
        head = f"SELECT {columns} FROM "
        tail = f" WHERE {match}{scope} ORDER BY id DESC LIMIT {RANK_LIMIT + 1}"
        recent = self._rows(f"{head}(SELECT * FROM {table} WHERE namespace = %s ORDER BY id DESC "
                            f"LIMIT {DENSE_WINDOW}) AS recent{tail}",
                            (*column_params, self.namespace, *params, *scope_params))
        if len(recent) > RANK_LIMIT:
            return recent, True
        rows = self._rows(f"{head}{table} WHERE namespace = %s AND {match}{scope} "
                          f"ORDER BY {_newest(False)} LIMIT {RANK_LIMIT + 1}",
                          (*column_params, self.namespace, *params, *scope_params))
        return rows, False

    def _index_texts(self, table: str, ids: list[int]) -> dict[int, str]:
        """The text the SQLite store indexes for each row: a message's searchable text, or a
        summary's content, a newline and its hint."""
        if table == "lcm_messages":
            return {int(i): t for i, t in self._rows(
                "SELECT id, body FROM lcm_messages WHERE namespace = %s AND id = ANY(%s)", (self.namespace, ids))}
        return {s.id: f"{s.content}\n{s.hint}" for s in self.get_summaries(ids)}

    def _message_words(self, ids: list[int], phrases: list[Phrase]) -> dict[int, dict[str, Sequence[str]]]:
        """Each message's column words for BM25: the positions of the query's words read from its
        search vectors (no re-tokenizing of long texts in Python), or - for a text long enough
        that a position may have been capped, or a word seen ``MAX_POSITIONS`` times - its tokens."""
        exact = sorted({w for p in phrases for w in (p.words[:-1] if p.prefix else p.words)})
        prefixes = sorted({p.words[-1] for p in phrases if p.prefix and p.words})
        rows = self._rows(
            "SELECT m.id, c.col, u.lexeme, u.positions, length(m.body) > %s FROM lcm_messages m "
            "CROSS JOIN LATERAL (VALUES ('coarse', m.coarse), ('parts', m.parts)) c(col, vec) "
            "LEFT JOIN LATERAL (SELECT lexeme, positions FROM unnest(c.vec) "
            "WHERE lexeme = ANY(%s) OR lexeme ^@ ANY(%s)) u ON true "
            "WHERE m.namespace = %s AND m.id = ANY(%s)",
            (EXACT_POSITIONS_UPTO, exact, prefixes, self.namespace, ids))
        found: dict[int, dict[str, Sequence[str]]] = {}
        retokenize: set[int] = set()
        for mid, column, lexeme, positions, long_text in rows:
            words = found.setdefault(int(mid), {"coarse": PositionWords(), "parts": PositionWords()})
            if long_text or (positions is not None and len(positions) >= MAX_POSITIONS):
                retokenize.add(int(mid))
            elif lexeme is not None:
                words[column][lexeme] = positions  # type: ignore[index]
        if retokenize:
            for mid, text in self._index_texts("lcm_messages", sorted(retokenize)).items():
                found[mid] = text_words(text)
        return found

    def _order(self, table: str, kind: str, ids: list[int], phrases: list[Phrase]) -> list[int]:
        """``ids`` by BM25 (FTS5's statistics for the namespace), equal scores newest first."""
        if len(ids) <= 1:
            return ids
        if table == "lcm_messages" and all(len(w.encode("utf-8")) <= MAX_LEXEME_BYTES for p in phrases
                                           for w in p.words):
            freqs = {mid: phrase_frequencies(words, phrases)
                     for mid, words in self._message_words(ids, phrases).items()}
        else:
            freqs = {mid: phrase_frequencies(text_words(text), phrases)
                     for mid, text in self._index_texts(table, ids).items()}
        hits_sql = ", ".join(f"(SELECT count(*) FROM {table} WHERE namespace = %s AND {_phrase_sql(p, [])})"
                             for p in phrases)
        hits_params: list[Any] = []
        for p in phrases:
            hits_params.append(self.namespace)
            _phrase_sql(p, hits_params)
        found = self._rows(f"SELECT coalesce((SELECT rows FROM lcm_counts WHERE namespace = %s AND kind = %s), 0),"
                           f" coalesce((SELECT tokens FROM lcm_counts WHERE namespace = %s AND kind = %s), 0), "
                           f"{hits_sql}", (self.namespace, kind, self.namespace, kind, *hits_params))[0]
        scores = bm25_scores(freqs, [int(n) for n in found[2:]], int(found[0]), int(found[1]))
        return sorted(ids, key=lambda i: (scores.get(i, 0.0), -i))

    def search_substring(self, text: str, session_id: str | None, limit: int, offset: int = 0) -> list[int]:
        """Ids of messages whose searchable text contains ``text`` (any script), newest first (pg_trgm)."""
        text = searchable(text)
        pattern = "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        scope, params = ("", []) if session_id is None else (" AND session_id = %s", [key_to_pg(session_id)])
        rows = self._rows(f"SELECT id FROM lcm_messages WHERE namespace = %s AND body ILIKE %s{scope} "
                          "ORDER BY id DESC LIMIT %s OFFSET %s", (self.namespace, pattern, *params, limit, offset))
        return [int(r[0]) for r in rows]

    # -- summaries -----------------------------------------------------------------------

    _SUMMARY_COLUMNS = SUMMARY_COLUMNS

    def add_summary(self, summary: NewSummary, children: Sequence[int] = ()) -> int:
        """Persist a summary (its text as the SQLite store keeps it: lone surrogates replaced)
        and, in the same transaction, mark ``children`` as condensed."""
        text, hint_text = codec.storable_text(summary.content), codec.storable_text(summary.hint)
        content, hint, escaped = encode_row(text, hint_text)
        index = index_row(f"{text}\n{hint_text}")

        def work(conn: psycopg.Connection[Any]) -> int:
            use_tsvectors(conn)
            sid = int(conn.execute("SELECT nextval('lcm_ids')").fetchone()[0])  # type: ignore[index]
            conn.execute(
                "INSERT INTO lcm_summaries (namespace, id, session_id, depth, content, hint, tokens, source,"
                " covers_kind, covers, first_message, last_message, message_count, parent_id, created_at, escaped,"
                " stoken, coarse, parts) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, NULL, %s, %s,"
                " %s, %b, %b)",
                (self.namespace, sid, key_to_pg(summary.session_id), summary.depth, content, hint,
                 summary.tokens, summary.source, summary.covers_kind, codec.dumps(summary.covers),
                 summary.first_message, summary.last_message, summary.message_count, time.time(), escaped,
                 session_token(summary.session_id), index.coarse, index.parts),
            )
            add_counts(conn, self.namespace, "summaries", 1, index.ntokens)
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
        return self._summaries("session_id = %s AND parent_id IS NULL ORDER BY id", (key_to_pg(session_id),))

    def all_summaries(self, session_id: str | None) -> list[SummaryRow]:
        if session_id is None:
            return self._summaries("true ORDER BY id", ())
        return self._summaries("session_id = %s ORDER BY id", (key_to_pg(session_id),))

    # -- layouts, status, the session lock --------------------------------------------------

    def save_layout(self, session_id: str, layout: Any, upto: int) -> None:
        self._write(lambda conn: conn.execute(
            "INSERT INTO lcm_layouts (namespace, session_id, layout, upto) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (namespace, session_id) DO UPDATE SET layout = EXCLUDED.layout, upto = EXCLUDED.upto",
            (self.namespace, key_to_pg(session_id), codec.dumps(layout), upto)))

    def load_layout(self, session_id: str) -> tuple[Any, int] | None:
        rows = self._rows("SELECT layout, upto FROM lcm_layouts WHERE namespace = %s AND session_id = %s",
                          (self.namespace, key_to_pg(session_id)))
        return (codec.loads(rows[0][0]), int(rows[0][1])) if rows else None

    def session_size(self, session_id: str) -> int:
        row = self._rows("SELECT max(seq) FROM lcm_messages WHERE namespace = %s AND session_id = %s",
                         (self.namespace, key_to_pg(session_id)))[0][0]
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
                (self.namespace, key_to_pg(session_id)))
            out["summaries_by_depth"] = {f"d{d}": {"count": n, "uncondensed": u} for d, n, u in depths}
        return out

    def health(self) -> dict[str, Any]:
        """``{"state", "summary", "events"}`` as the SQLite store gives it (never raises)."""
        if self.last_error:
            return {"state": "unavailable", "summary": f"LCM store error: {self.last_error}", "events": []}
        return {"state": "ok", "summary": f"LCM store {self.path}: ok", "events": []}

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


def _ident_of(mid: int, ident: bytes | memoryview | None) -> bytes:
    """A row's identity, as the SQLite store reads it (a row without one is named by its id)."""
    return bytes(ident) if ident is not None else b"id:%d" % mid


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
