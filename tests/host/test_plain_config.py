"""The default configuration without pydantic: same values, same host, no pydantic import.

``hermes-core compact`` with nothing to validate answers config reads from
``hermes_core.config.plain.DEFAULTS``; these tests hold those defaults to the models, the
host built from them to one built from the models, and the whole command to never
importing pydantic on that path (and to importing it as soon as there is a config to check).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_core.config.models import HermesConfig
from hermes_core.config.plain import DEFAULTS, PlainConfig, apply_overrides, plain_config
from hermes_core.config.raw import ConfigError
from hermes_core.plugin.host import build_host


def test_defaults_equal_the_models() -> None:
    assert HermesConfig().model_dump() == DEFAULTS


def test_plain_config_reads_like_the_model(tmp_path: Path) -> None:
    plain = plain_config(tmp_path / "missing.yaml")
    assert isinstance(plain, PlainConfig)
    model = HermesConfig()
    for section, values in DEFAULTS.items():
        for key in values:
            assert getattr(getattr(plain, section), key) == getattr(getattr(model, section), key)
    assert plain.external_providers() == model.external_providers()
    assert plain.disabled_plugins() == model.disabled_plugins()
    assert plain.plugins.section("lcm") == {}
    assert not plain.built
    assert plain.model_dump() == model.model_dump() and plain.built  # anything else: the real model


def test_a_file_with_content_or_an_unsafe_override_takes_the_validating_path(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("context:\n  threshold_percent: 0.6\n")
    assert plain_config(path) is None
    path.write_text("")
    plain = plain_config(path)
    assert plain is not None
    fast = apply_overrides(plain, {"context.engine": "lcm", "model.context_length": 16_000})
    assert isinstance(fast, PlainConfig) and not fast.built and fast.model.context_length == 16_000
    with pytest.raises(ConfigError, match=r"overrides: context\.threshold_percent"):  # the models' own message
        apply_overrides(plain, {"context.threshold_percent": 7})


def test_assignment_is_validated_and_seen_by_later_reads(tmp_path: Path) -> None:
    plain = plain_config(tmp_path / "missing.yaml")
    assert plain is not None
    section = plain.model
    section.context_length = 4096
    assert plain.model.context_length == 4096 == section.context_length
    with pytest.raises(ValueError, match="greater than 0"):
        section.context_length = -1


def test_host_from_plain_defaults_equals_host_from_models(hermes_home: Path) -> None:
    overrides = {"model.context_length": 20_000}
    fast = build_host(home=hermes_home, overrides=overrides, plain_defaults=True)
    slow = build_host(home=hermes_home, overrides=overrides)
    try:
        assert isinstance(fast.config, PlainConfig) and not isinstance(slow.config, PlainConfig)
        assert fast.engine.name == slow.engine.name
        assert fast.engine.get_status() == slow.engine.get_status()
        assert [p.name for p in fast.memory.providers] == [p.name for p in slow.memory.providers]
    finally:
        fast.close()
        slow.close()


_PROBE = ("import sys; from hermes_core.cli import main; code = main(sys.argv[1:]); "
          "print('PYDANTIC' if 'pydantic' in sys.modules else 'NO-PYDANTIC', code, file=sys.stderr)")


def _compact(home: Path, transcript: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HERMES_HOME": str(home)}
    return subprocess.run([sys.executable, "-c", _PROBE, *extra, "compact", str(transcript), "--json"],
                          capture_output=True, text=True, env=env, timeout=120)


def test_compact_does_not_import_pydantic_when_nothing_needs_validating(tmp_path: Path) -> None:
    transcript = tmp_path / "chat.json"
    transcript.write_text(json.dumps([{"role": "user", "content": f"turn {i} " + "x" * 400} for i in range(60)]))
    fast = _compact(tmp_path / "home", transcript)
    assert fast.stderr.strip().endswith("NO-PYDANTIC 0"), fast.stderr
    config = tmp_path / "config.yaml"
    config.write_text("context:\n  threshold_percent: 0.5\n")  # the same values, but now there is a file to check
    slow = _compact(tmp_path / "home", transcript, "--config", str(config))
    assert slow.stderr.strip().endswith("PYDANTIC 0"), slow.stderr
    report = [json.loads(run.stdout)["report"] for run in (fast, slow)]
    for r in report:
        r.pop("seconds")
    assert report[0] == report[1]
