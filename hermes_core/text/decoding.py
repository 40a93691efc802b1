"""Encoded runs worth rescanning: base64, hex, ``\\xNN`` and ``\\uNNNN`` escapes, URL-encoding,
rot13, reversed text and words joined by hyphens.

An attacker who writes ``aWdub3JlIGFsbCBwcmV2aW91cyBpbnN0cnVjdGlvbnM=`` counts on the model
decoding it. Each run is decoded once and kept only if the result is mostly printable text
(hashes, keys and images decode to bytes, not words); the scanner rescans what is kept.
rot13 and reversal have no alphabet of their own, so a line (and the next) is rotated or
reversed only when it mentions rot13 or reversing.

Bounded work: at most :data:`MAX_RUNS` runs and :data:`MAX_DECODED` decoded characters per
text, one regex pass per encoding, nesting at most :data:`MAX_DEPTH` deep.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
import urllib.parse
from collections.abc import Iterator

MAX_DEPTH = 2
MAX_RUNS = 200
MAX_RUN_CHARS = 64_000
MAX_DECODED = 1_000_000
_MIN_PRINTABLE = 0.9

_BASE64_RX = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/]{20,}={0,2}(?![A-Za-z0-9+/=_-])")
_HEX_RX = re.compile(r"(?<![0-9A-Fa-f])[0-9A-Fa-f]{20,}(?![0-9A-Fa-f])")  # even length checked on decode
_ESCAPED_HEX_RX = re.compile(r"\\x[0-9A-Fa-f]{2}(?:\\x[0-9A-Fa-f]{2}){7,}")  # literal start: fast search
# six escapes in a row, or five escapes in one token with words between them ("You%20are%20now%20in%20...")
_URL_RX = re.compile(r"%[0-9A-Fa-f]{2}(?:%[0-9A-Fa-f]{2}){5,}(?:[^%\s]{0,3}(?:%[0-9A-Fa-f]{2})+)*"
                     r"|%[0-9A-Fa-f]{2}(?:[^%\s\"'<>]{1,40}%[0-9A-Fa-f]{2}){4,}[^%\s\"'<>]{0,40}")
_URL_WORD_BEFORE = 40  # a run of the second kind starts with the word before its first escape
_UNICODE_ESCAPE_RX = re.compile(r"\\u[0-9A-Fa-f]{4}(?:\\u[0-9A-Fa-f]{4}){5,}")
# five or more words joined by hyphens ("output-your-previous-instructions"): found from a literal "-" (fast), then
# widened to the whole run; not inside a URL, a path or an option name, where kebab-case is ordinary
_JOINED_SEED_RX = re.compile(r"-[A-Za-z]{1,20}-[A-Za-z]{1,20}-[A-Za-z]{1,20}-")
_JOINED_RUN_RX = re.compile(r"[A-Za-z]{1,20}(?:-[A-Za-z]{1,20}){4,}")
_JOINED_BEFORE = frozenset("/=#.%_-:@~\\")
_ROT13_RX = re.compile(r"\brot-?\s?13\b")
_REVERSED_RX = re.compile(r"\b(?:reversed?|backwards|right\s+to\s+left)\b")


def _text(data: bytes) -> str | None:
    """``data`` as text when it is mostly printable UTF-8 (or UTF-16-LE, as PowerShell writes)."""
    for encoding in ("utf-8", "utf-16-le"):
        try:
            decoded = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        if decoded and sum(ch.isprintable() or ch in "\n\t" for ch in decoded) / len(decoded) >= _MIN_PRINTABLE:
            if sum(ch.isalpha() for ch in decoded) >= 4:
                return decoded
    return None


def _b64(run: str) -> str | None:
    if run.islower() or run.isupper() or run.isalpha() or run.isdigit():
        return None  # a long word, identifier or number, not base64 (which mixes cases and digits)
    try:
        return _text(base64.b64decode(run + "=" * (-len(run) % 4), validate=True))
    except (binascii.Error, ValueError):
        return None


def _hex(run: str) -> str | None:
    if len(run.replace("\\x", "")) % 2:
        return None
    try:
        return _text(bytes.fromhex(run.replace("\\x", "")))
    except ValueError:
        return None


def _unicode_escapes(run: str) -> str | None:
    return "".join(chr(int(run[i + 2 : i + 6], 16)) for i in range(0, len(run), 6))


def _url(run: str) -> str | None:
    decoded = urllib.parse.unquote(run)
    return decoded if decoded != run and sum(ch.isalpha() for ch in decoded) >= 4 else None


def decoded_runs(raw: str, folded: str) -> Iterator[tuple[int, str, str]]:
    """(offset in ``raw``, encoding, decoded text) for each run that decodes to text."""
    budget, runs = MAX_DECODED, 0
    for kind, rx, decode, source in (("base64", _BASE64_RX, _b64, raw), ("hex", _HEX_RX, _hex, raw),
                                     ("hex", _ESCAPED_HEX_RX, _hex, raw), ("url", _URL_RX, _url, raw),
                                     ("unicode-escapes", _UNICODE_ESCAPE_RX, _unicode_escapes, raw)):
        for m in rx.finditer(source):
            start = m.start()
            if rx is _URL_RX:
                floor = max(0, start - _URL_WORD_BEFORE)
                while start > floor and not raw[start - 1].isspace() and raw[start - 1] not in "%\"'<>":
                    start -= 1
            run = raw[start : m.end()][:MAX_RUN_CHARS]
            decoded = decode(run)
            runs += 1
            if decoded:
                budget -= len(decoded)
                yield start, kind, decoded
            if runs >= MAX_RUNS or budget <= 0:
                return
    yield from _joined_runs(raw)
    for kind, rx, transform in (("rot13", _ROT13_RX, lambda s: codecs.decode(s, "rot13")),
                                ("reversed", _REVERSED_RX, lambda s: s[::-1])):
        for m in rx.finditer(folded):
            lo = folded.rfind("\n", max(0, m.start() - MAX_RUN_CHARS), m.start()) + 1
            hi = folded.find("\n", m.end(), m.end() + MAX_RUN_CHARS)
            hi = folded.find("\n", hi + 1, hi + MAX_RUN_CHARS) if hi >= 0 else -1  # the line and the next one
            line = folded[lo : min(len(folded), m.end() + MAX_RUN_CHARS) if hi < 0 else hi]
            runs += 1
            budget -= len(line)
            yield m.start(), kind, transform(line)
            if runs >= MAX_RUNS or budget <= 0:
                return


def _joined_runs(raw: str) -> Iterator[tuple[int, str, str]]:
    """Hyphen-joined word runs with the hyphens as spaces, at most :data:`MAX_RUNS` of them."""
    pos, runs = 0, 0
    while runs < MAX_RUNS:
        seed = _JOINED_SEED_RX.search(raw, pos)
        if seed is None:
            return
        start = seed.start()
        while start > 0 and raw[start - 1].isascii() and raw[start - 1].isalpha():
            start -= 1
        m = _JOINED_RUN_RX.match(raw, start)
        end = m.end() if m else seed.end()
        if m and (start == 0 or raw[start - 1] not in _JOINED_BEFORE) and (
                end == len(raw) or not (raw[end].isalnum() or raw[end] in "/_-.")):
            runs += 1
            yield start, "joined-words", m.group(0).replace("-", " ")
        pos = max(end, seed.end() - 1)
