"""A search pattern parsed once, so every store matches the same thing and errors are clear.

Grammar (what ``lcm_grep`` documents): words and ``"quoted phrases"``, a trailing ``*`` for
a prefix, ``AND`` (also implied between terms), ``OR``, ``NOT``. ``OR`` binds loosest, so a
query is a list of groups and a message matches when any group does: all of its ``must``
terms present, none of its ``must_not``. A malformed pattern (``a AND AND b``, ``NOT a``
alone, an unclosed quote) is a ``ValueError`` that names the problem and the pattern, never
the store's own syntax.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hermes_context_lcm.textindex import searchable

HELP = 'write words, "a phrase", prefix*, and AND / OR / NOT between them'
_TOKEN = re.compile(r'"[^"]*"?|\S+')
_OPERATORS = ("AND", "OR", "NOT")


@dataclass(frozen=True)
class Term:
    """A word or phrase (its tokens adjacent, in order); ``prefix``: the last token is a prefix."""

    text: str
    prefix: bool = False


@dataclass(frozen=True)
class Group:
    must: tuple[Term, ...]
    must_not: tuple[Term, ...] = ()


@dataclass(frozen=True)
class TextQuery:
    groups: tuple[Group, ...]

    @property
    def terms(self) -> list[str]:
        """The positive terms' text, for snippets."""
        return [t.text for g in self.groups for t in g.must]


def _malformed(pattern: str, why: str) -> ValueError:
    return ValueError(f"malformed query {pattern!r}: {why}; {HELP}")


def parse_query(pattern: str) -> TextQuery:
    """``pattern`` as groups of terms; ``ValueError`` for a malformed or empty one."""
    groups: list[Group] = []
    must: list[Term] = []
    must_not: list[Term] = []
    previous = "start"
    for token in _TOKEN.findall(pattern):
        if token in _OPERATORS:
            allowed = ("term", "AND") if token == "NOT" else ("term",)
            if previous not in allowed:
                where = "the start" if previous == "start" else previous
                raise _malformed(pattern, f"{token} cannot follow {where}" + (
                    " (write a NOT b)" if token == "NOT" else ""))
            if token == "OR":
                groups.append(Group(tuple(must), tuple(must_not)))
                must, must_not = [], []
            previous = token
            continue
        if token.startswith('"'):
            if len(token) < 2 or not token.endswith('"'):
                raise _malformed(pattern, "a quote is not closed")
            term = Term(token[1:-1])
        else:
            term = Term(token.rstrip("*"), token.endswith("*"))
        if not searchable(term.text):
            continue  # punctuation alone: nothing to match, nothing to break
        (must_not if previous == "NOT" else must).append(term)
        previous = "term"
    if previous in _OPERATORS:
        raise _malformed(pattern, f"it ends with {previous}")
    if must:
        groups.append(Group(tuple(must), tuple(must_not)))
    elif must_not:
        raise _malformed(pattern, "NOT needs a word before it (write a NOT b)")
    if not groups:
        raise ValueError(f"pattern {pattern!r} has no searchable words")
    return TextQuery(tuple(groups))
