"""The configuration without pydantic: same values, same host, no pydantic import.

``hermes-core compact`` with a missing, empty or certainly valid config.yaml answers config
reads from plain values; these tests hold the defaults and the field table to the models,
plain acceptance to the models' acceptance with equal values (hypothesis), the host built
from plain values to one built from the models, and the whole command to never importing
pydantic on that path (and to importing it, with the models' own messages, as soon as a
file holds anything the models would warn about, coerce or refuse).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import annotated_types
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from hermes_core.config.models import HermesConfig, unknown_keys
from hermes_core.config.plain import (
    CUSTOM_CHECKS,
    DEFAULTS,
    FIELDS,
    PlainConfig,
    apply_overrides,
    plain_config,
    plain_values,
)
from hermes_core.config.raw import ConfigError
from hermes_core.plugin.host import build_host


def test_defaults_equal_the_models() -> None:
    assert HermesConfig().model_dump() == DEFAULTS


_KINDS = {bool: "bool", int: "int", float: "float", str: "str", list[str]: "list[str]", int | None: "int|None"}
_BOUNDS = {annotated_types.Gt: "gt", annotated_types.Ge: "ge", annotated_types.Lt: "lt", annotated_types.Le: "le",
           annotated_types.MinLen: "min_length"}


def _described(field: object) -> tuple[str, dict[str, object]]:
    """A model field as :data:`FIELDS` writes it."""
    annotation, metadata = field.annotation, list(field.metadata)  # type: ignore[attr-defined]
    bounds: dict[str, object] = {}
    if getattr(annotation, "__origin__", None) is dict:  # dict[str, PositiveFloat]
        key, value = annotation.__args__  # type: ignore[union-attr]
        assert key is str and value.__origin__ is float
        kind, metadata = "dict[str, float]", list(value.__metadata__)
    elif str(getattr(annotation, "__origin__", "")) == "typing.Literal":
        kind, bounds = "literal", {"values": annotation.__args__}  # type: ignore[union-attr]
    else:
        kind = _KINDS[annotation]
    for item in metadata:
        name = _BOUNDS[type(item)]
        bounds[name] = getattr(item, name if name != "min_length" else "min_length")
    return kind, bounds


def test_field_table_equals_the_models() -> None:
    described = {}
    validated = set()
    for name, section in HermesConfig.model_fields.items():
        model = section.annotation
        assert isinstance(model, type) and issubclass(model, BaseModel)
        described[name] = {key: _described(field) for key, field in model.model_fields.items()}
        for decorator in model.__pydantic_decorators__.field_validators.values():
            validated.update((name, key) for key in decorator.info.fields)
    assert described == FIELDS
    assert validated == set(CUSTOM_CHECKS)  # every model validator has a plain subset of what it accepts


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


def test_a_file_the_models_would_warn_about_or_an_unsafe_override_takes_the_validating_path(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("context:\n  threshold_percent: 0.6\n")
    valid = plain_config(path)
    assert valid is not None and valid.context.threshold_percent == 0.6 and not valid.built
    path.write_text("context:\n  threshold_percent: 0.6\n  treshold: 1\n")  # the models warn: did you mean
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


def _report(run: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The ``--json`` report of a compact run, without its timing."""
    report: dict[str, Any] = json.loads(run.stdout)["report"]
    report.pop("seconds")
    return report


def test_compact_does_not_import_pydantic_when_nothing_needs_validating(tmp_path: Path) -> None:
    transcript = tmp_path / "chat.json"
    transcript.write_text(json.dumps([{"role": "user", "content": f"turn {i} " + "x" * 400} for i in range(60)]))
    fast = _compact(tmp_path / "home", transcript)
    assert fast.stderr.strip().endswith("NO-PYDANTIC 0"), fast.stderr
    config = tmp_path / "config.yaml"
    config.write_text("context:\n  quiet_mode: 'false'\n")  # the default, as a string the models coerce
    slow = _compact(tmp_path / "home", transcript, "--config", str(config))
    assert slow.stderr.strip().endswith("PYDANTIC 0"), slow.stderr
    assert _report(fast) == _report(slow)


_ODD = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.integers(), st.floats(allow_nan=True),
                 st.sampled_from([0.0, 1.0, 1.5, 100.0, 101, 1000, 999, 1024, 1025, 200, 201, 2 ** 60, float("inf")]),
                 st.text(max_size=6), st.sampled_from(["allow", "confirm", "refuse", "files", "postgres", " x", "a\x00",
                                                       "ns-1", "\u200bns", "é", "5", "true"]),
                 st.lists(st.one_of(st.text(max_size=3), st.integers()), max_size=3),
                 st.dictionaries(st.one_of(st.text(max_size=3), st.integers()),
                                 st.one_of(st.floats(allow_nan=True), st.integers(-2, 5), st.booleans(),
                                           st.text(max_size=2)),
                                 max_size=3))


def _near(kind: str, bounds: dict[str, object]) -> st.SearchStrategy[object]:
    """Values of a field's own kind on and around its bounds (valid and not)."""
    edges = [e + d for b in ("gt", "ge", "lt", "le") if isinstance(e := bounds.get(b), int | float) for d in (0, 1, -1)]
    if kind in ("int", "int|None"):
        return st.one_of(st.integers(-2, 2000), st.sampled_from([*edges, 2 ** 70] or [0]), st.none())
    if kind == "float":
        return st.one_of(st.floats(-1, 200), st.sampled_from([*edges, 0.5, 1e-300, float("inf")]), st.integers(-1, 3))
    if kind == "literal":
        return st.sampled_from([*bounds["values"], "Allow", ""])  # type: ignore[misc]
    if kind == "list[str]":
        return st.lists(st.text(max_size=4), max_size=3)
    if kind == "dict[str, float]":
        return st.dictionaries(st.text(max_size=4), st.one_of(st.floats(-1, 10), st.integers(-1, 3)), max_size=3)
    return st.one_of(st.text(max_size=8), st.sampled_from(["default", "ns-1", " x", "team\u200b", "a" * 201]))


@st.composite
def _raw_configs(draw: st.DrawFn) -> dict[object, object]:
    """Config mappings: half of them only known keys with values of their own kind (often
    accepted plainly), the other half anything (unknown keys and sections, odd values)."""
    clean = draw(st.booleans())
    raw: dict[object, object] = {}
    names = [*FIELDS] if clean else [*FIELDS, "memroy", 3]
    for name in draw(st.lists(st.sampled_from(names), max_size=4, unique=True)):
        if not clean and draw(st.integers(0, 10)) == 0:
            raw[name] = draw(_ODD)  # a section that is not a mapping
            continue
        fields = FIELDS.get(name, {}) if isinstance(name, str) else {}
        keys = [*fields, *(["lcm"] if name == "plugins" else [])] + ([] if clean else ["unknown_key"])
        section = {}
        for key in draw(st.lists(st.sampled_from(keys), max_size=4, unique=True)):
            roll = draw(st.integers(0, 9))
            section[key] = draw(_ODD if key not in fields or (roll == 0 and not clean) else
                                st.just(DEFAULTS[name][key]) if roll < 4 else _near(*fields[key]))
        raw[name] = section
    return raw


@settings(max_examples=600, deadline=None)
@given(_raw_configs())
def test_plain_acceptance_implies_model_acceptance_with_equal_values(raw: dict[object, object]) -> None:
    values = plain_values(raw)  # type: ignore[arg-type]
    if values is None:
        return
    try:
        model = HermesConfig.model_validate(raw)
    except ValidationError as exc:  # pragma: no cover - the property failing
        raise AssertionError(f"plain accepted what the models refuse: {raw!r}\n{exc}") from None
    assert model.model_dump() == values
    assert unknown_keys(HermesConfig, raw, source="x") == []  # no warning is lost on the plain path


def test_plain_accepts_the_documented_config_and_refuses_what_the_models_would_coerce() -> None:
    documented = Path(__file__).resolve().parents[2] / "README.md"
    import yaml

    text = documented.read_text().split("## Configuration", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    raw = yaml.safe_load(text)
    assert plain_values(raw) == HermesConfig.model_validate(raw).model_dump()
    for odd in ({"model": {"context_length": "16000"}}, {"context": {"quiet_mode": 1}},
                {"memory": {"prefetch_timeout": True}}, {"model": {"context_lenght": 16000}},
                {"storage": {"namespace": "team\u200b"}}, {"memory": None}):
        assert plain_values(odd) is None, odd  # type: ignore[arg-type]


def test_compact_with_a_valid_config_skips_pydantic_and_reports_the_same(tmp_path: Path) -> None:
    transcript = tmp_path / "chat.json"
    transcript.write_text(json.dumps([{"role": "user", "content": f"turn {i} " + "x" * 400} for i in range(60)]))
    config = tmp_path / "config.yaml"
    config.write_text("context:\n  threshold_percent: 0.4\nmodel:\n  context_length: 9000\n"
                      "plugins:\n  disabled: []\n  lcm: {fts: true}\n")
    fast = _compact(tmp_path / "home", transcript, "--config", str(config))
    assert fast.stderr.strip().endswith("NO-PYDANTIC 0"), fast.stderr
    coerced = tmp_path / "coerced.yaml"  # the same values as the models read them, but a string to coerce
    coerced.write_text(config.read_text().replace("9000", "'9000'"))
    slow = _compact(tmp_path / "home", transcript, "--config", str(coerced))
    assert slow.stderr.strip().endswith("PYDANTIC 0"), slow.stderr
    assert _report(fast) == _report(slow)
    coerced.write_text("model:\n  context_length: -5\n")
    bad = _compact(tmp_path / "home", transcript, "--config", str(coerced))
    assert bad.stderr.strip().endswith("PYDANTIC 2"), bad.stderr  # refused by the models, in their words
    assert "model.context_length: got -5; expected input should be greater than 0" in bad.stderr
