"""Bad plugins, installed as real distributions: hangs, thread leaks, any exception (SystemExit
included), wrong return types, mutated inputs. The turn goes on within the documented bounds,
the culprit is named with its distribution, and the caller's history is untouched."""

from __future__ import annotations

import copy
import importlib
import json
import logging
import threading
import time
from typing import Any

import pytest

from hermes_core import ContextEngine
from hermes_core.apps.doctor import check_providers
from hermes_core.guard.bounds import DEFAULT_BOUNDS
from hermes_core.session.session import Session

BAD_PROVIDER = '''
import time
from hermes_core import MemoryProvider

SYNCED = []
ERRORS = {"SystemExit": SystemExit, "KeyboardInterrupt": KeyboardInterrupt, "RuntimeError": RuntimeError}
TOOL = {"name": "bad_tool", "description": "x", "parameters": {"type": "object", "properties": {}}}


class Bad(MemoryProvider):
    @property
    def name(self):
        return "bad"

    def _act(self, hook, default, trigger=""):
        s = self.ctx.settings
        if hook in s.get("hang", ()):
            time.sleep(30)
        error = s.get("raise", {}).get(hook)
        if error and s.get("when", "") in trigger:
            raise ERRORS[error]("bad " + hook)
        if hook in s.get("wrong", ()):
            return 42
        return default

    def is_available(self):
        return self._act("is_available", (True, ""))

    def initialize(self, session_id):
        self._act("initialize", None)

    def system_prompt_block(self):
        return self._act("system_prompt_block", "BAD BLOCK")

    def prefetch(self, query):
        return self._act("prefetch", "bad recalls " + query, query)

    def sync_turn(self, user_content, assistant_content):
        self._act("sync_turn", None, user_content)
        SYNCED.append(user_content)

    def on_turn_start(self, turn_number, message):
        self._act("on_turn_start", None, message)

    def on_pre_compress(self, messages):
        if "on_pre_compress" in self.ctx.settings.get("mutate", ()):
            for m in messages:
                m["content"] = "MUTATED"
            messages.clear()
        return self._act("on_pre_compress", "")

    def on_session_end(self, session_id, messages):
        if "on_session_end" in self.ctx.settings.get("mutate", ()):
            messages.clear()

    def on_memory_write(self, action, target, content):
        self._act("on_memory_write", None)

    def get_tool_schemas(self):
        return self._act("get_tool_schemas", [TOOL])

    def handle_tool_call(self, name, args):
        return self._act("handle_tool_call", '{"ok": true}')
'''

BAD_PLUGIN = '''
import time
from hermes_core import hookimpl


@hookimpl
def hermes_system_prompt_sections(ctx):
    raise SystemExit("a general plugin calling sys.exit")


@hookimpl
def hermes_turn_finished(turn):
    time.sleep(30)
'''

ORIGIN = "bad (hermes-memory-bad 1.0)"


@pytest.fixture
def bad_host(installed_distribution: Any, make_host: Any) -> Any:
    installed_distribution("hermes-memory-bad", entry_points={"hermes.memory_providers": {"bad": "bad_mem:Bad"}},
                           modules={"bad_mem.py": BAD_PROVIDER})

    def make(bounds: dict[str, float] | None = None, **settings: Any) -> Any:
        return make_host(load_entrypoints=True, **{
            "memory.provider": "bad", "plugins.bad": settings, "memory.prefetch_timeout": 0.3,
            "model.context_length": 4000, "hooks.timeouts": {**dict.fromkeys(DEFAULT_BOUNDS, 0.3), **(bounds or {})},
        })

    return make


def chat(session: Session, n: int, text: str = "question") -> None:
    for i in range(n):
        session.start_turn(f"{text} {i}: " + "words " * 150)
        session.add_response(f"answer {i}: " + "more " * 150, {"prompt_tokens": 50})


@pytest.mark.slow
def test_hanging_hooks_cost_their_bound_once_and_leak_no_threads(bad_host, caplog):
    hung = ["on_turn_start", "prefetch", "on_pre_compress", "on_memory_write", "handle_tool_call"]
    host = bad_host(hang=hung)
    session = Session(host, close_host=False)
    threads = threading.active_count()
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="hermes_core"):
        chat(session, 6)
        session.call_tool("memory", {"action": "add", "target": "memory", "content": "Uses tox"})
        assert "failed" in session.call_tool("bad_tool", {})
        session.compact()
    assert session.events.compactions  # on_pre_compress hung; the summaries went ahead without it
    took = time.monotonic() - started
    assert took < 6 * 0.1 + len(hung) * 0.3 + 3.0, took  # each hung hook waited for once, then skipped
    assert threading.active_count() - threads <= len(hung)  # at most one stuck thread per hung hook
    for hook in hung:
        assert f"{ORIGIN}: {hook} timed out after 0.3s" in caplog.text, hook
    session.close()


@pytest.mark.slow
def test_is_available_that_hangs_skips_the_provider_within_its_bound(bad_host):
    started = time.monotonic()
    host = bad_host(hang=["is_available"])
    assert time.monotonic() - started < 3.0
    assert [p.name for p in host.memory.providers] == ["builtin"]
    assert any("'bad' skipped" in w and "timed out" in w for w in host.warnings), host.warnings


@pytest.mark.parametrize("error", ["SystemExit", "KeyboardInterrupt", "RuntimeError"])
def test_any_exception_in_a_background_hook_keeps_the_worker_alive(bad_host, error):
    host = bad_host(**{"raise": {"sync_turn": error, "prefetch": error, "on_turn_start": error}, "when": "boom"})
    session = Session(host, close_host=False)
    chat(session, 2, "boom")  # every hook raises on these turns
    chat(session, 3, "fine")
    assert host.memory.flush_pending(5.0)
    synced = importlib.import_module("bad_mem").SYNCED
    assert [s.split(":")[0] for s in synced] == ["fine 0", "fine 1", "fine 2"]  # later turns all delivered, in order
    (_builtin, bad) = host.memory.health()
    assert bad["failures"] >= 6 and error in bad["last_problem"] and bad["worker_restarts"] == 0
    session.close()


def test_a_dead_worker_is_restarted_and_doctor_says_so(bad_host):
    host = bad_host()
    session = Session(host, close_host=False)
    chat(session, 1)
    assert host.memory.flush_pending(5.0)
    bridge = next(b for b in host.memory._bridges if b.obj.name == "bad")
    worker = bridge.guard.worker
    dead = threading.Thread(target=lambda: None)
    dead.start()
    dead.join()
    worker._thread = dead  # as if the thread had died under the worker
    chat(session, 1, "after")
    assert host.memory.flush_pending(5.0) and worker.restarts == 1
    assert importlib.import_module("bad_mem").SYNCED[-1].startswith("after 0")
    findings = list(check_providers(host))
    assert any(f.level == "error" and "worker died 1 time(s) and was restarted" in f.message for f in findings)
    session.close()


def test_wrong_return_types_are_refused_with_the_culprits_name(bad_host, caplog):
    with caplog.at_level(logging.WARNING, logger="hermes_core"):
        host = bad_host(wrong=["prefetch", "system_prompt_block", "get_tool_schemas", "handle_tool_call"])
        session = Session(host, close_host=False)
        request = session.start_turn("hello")
    assert "bad recalls" not in json.dumps(request.messages) and "BAD BLOCK" not in session.system_prompt
    assert f"{ORIGIN} failed in hermes_memory_prefetch: returned a int, expected str" in caplog.text
    assert f"{ORIGIN} failed in hermes_memory_get_tool_schemas: returned a int" in caplog.text
    assert session.tools and all(t["function"]["name"] != "bad_tool" for t in session.tools)
    session.close()


def test_providers_that_mutate_their_inputs_never_touch_the_history(bad_host):
    host = bad_host(mutate=["on_pre_compress", "on_session_end"])
    session = Session(host, close_host=False)
    chat(session, 8)
    session.compact()
    assert session.events.compactions  # on_pre_compress ran (and cleared its copy) for each of them
    assert all(m["content"] != "MUTATED" for m in session.messages)
    kept = copy.deepcopy(session.messages)
    host.memory.on_session_end(session.id, session.messages)  # clears its copy
    assert host.memory.flush_pending(5.0) and session.messages == kept
    session.close()


class NestedEditor(ContextEngine):
    @property
    def name(self) -> str:
        return "editor"

    def update_from_response(self, usage):  # type: ignore[no-untyped-def]
        pass

    def should_compress(self, prompt_tokens=None):  # type: ignore[no-untyped-def]
        return False

    def compress(self, messages, current_tokens=None, focus_topic=None, force=False):  # type: ignore[no-untyped-def]
        messages[1]["tool_calls"][0]["function"]["arguments"] = "MUTATED"
        messages[0]["content"].append({"type": "text", "text": "MUTATED"})
        raise SystemExit("engine gave up")


def test_an_engine_that_edits_nested_data_and_fails_leaves_the_callers_list_alone(make_host):
    host = make_host(engines={"editor": NestedEditor}, **{"context.engine": "editor"})
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "look"}]},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "a.py"},
        {"role": "user", "content": "and now?"},
    ]
    snapshot = copy.deepcopy(messages)
    result = host.compress(messages, force=True)
    assert not result.changed and messages == snapshot


def test_a_general_plugin_that_exits_or_hangs_costs_its_bound(installed_distribution, make_host, caplog):
    installed_distribution("hermes-bad-plugin", entry_points={"hermes.plugins": {"bad-plugin": "bad_plugin"}},
                           modules={"bad_plugin.py": BAD_PLUGIN})
    host = make_host(load_entrypoints=True, **{"hooks.timeouts": {"turn_finished": 0.2}})
    with caplog.at_level(logging.WARNING, logger="hermes_core"):
        session = Session(host, close_host=False)
        started = time.monotonic()
        chat(session, 3)
    assert time.monotonic() - started < 0.2 + 2.0
    assert session.system_prompt  # the built-in sections are there
    assert "bad-plugin (hermes-bad-plugin 1.0) failed in hermes_system_prompt_sections: SystemExit" in caplog.text
    assert "bad-plugin (hermes-bad-plugin 1.0): turn_finished timed out after 0.2s" in caplog.text
    session.close()


SLOW_OBSERVER = '''
import time
from hermes_core import hookimpl

SEEN = []


@hookimpl
def hermes_memory_sync_turn(user_content, assistant_content):
    time.sleep(0.2)
    SEEN.append(user_content)
'''


def test_an_observer_of_background_hooks_runs_in_order_off_the_turn(installed_distribution, make_host):
    installed_distribution("hermes-slow-observer", entry_points={"hermes.plugins": {"slow-observer": "slow_observer"}},
                           modules={"slow_observer.py": SLOW_OBSERVER})
    host = make_host(load_entrypoints=True)
    session = Session(host, close_host=False)
    started = time.monotonic()
    chat(session, 4)
    assert time.monotonic() - started < 0.6  # four 0.2 s syncs did not hold the turns up
    session.close()
    deadline = time.monotonic() + 5
    seen = importlib.import_module("slow_observer").SEEN
    while len(seen) < 4 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [s.split(":")[0] for s in seen] == ["question 0", "question 1", "question 2", "question 3"]


class SlowFlusher(NestedEditor):
    """An engine whose session end takes a while (an LCM-like store flushing the last turn)."""

    flushed: list[int] = []

    @property
    def name(self) -> str:
        return "flusher"

    def on_session_end(self, session_id, messages):  # type: ignore[no-untyped-def]
        time.sleep(0.3)
        SlowFlusher.flushed.append(len(messages))


def test_an_engines_session_end_is_waited_for_not_queued(make_host):
    """Only providers have ordered background workers: an engine's session end must have run
    when the host returns, or the last turn of a lossless store is lost at close."""
    SlowFlusher.flushed.clear()
    host = make_host(engines={"flusher": SlowFlusher}, **{"context.engine": "flusher"})
    host.on_session_end("s", [{"role": "user", "content": "hi"}])
    assert SlowFlusher.flushed == [1]
