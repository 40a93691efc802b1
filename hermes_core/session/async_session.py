"""``AsyncSession``: the :class:`Session` protocol for asyncio agent frameworks.

Every method that may wait (provider prefetch and sync, a summary model during a
compaction, tool calls, closing) runs the synchronous session in a worker thread with
``asyncio.to_thread``, so the event loop never blocks. Calls are serialised with a lock:
a session is one conversation and its steps happen in order, even if two tasks share it.
Attributes (``messages``, ``events``, ``turn``, ``id``, ``host``, ``system_prompt``,
``tools``...) are the wrapped session's, read directly.

    async with await AsyncSession.open() as session:
        request = await session.start_turn("hello")
        reply = await client.chat.completions.create(model=..., **request.payload())
        for call in await session.add_response(reply):   # SDK objects accepted as they are
            await session.run_tool(call)
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from hermes_core.session.session import Session

if TYPE_CHECKING:
    from hermes_core.config.models import HermesConfig

T = TypeVar("T")

__all__ = ["AsyncSession"]


class AsyncSession:
    """An awaitable face over one :class:`Session`; same method names, same arguments."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._lock = asyncio.Lock()

    @classmethod
    async def open(cls, config: HermesConfig | None = None, *, home: Path | None = None,
                   **kwargs: Any) -> AsyncSession:
        """:meth:`Session.open` in a worker thread (plugin discovery and provider start-up may wait)."""
        return cls(await asyncio.to_thread(functools.partial(Session.open, config, home=home, **kwargs)))

    async def _run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        async with self._lock:
            return await asyncio.to_thread(functools.partial(fn, *args, **kwargs))

    async def start_turn(self, content: str | list[Any]) -> Any:
        return await self._run(self.session.start_turn, content)

    async def request(self) -> Any:
        return await self._run(self.session.request)

    async def add_response(self, message: Any, usage: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        return await self._run(self.session.add_response, message, usage)

    async def add_tool_result(self, call_id: str, content: str) -> None:
        await self._run(self.session.add_tool_result, call_id, content)

    async def run_tool(self, call: dict[str, Any]) -> str:
        return await self._run(self.session.run_tool, call)

    async def call_tool(self, name: str, arguments: str | dict[str, Any] | None) -> str:
        return await self._run(self.session.call_tool, name, arguments)

    async def compact(self, focus_topic: str | None = None) -> Any:
        return await self._run(self.session.compact, focus_topic)

    async def on_delegation(self, task: str, result: str) -> None:
        await self._run(self.session.on_delegation, task, result)

    async def reset(self, session_id: str | None = None) -> None:
        await self._run(self.session.reset, session_id)

    async def confirm_memory_write(self, write_id: str) -> str:
        return await self._run(self.session.confirm_memory_write, write_id)

    async def discard_memory_write(self, write_id: str) -> None:
        await self._run(self.session.discard_memory_write, write_id)

    async def update_model(self, model: str, context_length: int, max_tokens: int | None = None) -> None:
        await self._run(self.session.update_model, model, context_length, max_tokens)

    async def close(self) -> None:
        await self._run(self.session.close)

    def is_host_tool(self, name: str) -> bool:
        return self.session.is_host_tool(name)

    def awaiting_response(self) -> bool:
        return self.session.awaiting_response()

    def open_tool_calls(self) -> list[str]:
        return self.session.open_tool_calls()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.session, name)

    async def __aenter__(self) -> AsyncSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
