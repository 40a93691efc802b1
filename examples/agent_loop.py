"""An agent loop on hermes-core: any OpenAI-compatible chat endpoint, plain ``httpx``.

hermes-core never calls the model itself. Each turn it hands you the exact request to send
(system prompt with memory, compacted history, tool schemas), you send it with the client
you already use, and give the reply back; it runs its own tools (``memory``...) and tells
you which calls are yours.

    python examples/agent_loop.py --demo                  # a scripted local model, no key needed
    python examples/agent_loop.py --base-url http://localhost:8000/v1 --model qwen2.5 "hello"

With the ``openai`` SDK the two HTTP lines become
``reply = client.chat.completions.create(**request.payload(model))`` and
``session.add_response(reply)``: SDK objects are accepted as they are.
(The example uses httpx, already a hermes-core dependency, so it runs anywhere.)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from hermes_core import Session

AGENT_TOOLS = {"get_time": lambda args: time.strftime("%H:%M")}  # the agent's own tools
AGENT_SCHEMAS = [{"type": "function", "function": {
    "name": "get_time", "description": "the current time", "parameters": {"type": "object", "properties": {}}}}]


def payload(request: Any, model: str) -> dict[str, Any]:
    """The request body: hermes-core's messages and tools, plus the agent's own tools."""
    body = request.payload(model)
    body["tools"] = body.get("tools", []) + AGENT_SCHEMAS
    return body


def run_turn(session: Session, client: httpx.Client, model: str, text: str) -> str:
    """One user message to the final answer, answering every tool call on the way."""
    request = session.start_turn(text)
    while True:
        reply = client.post("/chat/completions", json=payload(request, model)).raise_for_status().json()
        calls = session.add_response(reply)  # the whole completion: its usage is read too
        if not calls:
            return str(session.messages[-1].get("content") or "")
        for call in calls:
            name = call["function"]["name"]
            if session.is_host_tool(name):
                session.run_tool(call)  # memory and other hermes-core tools
            else:
                tool = AGENT_TOOLS.get(name)
                args = json.loads(call["function"]["arguments"] or "{}")
                session.add_tool_result(call["id"], tool(args) if tool else f"unknown tool {name}")
        request = session.request()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("message", nargs="?", default="Please remember I write British English. What time is it?")
    parser.add_argument("--base-url", default=os.environ.get("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1"))
    parser.add_argument("--model", default=os.environ.get("OPENAI_MODEL", "local-model"))
    parser.add_argument("--demo", action="store_true", help="use a scripted local model and a temporary HERMES_HOME")
    args = parser.parse_args(argv)
    if args.demo:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from _demo_model import demo_model

        with tempfile.TemporaryDirectory() as home, demo_model() as (base_url, _script):
            os.environ["HERMES_HOME"] = home
            return chat(base_url, args.model, args.message, Path(home))
    return chat(args.base_url, args.model, args.message, None)


def chat(base_url: str, model: str, message: str, home: Path | None) -> int:
    key = os.environ.get("OPENAI_API_KEY", "none")
    with httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {key}"}, timeout=120) as client, \
            Session.open(home=home) as session:
        print("assistant:", run_turn(session, client, model, message))
        print(f"({len(session.messages)} messages, {len(session.events.memory_writes)} memory write(s))")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
