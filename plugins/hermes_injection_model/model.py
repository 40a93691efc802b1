"""A linear model over word n-grams that scores each passage of a text for injected instructions.

Why a model beside the rules: the rules are verb x object classes written from the dev halves,
and each pass showed the same thing: a rule catches the dev wording and few of the held-out
texts that say the same with other words. A logistic regression over hashed word uni- and
bigrams, trained on every dev half, the dev-half paraphrases, attacks and look-alikes written from
the families' descriptions, and hard benign negatives (real context files, the corpus, security docs
that quote attacks), generalizes further.
It only adds findings: the built-in rules run as before.

The text is cut into units: each paragraph (lines between blank lines) and, in paragraphs longer
than :data:`WINDOW_AFTER` lines, windows of :data:`WINDOW` lines every :data:`STRIDE` lines, so
one hostile line in a long block is not drowned by the rest. A unit scores
``bias + sum(weights) / sqrt(features)``; above the threshold it is a finding at its first line.
Every step is linear in the text's length. The weights are read from ``weights.bin`` on the
first call, not at import.
"""

from __future__ import annotations

import json
import math
import re
import sys
import unicodedata
import zlib
from array import array
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from pathlib import Path

WINDOW, STRIDE, WINDOW_AFTER = 4, 2, 6
BUCKETS = 1 << 21
HERE = Path(__file__).resolve().parent
WEIGHTS = HERE / "weights.bin"
HEADER = HERE / "model.json"

# a CJK or kana or hangul character is a token of its own; a word; any other symbol ($, |, >, @)
_TOKEN_RX = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]|[^\W_]+|[^\w\s]")


def tokens(text: str) -> list[str]:
    return _TOKEN_RX.findall(unicodedata.normalize("NFKC", text).lower())


def _hashed(toks: list[str]) -> set[int]:
    grams = [*toks, *(f"{a} {b}" for a, b in pairwise(toks))]
    return {zlib.crc32(g.encode()) % BUCKETS for g in grams}


def _hashed_pair(a: str, b: str) -> int:
    return zlib.crc32(f"{a} {b}".encode()) % BUCKETS


def features(text: str) -> set[int]:
    """Hashed unigrams and bigrams (crc32: stable across processes, unlike ``hash``)."""
    return _hashed(tokens(text))


def spans(lines: list[str]) -> list[tuple[int, int]]:
    """(first, end) line ranges of each paragraph and each window of a long paragraph."""
    out: list[tuple[int, int]] = []
    start = None
    for i, line in enumerate([*lines, ""]):
        if line.strip():
            start = i if start is None else start
            continue
        if start is not None:
            out.append((start, i))
            if i - start > WINDOW_AFTER:
                out.extend((j, j + WINDOW) for j in range(start, i - WINDOW + 1, STRIDE))
            start = None
    return out


def units(text: str) -> list[tuple[int, str]]:
    """(0-based first line, text) of each unit (:func:`spans`)."""
    lines = text.split("\n")
    return [(first, "\n".join(lines[first:end])) for first, end in spans(lines)]


@dataclass(frozen=True)
class Model:
    weights: dict[int, float]
    bias: float
    threshold: float

    def score(self, text: str) -> float:
        return self._score(features(text))

    def _score(self, found: set[int]) -> float:
        if not found:
            return self.bias
        return self.bias + sum(self.weights.get(f, 0.0) for f in found) / math.sqrt(len(found))

    def flagged(self, text: str) -> list[tuple[int, str, float]]:
        """(0-based first line, that line's text, score) of each unit above the threshold.

        Each line is tokenised and hashed once; a unit's features are its lines' and the bigrams
        across its line breaks (tokens never span a line), the same set :func:`features` gives."""
        lines = text.split("\n")
        toks = [tokens(line) for line in lines]
        per_line = [_hashed(t) for t in toks]
        joins = [_hashed_pair(a[-1], b[0]) if a and b else None for a, b in pairwise(toks)]
        out = []
        for first, end in spans(lines):
            found = set().union(*per_line[first:end])
            found.update(j for j in joins[first : end - 1] if j is not None)
            if (s := self._score(found)) > self.threshold:
                out.append((first, lines[first], s))
        return out


def save(weights: dict[int, float], bias: float, threshold: float, about: dict[str, object]) -> None:
    """Write the weights (little-endian uint32 keys, then float32 values, zlib) and the header."""
    keys = array("I", sorted(weights))
    values = array("f", (weights[k] for k in keys))
    if sys.byteorder != "little":
        keys.byteswap()
        values.byteswap()
    WEIGHTS.write_bytes(zlib.compress(keys.tobytes() + values.tobytes(), 9))
    HEADER.write_text(json.dumps({"bias": bias, "threshold": threshold, "features": len(keys), **about}, indent=1)
                      + "\n", encoding="utf-8")


@lru_cache(maxsize=1)
def load() -> Model:
    header = json.loads(HEADER.read_text(encoding="utf-8"))
    raw = zlib.decompress(WEIGHTS.read_bytes())
    n = header["features"]
    keys, values = array("I"), array("f")
    keys.frombytes(raw[: 4 * n])
    values.frombytes(raw[4 * n :])
    if sys.byteorder != "little":
        keys.byteswap()
        values.byteswap()
    return Model(dict(zip(keys, values, strict=True)), float(header["bias"]), float(header["threshold"]))
