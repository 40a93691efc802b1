"""A real chat-completions server on 127.0.0.1 that answers from a script.

For testing summary backends and engines against real HTTP (timeouts, 5xx, 401, 429,
garbage, empty answers, byte trickles) without a model::

    script = Script(Reply(429), Reply(200, chat_answer("## Goal\n- ship it")))
    with llm_server(script) as base_url:
        ...  # point auxiliary.base_url at base_url
    assert len(script.requests) == 2
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    body: bytes | str | dict[str, Any] = ""
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    trickle: float = 0.0  # seconds between body bytes: a server that is slow but never silent


def chat_answer(text: str) -> dict[str, Any]:
    return {"id": "x", "object": "chat.completion", "choices": [
        {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]}


class Script:
    """Replies in order; the last one repeats. ``requests`` records what arrived."""

    def __init__(self, *replies: Reply) -> None:
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def next(self, request: dict[str, Any]) -> Reply:
        with self.lock:
            self.requests.append(request)
            return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]


@contextmanager
def llm_server(script: Script) -> Iterator[str]:
    """Serve ``script`` on a free port; yields the base URL (``.../v1``)."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            request = {"path": self.path, "headers": dict(self.headers), "json": json.loads(raw or b"{}")}
            reply = script.next(request)
            if reply.delay:
                time.sleep(reply.delay)
            body = reply.body
            if isinstance(body, dict):
                data = json.dumps(body).encode()
            else:
                data = body.encode() if isinstance(body, str) else body
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                if not reply.trickle:
                    self.wfile.write(data)
                for i in range(len(data) if reply.trickle else 0):
                    self.wfile.write(data[i:i + 1])
                    self.wfile.flush()
                    time.sleep(reply.trickle)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.block_on_close = False  # a deliberately slow reply must not hold up the test
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def closed_port_url() -> str:
    """A URL on 127.0.0.1 where nothing listens."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
