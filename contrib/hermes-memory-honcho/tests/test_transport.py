"""The transport's promise under threads: a connection that answered a 500 is never handed to
another request, even one sent the instant that 500's body has been read."""

from __future__ import annotations

import threading
from typing import Any

import httpx
from hermes_memory_honcho.fake_server import FakeHonchoServer, Fault
from hermes_memory_honcho.transport import FreshAfterServerError


class _CloseHook(httpx.SyncByteStream):
    """A response body that runs ``after_close`` once its connection is back in the pool."""

    def __init__(self, inner: Any, after_close: Any) -> None:
        self._inner, self._after_close = inner, after_close

    def __iter__(self) -> Any:
        yield from self._inner

    def close(self) -> None:
        self._inner.close()  # the connection goes back to the pool's idle list here
        self._after_close()


class _RacingPool(httpx.HTTPTransport):
    """The first pool made: when a 500's body is closed, another thread sends a request at once."""

    def __init__(self, race: Any) -> None:
        super().__init__()
        self._race = race

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        if response.status_code >= 500 and self._race is not None:
            race, self._race = self._race, None
            response.stream = _CloseHook(response.stream, race)
        return response


def test_a_request_racing_the_end_of_a_500_gets_a_fresh_connection(server: FakeHonchoServer) -> None:
    outcome: dict[str, Any] = {}

    def send_from_another_thread() -> None:
        def send() -> None:
            try:
                outcome["status"] = client.get(f"{server.url}/v3/workspaces/w/peers").status_code
            except httpx.TransportError as exc:
                outcome["error"] = repr(exc)
        thread = threading.Thread(target=send)
        thread.start()
        thread.join(10)

    pools = iter([_RacingPool(send_from_another_thread)])
    transport = FreshAfterServerError(lambda: next(pools, None) or httpx.HTTPTransport())
    client = httpx.Client(transport=transport)
    server.faults.append(Fault(status=500, path="/v3/workspaces/w/sessions", times=1))
    try:
        assert client.get(f"{server.url}/v3/workspaces/w/sessions").status_code == 500
    finally:
        client.close()
    assert "error" not in outcome, outcome["error"]
    assert "status" in outcome and server.resets == 0 and transport.renewals == 1
