"""The HTTP transport under the SDK: a fresh connection after a 5xx, and a stall signal.

The real Honcho server, after an unhandled 500, resets the next request sent on the
same keep-alive connection; a client that reuses it reports "unreachable" for a server
that is fine. After any 5xx this transport reads the body, then sends later requests
through a new connection pool; the old pool is closed once nothing can still be using
it. It also remembers when a request was last answered, so a flush can tell a slow but
working server from one that accepts connections and never answers. ``close()`` cuts the
requests still in flight: their threads end then, instead of waking while the interpreter
exits (in Python 3.11 a daemon thread woken during finalisation aborts the process).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

import httpx

RETIRED_KEPT = 4  # pools retired after a 5xx, kept open for requests that may still use them


class FreshAfterServerError(httpx.BaseTransport):
    def __init__(self, make_pool: Callable[[], httpx.BaseTransport] | None = None) -> None:
        self._make_pool = make_pool or httpx.HTTPTransport
        self._pool = self._make_pool()
        self._retired: list[httpx.BaseTransport] = []
        self._lock = threading.Lock()
        self._in_flight: dict[int, float] = {}  # request id -> monotonic start
        self._sockets: weakref.WeakSet[socket.socket] = weakref.WeakSet()  # every connection's, for close()
        self.last_answer: float | None = None  # monotonic time of the last response of any status
        self.renewals = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        pool = self._pool
        token = id(request)
        request.extensions["trace"] = self._recorder(request.extensions.get("trace"))
        with self._lock:
            self._in_flight[token] = time.monotonic()
        try:
            try:
                response = pool.handle_request(request)
            except (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError):
                # sent on a pool retired meanwhile: it may have met the connection that answered
                # the 500, which the server resets before reading the request; once, on a fresh pool
                if pool is self._pool:
                    raise
                pool = self._pool
                response = pool.handle_request(request)
        finally:
            with self._lock:
                self._in_flight.pop(token, None)
        self.last_answer = time.monotonic()
        if response.status_code < 500:
            return response
        # Renew before reading the body: reading it to the end hands the connection back to the
        # old pool, where another thread could take it and meet the reset; once the pool is
        # retired, such a thread retries on the fresh one (above).
        self._renew(pool)
        try:
            raw = b"".join(response.iter_raw())  # raw: the new response decodes it the same way
        finally:
            response.close()
        return httpx.Response(response.status_code, headers=response.headers, content=raw, request=request,
                              extensions={k: v for k, v in response.extensions.items() if k != "network_stream"})

    def _renew(self, used: httpx.BaseTransport) -> None:
        with self._lock:
            if self._pool is not used:  # another thread renewed already
                return
            self._pool = self._make_pool()
            self._retired.append(used)
            self.renewals += 1
            stale = self._retired[:-RETIRED_KEPT]
            self._retired = self._retired[-RETIRED_KEPT:]
        for pool in stale:
            pool.close()

    def stalled_for(self) -> float:
        """Seconds the oldest request in flight has waited with no answer (0 if none waits)."""
        with self._lock:
            oldest = min(self._in_flight.values(), default=None)
        return 0.0 if oldest is None else time.monotonic() - oldest

    def _recorder(self, chained: Callable[[str, dict[str, Any]], None] | None) -> Callable[..., None]:
        """httpcore's ``trace`` extension: keep the socket of every connection opened (TCP or TLS)."""
        def trace(event: str, info: dict[str, Any]) -> None:
            stream = info.get("return_value")
            if event.endswith(".complete") and hasattr(stream, "get_extra_info"):
                sock = stream.get_extra_info("socket")
                if sock is not None:
                    with self._lock:
                        self._sockets.add(sock)
            if chained is not None:
                chained(event, info)
        return trace

    def close(self) -> None:
        """Shut every connection down, so a thread waiting for an answer gets an error now; then close the pools."""
        with self._lock:
            pools, self._retired = [self._pool, *self._retired], []
            sockets = list(self._sockets)
        for sock in sockets:
            with contextlib.suppress(OSError):  # closed already, or detached by TLS (its TLS socket is kept too)
                sock.shutdown(socket.SHUT_RDWR)
        for pool in pools:
            pool.close()
