"""The front-matter fast path must agree with YAML on every input it accepts."""

from __future__ import annotations

import pytest
import yaml
from hermes_prompt import front_matter
from hypothesis import given, settings
from hypothesis import strategies as st

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the loader front_matter falls back to
KEYS = st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,8}", fullmatch=True)
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=30)
RAW_VALUE = st.text(st.sampled_from(list("abcXYZ019 -_:#'\"[],.{}!&*|>%@`~=<+?\\\t")), max_size=12)


def yaml_says(block: str) -> dict | Exception:
    try:
        data = yaml.load(block, Loader=LOADER)
    except yaml.YAMLError as exc:
        return exc
    return data


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(KEYS, st.one_of(TEXT, st.lists(TEXT, max_size=3)), max_size=5))
def test_parse_equals_yaml_on_dumped_mappings(mapping: dict) -> None:
    block = yaml.safe_dump(mapping, allow_unicode=True, sort_keys=False, width=10**6)
    assert front_matter.parse(block) == yaml.load(block, Loader=LOADER)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(KEYS, RAW_VALUE), min_size=1, max_size=4))
def test_parse_equals_yaml_on_raw_lines(pairs: list[tuple[str, str]]) -> None:
    block = "".join(f"{k}: {v}\n" for k, v in pairs)
    expected = yaml_says(block)
    if isinstance(expected, Exception) or not isinstance(expected, dict):
        with pytest.raises(front_matter.FrontMatterError):
            front_matter.parse(block)
    else:
        assert front_matter.parse(block) == expected


@pytest.mark.parametrize(
    "block",
    [
        "description: yes\n", "version: 1.0\n", "name: 'it''s'\n", "description: >\n  folded\n  text\n",
        "platforms: [cli, 1]\n", "key:\n", "tags: [a, [b]]\n", "on: x\n", "name: C# helper\n",
        "date: 2024-01-01\n", 'name: "tab\\there"\n', "name: ~\n",
    ],
)
def test_tricky_values_match_yaml(block: str) -> None:
    assert front_matter.parse(block) == yaml.load(block, Loader=LOADER)


def test_invalid_yaml_raises() -> None:
    with pytest.raises(front_matter.FrontMatterError, match="invalid YAML"):
        front_matter.parse("description: a: b\n")


def test_split_cases() -> None:
    assert front_matter.split("no front matter") == (None, "no front matter")
    assert front_matter.split("---\na: 1\n---\nbody") == ("a: 1\n", "body")
    assert front_matter.split("---\na: 1\n...\n") == ("a: 1\n", "")
    assert front_matter.split("--- not a fence\n") == (None, "--- not a fence\n")
    with pytest.raises(front_matter.FrontMatterError):
        front_matter.split("---\na: 1\n")
