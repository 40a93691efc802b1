"""AsyncSession under asyncio, SDK-shaped message objects, and the INFO log lines."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from typing import Any

import pytest

from hermes_core import AsyncSession
from hermes_core.session.session import Session
from hermes_core.text.sdk_messages import as_chat_message, usage_of


class Model:
    """Duck-types a pydantic SDK model: ``model_dump(exclude_none=...)``."""

    def __init__(self, **data: Any) -> None:
        self._data = data

    def model_dump(self, exclude_none: bool = False) -> dict[str, Any]:
        def dump(v: Any) -> Any:
            if isinstance(v, Model):
                return v.model_dump(exclude_none)
            if isinstance(v, list):
                return [dump(x) for x in v]
            return v

        return {k: dump(v) for k, v in self._data.items() if not (exclude_none and v is None)}


def openai_completion(content: str | None, calls: list[Model] | None = None) -> Model:
    message = Model(role="assistant", content=content, tool_calls=calls, function_call=None, refusal=None, audio=None)
    return Model(id="c", object="chat.completion", choices=[Model(index=0, message=message, finish_reason="stop")],
                 usage=Model(prompt_tokens=1234, completion_tokens=5, total_tokens=1239))


def test_openai_and_anthropic_objects_become_chat_messages(make_host: Any) -> None:
    call = Model(id="call_1", type="function", function=Model(name="memory", arguments='{"action": "read"}'))
    with Session(make_host()) as session:
        session.start_turn("hi")
        calls = session.add_response(openai_completion(None, [call]))  # a whole ChatCompletion
        assert [c["function"]["name"] for c in calls] == ["memory"]
        assert session.host.engine.last_prompt_tokens == 1234  # its usage was used
        assert json.loads(session.run_tool(calls[0]))["success"] is True
        anthropic = Model(id="msg", type="message", role="assistant", usage=Model(input_tokens=10, output_tokens=2),
                          content=[Model(type="text", text="Noted."),
                                   Model(type="tool_use", id="tu_1", name="memory", input={"action": "read"})])
        calls = session.add_response(anthropic)
        assert calls[0]["function"] == {"name": "memory", "arguments": '{"action": "read"}'}
        assert session.messages[-1]["content"] == "Noted."
        session.run_tool(calls[0])
        assert session.add_response(openai_completion("done")) == []
    assert usage_of(anthropic) == {"prompt_tokens": 10, "completion_tokens": 2}
    assert as_chat_message({"role": "assistant", "content": "x"}) == {"role": "assistant", "content": "x"}


def test_async_session_runs_the_same_protocol_off_the_event_loop(hermes_home: Any) -> None:
    threads: set[str] = set()

    async def main() -> list[str]:
        async with await AsyncSession.open(load_entrypoints=False) as session:
            original = session.session.request

            def spy() -> Any:
                threads.add(threading.current_thread().name)
                return original()

            session.session.request = spy  # type: ignore[method-assign]
            request = await session.start_turn("remember that I like tea")
            assert request.messages[-1]["role"] == "user"
            calls = await session.add_response({"role": "assistant", "content": None, "tool_calls": [
                {"id": "m1", "type": "function", "function": {"name": "memory", "arguments": json.dumps(
                    {"action": "add", "content": "Likes tea"})}}]})
            result = json.loads(await session.run_tool(calls[0]))
            assert result["success"] is True
            await session.request()
            await session.add_response("Noted.")
            ticks = 0

            async def ticker() -> None:
                nonlocal ticks
                for _ in range(3):
                    ticks += 1
                    await asyncio.sleep(0)

            await asyncio.gather(ticker(), session.start_turn("and coffee?"))
            assert ticks == 3
            return [m["role"] for m in session.messages]

    roles = asyncio.run(main())
    assert roles[:4] == ["user", "assistant", "tool", "assistant"]
    assert threads and threading.main_thread().name not in threads
    assert "Likes tea" in (hermes_home / "memories" / "MEMORY.md").read_text()


def test_info_lines_name_the_engine_providers_and_compactions(make_host: Any,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="hermes_core"):
        with Session(make_host(**{"model.context_length": 4000})) as session:
            for n in range(12):
                session.start_turn(f"question {n} " + "words " * 200)
                session.add_response("answer " + "more " * 200)
    messages = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert any("engine compressor, memory providers: builtin" in m for m in messages)
    assert any("memory provider 'builtin' active" in m for m in messages)
    assert any("compaction by compressor" in m for m in messages), messages
