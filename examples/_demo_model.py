"""A scripted stand-in for an OpenAI-compatible model, used by the examples' ``--demo`` mode.

It serves real HTTP on 127.0.0.1 (``hermes_core.testing.llm_server``): first a reply that
calls hermes-core's ``memory`` tool and the agent's own ``get_time`` tool, then a final answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

from hermes_core.testing.llm_server import Reply, Script, chat_answer, llm_server


def tool_call_reply() -> dict[str, object]:
    calls = [
        {"id": "call_mem", "type": "function", "function": {
            "name": "memory", "arguments": json.dumps({"action": "add", "target": "user",
                                                       "content": "Prefers answers in British English"})}},
        {"id": "call_time", "type": "function", "function": {"name": "get_time", "arguments": "{}"}},
    ]
    return {"id": "demo-1", "object": "chat.completion", "usage": {"prompt_tokens": 1500, "completion_tokens": 40},
            "choices": [{"index": 0, "finish_reason": "tool_calls",
                         "message": {"role": "assistant", "content": None, "tool_calls": calls}}]}


@contextmanager
def demo_model() -> Iterator[tuple[str, Script]]:
    """``(base_url, script)``: the scripted server, running while the block runs."""
    final = chat_answer("Noted — I'll write in British English. It is tea time.")
    final["usage"] = {"prompt_tokens": 1700, "completion_tokens": 20}
    script = Script(Reply(200, tool_call_reply()), Reply(200, final))
    with llm_server(script) as base_url:
        yield base_url, script
