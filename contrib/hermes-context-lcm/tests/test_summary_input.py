"""What reaches the summary service: every text (arguments and list parts included) redacted,
each message and argument capped, the whole span bounded, memory notes redacted too."""

from __future__ import annotations

import json
from typing import Any

from hermes_context_lcm.summary_input import INPUT_CHARS, summary_turns
from hermes_summarizers.llm import build_prompt

from hermes_core.engine.summarizer import SummaryRequest, SummaryResult

BEARER = "Bearer sk-ant-ARGSLEAK0123456789abcdefgh"
PART_SECRET = "password=ListPartSecret99"


class Prompts:
    """A summarizer that keeps the exact prompt an LLM summarizer would send."""

    name = "prompts"

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        self.prompts.append(build_prompt(request))
        return SummaryResult(text="## Goal\n- x", source="llm")


def conversation() -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "sys"}, {"role": "user", "content": "write it"}]
    msgs.append({"role": "assistant", "content": None, "tool_calls": [{"id": "w1", "type": "function", "function": {
        "name": "write_file", "arguments": json.dumps({"path": "big.txt", "content": "Q" * 2_000_000})}}]})
    msgs.append({"role": "tool", "tool_call_id": "w1", "content": "ok"})
    msgs.append({"role": "user", "content": [
        {"type": "text", "text": f"IMAGEPARTTEXT what is in this screenshot? {PART_SECRET}"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]})
    for k in range(10):
        cmd = json.dumps({"cmd": f"curl -H 'Authorization: {BEARER}' https://api/{k}"})
        msgs.append({"role": "assistant", "content": "x " * 300, "tool_calls": [
            {"id": f"c{k}", "type": "function", "function": {"name": "bash", "arguments": cmd}}]})
        msgs.append({"role": "tool", "tool_call_id": f"c{k}", "content": "o " * 300})
        msgs.append({"role": "user", "content": f"next {k} " + "m " * 200})
    return msgs


def test_summary_prompt_is_redacted_bounded_and_keeps_list_text(make_engine: Any) -> None:
    summarizer = Prompts()
    engine = make_engine(context_length=16_000, summarizer=summarizer,
                         pre_compress=lambda _msgs: f"memory: token=MemorySecret1234 {'n' * 50_000}")
    engine.on_session_start("s")
    after = engine.compress(conversation(), force=True).messages
    assert after and summarizer.prompts
    sent = "\n".join(summarizer.prompts)
    assert "ARGSLEAK0123456789" not in sent and "ListPartSecret99" not in sent and "MemorySecret1234" not in sent
    assert "[REDACTED]" in sent
    assert "IMAGEPARTTEXT" in sent and "[image]" in sent  # list content is flattened, not dropped
    assert max(map(len, summarizer.prompts)) < 40_000  # was 2,003,551 chars with the 2 MB argument
    assert "full text in msg_" in sent  # a cut message says where its original is
    # the store keeps the originals, secrets included (they never leave the machine)
    stored = "\n".join(m.text() for m in engine.store.session_messages("s", limit=1000))
    assert "ARGSLEAK0123456789" in stored and "ListPartSecret99" in stored


def test_whole_span_keeps_head_and_tail_and_names_what_was_left_out() -> None:
    messages = [{"role": "user" if i % 2 else "assistant", "content": f"turn {i} " + "w" * 5000} for i in range(200)]
    turns = summary_turns(messages, list(range(1, 201)))
    total = sum(len(t["content"]) for t in turns)
    assert total <= INPUT_CHARS + 500
    assert turns[0]["content"].startswith("turn 0 ") and turns[-1]["content"].startswith("turn 199 ")
    notes = [t for t in turns if t["role"] == "system"]
    assert len(notes) == 1 and "omitted here to bound the summary input" in notes[0]["content"]
    omitted = len(messages) + 1 - len(turns)
    assert f"[{omitted} messages" in notes[0]["content"]
    first_out = turns.index(notes[0]) + 1  # ids 1.. : the first omitted message's id
    assert f"msg_{first_out}-msg_{first_out + omitted - 1}" in notes[0]["content"]


def test_malformed_and_non_string_arguments_are_read_safely() -> None:
    turns = summary_turns([
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "a", "function": "ls"}, None, {"function": {"name": "read", "arguments": {"path": "a.py"}}},
            {"id": "b", "function": {"name": "bash", "arguments": "x" * 10_000}}]},
        {"role": "assistant", "content": "y", "tool_calls": "nope"},
    ])
    calls = turns[0]["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["read", "bash"]
    assert "a.py" in calls[0]["function"]["arguments"]
    assert len(calls[1]["function"]["arguments"]) < 1600
    assert "tool_calls" not in turns[1]


class LongSummaries:
    """Leaf summaries of about 4,000 characters, each with a marker in its middle."""

    name = "long"

    def __init__(self) -> None:
        self.requests: list[SummaryRequest] = []

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        self.requests.append(request)
        n = len(self.requests)
        return SummaryResult(text=f"## Goal\n{'g ' * 1000}MIDDLE{n} {'h ' * 1000}", source="llm")


def test_condensing_sends_child_summaries_whole(make_engine: Any) -> None:
    summarizer = LongSummaries()
    engine = make_engine(context_length=64_000, summarizer=summarizer, leaf_chunk_tokens=4000,
                         max_summary_calls=100, max_leaf_calls=8)
    engine.on_session_start("s")
    msgs = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i} " + "w " * 3000}
            for i in range(40)]
    engine.compress(msgs, force=True)
    condense = [r for r in summarizer.requests if str(r.turns[0]["content"]).startswith("[summary sum_")]
    assert condense, "no condensation happened"
    sent = json.dumps([r.turns for r in condense])
    children = [c for r in condense for c in r.turns]
    markers = [w for c in children for w in str(c["content"]).split() if w.startswith("MIDDLE")]
    assert len(markers) == len(children) and "chars omitted" not in sent
