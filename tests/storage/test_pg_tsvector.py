"""The binary ``tsvector`` the PostgreSQL LCM store sends is the one PostgreSQL itself makes
of the same words written as a text literal, caps included (positions, repeats, long words)."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from hermes_context_lcm.pg_store import tokens, use_tsvectors, vector_bytes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

WORDS = st.sampled_from(["a", "the", "b2", "日本", "ǂx", "q" * 600, "z" * 511, "über"])


def literal(words: list[str]) -> str:
    """The oracle: every word once with its positions, capped the way PostgreSQL caps them
    (position 16383, 256 positions a word, no word over 2046 bytes)."""
    positions: dict[str, list[int]] = {}
    for n, word in enumerate(words, 1):
        if len(word.encode("utf-8")) > 2046:
            continue
        at = positions.setdefault(word, [])
        if len(at) < 256 and (not at or at[-1] < 16383):
            at.append(min(n, 16383))
    return " ".join(f"'{w}':{','.join(map(str, p))}" for w, p in positions.items())


@pytest.fixture(scope="module")
def conn(pg_dsn: str) -> Any:
    with psycopg.connect(pg_dsn, autocommit=True) as c:
        use_tsvectors(c)
        yield c


def same(conn: Any, words: list[str]) -> bool:
    row = conn.execute("SELECT %b::tsvector = %s::tsvector, %b::tsvector::text", (vector_bytes(words),
                                                                                  literal(words),
                                                                                  vector_bytes(words))).fetchone()
    return bool(row[0])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(WORDS, max_size=400))
def test_binary_vector_is_the_literal(conn: Any, words: list[str]) -> None:
    assert same(conn, words)


@pytest.mark.parametrize("words", [
    [],
    ["w"] * 300,                                            # more repeats than a word keeps
    [f"w{i % 50}" for i in range(20_000)],                  # past the last position
    ["x" * 2047, "y", "x" * 2047, "é" * 600],               # words PostgreSQL refuses
    tokens("Über-Prüfung of v1.2.3, snake_case; 日本語 \ue000 ǂ"),
])
def test_binary_vector_at_the_caps(conn: Any, words: list[str]) -> None:
    assert same(conn, words)
