"""The PyYAML-free reading of config.yaml equals PyYAML wherever it answers.

``hermes_core.config.simple_yaml`` reads the plain ``key: value`` shape of a config file
without importing PyYAML (a short command's start). Whenever it returns a mapping, that
mapping must be exactly (types included: ``True`` is not ``1``) what ``yaml.safe_load``
gives; for everything else it must step aside (None), so PyYAML's answers and errors stay.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_core.config.raw import load_raw_config
from hermes_core.config.simple_yaml import parse_simple_yaml

_KEYS = ["memory", "context", "engine", "a-b", "_x", "x1", "on", "yes", "No", "null", "True", "y", "key with space",
         "'quoted'", "1", "<<"]
_VALUES = ["", "0", "-0", "7", "-12", "012", "0x1F", "1_000", "+3", "1.5", "0.10", "-2.25", ".5", "1.", "1e3", "1.2.3",
           "true", "false", "True", "FALSE", "yes", "no", "on", "Off", "null", "Null", "~", "y", "n", "compressor",
           "OPENAI_API_KEY", "a-b", "a_b", "a#b", "a #b", "a: b", "-", "- a", "=", "&anchor x", "*alias", "!tag x",
           "|", ">", '""', "''", '"a b"', "'a b'", '"a\\"b"', "'it''s'", '"a # b"', "'#'", '"x" # c', '"x"#c',
           "'x' y", "[]", "{}", "[ ]", "[a]", "[a, b]", "[a,b]", "['a', \"b\"]", "[a, 1]", "[a,]", "[yes]", "{a: 1}",
           "http://x.example/p", "2020-01-01", "12:30", "1:20", ".inf", ".nan", "é", '"\\u00e9"', "x   ", "  x"]
_COMMENTS = ["", " # note", "  #note", "#glued", " #"]


_PLAIN_KEYS = ["memory", "context", "engine", "a-b", "_x", "x1", "provider"]
_PLAIN_VALUES = ["0", "7", "-12", "1.5", "0.10", "true", "false", "compressor", "OPENAI_API_KEY", "a-b", '""', "''",
                 '"a b"', "'a # b'", "[]", "{}", "[a, b]", "['a', \"b\"]", "x   "]


@st.composite
def _clean_documents(draw: st.DrawFn) -> str:
    """Nested mappings in the simple shape (often one odd line in them)."""
    lines: list[str] = []
    step = draw(st.sampled_from([2, 4, 1]))

    def block(depth: int) -> None:
        for key in draw(st.lists(st.sampled_from(_PLAIN_KEYS), min_size=1, max_size=4, unique=True)):
            pad = " " * (depth * step)
            if depth < 2 and draw(st.booleans()):
                lines.append(f"{pad}{key}:{draw(st.sampled_from(_COMMENTS))}")
                if draw(st.integers(0, 4)):
                    block(depth + 1)
            else:
                lines.append(f"{pad}{key}: {draw(st.sampled_from(_PLAIN_VALUES))}{draw(st.sampled_from(_COMMENTS))}")
            if draw(st.integers(0, 5)) == 0:
                lines.append(draw(st.sampled_from(["", "# c", f"{pad}  # c"])))

    block(0)
    if draw(st.booleans()):  # one odd line
        at = draw(st.integers(0, len(lines)))
        lines.insert(at, f"{' ' * draw(st.sampled_from([0, 1, 2, 3, 4]))}{draw(st.sampled_from(_KEYS))}: "
                         f"{draw(st.sampled_from(_VALUES))}")
    return "\n".join(lines) + "\n"


@st.composite
def _documents(draw: st.DrawFn) -> str:
    if draw(st.booleans()):
        return draw(_clean_documents())
    lines = []
    for _ in range(draw(st.integers(0, 10))):
        kind = draw(st.integers(0, 12))
        if kind == 0:
            lines.append(draw(st.sampled_from(["", "# comment", "   # indented comment", "---", "...", "- item",
                                               "\tkey: 1", "key: 1\r", "  ", "plain words", "%YAML 1.1"])))
            continue
        indent = " " * draw(st.sampled_from([0, 0, 2, 2, 4, 1, 3]))
        key = draw(st.sampled_from(_KEYS))
        sep = draw(st.sampled_from([": ", ": ", ":", ":  ", " :"]))
        value = draw(st.sampled_from(_VALUES)) if sep != ":" else ""
        lines.append(f"{indent}{key}{sep}{value}{draw(st.sampled_from(_COMMENTS))}")
    return "\n".join(lines) + draw(st.sampled_from(["", "\n", "\n\n"]))


def _typed(value: Any) -> Any:
    """``value`` with every scalar tagged by its type, so True and 1 (or 1 and 1.0) differ."""
    if isinstance(value, dict):
        return {_typed(k): _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return (type(value).__name__, value)


def _pyyaml(text: str) -> Any:
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


@settings(max_examples=800, deadline=None)
@given(_documents())
def test_a_simple_answer_is_what_pyyaml_reads(text: str) -> None:
    simple = parse_simple_yaml(text)
    if simple is None:
        return
    try:
        expected = _pyyaml(text)
    except yaml.YAMLError as exc:  # pragma: no cover - the property failing
        raise AssertionError(f"read {text!r} as {simple!r}; PyYAML refuses it: {exc}") from None
    assert _typed(simple) == _typed(expected if expected is not None else {}), text


def test_the_documented_config_and_the_usual_shapes_take_the_simple_path(tmp_path: Path) -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    documented = readme.split("## Configuration", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    for text in (documented, "", "# only a comment\n", "model:\n  context_length: 16000\n",
                 "plugins:\n  disabled: [honcho, lcm]\n  lcm:\n    fts: true\n", "memory:\ncontext:\n  engine: lcm\n"):
        simple = parse_simple_yaml(text)
        assert simple is not None, text
        assert _typed(simple) == _typed(_pyyaml(text) or {})
    path = tmp_path / "config.yaml"
    path.write_text(documented)
    assert load_raw_config(path) == _pyyaml(documented)


@pytest.mark.parametrize("text", ["memory:\n  provider: yes\n", "on: 1\n", "a: 012\n", "a: [b, 1]\n", "a: &x 1\n",
                                  "a:\n - b\n", "a: 1\n a: 2\n", "a: 1\na: 2\n", "a: 'it''s'\n", "a: \"\\t\"\n",
                                  "a: é\n", "a:\tb\n", "- a\n", "a: 1e3\n", "a: b # c\n  d: 1\n"])
def test_anything_outside_the_simple_shape_is_left_to_pyyaml(text: str, tmp_path: Path) -> None:
    assert parse_simple_yaml(text) is None
    path = tmp_path / "config.yaml"
    path.write_text(text)
    try:
        expected = _pyyaml(text)
    except yaml.YAMLError:
        with pytest.raises(Exception, match=r"not valid YAML|expected a mapping"):
            load_raw_config(path)
        return
    if isinstance(expected, dict):
        assert load_raw_config(path) == expected
