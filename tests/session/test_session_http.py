"""The README loop against a real OpenAI-compatible HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from hermes_core.memory.fencing import FENCE_OPEN
from hermes_core.session.session import Session
from hermes_core.text.messages import api_problems

REMEMBER = {"action": "add", "target": "user", "content": "Prefers short answers"}


class ChatServer(BaseHTTPRequestHandler):
    """Answers /v1/chat/completions: first a memory tool call, then a bash call, then text."""

    received: list[dict[str, Any]]

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.received.append(body)
        n = len(self.received)
        if n % 3 == 1:
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_{n}", "type": "function",
                 "function": {"name": "memory", "arguments": json.dumps(REMEMBER)}}]}
        elif n % 3 == 2:
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_{n}", "type": "function", "function": {"name": "bash", "arguments": '{"cmd": "ls"}'}}]}
        else:
            message = {"role": "assistant", "content": "Done."}
        usage = None if n == 2 else {"prompt_tokens": 100 * n, "completion_tokens": 5, "total_tokens": 100 * n + 5}
        payload = json.dumps({"choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                              "usage": usage}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def chat_server() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    received: list[dict[str, Any]] = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), type("S", (ChatServer,), {"received": received}))
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", received
    server.shutdown()
    server.server_close()


def test_readme_loop_with_a_real_http_model(chat_server: Any, hermes_home: Path) -> None:
    base_url, received = chat_server
    (hermes_home / "memories").mkdir(mode=0o700)
    (hermes_home / "memories" / "USER.md").write_text("Lives in Lisbon")
    (hermes_home / "config.yaml").write_text("model:\n  name: test-model\n  context_length: 32000\n")

    def my_tools(call: dict[str, Any]) -> str:
        return json.dumps({"output": "README.md"})

    with Session.open(home=hermes_home) as session, httpx.Client(base_url=base_url, timeout=5) as client:
        for text in ("remember that I like short answers", "thanks"):
            request = session.start_turn(text)
            while True:
                reply = client.post("/chat/completions", json=request.payload(model="test-model")).json()
                calls = session.add_response(reply["choices"][0]["message"], reply.get("usage"))
                if not calls:
                    break
                for call in calls:
                    if session.is_host_tool(call["function"]["name"]):
                        session.run_tool(call)
                    else:
                        session.add_tool_result(call["id"], my_tools(call))
                request = session.request()
        final = list(session.messages)
    assert len(received) == 6
    system = received[0]["messages"][0]
    assert system["role"] == "system" and "Lives in Lisbon" in system["content"]  # the frozen snapshot
    for body in received:
        assert body["model"] == "test-model"
        assert api_problems(body["messages"]) == []
        assert body["messages"][0] == system  # byte-identical system prompt: the prefix cache holds
        assert [t["function"]["name"] for t in body["tools"]] == ["memory"]
        assert FENCE_OPEN not in json.dumps(body["messages"][0])
    assert "Prefers short answers" in (hermes_home / "memories" / "USER.md").read_text()
    assert "Prefers short answers" not in system["content"]  # written now, shown from the next session
    assert [m["role"] for m in final] == ["user", "assistant", "tool", "assistant", "tool", "assistant"] * 2
    assert all(FENCE_OPEN not in json.dumps(m) for m in final)
    assert session.closed and session.host.memory.shutdown_state["status"] == "drained"
