"""LCMEngine: lossless context management as a hermes-core context engine.

Every message the engine sees is stored verbatim before anything else happens. At
compaction, raw messages leaving the context become leaf summaries, leaves condense into
higher depths, and the new context is: summaries (highest depth first), the newest user
message, then the fresh tail. The model gets ``lcm_grep`` / ``lcm_describe`` /
``lcm_expand`` to reach back to any original.

Positions, not contents, identify messages: the engine remembers which stored id sits at
each position of the list it last saw or returned; a later list that extends it only adds
its new positions, and a position whose message changed is stored as a new message. A new
process rebuilds those positions from the store (:meth:`LCMEngine._resume`). One live engine
holds a session id in a store at a time (:mod:`hermes_context_lcm.session_lock`).
"""

from __future__ import annotations

import logging
import operator
import os
import threading
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_context_lcm.assemble import ACK, message_tokens, render_summaries, tail_start, tokens_of
from hermes_context_lcm.dag import DagBuilder, Escalation, condensation_candidates, truncate
from hermes_context_lcm.outputs import externalize
from hermes_context_lcm.settings import SCRATCH, LCMSettings
from hermes_context_lcm.summary_input import extra_context
from hermes_core import CompactionResult, ContextEngine
from hermes_core.text.messages import api_problems, last_user_index, sanitize_tool_pairs
from hermes_core.text.redact import redact

if TYPE_CHECKING:
    from hermes_context_lcm.session_lock import SessionLock
    from hermes_context_lcm.store import Store, StoredMessage
    from hermes_core.plugin.context import PluginContext

log = logging.getLogger("hermes_context_lcm")

Message = dict[str, Any]
UNSTORED = -1  # a raw message the store could not take yet (kept in context, retried)
SYNTHETIC = None  # a message the engine wrote (the summary block)
MAX_CONCURRENT = 16  # engines on one session id: the 2nd..16th get "<id>#concurrent-<n>"


class LCMEngine(ContextEngine):
    """The lossless context engine (``context.engine: lcm``)."""

    config_model = LCMSettings

    def __init__(self, ctx: PluginContext | None = None) -> None:
        super().__init__(ctx)
        raw = self.ctx.settings
        self.settings = raw if isinstance(raw, LCMSettings) else LCMSettings.model_validate(raw or {})
        self.threshold_percent = self.settings.threshold_percent or self.ctx.config.context.threshold_percent
        self.update_model(self.model, self.context_length)
        scratch = self.ctx.extras.get("lcm_scratch") or os.environ.get("HERMES_LCM_SCRATCH", "") in ("1", "true")
        self.scratch = bool(scratch) or self.settings.db_path == SCRATCH
        self.db_path: Path = Path(SCRATCH) if self.scratch else self.settings.resolved_db_path(self.ctx.home)
        self._store: Store | None = None
        self._generation = 0  # the store's generation our ids belong to
        #: Messages that left the context while the store could not take them, each with the
        #: stored id before it (``append``'s ``parents``), written when the store can.
        self._backlog: list[tuple[Message, int | None]] = []
        self.store_events: list[str] = []
        self._lock = threading.RLock()
        #: The id messages are stored under: the host's session id, or a derived one when
        #: another live engine already holds that session in this store (see _claim).
        self.session_id = ""
        self.host_session_id = ""
        self.session_note = ""
        self._session_lock: SessionLock | None = None
        # Per position of the list last seen or returned: the message, its id, its estimate.
        self._msgs: list[Message] = []
        self._ids: list[int | None] = []
        self._tokens: list[int] | None = None  # None: recompute from _msgs
        self._covered: set[int] | None = None
        self._system_hashes: set[int] = set()
        #: Messages the engine returned altered (a large output became a reference),
        #: keyed by ``id()`` of the copy: (copy, original). The original is what gets reused.
        self._copies: dict[int, tuple[Message, Message]] = {}
        self._resumed = False  # looked for this session's earlier context in the store
        self.store_error = ""
        self.last_compaction: dict[str, Any] = {}
        self.last_compaction_calls = 0
        self.last_ledger: dict[str, int] = {}  # ledger items the last compaction's summaries lacked / anchored
        self.fallback_compactions = 0
        self._summary_budget: int | None = None

    @property
    def name(self) -> str:
        return "lcm"

    # -- the store -------------------------------------------------------------------------

    @property
    def store(self) -> Store:
        """The store, opened on first use (a damaged file is moved aside by the store itself).

        ``ctx.extras["lcm_store"]`` may supply any :class:`Store` instead of the SQLite file;
        a scratch engine (``db_path: ":memory:"``, ``ctx.extras["lcm_scratch"]`` or env
        ``HERMES_LCM_SCRATCH=1``) keeps everything in memory, so tools that only look
        (``compact``, ``replay`` without ``--live``) never write the user's database.
        """
        if self._store is None and self.ctx.extras.get("lcm_store") is not None:
            self._store = self.ctx.extras["lcm_store"]  # e.g. a server-backed Store
        storage = getattr(self.ctx.config, "storage", None)
        if self._store is None and storage is not None and storage.backend == "postgres":
            from hermes_context_lcm.pg_store import PgStore

            self._store = PgStore(storage)  # storage: backend: postgres in config.yaml
        if self._store is None:
            from hermes_context_lcm.store import SQLiteStore, StoreError

            try:
                self._store = SQLiteStore(self.db_path, busy_timeout_ms=self.settings.busy_timeout_ms,
                                          index_batch=self.settings.index_batch,
                                          durability=self.settings.durability)
            except StoreError as exc:
                self.store_error = str(exc)
                raise
            self._generation = getattr(self._store, "generation", 0)
            self.store_error = ""
        return self._store

    def _bind(self) -> str:
        if self._session_lock is None:
            self._claim(self.host_session_id or f"lcm-{uuid.uuid4().hex[:12]}")
        return self.session_id

    def _claim(self, session_id: str) -> None:
        """Hold ``session_id`` in this store, or the first free ``<id>#concurrent-<n>``.

        Layouts and summary roots are per session id; two engines on one id would hand each
        other their summaries. So a second live engine (another process, or the same one)
        stores under a derived id, with a warning, and the two conversations stay apart.
        """
        from hermes_context_lcm.session_lock import SessionLock

        self._release()
        self.host_session_id = session_id
        custom = self.ctx.extras.get("lcm_store")
        store_path = str(self.db_path) if custom is None else str(getattr(custom, "path", "") or "")
        if store_path in ("", SCRATCH):  # a store no other process can open: this object
            store_path = f"{store_path}@{id(custom if custom is not None else self):x}"
        directory = self.db_path.with_name(f"{self.db_path.name}.locks")
        if self.scratch:  # nothing to guard, and nothing may be written under the user's home
            self.session_id, self._session_lock, self.session_note = session_id, SessionLock(directory, None), ""
            return
        server_lock = self._server_lock()
        for n in range(1, MAX_CONCURRENT + 1):
            candidate = session_id if n == 1 else f"{session_id}#concurrent-{n}"
            lock = (server_lock(candidate) if server_lock is not None
                    else SessionLock.acquire(directory, f"{store_path}\0{candidate}"))
            if lock is not None:
                break
        else:
            candidate = f"{session_id}#concurrent-{uuid.uuid4().hex[:8]}"  # unguarded, but unique
            lock = SessionLock(directory, None)
        self.session_id, self._session_lock = candidate, lock
        self.session_note = "" if candidate == session_id else (
            f"session {session_id!r} is already open in another live engine on {store_path}; "
            f"storing this conversation as {candidate!r} so the two do not mix")
        if self.session_note:
            log.warning("LCM: %s", self.session_note)

    def _server_lock(self) -> Any:
        """A database store's session lock (it holds across hosts), or None: a file store is
        locked with lock files, and knowing that needs no open. So a file that cannot be opened
        (a newer schema, no permission) does not stop the session: the turn goes on without it."""
        storage = getattr(self.ctx.config, "storage", None)
        if self.ctx.extras.get("lcm_store") is None and getattr(storage, "backend", "files") != "postgres":
            return None
        return getattr(self.store, "session_lock", None)

    def _release(self) -> None:
        if self._session_lock is not None:
            self._session_lock.release()
            self._session_lock = None

    def close(self) -> None:
        """Release the session and close the store (a process that ends without it releases both)."""
        with self._lock:
            self._release()
            if self._store is not None:
                self._store.close()
                self._store = None

    # -- ingest ----------------------------------------------------------------------------

    def _observe(self, messages: list[Message]) -> tuple[int, list[int | None]]:
        """Store what is new in ``messages``; ``(leading system count, id per other position)``.

        Never raises: a message the store cannot take stays in the context as ``UNSTORED``
        (retried next time) and ``store_error`` says why. When the store replaced its file (a
        damaged one moved aside, a deleted one recreated), the ids held are gone: positions are
        forgotten and the whole live list is stored again into the new file.
        """
        nsys, ids = self._observe_once(messages)
        if self._store is not None and getattr(self._store, "generation", 0) != self._generation:
            self._store_replaced()
            nsys, ids = self._observe_once(messages)
        return nsys, ids

    def _store_replaced(self) -> None:
        store = self._store
        assert store is not None
        self._generation = getattr(store, "generation", 0)
        events = store.health().get("events") or [] if hasattr(store, "health") else []
        note = events[-1]["message"] if events else "the store was replaced"
        self.store_events = [*self.store_events, note][-10:]
        log.warning("LCM: %s; storing the live context again", note)
        self._forget_positions()
        self._resumed = True  # the new file holds nothing of this session to resume

    def _observe_once(self, messages: list[Message]) -> tuple[int, list[int | None]]:
        """Leading system messages are stored once per distinct text; they are the host's,
        not part of the conversation the engine compacts. The common case, a host that
        appended to the list the engine last saw, is checked by identity at C speed."""
        nsys = 0
        while nsys < len(messages) and messages[nsys].get("role") == "system":
            nsys += 1
        conv = messages[nsys:]
        if not self._msgs and not self._resumed:
            self._resumed = True
            try:
                self._set_tracked(self._resume(conv))
            except Exception as exc:
                log.warning("LCM: could not read the session's earlier context: %s: %s", type(exc).__name__, exc)
        known = len(self._msgs)
        if self._tokens is None:
            self._tokens = message_tokens(self._msgs)
        if len(conv) >= known and UNSTORED not in self._ids and all(map(operator.is_, conv, self._msgs)):
            ids, tokens, fresh = list(self._ids), list(self._tokens), list(range(known, len(conv)))
            ids += [UNSTORED] * len(fresh)
            tokens += message_tokens(conv[known:])
        else:
            ids, tokens, fresh = [], [], []
            for i, msg in enumerate(conv):
                if i < known and self._ids[i] != UNSTORED and _same(msg, self._msgs[i]):
                    ids.append(self._ids[i])
                    tokens.append(self._tokens[i])
                    continue
                ids.append(UNSTORED)
                fresh.append(i)
                tokens.append(tokens_of(msg))
        systems = [m for m in messages[:nsys] if _system_key(m) not in self._system_hashes]
        if fresh or systems or self._backlog:
            try:
                session = self._bind()
                store = self.store
                if self._backlog:
                    store.append(session, [m for m, _ in self._backlog], [p for _, p in self._backlog])
                    self._backlog = []
                batch = [*systems, *(conv[i] for i in fresh)]
                parents = [0] * len(systems) + self._parents(ids, fresh)
                stored = store.append(session, batch, parents) if batch else []
                self._system_hashes.update(_system_key(m) for m in systems)
                for i, mid in zip(fresh, stored[len(systems):], strict=True):
                    ids[i] = mid
                self.store_error = ""
            except Exception as exc:
                self.store_error = f"{type(exc).__name__}: {exc}" if not _is_store_error(exc) else str(exc)
                log.warning("LCM: could not store %d message(s): %s; keeping them in context", len(fresh),
                            self.store_error)
        self._msgs, self._ids, self._tokens = list(conv), ids, tokens
        return nsys, ids

    @staticmethod
    def _parents(ids: list[int | None], fresh: list[int]) -> list[int | None]:
        """For each fresh position: the stored id before it in the conversation (``0``: none;
        ``None``: the fresh message just before it in the batch). Gives the store the
        predecessor its content identity is chained on."""
        out: list[int | None] = []
        fresh_set = set(fresh)
        last: int | None = 0
        pos = 0
        for i in fresh:
            while pos < i:
                mid = ids[pos]
                if pos in fresh_set:
                    last = None
                elif isinstance(mid, int) and mid > 0:
                    last = mid
                pos += 1
            out.append(last)
            last, pos = None, i + 1
        return out

    @property
    def _tracked(self) -> list[tuple[Message, int | None]]:
        """Each position of the list last seen or returned, with its stored id."""
        return list(zip(self._msgs, self._ids, strict=True))

    def _set_tracked(self, pairs: list[tuple[Message, int | None]]) -> None:
        self._msgs = [m for m, _ in pairs]
        self._ids = [mid for _, mid in pairs]
        self._tokens = None

    def _covered_ids(self) -> set[int]:
        if self._covered is None:
            self._covered = {
                mid for row in self.store.all_summaries(self._bind()) if row.covers_kind == "messages"
                for mid in row.covers
            }
        return self._covered

    # -- ContextEngine -----------------------------------------------------------------------

    def update_from_response(self, usage: dict[str, Any]) -> None:
        self.last_prompt_tokens = int(usage.get("prompt_tokens") or 0)
        self.last_completion_tokens = int(usage.get("completion_tokens") or 0)
        self.last_total_tokens = int(usage.get("total_tokens") or self.last_prompt_tokens + self.last_completion_tokens)

    def should_compress(self, prompt_tokens: int | None = None) -> bool:
        tokens = self.last_prompt_tokens if prompt_tokens is None else prompt_tokens
        return bool(self.threshold_tokens) and tokens >= self.threshold_tokens

    def should_compress_preflight(self, messages: list[Message]) -> bool:
        """Stores the turn so far (ingest happens here, a turn at a time), then checks the
        rough estimate, reusing the estimates of positions already seen."""
        with self._lock:
            nsys, _ids = self._observe(messages)
            tokens = sum(message_tokens(messages[:nsys])) + sum(self._tokens or ())
        return bool(self.threshold_tokens) and tokens + self.request_overhead_tokens >= self.threshold_tokens

    def compress(
        self,
        messages: list[Message],
        current_tokens: int | None = None,
        focus_topic: str | None = None,
        force: bool = False,
    ) -> CompactionResult:
        """The compacted context as a :class:`~hermes_core.CompactionResult` (``messages`` is the
        same list object when nothing changed; ``note`` says why not)."""
        with self._lock:
            started = time.perf_counter()
            self.last_ledger = {}
            try:
                result, note, source = self._compress(messages, current_tokens, focus_topic, force)
            except Exception as exc:
                log.warning("LCM: compaction failed: %s: %s", type(exc).__name__, exc)
                self._covered = None  # re-read what was summarized before the failure
                if _is_store_error(exc):
                    self.store_error = str(exc)
                reason = f"compaction failed: {type(exc).__name__}: {exc}"
                result, note, source = self._fallback(messages, reason, force)
            changed = result is not messages
            if changed:
                self.compression_count += 1
            summary = next((str(m.get("content") or "") for m, mid in zip(self._msgs, self._ids, strict=False)
                            if mid is SYNTHETIC and m.get("role") == "user"), "") if changed else ""
            outcome = self.result(result, summary=summary, summary_source=source, note=note)  # type: ignore[arg-type]
            self.last_compaction = {
                "changed": changed, "messages_before": len(messages), "messages_after": len(result),
                "tokens_before": sum(message_tokens(messages)), "tokens_after": sum(message_tokens(result)),
                "duration_ms": round((time.perf_counter() - started) * 1000, 1), "note": note,
                "summary_source": source, "ledger": self.last_ledger,
            }
            return outcome

    def _compress(
        self, messages: list[Message], current_tokens: int | None, focus_topic: str | None, force: bool
    ) -> tuple[list[Message], str, str]:
        """One compaction: plan the tail, one leaf over what leaves, one condensation, assemble.

        The tail is planned first (the largest of full, half, a quarter, or only the last
        group that fits with the summaries), so the summarizer is called for one leaf (at most
        ``max_leaf_calls``) and one condensation, whatever the window: a compaction costs at
        most two calls in the normal case. Summaries that do not fit stay in the store and are
        named in the context (see :func:`render_summaries`); ``max_depth`` is never exceeded.
        """
        s = self.settings
        nsys, ids = self._observe(messages)
        if self.store_error or UNSTORED in ids:
            return self._fallback(messages, f"store unavailable ({self.store_error or 'messages not stored'})",
                                  force, current_tokens)
        threshold = self.threshold_tokens or sum(message_tokens(messages))
        if not force and max(current_tokens or 0, sum(message_tokens(messages))) < threshold:
            return messages, "under the threshold; nothing to do", "none"
        head, conv = messages[:nsys], [self._original(m) for m in messages[nsys:]]
        if not conv:
            return messages, "nothing to compact", "none"
        before = self._layout(self._tracked, literal=True)  # the list the host holds until it saves ours
        target = int(threshold * s.target_ratio)
        tail_budget = int(min(s.fresh_tail_tokens, s.fresh_tail_ratio * threshold))
        summarizer = self.ctx.summarizer or self.ctx.fallback_summarizer
        escalation = Escalation(summarizer, s.max_summary_calls, time.monotonic() + s.compaction_deadline_s,
                                focus_topic=redact(focus_topic) if focus_topic else None,  # it leaves too
                                fallback=self.ctx.fallback_summarizer)
        builder = DagBuilder(self.store, self._bind(), escalation)
        covered = self._covered_ids()
        _, leaf_budget, condensed_budget = self._budgets(target)
        head_tokens = sum(message_tokens(head))
        roots_tokens = sum(r.tokens for r in self.store.roots(self._bind()))
        last_group = max((i for i, m in enumerate(conv) if m.get("role") != "tool"), default=0)
        # Plan: each option keeps less verbatim; the last also turns the last group's own large
        # outputs into references. Take the first whose estimate fits the target.
        for attempt, budget in enumerate((tail_budget, tail_budget // 2, tail_budget // 4, 0)):
            upto = len(conv) if attempt == 3 else last_group
            shown = [
                externalize(m, mid, s.large_output_chars, s.page_chars) if mid is not None and i < upto else m
                for i, (m, mid) in enumerate(zip(conv, ids, strict=True))
            ]
            shown_tokens = message_tokens(shown)
            start = tail_start(conv, budget, shown_tokens)
            leaving = [mid for mid in ids[:start] if mid is not None and mid not in covered]
            summaries = min(roots_tokens + (leaf_budget if leaving else 0), max(condensed_budget, roots_tokens))
            if head_tokens + summaries + sum(shown_tokens[start:]) <= target:
                break
        if leaving:
            escalation.extra_context = self._pre_compress(conv[:start])
            self._write_leaves(builder, leaving)
            covered.update(leaving)
        self._condense(builder, target)
        result, tracked = self._assemble(head, conv, ids, shown, start, target)
        note = "compaction deadline reached" if time.monotonic() > escalation.deadline else ""
        problems = api_problems(result)
        if problems and not api_problems(messages):
            return messages, f"assembled context was not API-valid ({problems[0]}); kept the messages", "none"
        after = sum(message_tokens(result))
        if after > threshold:
            note = self._over_target_reason(after, threshold)
        self.last_compaction_calls = escalation.calls
        self.last_ledger = {"missing": builder.missing, "anchored": builder.anchored}
        if result == messages:
            return messages, note or "nothing to compact", escalation.worst_source
        self._set_tracked(tracked)
        self._copies = {id(shown_msg): (shown_msg, orig) for shown_msg, orig in self._altered(tracked, conv, ids)}
        layouts = {"now": self._layout(tracked), "before": before}
        self.store.save_layout(self._bind(), layouts, max((m for m in ids if m is not None), default=0))
        return result, note, escalation.worst_source

    def _fallback(self, messages: list[Message], reason: str, force: bool,
                  current_tokens: int | None = None) -> tuple[list[Message], str, str]:
        """The store cannot be written: still hold the window, and lose nothing we hold.

        The oldest messages are replaced by a deterministic digest (no model call: the
        turn must go on) and kept in memory, to be written when the store takes writes
        again; the newest user message and the fresh tail stay verbatim. Status and the
        compaction note say so.
        """
        s = self.settings
        threshold = self.threshold_tokens or sum(message_tokens(messages))
        total = sum(message_tokens(messages))
        if not force and max(current_tokens or 0, total) < threshold:
            return messages, f"{reason}; under the threshold, not compacting", "none"
        nsys = 0
        while nsys < len(messages) and messages[nsys].get("role") == "system":
            nsys += 1
        head, conv = messages[:nsys], messages[nsys:]
        target = int(threshold * s.target_ratio)
        tail_budget = int(min(s.fresh_tail_tokens, s.fresh_tail_ratio * threshold))
        start = tail_start(conv, tail_budget // 2, message_tokens(conv))
        if start == 0:
            return messages, f"{reason}; nothing old enough to compact", "none"
        leaving = conv[:start]
        ids = list(self._ids) if len(self._ids) == len(conv) else [UNSTORED] * len(conv)
        unstored = 0
        for i in range(start):
            if not (isinstance(ids[i], int) and ids[i] > 0):
                parent = ids[i - 1] if i and isinstance(ids[i - 1], int) and ids[i - 1] > 0 else (None if i else 0)
                self._backlog.append((conv[i], parent))  # the same predecessor it has in the conversation
                unstored += 1
        digest = truncate([m for m in leaving if isinstance(m, dict)], max(64, target // 8))
        note = (f"[LCM] The message store is unavailable ({reason}), so {len(leaving)} earlier messages were "
                f"replaced by this digest without a model call; {unstored} of them are held in memory and "
                f"will be stored when the store recovers.\n{digest}")
        body: list[tuple[Message, int | None]] = []
        pinned = last_user_index(conv)
        if pinned is not None and pinned < start:
            body.append((conv[pinned], ids[pinned]))
        body.extend(zip(conv[start:], ids[start:], strict=True))
        block: list[tuple[Message, int | None]] = [({"role": "user", "content": note}, SYNTHETIC)]
        if body and body[0][0].get("role") == "user":
            block.append(({"role": "assistant", "content": ACK}, SYNTHETIC))
        known = {id(m): mid for m, mid in [*block, *body]}
        tracked = [(m, known.get(id(m), SYNTHETIC)) for m in sanitize_tool_pairs([m for m, _ in [*block, *body]])]
        result = [*head, *(m for m, _ in tracked)]
        self._set_tracked(tracked)
        self.fallback_compactions += 1
        return result, f"{reason}; compacted without the store (deterministic digest)", "deterministic"

    def _layout(self, tracked: list[tuple[Message, int | None]], literal: bool = False) -> list[Any]:
        """``tracked`` as ids: ``N`` verbatim, ``{"x": N}`` as a reference, ``S`` / ``A`` the summary
        block, ``{"m": message}`` another engine-written message (a stub result for an unanswered call).
        ``literal`` keeps the summary block's text (it is rendered from roots that will change)."""
        altered = {id(copy) for copy, _ in self._copies.values()}
        out: list[Any] = []
        for msg, mid in tracked:
            if mid is None and msg.get("role") == "user" and not literal:
                out.append({"S": self._summary_budget} if self._summary_budget is not None else "S")
            elif mid is None and msg.get("role") == "assistant" and msg.get("content") == ACK:
                out.append("A")
            elif mid is None:
                out.append({"m": msg})
            else:
                out.append({"x": mid} if id(msg) in altered else mid)
        return out

    def _original(self, message: Message) -> Message:
        entry = self._copies.get(id(message))
        return entry[1] if entry is not None and entry[0] is message else message

    @staticmethod
    def _altered(
        tracked: list[tuple[Message, int | None]], conv: list[Message], ids: list[int | None]
    ) -> list[tuple[Message, Message]]:
        by_id = {mid: m for m, mid in zip(conv, ids, strict=True) if mid is not None}
        return [(m, by_id[mid]) for m, mid in tracked if mid is not None and by_id.get(mid) is not m]

    def _pre_compress(self, leaving: list[Message]) -> str:
        """Memory providers' notes for the summarizer, capped and redacted (they leave the process)."""
        try:
            return extra_context(str(self.ctx.pre_compress(leaving) or ""))
        except Exception as exc:
            log.warning("LCM: pre_compress failed: %s: %s", type(exc).__name__, exc)
            return ""

    def _budgets(self, target: int) -> tuple[int, int, int]:
        """``(leaf chunk, leaf summary, condensed summary)`` tokens, scaled to small windows."""
        s = self.settings
        return (s.leaf_chunk_tokens, min(s.leaf_summary_tokens, max(64, target // 12)),
                min(s.condensed_summary_tokens, max(96, target // 8)))

    def _write_leaves(self, builder: DagBuilder, leaving: list[int]) -> None:
        """At most ``max_leaf_calls`` leaves over ``leaving``, split evenly by tokens."""
        s = self.settings
        target = int((self.threshold_tokens or 1) * s.target_ratio)
        _, leaf_budget, _ = self._budgets(target)
        stored = self.store.get_messages(sorted(leaving))
        sizes = [min(row.tokens, 1000) for row in stored]  # what the summarizer sees of each (long text is cut)
        leaves = max(1, min(s.max_leaf_calls, -(-sum(sizes) // s.leaf_chunk_tokens)))
        per_leaf = -(-sum(sizes) // leaves)
        chunk: list[StoredMessage] = []
        used = 0
        for row, size in zip(stored, sizes, strict=True):
            if chunk and used + size > per_leaf and leaves > 1:
                builder.leaf(chunk, leaf_budget)
                leaves -= 1
                chunk, used = [], 0
            chunk.append(row)
            used += size
        if chunk:
            builder.leaf(chunk, leaf_budget)

    def _condense(self, builder: DagBuilder, target: int) -> bool:
        """One condensation per compaction: the oldest ``condensation_fanin`` roots of the
        shallowest depth below ``max_depth`` that has that many (the rest waits for the next)."""
        s = self.settings
        _, _, budget = self._budgets(target)
        group = condensation_candidates(self.store.roots(self._bind()), s.condensation_fanin, s.max_depth)
        if not group:
            return False
        builder.condense(group, budget)
        return True

    def _assemble(
        self, head: list[Message], conv: list[Message], ids: list[int | None], shown: list[Message], start: int,
        target: int,
    ) -> tuple[list[Message], list[tuple[Message, int | None]]]:
        roots = self.store.roots(self._bind())
        body: list[tuple[Message, int | None]] = []
        pinned = last_user_index(conv)
        if pinned is not None and pinned < start:
            body.append((conv[pinned], ids[pinned]))
        body.extend(zip(shown[start:], ids[start:], strict=True))
        if roots:
            _, _, condensed_budget = self._budgets(target)
            room = target - sum(message_tokens(head)) - sum(message_tokens([m for m, _ in body]))
            self._summary_budget = max(condensed_budget, room)
            summary = {"role": "user", "content": render_summaries(roots, self._summary_budget)}
            block: list[tuple[Message, int | None]] = [(summary, SYNTHETIC)]
            if body and body[0][0].get("role") == "user":  # keep that user message verbatim
                block.append(({"role": "assistant", "content": ACK}, SYNTHETIC))
            body[:0] = block
        # Orphan results (and calls left unanswered) would make the provider reject the list:
        # drop / stub them; a dropped result stays in the store.
        known = {id(m): mid for m, mid in body}
        body = [(m, known.get(id(m), SYNTHETIC)) for m in sanitize_tool_pairs([m for m, _ in body])]
        return [*head, *(m for m, _ in body)], body

    def _over_target_reason(self, after: int, target: int) -> str:
        roots = self.store.roots(self._bind())
        summaries = sum(r.tokens for r in roots)
        return (f"could not get under {target} tokens (now {after}): the newest user message and the last "
                f"tool-call group are always kept, and {len(roots)} summaries take {summaries} tokens")

    # -- lifecycle --------------------------------------------------------------------------

    def on_session_start(self, session_id: str) -> None:
        with self._lock:
            self._forget_positions()
            self._claim(session_id)

    def on_session_end(self, session_id: str, messages: list[Message]) -> None:
        """Store whatever the session still holds, then let another engine take the session."""
        with self._lock:
            if session_id and session_id != self.host_session_id:
                self._forget_positions()
                self._claim(session_id)
            self._observe(messages)
            self._release()

    def on_session_reset(self) -> None:
        super().on_session_reset()
        with self._lock:
            self._release()
            self.session_id = self.host_session_id = self.session_note = ""
            self._forget_positions()

    def _forget_positions(self) -> None:
        self._set_tracked([])
        self._covered, self._system_hashes, self._copies = None, set(), {}
        self._resumed = False

    def _resume(self, conv: list[Message]) -> list[tuple[Message, int | None]]:
        """The list this session last had, rebuilt from the store (a restarted process).

        A host normally hands back the list of the last compaction plus what came after it.
        A process that died after the engine saved a compaction but before the host saved the
        result hands back the list from before that compaction (saved too, as ``before``), and
        a host may hand back the raw history. Each candidate is matched against ``conv`` by
        position and exact content; the one matching most positions gives its ids back, so no
        stored message is stored twice. A message that matches no stored one is new.
        """
        if not self.session_id:
            return []
        saved = self.store.load_layout(self.session_id)
        value, upto = saved if saved is not None else ([], 0)
        layouts = [value["now"], value["before"]] if isinstance(value, dict) else [value]
        after = [(m.message(), m.id) for m in self.store.session_messages(self.session_id, after_id=upto,
                                                                           limit=1 << 40) if m.role != "system"]
        best: list[tuple[Message, int | None]] = []
        best_score = -1
        for layout in layouts:
            candidate = [*self._rebuild(layout), *after]
            score = _matching(conv, candidate)
            if score == min(len(conv), len(candidate)):
                best, best_score = candidate, len(conv)
                break
            if score > best_score:
                best, best_score = candidate, score
        if best_score < len(conv) and saved is not None:
            raw = _aligned(conv, self.store.session_messages(self.session_id, after_id=0, limit=1 << 40))
            if _matching(conv, raw) > best_score:
                best = raw
        kept = {id(m) for m, _ in best}
        self._copies = {key: pair for key, pair in self._copies.items() if key in kept}
        return best

    def _rebuild(self, layout: list[Any]) -> list[tuple[Message, int | None]]:
        """A saved layout as messages with their ids (references re-made from the originals)."""
        s = self.settings
        wanted = [e if isinstance(e, int) else e["x"] for e in layout
                  if isinstance(e, int) or (isinstance(e, dict) and "x" in e)]
        originals = {m.id: m.message() for m in self.store.get_messages(wanted)}
        rebuilt: list[tuple[Message, int | None]] = []
        for entry in layout:
            if entry == "S" or (isinstance(entry, dict) and "S" in entry):
                budget = entry["S"] if isinstance(entry, dict) else None
                text = render_summaries(self.store.roots(self.session_id), budget)
                rebuilt.append(({"role": "user", "content": text}, SYNTHETIC))
            elif entry == "A":
                rebuilt.append(({"role": "assistant", "content": ACK}, SYNTHETIC))
            elif isinstance(entry, dict) and isinstance(entry.get("m"), dict):
                rebuilt.append((entry["m"], SYNTHETIC))
            elif isinstance(entry, dict) and entry.get("x") in originals:
                original = originals[entry["x"]]
                shown = externalize(original, entry["x"], s.large_output_chars, s.page_chars)
                self._copies[id(shown)] = (shown, original)
                rebuilt.append((shown, entry["x"]))
            elif isinstance(entry, int) and entry in originals:
                rebuilt.append((originals[entry], entry))
        return rebuilt

    def get_status(self) -> dict[str, Any]:
        """The base status plus the store: ``state`` (ok / degraded / unavailable) and a one-line
        ``summary`` that ``doctor`` shows, ``store_error``, ``store_events`` (files moved aside or
        recreated), ``unstored_backlog`` (messages held in memory until the store takes writes)."""
        status = super().get_status()
        status.update(session_id=self.session_id, host_session_id=self.host_session_id,
                      session_note=self.session_note, db_path=str(self.db_path), scratch=self.scratch,
                      store_error=self.store_error, store_events=list(self.store_events),
                      unstored_backlog=len(self._backlog), fallback_compactions=self.fallback_compactions,
                      last_compaction=self.last_compaction, last_compaction_calls=self.last_compaction_calls)
        health: dict[str, Any] = {}
        opened = self._store is not None or self.ctx.extras.get("lcm_store") is not None
        try:
            if opened or self.scratch or self.db_path.exists():  # a status never creates the file
                status.update(self.store.stats(self.session_id or None))
                health = self.store.health() if hasattr(self.store, "health") else {}
        except Exception as exc:
            status["store_error"] = status["store_error"] or str(exc)
        if status["store_error"] or UNSTORED in self._ids:
            state = "unavailable"
            summary = f"LCM store {self.db_path}: cannot store messages: {status['store_error'] or 'unstored'}"
        elif health.get("state", "ok") != "ok" or self.store_events:
            state = "degraded" if health.get("state") != "unavailable" else "unavailable"
            summary = str(health.get("summary") or f"LCM store: {self.store_events[-1]}")
        else:
            state, summary = "ok", f"LCM store {self.db_path}: ok"
        if self._backlog:
            summary += f"; {len(self._backlog)} message(s) held in memory until the store recovers"
        fix = {"ok": "", "degraded": "nothing is lost from the new store; inspect or delete the file moved aside",
               "unavailable": f"check that {self.db_path.parent} is writable and has free space; the turn goes on "
                              "and messages are stored when it recovers"}[state]
        status.update(state=state, summary=summary, fix=fix, store_health=health)
        return status

    # -- tools ------------------------------------------------------------------------------

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        from hermes_context_lcm.tools import TOOL_SCHEMAS

        return list(TOOL_SCHEMAS)

    def handle_tool_call(self, name: str, args: dict[str, Any]) -> str | None:
        from hermes_context_lcm.tools import run_tool

        return run_tool(self, name, args)


def _matching(conv: list[Message], candidate: list[tuple[Message, int | None]]) -> int:
    """How many positions of ``conv`` hold exactly the candidate's message."""
    return sum(1 for msg, (known, _) in zip(conv, candidate, strict=False) if msg == known)


def _aligned(conv: list[Message], rows: list[StoredMessage]) -> list[tuple[Message, int | None]]:
    """The session's stored messages laid over ``conv`` by sequence; a stored system message
    that is not at its position (a host's leading system prompt) is skipped."""
    out: list[tuple[Message, int | None]] = []
    j = 0
    for msg in conv:
        while j < len(rows) and rows[j].role == "system" and rows[j].message() != msg:
            j += 1
        if j == len(rows):
            break
        out.append((rows[j].message(), rows[j].id))
        j += 1
    return out


def _same(a: Message, b: Message) -> bool:
    """``a == b``, and False for values too deep to compare (they are stored again; the
    store's content identity then finds the existing row)."""
    if a is b:
        return True
    try:
        return a == b
    except RecursionError:
        return False


def _system_key(message: Message) -> int:
    content = message.get("content")
    if isinstance(content, str):
        return hash(content)
    try:
        return hash(str(content))
    except RecursionError:
        return id(message)


def _is_store_error(exc: BaseException) -> bool:
    return type(exc).__name__ == "StoreError"
