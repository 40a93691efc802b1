"""The model's way back to the originals: ``lcm_grep``, ``lcm_describe``, ``lcm_expand``.

Arguments are validated by pydantic models; every result is a JSON string, errors are
``{"error": "..."}`` naming the argument or id at fault. Ids are ``msg_N`` (a stored
message) and ``sum_N`` (a summary). Long results come in pages.
"""

from __future__ import annotations

import functools
import json
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from hermes_context_lcm.outputs import describe_text, page_count
from hermes_context_lcm.query import parse_query
from hermes_context_lcm.store import StoredMessage, StoreError, SummaryRow

if TYPE_CHECKING:
    from hermes_context_lcm.engine import LCMEngine

SNIPPET_CHARS = 160
MAX_ID = 2**63 - 1  # SQLite's INTEGER; larger ids cannot exist
# Regex mode runs a model-written pattern: bound it. The stdlib ``re`` cannot be interrupted,
# so a catastrophic pattern would hold a core forever; the ``regex`` package takes a timeout.
REGEX_BATCH = 1000  # messages read per query while a regex search pages through the store
REGEX_MAX_PATTERN = 500  # characters
REGEX_ROW_CHARS = 100_000  # a regex reads at most the first this-many characters of each message
REGEX_TIMEOUT_MS = 500  # one search; past it the pattern is rejected
REGEX_CALL_MS = 3000  # per phase (summaries, messages); past it the scan stops and hands back a cursor
_ID = re.compile(r"^(msg|sum)_(\d+)$")


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class GrepArgs(_Args):
    pattern: str = Field(min_length=1, description=(
        "Words to find (full_text: words, parts of camelCase / snake_case names, text inside Chinese, "
        "Japanese or Korean, versions like 1.2.3, emoji; \"a phrase\", prefix*, AND/OR/NOT; best matches "
        "first) or a Python regex (regex: newest first; reads the first 100,000 characters of each message, "
        "about 3 s per call, then hands back next_cursor to continue; a pattern over 500 ms on one message "
        "is refused)."))
    mode: Literal["full_text", "regex"] = "full_text"
    scope: Literal["session", "all"] | None = Field(
        None, description="This session (the default once it has stored messages) or every stored session.")
    target: Literal["messages", "summaries", "both"] = "both"
    role: Literal["user", "assistant", "tool", "system"] | None = None
    limit: int = Field(10, ge=1, le=50)
    cursor: int = Field(0, ge=0, le=MAX_ID, description="next_cursor from the previous page.")


class DescribeArgs(_Args):
    id: str | None = Field(None, description="sum_N or msg_N; omit for an overview of the session.")


class ExpandArgs(_Args):
    id: str = Field(description="sum_N (its covered messages or summaries) or msg_N (the message itself).")
    page: int = Field(1, ge=1)
    max_tokens: int | None = Field(None, ge=100, le=50_000,
                                   description="Size of one page (default: plugins.lcm.page_chars / 4).")


def _schema(name: str, description: str, model: type[BaseModel]) -> dict[str, Any]:
    params = model.model_json_schema()
    params.pop("title", None)
    for prop in params.get("properties", {}).values():
        prop.pop("title", None)
    return {"name": name, "description": description, "parameters": params}


TOOL_SCHEMAS = [
    _schema("lcm_grep", "Search every original message (and the summaries) of this conversation, including "
            "parts compacted out of the context. Full-text words by default, or a regex. Newest first, paged.",
            GrepArgs),
    _schema("lcm_describe", "What a summary (sum_N) or stored message (msg_N) covers: depth, message range, "
            "size, description. Without an id: an overview of the stored session.", DescribeArgs),
    _schema("lcm_expand", "Read the originals: for sum_N the messages (or summaries) it covers, for msg_N the "
            "full message. Paged by max_tokens; ask for the next page to continue.", ExpandArgs),
]
_MODELS: dict[str, type[_Args]] = {"lcm_grep": GrepArgs, "lcm_describe": DescribeArgs, "lcm_expand": ExpandArgs}


def run_tool(engine: LCMEngine, name: str, args: dict[str, Any]) -> str | None:
    """Run one tool; ``None`` when ``name`` is not an LCM tool."""
    model = _MODELS.get(name)
    if model is None:
        return None
    if not isinstance(args, dict):
        return _error(f"invalid arguments for {name}: expected a JSON object, got {type(args).__name__}")
    try:
        parsed = model.model_validate(args)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors())
        return _error(f"invalid arguments for {name}: {problems}")
    try:
        if isinstance(parsed, GrepArgs):
            result = grep(engine, parsed)
        elif isinstance(parsed, DescribeArgs):
            result = describe(engine, parsed)
        else:
            result = expand(engine, parsed)  # type: ignore[arg-type]
    except (LookupError, ValueError) as exc:
        return _error(str(exc).strip("'\""))
    except StoreError as exc:
        return _error(f"the LCM store is unavailable: {exc}")
    return json.dumps(result, ensure_ascii=False)


def _error(message: str) -> str:
    return json.dumps({"error": message}, ensure_ascii=False)


def parse_id(value: str) -> tuple[str, int]:
    match = _ID.match(value.strip())
    if not match:
        raise ValueError(f"malformed id {value!r}: expected sum_N (a summary) or msg_N (a message)")
    kind, digits = match.group(1), match.group(2)
    if len(digits) > len(str(MAX_ID)) or int(digits) > MAX_ID:  # length first: int() of 5000 digits raises
        raise LookupError(f"unknown id {value!r}: no such {'summary' if kind == 'sum' else 'message'} in this store")
    return kind, int(digits)


# -- lcm_grep ------------------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _words_of(terms: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...], re.Pattern[str] | None]:
    """The terms and their words (longest first): lower-cased when all are ASCII (else empty),
    in the case forms ``str.find`` tries, and as one case-insensitive pattern."""
    words = sorted({*terms, *(w for t in terms for w in re.findall(r"\w+", t))}, key=len, reverse=True)
    forms = tuple(dict.fromkeys(f for w in words for f in (w, w.lower(), w.upper(), w.capitalize())))
    lowered = tuple(w.lower() for w in words) if all(w.isascii() for w in words) else ()
    return lowered, forms, re.compile("|".join(map(re.escape, words)), re.IGNORECASE) if words else None


def first_place(text: str, terms: tuple[str, ...]) -> int:
    """Where a term (or one of its words) first occurs in ``text``, ignoring case; 0 for nowhere.

    A case-insensitive regex reads a 39 KB tool output slowly, ``str`` methods fast. ASCII
    words in ASCII text: the text lower-cased once and searched with ``str.find`` (the same
    case folding). Otherwise the regex only reads up to the first place a word occurs as
    written, lower-, upper- or title-cased (the first case-insensitive hit cannot start after it)."""
    lowered, forms, pattern = _words_of(terms)
    if pattern is None:
        return 0
    if lowered and text.isascii():
        low = text.lower()
        return min((at for at in map(low.find, lowered) if at >= 0), default=0)
    first = len(text)
    for form in forms:
        at = text.find(form, 0, first + len(form))
        if 0 <= at < first:
            first = at
    end = min(len(text), first + max(map(len, forms)))
    found = pattern.search(text, 0, end)
    return found.start() if found else 0


def snippet(text: str, terms: list[str] | None = None, span: tuple[int, int] | None = None) -> str:
    """About ``SNIPPET_CHARS`` around the first place a term (or one of its words) occurs."""
    if span is None:
        at = first_place(text, tuple(terms or ()))
        span = (at, at)
    start = max(0, span[0] - SNIPPET_CHARS // 2)
    piece = " ".join(text[start : start + SNIPPET_CHARS].split())
    return ("..." if start else "") + piece + ("..." if start + SNIPPET_CHARS < len(text) else "")


def _message_hit(m: StoredMessage, text_snippet: str) -> dict[str, Any]:
    return {"id": f"msg_{m.id}", "type": "message", "session_id": m.session_id, "seq": m.seq, "role": m.role,
            "snippet": text_snippet}


def _summary_hit(s: SummaryRow, text_snippet: str) -> dict[str, Any]:
    return {"id": f"sum_{s.id}", "type": "summary", "session_id": s.session_id, "depth": s.depth,
            "covers": f"msg_{s.first_message}-msg_{s.last_message}", "snippet": text_snippet}


def grep(engine: LCMEngine, args: GrepArgs) -> dict[str, Any]:
    store = engine.store
    scope = args.scope or ("session" if engine.session_id and store.session_size(engine.session_id) else "all")
    session = engine.session_id if scope == "session" else None
    if scope == "session" and not session:
        raise ValueError("no session is active; use scope='all'")
    results: list[dict[str, Any]] = []
    next_cursor: int | None = None
    extra: dict[str, Any] = {}
    if args.mode == "full_text":
        query = parse_query(args.pattern)
        terms = query.terms
        if args.target != "messages" and args.cursor == 0 and args.role is None:
            for row in store.get_summaries(store.search_summaries(query, session_id=session,
                                                                  limit=min(args.limit, 5))):
                results.append(_summary_hit(row, snippet(row.content, terms)))
        if args.target != "summaries":
            ids = store.search_messages(query, session_id=session, role=args.role, limit=args.limit + 1,
                                        offset=args.cursor)
            if len(ids) > args.limit:
                ids, next_cursor = ids[: args.limit], args.cursor + args.limit
            for m in store.get_messages(ids):
                results.append(_message_hit(m, snippet(m.text(), terms)))
    else:
        search = bounded_search(args.pattern)
        if args.target != "messages" and args.cursor == 0:
            stop = time.monotonic() + REGEX_CALL_MS / 1000
            for row in store.all_summaries(session):
                if len(results) >= 5 or time.monotonic() >= stop:
                    break
                found = search(row.content)
                if found:
                    results.append(_summary_hit(row, snippet(row.content, span=found)))
        if args.target != "summaries":
            next_cursor, scanned = _regex_messages(store, session, args, search, results)
            extra["scanned"] = scanned
            extra["complete"] = next_cursor is None
    return {"pattern": args.pattern, "mode": args.mode, "scope": scope, "count": len(results),
            "results": results, "next_cursor": next_cursor, **extra}


def _regex_messages(store: Any, session: str | None, args: GrepArgs, search: Callable[[str], Any],
                    results: list[dict[str, Any]]) -> tuple[int | None, int]:
    """Page through the messages newest first until ``limit`` hits or the time budget; the
    cursor to continue from (None: the whole store was read) and how many were read.

    No row cap: a call reads as far as its time budget allows (at least one message, so
    paging always advances), and ``next_cursor`` continues exactly where it stopped.
    """
    stop = time.monotonic() + REGEX_CALL_MS / 1000
    wanted = len(results) + args.limit
    before: int | None = args.cursor or None
    scanned = 0
    while True:
        batch = store.scan_messages(session, before, REGEX_BATCH)
        if not batch:
            return None, scanned
        for m in batch:
            if len(results) >= wanted or (scanned and time.monotonic() >= stop):
                return before, scanned
            scanned += 1
            before = m.id
            if args.role and m.role != args.role:
                continue
            text = m.content if isinstance(m.content, str) and m.meta.startswith('{"role": ') and (
                len(m.meta) < 40) else m.text()
            found = search(text)
            if found:
                results.append(_message_hit(m, snippet(text, span=found)))
        if len(batch) < REGEX_BATCH:
            return (before if len(results) >= wanted else None), scanned


def bounded_search(pattern: str) -> Callable[[str], tuple[int, int] | None]:
    """A search for ``pattern`` whose time and input are bounded: ``text -> span or None``.

    Raises ``ValueError`` (a clear tool error) for a pattern too long, invalid, or that
    takes over ``REGEX_TIMEOUT_MS`` on one text.
    """
    import regex

    if len(pattern) > REGEX_MAX_PATTERN:
        raise ValueError(f"regex pattern is {len(pattern)} characters; at most {REGEX_MAX_PATTERN} are allowed")
    try:
        compiled = regex.compile(pattern)
    except (regex.error, OverflowError, RecursionError) as exc:
        raise ValueError(f"bad regex {pattern!r}: {exc}") from None

    def search(text: str) -> tuple[int, int] | None:
        try:
            found = compiled.search(text[:REGEX_ROW_CHARS], timeout=REGEX_TIMEOUT_MS / 1000)
        except TimeoutError:
            raise ValueError(f"regex timed out after {REGEX_TIMEOUT_MS} ms; simplify the pattern "
                             "or use full-text mode") from None
        return found.span() if found else None

    return search


# -- lcm_describe ----------------------------------------------------------------------------


def _summary_info(row: SummaryRow) -> dict[str, Any]:
    covers = [f"{'msg' if row.covers_kind == 'messages' else 'sum'}_{i}" for i in row.covers]
    return {"id": f"sum_{row.id}", "type": "summary", "session_id": row.session_id, "depth": row.depth,
            "covers_kind": row.covers_kind, "covers": covers,
            "message_range": f"msg_{row.first_message}-msg_{row.last_message}",
            "message_count": row.message_count, "tokens": row.tokens, "source": row.source,
            "condensed_into": f"sum_{row.parent_id}" if row.parent_id else None, "hint": row.hint,
            "content": row.content}


def describe(engine: LCMEngine, args: DescribeArgs) -> dict[str, Any]:
    store = engine.store
    if args.id is None:
        session = engine.session_id or None
        roots = store.roots(session) if session else []
        return {"session_id": session, **store.stats(session),
                "uncondensed": [{"id": f"sum_{r.id}", "depth": r.depth, "message_count": r.message_count,
                                 "hint": r.hint} for r in roots]}
    kind, number = parse_id(args.id)
    if kind == "sum":
        rows = store.get_summaries([number])
        if not rows:
            raise LookupError(f"unknown id {args.id!r}: no such summary in this store")
        return _summary_info(rows[0])
    messages = store.get_messages([number])
    if not messages:
        raise LookupError(f"unknown id {args.id!r}: no such message in this store")
    m = messages[0]
    msg = m.message()
    text = m.text()
    return {"id": f"msg_{m.id}", "type": "message", "session_id": m.session_id, "seq": m.seq, "role": m.role,
            "tool_call_id": msg.get("tool_call_id"), "chars": len(text), "tokens": m.tokens,
            "description": describe_text(text), "pages": page_count(msg.get("content"), engine.settings.page_chars)}


# -- lcm_expand ------------------------------------------------------------------------------


def expand(engine: LCMEngine, args: ExpandArgs) -> dict[str, Any]:
    kind, number = parse_id(args.id)
    store = engine.store
    budget_chars = args.max_tokens * 4 if args.max_tokens else engine.settings.page_chars
    if kind == "msg":
        messages = store.get_messages([number])
        if not messages:
            raise LookupError(f"unknown id {args.id!r}: no such message in this store")
        return _expand_message(messages[0], args.page, budget_chars)
    rows = store.get_summaries([number])
    if not rows:
        raise LookupError(f"unknown id {args.id!r}: no such summary in this store")
    row = rows[0]
    items: list[dict[str, Any]]
    if row.covers_kind == "messages":
        items = [_message_item(m, budget_chars) for m in store.get_messages(row.covers)]
    else:
        items = [{"id": f"sum_{c.id}", "depth": c.depth, "message_range": f"msg_{c.first_message}-msg_{c.last_message}",
                  "content": c.content} for c in store.get_summaries(row.covers)]
    pages = _paginate(items, budget_chars)
    if args.page > len(pages):
        raise ValueError(f"page {args.page} is past the end: {args.id} has {len(pages)} page(s)")
    return {"id": args.id, "depth": row.depth, "covers_kind": row.covers_kind, "page": args.page,
            "pages": len(pages), "next_page": args.page + 1 if args.page < len(pages) else None,
            "items": pages[args.page - 1]}


def _message_item(m: StoredMessage, budget_chars: int) -> dict[str, Any]:
    """A message inside a summary's expansion; a very long one is cut with a pointer.

    ``id`` is always the ``msg_N`` pointer the model needs; a message's own ``id`` key is
    shown as ``message_id``."""
    msg = m.message()
    own_id = msg.pop("id", None)
    item: dict[str, Any] = {"id": f"msg_{m.id}", **msg}
    if own_id is not None:
        item["message_id"] = own_id
    content = item.get("content")
    if isinstance(content, str) and len(content) > budget_chars // 2:
        item["content"] = content[: budget_chars // 2]
        item["truncated"] = f"{len(content):,} chars; read all of it with lcm_expand(id=\"msg_{m.id}\")"
    return item


def _paginate(items: list[dict[str, Any]], budget_chars: int) -> list[list[dict[str, Any]]]:
    pages: list[list[dict[str, Any]]] = [[]]
    used = 0
    for item in items:
        size = len(json.dumps(item, ensure_ascii=False))
        if pages[-1] and used + size > budget_chars:
            pages.append([])
            used = 0
        pages[-1].append(item)
        used += size
    return pages


def _expand_message(m: StoredMessage, page: int, budget_chars: int) -> dict[str, Any]:
    """The whole message; its content in pages of ``budget_chars`` (join them for the original)."""
    msg = m.message()
    content = msg.get("content")
    pages = page_count(content, budget_chars)
    if page > pages:
        raise ValueError(f"page {page} is past the end: msg_{m.id} has {pages} page(s)")
    if isinstance(content, str):
        msg["content"] = content[(page - 1) * budget_chars : page * budget_chars]
    return {"id": f"msg_{m.id}", "session_id": m.session_id, "seq": m.seq, "page": page, "pages": pages,
            "next_page": page + 1 if page < pages else None,
            "content_chars": len(content) if isinstance(content, str) else None, "message": msg}
