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

import functools
import itertools
import re

#: CJK ideographs, kana, hangul (syllables and jamo), half-width kana, CJK punctuation excluded.
_CJK = re.compile("[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
                  "\ua960-\ua97f\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f\U00020000-\U0002fa1f]")
_EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\u2300-\u23ff\u2190-\u21ff\u3297\u3299"
                    "\u00a9\u00ae\u203c\u2049\u2122\u2139\u24c2\u25aa-\u25fe]")
_JOINERS = re.compile("[\ufe0e\ufe0f\u200d]")  # variation selectors and the zero-width joiner
#: An identifier-like run: word characters joined by . - : / (not spaces).
_RUN = re.compile(r"[^\W_]+(?:[._\-:/@+][^\W_]+)*")
#: ASCII identifier-like runs, for the ``parts`` column (the cheapest regex that finds them;
#: a plain word is then skipped by two ``str`` checks, and every other run goes through a cache).
_ASCII_RUN = re.compile(r"\w(?:[\w.\-:/@+]*\w)?", re.ASCII)
_SPLIT = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[^\W\d_])(?=\d)|(?<=\d)(?=[^\W\d_])")
_HEXLIKE = re.compile(r"(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{6,}")  # a hash or hex id: kept whole
_WORD = re.compile(r"[^\W_]+")
JOIN = "\u01c2"  # ǂ: a letter to unicode61, so a joined pair of parts is a single token


def _emoji_token(match: re.Match[str]) -> str:
    return f" emoji{ord(match.group()):x} "


def coarse_text(text: str) -> str:
    """The ``body`` column: CJK characters spaced apart, emoji as ``emoji<hex>`` tokens."""
    if not text.isascii():
        text = _JOINERS.sub("", text)
        text = _CJK.sub(r" \g<0> ", text)
        text = _EMOJI.sub(_emoji_token, text)
    return text


def pieces(run: str) -> list[str]:
    """The fine parts of one identifier-like run (a hash or an id-like piece stays whole)."""
    out: list[str] = []
    for piece in _WORD.findall(run):
        if len(piece) > 1 and not _HEXLIKE.fullmatch(piece) and _SPLIT.search(piece):
            parts = _SPLIT.split(piece)
            if len(parts) <= 8:  # more transitions than that: an id, not a name
                out.extend(parts)
                continue
        out.append(piece)
    return out


def bigrams(parts: list[str]) -> str:
    """Adjacent parts joined into single tokens: ``get user name`` -> ``getǂuser userǂname``.

    A phrase of two common parts (``user name``, ``1 2 3``) would walk the long lists of
    both; the joined pair is one rare token. ``ǂ`` is a letter to the tokenizer, so the
    pair stays one token."""
    return " ".join(f"{a}{JOIN}{b}" for a, b in itertools.pairwise(parts))


@functools.lru_cache(maxsize=1 << 16)
def _run_parts(run: str) -> str:
    """One run's line of the ``parts`` column ("" when it has one part). Identifiers recur
    across a session (paths, names), so the cache answers most runs."""
    found = pieces(run)
    return f"{' '.join(found)} {bigrams(found)}" if len(found) >= 2 else ""


#: Where a run can split (a separator, a case or letter/digit transition, as ``_SPLIT`` and
#: ``_WORD`` split): a run without one has a single part, so it skips ``_run_parts`` at C speed.
_MAY_SPLIT = re.compile(r"[._\-:/@+]|[a-z][A-Z]|[A-Z]{2}[a-z]|[A-Za-z][0-9]|[0-9][A-Za-z]")


def parts_text(text: str) -> str:
    """The ``parts`` column: for each distinct run with two or more parts, its parts, then its pairs.

    Most runs are plain words (all lower case, all upper case, capitalised, or all digits): ``str``
    methods pass them over before the ``_MAY_SPLIT`` regex, whose call costs more than theirs."""
    return "\n".join(filter(None, map(_run_parts, [
        run for run in dict.fromkeys(_ASCII_RUN.findall(text))
        if not ((run.isalpha() and (run.islower() or run.isupper() or run.istitle())) or run.isdigit())
        and _MAY_SPLIT.search(run)])))


def query_forms(term: str) -> tuple[str, str]:
    """``(coarse, fine)`` token strings for one query word or phrase (may be equal)."""
    coarse = " ".join(_WORD.findall(coarse_text(term)))
    fine_text = _RUN.sub(lambda m: " ".join(pieces(m.group())), term)
    fine = " ".join(_WORD.findall(coarse_text(fine_text)))
    return coarse, fine or coarse


def single_run_pairs(term: str) -> str | None:
    """For a term that is one ASCII identifier-like run of two or more parts, its pair tokens
    (what :func:`parts_text` indexed for that run)."""
    runs = _ASCII_RUN.findall(term)
    if len(runs) != 1 or runs[0] != term.strip():
        return None
    found = pieces(runs[0])
    return bigrams(found) if len(found) >= 2 else None


def searchable(term: str) -> bool:
    """Whether ``term`` has anything the index can match."""
    return bool(_WORD.search(coarse_text(term)))
