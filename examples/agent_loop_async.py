"""The same agent loop for asyncio: ``AsyncSession`` and ``httpx.AsyncClient``.

    python examples/agent_loop_async.py --demo
    python examples/agent_loop_async.py --base-url http://localhost:8000/v1 --model qwen2.5 "hello"

Every ``AsyncSession`` method that may wait (recall, a summary model during compaction,
provider sync) runs off the event loop, so other tasks keep running.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path

import httpx

from hermes_core import AsyncSession

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agent_loop import AGENT_TOOLS, payload  # the sync example's tools and request body


async def run_turn(session: AsyncSession, client: httpx.AsyncClient, model: str, text: str) -> str:
    request = await session.start_turn(text)
    while True:
        reply = (await client.post("/chat/completions", json=payload(request, model))).raise_for_status().json()
        calls = await session.add_response(reply)
        if not calls:
            return str(session.messages[-1].get("content") or "")
        for call in calls:
            name = call["function"]["name"]
            if session.is_host_tool(name):
                await session.run_tool(call)
            else:
                tool = AGENT_TOOLS.get(name)
                args = json.loads(call["function"]["arguments"] or "{}")
                await session.add_tool_result(call["id"], tool(args) if tool else f"unknown tool {name}")
        request = await session.request()


async def chat(base_url: str, model: str, message: str, home: Path | None) -> int:
    key = os.environ.get("OPENAI_API_KEY", "none")
    async with httpx.AsyncClient(base_url=base_url, headers={"Authorization": f"Bearer {key}"}, timeout=120) as client:
        async with await AsyncSession.open(home=home) as session:
            print("assistant:", await run_turn(session, client, model, message))
            print(f"({len(session.messages)} messages, {len(session.events.memory_writes)} memory write(s))")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("message", nargs="?", default="Please remember I write British English. What time is it?")
    parser.add_argument("--base-url", default=os.environ.get("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1"))
    parser.add_argument("--model", default=os.environ.get("OPENAI_MODEL", "local-model"))
    parser.add_argument("--demo", action="store_true", help="use a scripted local model and a temporary HERMES_HOME")
    args = parser.parse_args(argv)
    if not args.demo:
        return asyncio.run(chat(args.base_url, args.model, args.message, None))
    from _demo_model import demo_model

    with tempfile.TemporaryDirectory() as home, demo_model() as (base_url, _script):
        os.environ["HERMES_HOME"] = home
        return asyncio.run(chat(base_url, args.model, args.message, Path(home)))


if __name__ == "__main__":
    raise SystemExit(main())
