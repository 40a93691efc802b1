"""hermes_compaction_started, hermes_turn_finished, update_model(max_tokens), and the engine's session
hooks, seen by a real installed general plugin; engine results judged by the user's ask, not by identity."""

from __future__ import annotations

import importlib
import json
from typing import Any

from hermes_core import ContextEngine
from hermes_core.session.session import Session

OBSERVER = '''
from hermes_core import hookimpl

SEEN = []


@hookimpl
def hermes_compaction_started(messages, focus_topic):
    SEEN.append(("hermes_compaction_started", len(messages), focus_topic))
    messages.clear()  # its own copy: the engine's span must not change
    return "PINNED: the deploy key lives in vault/ops"


@hookimpl
def hermes_turn_finished(turn):
    SEEN.append(("hermes_turn_finished", turn.turn, turn.user_content, turn.assistant_content, turn.tool_calls))


@hookimpl
def hermes_engine_on_session_start(session_id):
    SEEN.append(("hermes_engine_on_session_start", session_id))


@hookimpl
def hermes_engine_on_session_reset():
    SEEN.append(("hermes_engine_on_session_reset",))


@hookimpl
def hermes_engine_update_model(model, context_length, max_tokens):
    SEEN.append(("hermes_engine_update_model", model, context_length, max_tokens))


@hookimpl(tryfirst=True)  # firstresult: a plain observer would come after the engine's answer
def hermes_engine_should_compress_preflight(messages):
    SEEN.append(("hermes_engine_should_compress_preflight", len(messages)))
'''


def seen() -> list[tuple[Any, ...]]:
    return importlib.import_module("hermes_observer").SEEN


def test_observer_sees_turns_sessions_model_changes_and_compactions(installed_distribution, make_host):
    installed_distribution("hermes-observer", entry_points={"hermes.plugins": {"observer": "hermes_observer"}},
                           modules={"hermes_observer.py": OBSERVER})
    host = make_host(load_entrypoints=True, **{"model.context_length": 16_000})
    session = Session(host, session_id="s1", close_host=False)
    for i in range(8):
        session.start_turn(f"question {i}: " + "words " * 200)
        session.add_response(f"answer {i}: " + "more " * 200, {"prompt_tokens": 100})
    result = session.compact(focus_topic="deploy")
    assert result is not None and result.changed
    session.update_model("bigger", 200_000, 8_000)
    assert host.engine.context_length == 200_000 and host.engine.max_tokens == 8_000
    session.reset(session_id="s2")
    events = seen()
    names = [e[0] for e in events]
    assert ("hermes_engine_on_session_start", "s1") in events and ("hermes_engine_on_session_start", "s2") in events
    assert "hermes_engine_on_session_reset" in names
    assert ("hermes_engine_update_model", "bigger", 200_000, 8_000) in events
    assert "hermes_engine_should_compress_preflight" in names
    turns = [e for e in events if e[0] == "hermes_turn_finished"]
    assert [t[1] for t in turns] == list(range(1, 9)) and turns[0][3].startswith("answer 0")
    started = [e for e in events if e[0] == "hermes_compaction_started"]
    assert started and started[-1][2] == "deploy" and started[-1][1] > 0
    summary_text = json.dumps(result.messages)
    assert "PINNED: the deploy key lives in vault/ops" in summary_text  # what it asked to keep survived
    session.close()


class MergingEngine(ContextEngine):
    """Seed 2.6: the summary is merged into the first kept message, the user's ask."""

    @property
    def name(self) -> str:
        return "merging"

    def update_from_response(self, usage):  # type: ignore[no-untyped-def]
        pass

    def should_compress(self, prompt_tokens=None):  # type: ignore[no-untyped-def]
        return False

    def compress(self, messages, current_tokens=None, focus_topic=None, force=False):  # type: ignore[no-untyped-def]
        last = messages[-1]
        merged = {"role": "user", "content": "Summary of earlier turns.\n--- END OF CONTEXT SUMMARY ---\n"
                  + last["content"]}
        return self.result([merged], summary="Summary of earlier turns.", summary_source="deterministic",
                           note="merged into the tail")


def test_a_result_that_keeps_the_ask_merged_with_the_summary_is_accepted(make_host):
    host = make_host(engines={"merging": MergingEngine}, **{"context.engine": "merging"})
    messages = [{"role": "user", "content": "old"}, {"role": "assistant", "content": "ok"},
                {"role": "user", "content": "fix the failing test"}]
    result = host.compress(messages, force=True, keep=messages[-1])
    assert result.changed, result.note
    assert result.messages[0]["content"].endswith("fix the failing test")
    assert (result.summary, result.summary_source, result.note) == (
        "Summary of earlier turns.", "deterministic", "merged into the tail")
    assert result.to_dict()["messages_after"] == 1 and "messages" not in result.to_dict()


def test_a_result_that_drops_the_ask_is_refused_with_a_note(make_host):
    class Forgetful(MergingEngine):
        def compress(self, messages, current_tokens=None, focus_topic=None, force=False):  # type: ignore[no-untyped-def]
            return self.result([{"role": "user", "content": "Summary only."}], summary_source="llm")

    host = make_host(engines={"merging": Forgetful}, **{"context.engine": "merging"})
    messages = [{"role": "user", "content": "old"}, {"role": "assistant", "content": "ok"},
                {"role": "user", "content": "fix the failing test"}]
    result = host.compress(messages, force=True)
    assert not result.changed and result.messages is messages
    assert "without the current user message's content" in result.note
