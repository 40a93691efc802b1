"""Secrets never reach the summarizer, and redaction stays linear on adversarial text."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from hermes_summarizers.llm import serialize_turns

from hermes_core.engine.summarizer import SummaryRequest, SummaryResult
from hermes_core.text.redact import redact

PEM_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + "A" * 3000
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----"

# (text, what must not survive, what must survive)
LEAKS = {
    "camelCase apiKey": ('{"apiKey": "Zq8xLmN3pQ7rTs2vWy5"}', "Zq8xLmN3pQ7rTs2vWy5", '"apiKey": "'),
    "accessToken": ("accessToken=Qw3rTy7uIoP9", "Qw3rTy7uIoP9", "accessToken="),
    "clientSecret": ("clientSecret: 'Zx9cVb8nM7'", "Zx9cVb8nM7", "clientSecret"),
    "API-KEY kebab": ("X-API-KEY: Lk4jH5gF6dS7", "Lk4jH5gF6dS7", "X-API-KEY"),
    "pwd": ("pwd=Mn8bV7cX6z", "Mn8bV7cX6z", "pwd="),
    "redis empty user": ("REDIS_URL=redis://:SuperS3cretPw@cache.internal:6379/0", "SuperS3cretPw",
                         "redis://:[REDACTED]@cache.internal:6379/0"),
    "password with @": ("postgres://admin:p@ssW0rdXYZ@db.internal/app", "ssW0rdXYZ",
                        "postgres://admin:[REDACTED]@db.internal/app"),
    "--password VALUE": ("mysql --password hunter2isMyPass -h db", "hunter2isMyPass", "--password [REDACTED] -h db"),
    "--password=VALUE": ("tool --password=hunter2isMyPass", "hunter2isMyPass", "--password=[REDACTED]"),
    "mysql -pVALUE": ("mysql -u root -phunter2isMyPass app", "hunter2isMyPass", "-u root -p[REDACTED] app"),
    "Authorization token": ("Authorization: token 0123456789abcdef0123456789abcdef", "0123456789abcdef",
                            "Authorization: token [REDACTED]"),
    "Authorization Basic": ("authorization: Basic dXNlcjpodW50ZXIy", "dXNlcjpodW50ZXIy", "authorization: Basic "),
    "aws secret": ("aws_secret_access_key = wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMIK7MDENG",
                   "aws_secret_access_key = "),
    # a command inside a tool call's JSON arguments: its quotes arrive escaped
    "sshpass -p JSON-escaped": (r'{"command": "sshpass -p\"Hunter2isMyPass\" ssh root@h"}', "Hunter2isMyPass",
                                r'sshpass -p\"[REDACTED]\" ssh'),
    "mysql -p JSON-escaped": (r'{"command": "mysql -u root -p\"Hunter2isMyPass\" app"}', "Hunter2isMyPass",
                              r'-p\"[REDACTED]\" app'),
    "mysql -p quoted": ('mysql -u root -p"Hunter2 isMyPass" app', "isMyPass", '-p"[REDACTED]" app'),
    "PEM cut before its END line": (f"x\n{PEM[:500]}", "MIIEvQIBADANBgkqhkiG9w0", "x\n"),
    "PEM rest after a cut": (f"{PEM[-700:]}\nafter", "AAAAAAAAAAAAAAAA", "\nafter"),
}


@pytest.mark.parametrize("label", sorted(LEAKS))
def test_redact_catches(label: str) -> None:
    text, secret, kept = LEAKS[label]
    out = redact(text)
    assert secret not in out and "[REDACTED]" in out, out
    assert kept in out, out


@pytest.mark.parametrize("text", [
    "gcc -pthread -pedantic -O2 main.c", "mkdir -p /tmp/x && mysql -u root -p app",
    "https://example.com:443/a/b?x=1", "max_tokens=4096 tokenizer=gpt2 count_tokens(x)",
    "email me at a@b.c: thanks", "-----END OF LOG-----", "eyJ" + "a" * 50,
])
def test_redact_leaves_harmless_text(text: str) -> None:
    assert redact(text) == text


class Capture:
    name = "capture"

    def __init__(self) -> None:
        self.requests: list[SummaryRequest] = []

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        self.requests.append(request)
        return SummaryResult(text="## Goal\n- x", source="llm")


def _agent_run(secret: str, where: int) -> list[dict[str, Any]]:
    """Six tool rounds; ``secret`` in a tool output (where=1) or an assistant message (where=2)."""
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "sys"},
                                  {"role": "user", "content": "start " + "a" * 3000}]
    for k in range(6):
        call = {"name": "bash", "arguments": json.dumps({"cmd": "cat x"})}
        msgs.append({"role": "assistant", "content": None,
                     "tool_calls": [{"id": f"c{k}", "type": "function", "function": call}]})
        msgs.append({"role": "tool", "tool_call_id": f"c{k}", "content": secret if k == where == 1 else "ok " * 800})
        msgs.append({"role": "assistant", "content": "done " * 300 + (secret if k == where == 2 else "")})
        msgs.append({"role": "user", "content": "next " * 300})
    return msgs


def _pem_inside(prefix: int, suffix: int) -> str:
    return "x" * prefix + "\n" + PEM + "\n" + "y" * suffix


CUT_PEMS = {  # a private key in a message longer than the 6000-char cap
    "PEM across the head cut": _pem_inside(2000, 5000),
    "PEM across the tail cut": _pem_inside(5000, 100),
    "PEM across both cuts": _pem_inside(3000, 0) + "\nand more " + "z" * 40,
    "PEM opened in the dropped middle": "x" * 5000 + "\n" + PEM[:-40],
}
PEM_SECRETS = ["MIIEvQIBADANBgkqhkiG9w0", "AAAAAAAAAAAAAAAA"]


@pytest.mark.parametrize("label", [*sorted(k for k in LEAKS if not k.startswith("PEM")), *CUT_PEMS])
@pytest.mark.parametrize("where", ["tool output", "assistant message"])
def test_compressor_request_has_no_secret(label: str, where: str, make_engine: Callable[..., Any]) -> None:
    text, secrets = (LEAKS[label][0], [LEAKS[label][1]]) if label in LEAKS else (CUT_PEMS[label], PEM_SECRETS)
    capture = Capture()
    engine = make_engine(context_length=8000, summarizer=capture)
    engine.compress(_agent_run(text, 1 if where == "tool output" else 2), force=True)
    assert capture.requests, engine.last_compaction_note
    sent = serialize_turns(capture.requests[0].turns)
    for secret in secrets:
        assert secret not in sent, (label, secret)
    if where == "assistant message":  # old tool outputs are pruned to a description anyway
        assert "[REDACTED]" in sent


ADVERSARIAL = {
    "eyJ": "eyJ" * 70_000, "base64": "QUJD" * 50_000, "at": "@" * 200_000, "colon": ":" * 200_000,
    "url-ish": "://:@" * 40_000, "one url, many @": "://a:" + "@" * 200_000, "mixed": "eyJ.@:/" * 30_000,
    "dotted eyJ": ("eyJ" + "a" * 12 + ".") * 13_000, "BEGIN": "-----BEGIN " * 20_000,
    "Authorization": "Authorization: " * 14_000, "mysql": "mysql -u " * 22_000, "password=": "password=" * 22_000,
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_redaction_is_linear_on_adversarial_input(name: str) -> None:
    """Before the fix ``eyJ`` * 70 000 took about 15 s (quadratic JWT rule)."""
    text = ADVERSARIAL[name]
    start = time.perf_counter()
    redact(text)
    elapsed = time.perf_counter() - start
    assert elapsed < 0.5, f"{elapsed:.2f} s for {len(text)} chars of {text[:12]!r}..."
