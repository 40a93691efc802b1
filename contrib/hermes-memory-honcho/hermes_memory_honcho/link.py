"""The only module that talks to the ``honcho-ai`` SDK: client, peers, sessions, calls.

Everything here may block for up to the configured timeout and may raise; callers run
it on background threads and turn exceptions into a :class:`Failure` with
:func:`classify`.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hermes_memory_honcho.settings import HonchoSettings

if TYPE_CHECKING:
    from honcho import Honcho
    from honcho.peer import Peer
    from honcho.session import Session

TURN_KEY = "hermes_turn"
PART_KEY = "hermes_part"  # the chunk's index in its turn


@dataclass(frozen=True)
class Failure:
    """What went wrong, in terms the outbox and the status line understand.

    ``maybe_sent``: the server may have stored the write (check before resending).
    ``reject``: the server refused this write for good; it is set aside, not retried.
    ``cause`` of a refusal: ``payload`` (this write is wrong: too long, bad id),
    ``server`` (the server's own configuration, e.g. no LLM key for conclusions: the
    same write succeeds once the server is fixed) or ``session`` (the session is gone,
    deleted on the server). ``message`` never holds user text.
    """

    kind: str  # sdk_missing|auth|rejected|not_found|rate_limited|server|timeout|unreachable|malformed|other
    message: str
    maybe_sent: bool = False
    reject: bool = False
    cause: str = ""

    def describe(self) -> str:
        return f"{self.kind}: {self.message}"


DETAIL_CHARS = 200  # of a server's plain-text error detail; pydantic details are rebuilt without input
# Plain-text 4xx details that name the server's setup, not the request (observed: "OpenAI API key is required").
_SERVER_SIDE = re.compile(r"api[ _-]?key|configur|not enabled|disabled|no (?:llm|model|provider)|embedding",
                          re.IGNORECASE)


def error_detail(exc: BaseException) -> str:
    """The server's error detail without the input it echoes back.

    Honcho's 422 bodies are pydantic lists whose ``input`` holds the rejected value (up
    to 25 KB of the user's message); only location, type and message are kept.
    """
    body = getattr(exc, "body", None)
    detail = body.get("detail") if isinstance(body, dict) else None
    if detail is None:
        detail = getattr(exc, "message", None)
    if isinstance(detail, list):
        parts = []
        for item in detail[:5]:
            if isinstance(item, dict):
                loc = ".".join(str(x) for x in item.get("loc") or ())
                parts.append(f"{loc}: {item.get('msg') or item.get('type') or 'invalid'}")
        return "; ".join(parts) or "invalid request"
    text = str(detail if detail is not None else (str(exc) or type(exc).__name__))
    return text if len(text) <= DETAIL_CHARS else text[:DETAIL_CHARS] + " …"


def refusal_cause(exc: BaseException) -> str:
    """``payload`` or ``server`` for a 400/413/422 (see :class:`Failure`)."""
    body = getattr(exc, "body", None)
    detail = body.get("detail") if isinstance(body, dict) else getattr(exc, "message", None)
    if isinstance(detail, list):  # request validation: the payload itself
        return "payload"
    return "server" if _SERVER_SIDE.search(str(detail or "")) else "payload"


def classify(exc: BaseException) -> Failure:
    """Map SDK, httpx and pydantic exceptions to a :class:`Failure` (no user text in it)."""
    if isinstance(exc, ImportError):
        return Failure("sdk_missing", f"honcho-ai is not installed ({exc}); pip install honcho-ai")
    try:
        import httpx
        import pydantic
        from honcho import HonchoError
        from honcho.http import exceptions as hx
    except ImportError as missing:  # pragma: no cover - the SDK vanished mid-run
        return Failure("sdk_missing", str(missing))
    status = getattr(exc, "status", None)
    if isinstance(exc, HonchoError) and status is not None:
        text = error_detail(exc)
    else:
        text = (str(exc) or type(exc).__name__).splitlines()[0][:DETAIL_CHARS]
    if isinstance(exc, hx.AuthenticationError | hx.PermissionDeniedError):
        return Failure("auth", f"Honcho refused the credentials (HTTP {status}): {text}")
    if isinstance(exc, hx.NotFoundError):
        return Failure("not_found", text)
    if isinstance(exc, hx.RateLimitError):
        return Failure("rate_limited", text, maybe_sent=False)
    if isinstance(exc, hx.ServerError):
        return Failure("server", f"HTTP {status}: {text}", maybe_sent=True)
    if isinstance(exc, hx.BadRequestError | hx.UnprocessableEntityError) or status == 413:
        cause = refusal_cause(exc)
        return Failure("rejected", f"HTTP {status} ({cause}): {text}", reject=True, cause=cause)
    if isinstance(exc, hx.TimeoutError):
        return Failure("timeout", text, maybe_sent=True)
    if isinstance(exc, hx.ConnectionError):
        cause = exc.__cause__
        if isinstance(cause, httpx.ConnectError):
            return Failure("unreachable", text)
        if isinstance(cause, ValueError):  # the SDK wraps a failed response.json() like this
            return Failure("malformed", f"response is not JSON: {text}", maybe_sent=True)
        return Failure("unreachable", text, maybe_sent=True)
    if isinstance(exc, pydantic.ValidationError | json.JSONDecodeError | KeyError | TypeError):
        return Failure("malformed", f"unexpected response: {type(exc).__name__}", maybe_sent=True)
    if isinstance(exc, HonchoError):
        return Failure("other", f"HTTP {status}: {text}", maybe_sent=True)
    return Failure("other", f"{type(exc).__name__}: {text}", maybe_sent=True)


@dataclass(frozen=True)
class Recall:
    """What Honcho knows right now, as plain strings."""

    summary: str = ""
    representation: str = ""
    card: tuple[str, ...] = ()
    dialectic: str = ""


class HonchoLink:
    """A lazily built client plus the peers and sessions already known to exist."""

    def __init__(self, settings: HonchoSettings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._client: Honcho | None = None
        self._http: Any = None
        self.transport: Any = None
        self._peers: dict[str, Peer] = {}
        self._sessions: dict[str, Session] = {}

    def client(self) -> Honcho:
        with self._lock:
            if self._client is None:
                import httpx
                from honcho import Honcho

                from hermes_memory_honcho.transport import FreshAfterServerError

                s = self.settings
                self.transport = FreshAfterServerError()
                self._http = httpx.Client(base_url=s.url, timeout=s.timeout, transport=self.transport)
                self._client = Honcho(base_url=s.url, api_key=s.api_key, workspace_id=s.workspace,
                                      timeout=s.timeout, max_retries=0, http_client=self._http)
            return self._client

    def peer(self, peer_id: str) -> Peer:
        if peer_id not in self._peers:
            self._peers[peer_id] = self.client().peer(peer_id)
        return self._peers[peer_id]

    def session(self, sid: str, user: str, assistant: str) -> Session:
        """Get-or-create the session with both peers (the user observed, the AI observing)."""
        if sid not in self._sessions:
            from honcho.api_types import SessionPeerConfig

            self._sessions[sid] = self.client().session(sid, peers=[
                (user, SessionPeerConfig(observe_me=True, observe_others=False)),
                (assistant, SessionPeerConfig(observe_me=False, observe_others=True)),
            ])
        return self._sessions[sid]

    def forget_session(self, sid: str) -> None:
        self._sessions.pop(sid, None)

    def connect(self, user: str, assistant: str) -> None:
        """Workspace and both peers: the background initialisation.

        Sessions are created when first written to, so a session deleted on the server
        (404 for good) stops only its own writes, not the connection.
        """
        self.peer(user)  # get-or-create: one request each
        self.peer(assistant)

    def stalled_for(self) -> float:
        """How long the oldest request in flight has gone unanswered (0 if none)."""
        return self.transport.stalled_for() if self.transport is not None else 0.0

    # -- writes ---------------------------------------------------------------------------

    def add_turns(self, sid: str, payloads: list[dict[str, Any]]) -> None:
        """One ``add_messages`` call (atomic server-side, at most 100 messages in all)."""
        from honcho.api_types import MessageCreateParams

        first = payloads[0]
        session = self.session(sid, first["user_peer"], first["assistant_peer"])
        params = [
            MessageCreateParams(content=m["content"], peer_id=m["peer"], metadata=m["metadata"],
                                created_at=m["created_at"])
            for payload in payloads for m in payload["messages"]
        ]
        session.add_messages(params)

    def landed_parts(self, sid: str, key: str) -> set[int]:
        """Which chunks (``hermes_part``) of turn ``key`` reached the server in earlier sends?"""
        from honcho.http.exceptions import NotFoundError
        from honcho.session import Session

        try:
            page = Session(sid, self.client()).messages(filters={"metadata": {TURN_KEY: key}}, size=100)
            return {int((m.metadata or {}).get(PART_KEY, -1)) for m in page}  # iterating fetches every page
        except NotFoundError:
            return set()

    def add_conclusion(self, sid: str, payload: dict[str, Any]) -> None:
        """The conclusion, tied to its session: Honcho answers 404 to a conclusion naming a
        session it does not have, so the session is got-or-created first."""
        self.session(sid, payload["observed"], payload["observer"])
        view = self.peer(payload["observer"]).conclusions_of(payload["observed"])
        view.create([{"content": payload["content"], "session_id": sid}])

    def conclusion_landed(self, sid: str, payload: dict[str, Any]) -> bool:
        view = self.peer(payload["observer"]).conclusions_of(payload["observed"])
        return any(c.content == payload["content"] for c in view.list(size=100, session=sid, reverse=True))

    # -- reads ----------------------------------------------------------------------------

    def recall(self, sid: str, user: str, assistant: str, query: str) -> Recall:
        """The session's summary, and the user's representation and card (two small requests).

        The summary comes from ``/summaries``, whole: ``/context`` keeps a summary only if
        it fits 40 % of its ``tokens`` budget and packs messages we do not use into the
        rest. The caller clips to its own budget.
        """
        session = self.session(sid, user, assistant)
        summaries = session.summaries()
        chosen = summaries.short_summary or summaries.long_summary
        view = self.peer(assistant).context(target=user, search_query=query[:2000] or None)
        return Recall(
            summary=chosen.content if chosen else "",
            representation=str(view.representation or ""),
            card=tuple(view.peer_card or ()),
        )

    def dialectic(self, sid: str, user: str, assistant: str, query: str) -> str:
        """Honcho's answer about the user for this turn; slow (an LLM), own timeout."""
        s = self.settings
        answer = self.peer(assistant).chat(query[:10_000], target=user, session=sid,
                                           reasoning_level=s.reasoning_level, timeout=s.dialectic_timeout)
        return answer if isinstance(answer, str) else ""

    def ping(self) -> None:
        """One cheap request (workspace get-or-create): is Honcho there and do we get in?"""
        self.client().get_configuration()

    def card(self, observer: str, target: str | None) -> list[str]:
        return list(self.peer(observer).get_card(target=target) or [])

    def search(self, query: str, limit: int) -> list[dict[str, str]]:
        hits = self.client().search(query[:4000], limit=limit)
        return [{"peer": m.peer_id, "session": m.session_id, "created_at": str(m.created_at),
                 "content": m.content} for m in hits]

    def close(self) -> None:
        with self._lock:
            http, self._http, self._client = self._http, None, None
            self._peers.clear()
            self._sessions.clear()
        if http is not None:
            http.close()
