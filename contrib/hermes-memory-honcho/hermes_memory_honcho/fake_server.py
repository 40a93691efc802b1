"""A small in-memory Honcho server on 127.0.0.1, for tests and benchmarks.

It answers the ``/v3`` routes the ``honcho-ai`` SDK (2.7) calls for this plugin with
payloads its own pydantic models accept, keeps its data across ``stop()``/``start()``
(the "database" outlives the process, as a real deployment's does), and can misbehave
on purpose: answer with a status, hang, return malformed JSON, or commit a write and
then fail the response (the case that makes retries ambiguous).

Where it matters it behaves like the real server (plastic-labs/honcho 3.0.12+, checked
against it): creates answer 201; ids must match ``^[a-zA-Z0-9_-]+$`` and message content
is at most 25,000 characters, else 422 with a pydantic error list that echoes the input;
adding messages creates the session, a deleted session answers 404 for good; ``/context``
keeps a summary only if it fits 40 % of its ``tokens``; there is no summary until one is
set in ``summaries`` (the real deriver needs an LLM); search matches words, not
substrings, across sessions; the next request on a connection that got a 500 is reset;
an empty list pages as ``pages: 0``; ids are 21-character nanoids, timestamps end in ``Z``.

    server = FakeHonchoServer().start()
    Honcho(base_url=server.url, workspace_id="w").peer("alice")
    server.stop()
"""

from __future__ import annotations

import json
import re
import secrets
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

__all__ = ["FakeHonchoServer", "Fault"]


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


ID_PATTERN = re.compile(r"^[a-zA-Z0-9_-]+$")
MAX_CONTENT = 25_000
SUMMARY_SHARE = 0.4  # of /context's tokens the summary may take
_NANO = "_-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_STOP = frozenset("a an and are as at be but by for from has have i in is it its me my of on or so that the "
                  "this to was we were what when with you your".split())


def _nanoid() -> str:
    return "".join(secrets.choice(_NANO) for _ in range(21))


def _invalid(loc: list[Any], kind: str, msg: str, value: Any, **ctx: Any) -> tuple[int, Any]:
    """A pydantic-style 422, echoing the input back as the real server does."""
    item = {"type": kind, "loc": loc, "msg": msg, "input": value}
    if ctx:
        item["ctx"] = ctx
    return 422, {"detail": [item]}


def _bad_id(loc: list[Any], value: Any) -> tuple[int, Any] | None:
    if isinstance(value, str) and ID_PATTERN.fullmatch(value) and len(value) <= 512:
        return None
    return _invalid(loc, "string_pattern_mismatch", "String should match pattern '^[a-zA-Z0-9_-]+$'", value,
                    pattern="^[a-zA-Z0-9_-]+$")


def _terms(text: str) -> set[str]:
    """Words as PostgreSQL's English full-text search sees them, roughly: no stop words, stems."""
    words = (w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _STOP)
    return {re.sub(r"(?:ments?|ings?|ed|es|s)$", "", w) if len(w) > 4 else w for w in words}


@dataclass
class Fault:
    """How to misbehave for requests whose path contains ``path`` (all if empty).

    ``status``: answer with it (and a JSON ``detail``); ``delay``: sleep first;
    ``malformed``: answer 200 with a body that is not JSON; ``after_commit``: process
    the request, then answer with ``status`` (or drop the connection when it is 0).
    ``skip``: let this many matching requests through first; ``times``: how many
    requests it then applies to (``None`` for all).
    """

    status: int = 0
    delay: float = 0.0
    malformed: bool = False
    after_commit: bool = False
    path: str = ""
    method: str = ""
    skip: int = 0
    times: int | None = None


@dataclass
class _Store:
    workspaces: dict[str, dict[str, Any]] = field(default_factory=dict)
    peers: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    sessions: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    session_peers: dict[tuple[str, str], dict[str, dict[str, Any]]] = field(default_factory=dict)
    messages: list[dict[str, Any]] = field(default_factory=list)
    conclusions: list[dict[str, Any]] = field(default_factory=list)
    cards: dict[tuple[str, str, str], list[str]] = field(default_factory=dict)
    deleted_sessions: set[tuple[str, str]] = field(default_factory=set)


class FakeHonchoServer:
    """The fake. Read ``messages``/``conclusions``/``requests``; set ``faults``, ``api_key``,
    ``summaries``, ``representations``, ``chat_answer``, ``conclusions_need_llm`` (answer
    conclusions as a server without an LLM key does: 422 "OpenAI API key is required")."""

    def __init__(self, port: int = 0, api_key: str | None = None) -> None:
        self.port = port
        self.api_key = api_key
        self.store = _Store()
        self.faults: list[Fault] = []
        self.requests: list[tuple[str, str]] = []
        self.summaries: dict[str, str] = {}
        self.representations: dict[str, str] = {}
        self.chat_answer: str | None = "The user prefers concise answers."
        self.conclusions_need_llm = False
        self.resets = 0  # requests reset because the connection had answered a 500
        self.lock = threading.RLock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._connections: set[Any] = set()

    # -- lifecycle ------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        return self._httpd is not None

    def start(self) -> FakeHonchoServer:
        """Listen (again, on the same port after a stop)."""
        handler = type("Handler", (_Handler,), {"fake": self})
        httpd = _Server(("127.0.0.1", self.port), handler)
        httpd.daemon_threads = True
        self.port = httpd.server_address[1]
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="fake-honcho", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop listening; data is kept for the next ``start()``."""
        httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        with self.lock:
            open_connections, self._connections = list(self._connections), set()
        for sock in open_connections:  # keep-alive connections would outlive the listener
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if self._thread is not None:
            self._thread.join(5)

    def __enter__(self) -> FakeHonchoServer:
        return self if self.running else self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- reading what arrived ------------------------------------------------------------

    def messages(self, session: str | None = None) -> list[dict[str, Any]]:
        with self.lock:
            return [m for m in self.store.messages if session is None or m["session_id"] == session]

    @property
    def conclusions(self) -> list[dict[str, Any]]:
        with self.lock:
            return list(self.store.conclusions)

    def take_fault(self, method: str, path: str) -> Fault | None:
        with self.lock:
            for fault in self.faults:
                if fault.path in path and (not fault.method or fault.method == method):
                    if fault.skip > 0:
                        fault.skip -= 1
                        continue
                    if fault.times is not None:
                        fault.times -= 1
                        if fault.times <= 0:
                            self.faults.remove(fault)
                    return fault
        return None

    # -- the API ------------------------------------------------------------------------------

    def handle(self, method: str, path: str, query: dict[str, str], body: Any) -> tuple[int, Any]:
        """Route one request; returns (status, JSON-able body)."""
        parts = path.strip("/").split("/")
        if parts[:2] != ["v3", "workspaces"]:
            return 404, {"detail": "Not Found"}
        with self.lock:
            if len(parts) == 2 and method == "POST":
                bad = _bad_id(["body", "id"], body.get("id"))
                if bad:
                    return bad
                created = body["id"] not in self.store.workspaces
                return (201 if created else 200), self._workspace(body["id"])
            ws = parts[2]
            if ws not in self.store.workspaces:
                return 404, {"detail": f"Workspace {ws} not found"}
            rest = parts[3:]
            route = "/".join("{}" if i % 2 == 1 and r not in _VERBS else r for i, r in enumerate(rest))
            fn = _ROUTES.get((method, route))
            if fn is None:
                return 404, {"detail": f"no route {method} /{'/'.join(rest)}"}
            ids = [r for i, r in enumerate(rest) if i % 2 == 1 and r not in _VERBS]
            return fn(self, ws, ids, query, body or {})

    def _workspace(self, ws: str) -> dict[str, Any]:
        row = self.store.workspaces.setdefault(ws, {"id": ws, "metadata": {}, "configuration": {},
                                                    "created_at": _now()})
        return row

    def _peer_row(self, ws: str, peer: str) -> dict[str, Any]:
        return self.store.peers.setdefault((ws, peer), {"id": peer, "workspace_id": ws, "metadata": {},
                                                        "configuration": {}, "created_at": _now()})

    def _session_row(self, ws: str, sid: str) -> dict[str, Any]:
        return self.store.sessions.setdefault((ws, sid), {"id": sid, "workspace_id": ws, "is_active": True,
                                                          "metadata": {}, "configuration": {},
                                                          "created_at": _now()})

    def r_peer(self, ws: str, ids: list[str], q: dict[str, str], body: dict[str, Any]) -> tuple[int, Any]:
        bad = _bad_id(["body", "id"], body.get("id"))
        if bad:
            return bad
        created = (ws, body["id"]) not in self.store.peers
        return (201 if created else 200), self._peer_row(ws, body["id"])

    def r_session(self, ws: str, ids: list[str], q: dict[str, str], body: dict[str, Any]) -> tuple[int, Any]:
        bad = _bad_id(["body", "id"], body.get("id"))
        if bad:
            return bad
        if (ws, body["id"]) in self.store.deleted_sessions:
            return 404, {"detail": f"Session {body['id']} not found in workspace {ws}"}
        created = (ws, body["id"]) not in self.store.sessions
        row = self._session_row(ws, body["id"])
        for peer, cfg in (body.get("peers") or {}).items():
            self._peer_row(ws, peer)
            self.store.session_peers.setdefault((ws, body["id"]), {})[peer] = cfg or {}
        return (201 if created else 200), row

    def delete_session(self, ws: str, sid: str) -> None:
        """Delete a session as the real server does: from now on it answers 404 for good."""
        with self.lock:
            self.store.sessions.pop((ws, sid), None)
            self.store.deleted_sessions.add((ws, sid))
            self.store.messages = [m for m in self.store.messages
                                   if (m["workspace_id"], m["session_id"]) != (ws, sid)]

    def r_delete_session(self, ws: str, ids: list[str], q: dict[str, str], body: dict[str, Any]) -> tuple[int, Any]:
        if (ws, ids[0]) not in self.store.sessions:
            return 404, {"detail": f"Session {ids[0]} not found in workspace {ws}"}
        self.delete_session(ws, ids[0])
        return 202, {"message": "Session deleted successfully"}

    def r_session_peers(self, ws: str, ids: list[str], q: dict[str, str], body: dict[str, Any]) -> tuple[int, Any]:
        if (ws, ids[0]) not in self.store.sessions:
            return 404, {"detail": "Session not found"}
        for peer, cfg in body.items():
            self._peer_row(ws, peer)
            self.store.session_peers.setdefault((ws, ids[0]), {})[peer] = cfg or {}
        return 200, {}

    def r_add_messages(self, ws: str, ids: list[str], q: dict[str, str], body: dict[str, Any]) -> tuple[int, Any]:
        sid = ids[0]
        if (ws, sid) in self.store.deleted_sessions:
            return 404, {"detail": f"Session {sid} not found in workspace {ws}"}
        batch = body.get("messages")
        if not isinstance(batch, list) or not 1 <= len(batch) <= 100:
            return _invalid(["body", "messages"], "too_long", "List should have at most 100 items", batch)
        rows = []
        for i, msg in enumerate(batch):
            if not isinstance(msg.get("content"), str):
                return _invalid(["body", "messages", i, "content"], "missing", "Field required", msg)
            if len(msg["content"]) > MAX_CONTENT:
                return _invalid(["body", "messages", i, "content"], "string_too_long",
                                f"String should have at most {MAX_CONTENT} characters", msg["content"],
                                max_length=MAX_CONTENT)
            bad = _bad_id(["body", "messages", i, "peer_id"], msg.get("peer_id"))
            if bad:
                return bad
            rows.append({
                "id": _nanoid(), "content": msg["content"].replace("\x00", ""), "peer_id": msg["peer_id"],
                "session_id": sid,
                "workspace_id": ws, "metadata": msg.get("metadata") or {},
                "created_at": msg.get("created_at") or _now(), "token_count": len(msg["content"]) // 4,
            })
        self._session_row(ws, sid)  # adding messages creates the session
        for row in rows:
            self._peer_row(ws, row["peer_id"])
        self.store.messages.extend(rows)
        return 201, rows

    def r_list_messages(self, ws: str, ids: list[str], q: dict[str, str], body: dict[str, Any]) -> tuple[int, Any]:
        if (ws, ids[0]) in self.store.deleted_sessions:
            return 404, {"detail": f"Session {ids[0]} not found in workspace {ws}"}
        rows = [m for m in self.store.messages if m["workspace_id"] == ws and m["session_id"] == ids[0]]
        wanted = ((body.get("filters") or {}).get("metadata") or {}).items()
        rows = [m for m in rows if all(m["metadata"].get(k) == v for k, v in wanted)]
        return 200, _page(rows, q)

    def r_session_context(self, ws: str, ids: list[str], q: dict[str, str], body: dict[str, Any]) -> tuple[int, Any]:
        sid = ids[0]
        if (ws, sid) in self.store.deleted_sessions:
            return 404, {"detail": f"Session {sid} not found in workspace {ws}"}
        rows = [m for m in self.store.messages if m["workspace_id"] == ws and m["session_id"] == sid]
        tokens = int(q.get("tokens") or 100_000)
        summary = self._summary(sid, rows)
        if summary is not None and (q.get("summary") == "false" or summary["token_count"] > SUMMARY_SHARE * tokens):
            summary = None
        room, recent = tokens - (summary["token_count"] if summary else 0), []
        for row in reversed(rows):  # the newest messages that fit the rest of the budget
            if row["token_count"] > room:
                break
            recent.insert(0, row)
            room -= row["token_count"]
        target = q.get("peer_target")
        observer = q.get("peer_perspective") or target
        return 200, {
            "id": sid, "messages": recent, "summary": summary,
            "peer_representation": self._representation(ws, observer, target) if target else None,
            "peer_card": self._card(ws, observer or "", target or "") if target else None,
        }

    def _summary(self, sid: str, rows: list[dict[str, Any]]) -> dict[str, Any] | None:
        """Only what a test set in ``summaries``: the real deriver needs an LLM and 20+ messages."""
        text = self.summaries.get(sid)
        if not text:
            return None
        return {"content": text, "message_id": rows[-1]["id"] if rows else _nanoid(), "summary_type": "short",
                "created_at": _now(), "token_count": len(text) // 4}

    def r_summaries(self, ws: str, ids: list[str], q: dict[str, str], body: dict[str, Any]) -> tuple[int, Any]:
        if (ws, ids[0]) in self.store.deleted_sessions or (ws, ids[0]) not in self.store.sessions:
            return 404, {"detail": f"Session {ids[0]} not found in workspace {ws}"}
        rows = [m for m in self.store.messages if m["workspace_id"] == ws and m["session_id"] == ids[0]]
        return 200, {"id": ids[0], "short_summary": self._summary(ids[0], rows), "long_summary": None}

    def _representation(self, ws: str, observer: str | None, target: str | None) -> str:
        if target in self.representations:
            return self.representations[target]
        facts = [c["content"] for c in self.store.conclusions
                 if c["observed_id"] == target and (observer is None or c["observer_id"] == observer)]
        return "\n".join(f"- {f}" for f in facts)

    def _card(self, ws: str, observer: str, target: str) -> list[str] | None:
        return self.store.cards.get((ws, observer, target or observer))

    def r_peer_context(self, ws: str, ids: list[str], q: dict[str, str], body: dict[str, Any]) -> tuple[int, Any]:
        target = q.get("target") or ids[0]
        return 200, {"peer_id": ids[0], "target_id": target,
                     "representation": self._representation(ws, ids[0], target),
                     "peer_card": self._card(ws, ids[0], target)}

    def r_get_card(self, ws: str, ids: list[str], q: dict[str, str], body: dict[str, Any]) -> tuple[int, Any]:
        return 200, {"peer_card": self._card(ws, ids[0], q.get("target") or ids[0])}

    def r_set_card(self, ws: str, ids: list[str], q: dict[str, str], body: dict[str, Any]) -> tuple[int, Any]:
        self.store.cards[(ws, ids[0], q.get("target") or ids[0])] = list(body.get("peer_card") or [])
        return 200, {"peer_card": self.store.cards[(ws, ids[0], q.get("target") or ids[0])]}

    def r_chat(self, ws: str, ids: list[str], q: dict[str, str], body: dict[str, Any]) -> tuple[int, Any]:
        if not body.get("query"):
            return 422, {"detail": "query is required"}
        return 200, {"content": self.chat_answer}

    def r_search(self, ws: str, ids: list[str], q: dict[str, str], body: dict[str, Any]) -> tuple[int, Any]:
        query = str(body.get("query", ""))
        special = bool(re.search(r"[~`!@#$%^&*()_+=\[\]{};':\"\\|,.<>/?-]", query))
        wanted = set() if special else _terms(query)  # as the real server: full text, or substring
        author = ids[0] if ids else None
        scored = []
        for m in self.store.messages:
            if m["workspace_id"] != ws or (author is not None and m["peer_id"] != author):
                continue
            rank = len(wanted & _terms(m["content"])) if wanted and wanted <= _terms(m["content"]) else 0
            if rank or query.lower() in m["content"].lower():
                scored.append((rank, m["created_at"], m))
        scored.sort(key=lambda t: (t[0], t[1]), reverse=True)  # relevance, then newest
        hits = [m for _, _, m in scored]
        return 200, hits[: int(body.get("limit") or 10)]

    def r_conclusions(self, ws: str, ids: list[str], q: dict[str, str], body: dict[str, Any]) -> tuple[int, Any]:
        rows = []
        for item in body.get("conclusions") or []:
            if not item.get("content"):
                return _invalid(["body", "conclusions", 0, "content"], "missing", "Field required", item)
            sid = item.get("session_id")
            if sid is not None and (ws, sid) not in self.store.sessions:  # deleted ones are gone from it too
                return 404, {"detail": f"Session {sid} not found"}  # checked first, as the real server does
            for peer in (item.get("observer_id"), item.get("observed_id")):
                if (ws, peer) not in self.store.peers:
                    return 404, {"detail": f"Peer {peer} not found in workspace {ws}"}
            if self.conclusions_need_llm:
                return 422, {"detail": "OpenAI API key is required"}
            rows.append({"id": _nanoid(), "content": item["content"], "observer_id": item["observer_id"],
                         "observed_id": item["observed_id"], "session_id": item.get("session_id"),
                         "level": "explicit", "created_at": _now()})
        self.store.conclusions.extend(rows)
        return 200, rows

    def r_list_conclusions(self, ws: str, ids: list[str], q: dict[str, str], body: dict[str, Any]) -> tuple[int, Any]:
        filters = body.get("filters") or {}
        rows = [c for c in self.store.conclusions
                if all(c.get(k) == v for k, v in filters.items() if not isinstance(v, dict))]
        return 200, _page(rows, q)


_VERBS = {"messages", "list", "context", "card", "chat", "search", "peers", "representation", "config",
          "summaries"}
_ROUTES = {
    ("POST", "peers"): FakeHonchoServer.r_peer,
    ("POST", "sessions"): FakeHonchoServer.r_session,
    ("POST", "sessions/{}/peers"): FakeHonchoServer.r_session_peers,
    ("POST", "sessions/{}/messages"): FakeHonchoServer.r_add_messages,
    ("POST", "sessions/{}/messages/list"): FakeHonchoServer.r_list_messages,
    ("GET", "sessions/{}/context"): FakeHonchoServer.r_session_context,
    ("GET", "sessions/{}/summaries"): FakeHonchoServer.r_summaries,
    ("DELETE", "sessions/{}"): FakeHonchoServer.r_delete_session,
    ("GET", "peers/{}/context"): FakeHonchoServer.r_peer_context,
    ("GET", "peers/{}/card"): FakeHonchoServer.r_get_card,
    ("PUT", "peers/{}/card"): FakeHonchoServer.r_set_card,
    ("POST", "peers/{}/chat"): FakeHonchoServer.r_chat,
    ("POST", "peers/{}/search"): FakeHonchoServer.r_search,
    ("POST", "search"): FakeHonchoServer.r_search,
    ("POST", "conclusions"): FakeHonchoServer.r_conclusions,
    ("POST", "conclusions/list"): FakeHonchoServer.r_list_conclusions,
}


def _page(rows: list[dict[str, Any]], q: dict[str, str]) -> dict[str, Any]:
    page, size = int(q.get("page", 1)), int(q.get("size", 50))
    if q.get("reverse") == "true":
        rows = rows[::-1]
    items = rows[(page - 1) * size: page * size]
    return {"items": items, "page": page, "size": size, "total": len(rows), "pages": -(-len(rows) // size)}


class _Server(ThreadingHTTPServer):
    allow_reuse_address = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that give up (timeouts) or a stop() mid-request are normal here."""


class _Handler(BaseHTTPRequestHandler):
    fake: FakeHonchoServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def setup(self) -> None:
        super().setup()
        # headers and body go out in two writes; without this, Nagle + delayed ACK add 40 ms
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self.fake.lock:
            self.fake._connections.add(self.connection)

    def finish(self) -> None:
        with self.fake.lock:
            self.fake._connections.discard(self.connection)
        try:
            super().finish()
        except OSError:
            pass

    def _serve(self, method: str) -> None:
        url = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if getattr(self, "_answered_500", False):
            # the real server resets the next request on a keep-alive connection that answered a 500
            with self.fake.lock:
                self.fake.resets += 1
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            self.connection.close()
            return None
        self.fake.requests.append((method, url.path))
        fault = self.fake.take_fault(method, url.path)
        if fault and fault.delay:
            time.sleep(fault.delay)
        if self.fake.api_key and self.headers.get("Authorization") != f"Bearer {self.fake.api_key}":
            return self._send(401, {"detail": "Invalid API key"})
        if fault and not fault.after_commit:
            if fault.malformed:
                return self._send(200, b"<html>not json")
            if fault.status:
                return self._send(fault.status, {"detail": f"injected {fault.status}"})
        try:
            body = json.loads(raw) if raw else None
            status, payload = self.fake.handle(method, url.path, query, body)
        except (ValueError, KeyError, TypeError) as exc:
            status, payload = 422, {"detail": f"bad request: {exc}"}
        if fault and fault.after_commit:
            if not fault.status:
                self.close_connection = True
                self.connection.close()
                return None
            return self._send(fault.status, {"detail": f"injected {fault.status} after commit"})
        return self._send(status, payload)

    def _send(self, status: int, payload: Any) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self._answered_500 = status == 500
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:  # the client gave up (timeout) or the server is stopping
            self.close_connection = True

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_PUT(self) -> None:
        self._serve("PUT")

    def do_DELETE(self) -> None:
        self._serve("DELETE")
