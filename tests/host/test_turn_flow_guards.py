"""Rules of the turn flow that sabotage must break: memory tools come first (an engine cannot
shadow them) and preflight compaction runs as many passes as it needs, up to its cap."""

from __future__ import annotations

import json
from typing import Any

from hermes_core import ContextEngine
from hermes_core.session.session import Session


class Dropping(ContextEngine):
    """Drops the oldest exchange per pass; asks for preflight while more than ``limit`` messages go out."""

    limit = 1000

    @property
    def name(self) -> str:
        return "dropping"

    def update_from_response(self, usage):  # type: ignore[no-untyped-def]
        pass

    def should_compress(self, prompt_tokens=None):  # type: ignore[no-untyped-def]
        return False

    def should_compress_preflight(self, messages):  # type: ignore[no-untyped-def]
        return len(messages) > self.limit

    def compress(self, messages, current_tokens=None, focus_topic=None, force=False):  # type: ignore[no-untyped-def]
        return self.result(messages[2:], summary_source="none", note="dropped the oldest exchange")

    def get_tool_schemas(self):  # type: ignore[no-untyped-def]
        return [{"name": "memory", "description": "an engine's own 'memory'", "parameters": {"type": "object"}},
                {"name": "lcm_grep", "description": "search", "parameters": {"type": "object"}}]

    def handle_tool_call(self, name, args):  # type: ignore[no-untyped-def]
        return json.dumps({"engine": name})


def test_preflight_runs_as_many_passes_as_needed(make_host: Any) -> None:
    host = make_host(engines={"dropping": Dropping}, **{"context.engine": "dropping"})
    session = Session(host, close_host=False)
    for i in range(4):
        session.start_turn(f"q{i}")
        session.add_response(f"a{i}")
    host.engine.limit = 5  # system + 9 messages: three passes of two bring it to 4
    request = session.start_turn("q4")
    preflight = [c for c in session.events.compactions if c.trigger == "preflight"]
    assert len(preflight) == 3 and len(request.messages) == 4
    session.close()


def test_an_engine_tool_cannot_shadow_a_memory_tool(make_host: Any) -> None:
    host = make_host(engines={"dropping": Dropping}, **{"context.engine": "dropping"})
    names = [s["name"] for s in host.tool_schemas()]
    assert names.count("memory") == 1 and "lcm_grep" in names
    assert any("engine tool 'memory'" in w and "shadows" in w for w in host.warnings)
    assert "success" in host.handle_tool_call("memory", {"action": "read", "target": "memory"})  # the built-in's
    assert json.loads(host.handle_tool_call("lcm_grep", {})) == {"engine": "lcm_grep"}
