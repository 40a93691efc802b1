"""What the full-text index sees of a text, and what a query word becomes: one function for both.

SQLite's ``unicode61`` tokenizer splits on spaces and punctuation only, so a word inside
Chinese, Japanese or Korean text (written without spaces), a part of ``getUserName``, the
``1.2.3`` of ``v1.2.3`` and an emoji are all unfindable by a plain word index. Rather than
a trigram index (three times the size, and blind to the two-character words common in
Chinese), each text is indexed as two columns:

* ``body``: the text with every CJK / kana / hangul character spaced apart (so a word is a
  phrase of characters: any substring is found) and every emoji replaced by a token
  ``emoji<hex>``; otherwise the text as written.
* ``parts``: for each identifier-like run that splits further (camelCase, letters against
  digits, dots and dashes between them: ``getUserName``, ``v1.2.3``, ``HTTPServer2``), its
  fine parts as one phrase (``get user name``, ``v 1 2 3``). Random-looking ids (hashes)
  are left whole, so they cost no extra tokens.

A query term is matched as ``body: coarse`` OR ``parts: fine``, both produced here by the
same rules, so what the index holds and what a query asks for always agree. A PostgreSQL
store can index the same two strings.
"""

from __future__ import annotations

import re

#: CJK ideographs, kana, hangul (syllables and jamo), half-width kana, CJK punctuation excluded.
_CJK = re.compile("[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
                  "\ua960-\ua97f\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f\U00020000-\U0002fa1f]")
_EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\u2300-\u23ff\u2190-\u21ff\u3297\u3299"
                    "\u00a9\u00ae\u203c\u2049\u2122\u2139\u24c2\u25aa-\u25fe]")
_JOINERS = re.compile("[\ufe0e\ufe0f\u200d]")  # variation selectors and the zero-width joiner
#: An identifier-like run: word characters joined by . - : / (not spaces).
_RUN = re.compile(r"[^\W_]+(?:[._\-:/@+][^\W_]+)*")
_SPLIT = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[^\W\d_])(?=\d)|(?<=\d)(?=[^\W\d_])")
_HEXLIKE = re.compile(r"(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{6,}")  # a hash or hex id: kept whole
_WORD = re.compile(r"[^\W_]+")


def _emoji_token(match: re.Match[str]) -> str:
    return f" emoji{ord(match.group()):x} "


def coarse_text(text: str) -> str:
    """The ``body`` column: CJK characters spaced apart, emoji as ``emoji<hex>`` tokens."""
    if not text.isascii():
        text = _JOINERS.sub("", text)
        text = _CJK.sub(r" \g<0> ", text)
        text = _EMOJI.sub(_emoji_token, text)
    return text


def _fine(run: str) -> str | None:
    """``run`` split into its fine parts, or None when it does not split (or looks random)."""
    pieces = _WORD.findall(run)
    out: list[str] = []
    split = False
    for piece in pieces:
        if len(piece) > 1 and not _HEXLIKE.fullmatch(piece) and _SPLIT.search(piece):
            parts = _SPLIT.split(piece)
            if len(parts) <= 8:  # more transitions than that: an id, not a name
                out.extend(parts)
                split = True
                continue
        out.append(piece)
    return " ".join(out) if split else None


def parts_text(text: str) -> str:
    """The ``parts`` column: the fine parts of every identifier that splits, one per line."""
    if text.isascii() and not _SPLIT.search(text):
        return ""
    found = [fine for fine in map(_fine, _RUN.findall(text)) if fine]
    return coarse_text("\n".join(found)) if found else ""


def query_forms(term: str) -> tuple[str, str]:
    """``(coarse, fine)`` token strings for one query word or phrase (may be equal)."""
    coarse = " ".join(_WORD.findall(coarse_text(term)))
    fine_text = _RUN.sub(lambda m: _fine(m.group()) or m.group(), term)
    fine = " ".join(_WORD.findall(coarse_text(fine_text)))
    return coarse, fine or coarse


def searchable(term: str) -> bool:
    """Whether ``term`` has anything the index can match."""
    return bool(_WORD.search(coarse_text(term)))
