"""The server's own limits, enforced before anything is queued: id pattern, message size."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hermes_memory_honcho import HonchoSettings
from hermes_memory_honcho.mapping import CONTINUED
from pydantic import ValidationError

IDS = ["Ana Smith", "team.alpha", "a/b", "ä", "", "x" * 513, "ok_id-1", "ANA", "x" * 512]


@pytest.mark.parametrize("field", ["workspace", "user_peer", "assistant_peer"])
def test_ids_the_server_refuses_are_config_errors(field: str) -> None:
    with pytest.raises(ValidationError, match=rf"{field}[\s\S]*not a valid Honcho id[\s\S]*Ana_Smith"):
        HonchoSettings(base_url="http://h", **{field: "Ana Smith"})


def test_the_id_rule_is_the_real_servers(real: Any) -> None:
    """Every id our settings accept, the real server accepts, and the other way round."""
    for candidate in IDS:
        try:
            HonchoSettings(user_peer=candidate)
            ours = True
        except ValidationError:
            ours = False
        r = real.http.post("/workspaces", json={"id": real.workspace})
        assert r.status_code in (200, 201)
        r = real.http.post(f"/workspaces/{real.workspace}/peers", json={"id": candidate})
        assert (r.status_code in (200, 201)) is ours, (candidate[:20], r.status_code)


def run_cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hermes_core", *args], env={**os.environ, "HERMES_HOME": str(home)},
                          capture_output=True, text=True, timeout=60)


def test_config_check_and_doctor_name_a_bad_id(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(yaml.safe_dump({
        "memory": {"provider": "honcho"},
        "plugins": {"honcho": {"base_url": "http://127.0.0.1:9", "user_peer": "Ana Smith"}}}))
    check = run_cli(home, "config", "check")
    assert check.returncode == 2 and "plugins.honcho.user_peer" in check.stderr and "Ana_Smith" in check.stderr
    doctor = run_cli(home, "doctor")
    assert doctor.returncode != 0 and "plugins.honcho.user_peer" in doctor.stdout + doctor.stderr


def test_message_size_is_capped_at_the_servers_limit() -> None:
    with pytest.raises(ValidationError, match="message_max_chars"):
        HonchoSettings(message_max_chars=25_001)
    assert HonchoSettings().message_max_chars == 25_000


@pytest.mark.parametrize("backend", ["fake", "real"], indirect=True)
def test_a_huge_message_lands_in_chunks_with_its_reply(make_provider: Any, backend: Any) -> None:
    provider = make_provider()  # the default message_max_chars
    provider.initialize("huge")
    text = " ".join(f"w{i}" for i in range(20_000))  # ~128,000 chars
    provider.sync_turn(text, "the assistant's valid reply")
    provider.on_session_end("huge", [])
    rows = backend.messages("huge")
    user = [m["content"] for m in rows if m["peer_id"] == "user"]
    assert len(user) >= 5 and all(len(c) <= 25_000 for c in user)
    assert user[0] + "".join(c.removeprefix(CONTINUED) for c in user[1:]) == text
    assert rows[-1]["content"] == "the assistant's valid reply"
    assert provider.get_status()["outbox"]["rejected"] == 0
