"""The provider through the real honcho-ai SDK against the fake server on 127.0.0.1."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from hermes_memory_honcho.fake_server import FakeHonchoServer
from hermes_memory_honcho.link import TURN_KEY
from hermes_memory_honcho.mapping import CONTINUED

BOTH = pytest.mark.parametrize("backend", ["fake", "real"], indirect=True)


@BOTH
def test_turns_arrive_in_order_with_both_peers(make_provider: Any, backend: Any) -> None:
    provider = make_provider()
    provider.initialize("sess-1")
    for i in range(20):
        provider.sync_turn(f"question {i}", f"answer {i}")
    provider.on_session_end("sess-1", [])
    rows = backend.messages("sess-1")
    assert [m["content"] for m in rows] == [t for i in range(20) for t in (f"question {i}", f"answer {i}")]
    assert {m["peer_id"] for m in rows[0::2]} == {"user"} and {m["peer_id"] for m in rows[1::2]} == {"hermes"}
    assert len({m["metadata"][TURN_KEY] for m in rows}) == 20
    if backend.kind == "real":
        config = backend.http.get(f"/workspaces/{backend.workspace}/sessions/sess-1/peers/user/config").json()
        assert config["observe_me"] is True and config["observe_others"] is False
    else:
        peers = backend.fake.store.session_peers[("hermes", "sess-1")]
        assert peers["user"] == {"observe_me": True, "observe_others": False}
        assert peers["hermes"] == {"observe_me": False, "observe_others": True}
    assert provider.get_status()["state"] == "ok" and provider.get_status()["outbox"]["pending"] == 0


def test_sync_turn_does_not_wait_for_the_network(make_provider: Any, server: FakeHonchoServer,
                                                  eventually: Any, stored: Any) -> None:
    from hermes_memory_honcho.fake_server import Fault

    server.faults.append(Fault(delay=0.5, path="/messages"))
    provider = make_provider()
    provider.initialize("slow")
    started = time.perf_counter()
    for i in range(5):
        provider.sync_turn(f"u{i}", f"a{i}")
    assert time.perf_counter() - started < 0.4  # five local appends, not five slow requests
    assert eventually(lambda: len(stored(server, "slow")) == 10)


@BOTH
def test_long_messages_are_split_and_reassemble(make_provider: Any, backend: Any) -> None:
    provider = make_provider(message_max_chars=500)
    provider.initialize("long")
    text = " ".join(f"token{i}" for i in range(400))
    provider.sync_turn(text, "ok")
    provider.on_session_end("long", [])
    rows = [m for m in backend.messages("long") if m["peer_id"] == "user"]
    assert len(rows) > 1 and all(len(m["content"]) <= 500 for m in rows)
    assert rows[0]["content"] + "".join(m["content"].removeprefix(CONTINUED) for m in rows[1:]) == text


@BOTH
def test_fenced_recall_is_not_written_back(make_provider: Any, backend: Any, stored: Any) -> None:
    provider = make_provider()
    provider.initialize("fence")
    provider.sync_turn("hello\n<memory-context>\nrecalled stuff\n</memory-context>", "hi")
    provider.sync_turn("", "")  # nothing to store
    provider.on_session_end("fence", [])
    assert stored(backend, "fence") == ["hello", "hi"]


def test_prefetch_is_served_from_the_background_cache(make_provider: Any, server: FakeHonchoServer,
                                                      eventually: Any) -> None:
    server.summaries["recall"] = "We are migrating the billing service to Postgres."
    server.representations["user"] = "The user is Ana, a backend engineer who prefers short answers."
    provider = make_provider(dialectic=True)
    provider.initialize("recall")
    first = provider.prefetch("what were we doing?")
    assert "billing service" in first and "Ana" in first
    answered = "## Honcho's answer for this turn\n" + server.chat_answer
    assert eventually(lambda: answered in provider.prefetch("what were we doing?"))  # its own, slower fetch
    server.summaries["recall"] = "Now we are writing the migration tests."
    provider.queue_prefetch("next question")
    assert eventually(lambda: "migration tests" in provider.prefetch("next question"))
    # served from the cache: no request made by prefetch itself
    before = len(server.requests)
    started = time.perf_counter()
    provider.prefetch("anything")
    assert time.perf_counter() - started < 0.05 and len(server.requests) == before


def test_prefetch_respects_the_char_budget(make_provider: Any, server: FakeHonchoServer) -> None:
    server.summaries["budget"] = "summary " * 400
    server.representations["user"] = "fact " * 400
    provider = make_provider(context_chars=300)
    provider.initialize("budget")
    text = provider.prefetch("q")
    assert 0 < len(text) <= 300 and text.endswith(" …")


def test_memory_writes_to_user_are_mirrored_as_conclusions(make_provider: Any, server: FakeHonchoServer) -> None:
    provider = make_provider()
    provider.initialize("mirror")
    provider.on_memory_write("add", "user", "Prefers metric units")
    provider.on_memory_write("add", "memory", "The repo uses tox")  # not about the user
    provider.on_memory_write("remove", "user", "Prefers metric units")
    provider.on_memory_write("replace", "user", "Prefers SI units")
    provider.on_session_end("mirror", [])
    assert [(c["content"], c["observer_id"], c["observed_id"]) for c in server.conclusions] == [
        ("Prefers metric units", "hermes", "user"), ("Prefers SI units", "hermes", "user")]


def test_pre_compress_offers_honchos_view(make_provider: Any, server: FakeHonchoServer) -> None:
    server.summaries["pc"] = "Decided to keep the v2 API."
    provider = make_provider()
    assert provider.on_pre_compress([]) == ""  # nothing fetched yet: nothing invented
    provider.initialize("pc")
    provider.prefetch("x")
    view = provider.on_pre_compress([{"role": "user", "content": "x"}])
    assert view.startswith("Honcho's view") and "keep the v2 API" in view


@BOTH
def test_delegation_results_are_recorded(make_provider: Any, backend: Any) -> None:
    provider = make_provider()
    provider.initialize("deleg")
    provider.on_delegation("count the files", "42 files")
    provider.on_session_end("deleg", [])
    [row] = backend.messages("deleg")
    assert row["peer_id"] == "hermes" and "count the files" in row["content"] and "42 files" in row["content"]
    assert row["metadata"]["hermes_kind"] == "delegation"


def test_tools_return_json(make_provider: Any, server: FakeHonchoServer) -> None:
    provider = make_provider()
    provider.initialize("tools")
    provider.sync_turn("I deploy with kubernetes on Fridays", "noted")
    provider.on_session_end("tools", [])
    names = [s["name"] for s in provider.get_tool_schemas()]
    assert names == ["honcho_profile", "honcho_search", "honcho_context", "honcho_conclude"]

    saved = json.loads(provider.handle_tool_call("honcho_conclude", {"conclusion": "Deploys on Fridays"}))
    assert saved == {"result": "saved"} and server.conclusions[-1]["content"] == "Deploys on Fridays"
    hits = json.loads(provider.handle_tool_call("honcho_search", {"query": "kubernetes"}))["result"]
    assert hits and hits[0]["peer"] == "user" and "kubernetes" in hits[0]["content"]
    server.store.cards[("hermes", "hermes", "user")] = ["Name: Ana"]
    assert json.loads(provider.handle_tool_call("honcho_profile", {}))["result"]["card"] == ["Name: Ana"]
    empty = json.loads(provider.handle_tool_call("honcho_profile", {"peer": "assistant"}))["result"]
    assert empty["card"] == [] and "hint" in empty
    ctx = json.loads(provider.handle_tool_call("honcho_context", {"query": "deploy"}))["result"]
    assert "Deploys on Fridays" in ctx["representation"] and ctx["session"] == "tools"
    bad = json.loads(provider.handle_tool_call("honcho_search", {"query": 5, "limit": 99}))
    assert "invalid arguments" in bad["error"] and "limit" in bad["error"]
    assert provider.handle_tool_call("not_mine", {}) is None


@BOTH
def test_search_finds_words_across_sessions(make_provider: Any, backend: Any) -> None:
    """Full-text search: whole (stemmed) words, in any session of the workspace."""
    for session, text in (("s-a", "I deploy with kubernetes on Fridays"), ("s-b", "Deployments of the database")):
        provider = make_provider()
        provider.initialize(session)
        provider.sync_turn(text, "noted")
        provider.on_session_end(session, [])
        provider.shutdown()
    provider = make_provider()
    provider.initialize("s-c")
    hits = json.loads(provider.handle_tool_call("honcho_search", {"query": "kubernetes"}))["result"]
    assert [(h["session"], h["peer"]) for h in hits] == [("s-a", "user")]
    stemmed = json.loads(provider.handle_tool_call("honcho_search", {"query": "deployment"}))["result"]
    assert sorted(h["session"] for h in stemmed) == ["s-a", "s-b"]  # "deploy" by its stem, not as a substring


@pytest.mark.parametrize(("mode", "tools", "recalls"), [("hybrid", 4, True), ("context", 0, True),
                                                         ("tools", 4, False)])
def test_recall_modes(make_provider: Any, server: FakeHonchoServer, mode: str, tools: int, recalls: bool) -> None:
    server.summaries[f"m-{mode}"] = "a summary"
    provider = make_provider(recall_mode=mode)
    provider.initialize(f"m-{mode}")
    assert len(provider.get_tool_schemas()) == tools
    assert bool(provider.prefetch("q")) is recalls
    assert provider.system_prompt_block().startswith("# Honcho memory")


def test_system_prompt_block_is_static(make_provider: Any) -> None:
    provider = make_provider()
    before = provider.system_prompt_block()
    provider.initialize("static")
    provider.sync_turn("a", "b")
    assert provider.system_prompt_block() == before


@BOTH
@pytest.mark.parametrize("strategy", ["per-repo", "per-directory", "global"])
def test_session_strategy_decides_the_honcho_session(make_provider: Any, backend: Any, tmp_path: Any,
                                                     monkeypatch: pytest.MonkeyPatch, strategy: str) -> None:
    repo = tmp_path / "myrepo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    monkeypatch.chdir(repo / "src")
    sessions = []
    for agent_session in ("first", "second"):  # two agent sessions in the same place
        provider = make_provider(session_strategy=strategy)
        provider.initialize(agent_session)
        provider.sync_turn(f"hi from {agent_session}", "hello")
        provider.on_session_end(agent_session, [])
        sessions.append(provider.honcho_session)
        provider.shutdown()
    assert sessions[0] == sessions[1]
    prefix = {"per-repo": "myrepo-", "per-directory": "src-", "global": f"{backend.workspace}-global"}[strategy]
    assert sessions[0].startswith(prefix)
    assert [m["content"] for m in backend.messages(sessions[0])] == ["hi from first", "hello", "hi from second",
                                                                    "hello"]
