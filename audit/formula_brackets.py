"""Positions in a printed formula that the scanner (:mod:`.formula_scanner`) reads: the
closing parenthesis of a call, the top-level comma of its arguments, where a term ends, and
whether a term or a superscript uses an index letter.
"""

from __future__ import annotations

import re

__all__ = ["INDEX_GROUP", "closing", "superscript_indices", "term_end", "top_comma", "uses_index"]

INDEX_GROUP = re.compile(r"\s*[a-z](\s*,\s*[a-z])*\s*$")  # index letters: j, or j, k


def superscript_indices(text: str, pos: int) -> bool:
    """Whether a ``^`` at ``pos`` carries index letters (``P^{j}``), not an exponent."""
    found = re.match(r"\^\s*(\{([^{}]*)\}|([a-z]))", text[pos:])
    return bool(found) and bool(INDEX_GROUP.match(found.group(2) if found.group(2) is not None else found.group(3)))


def closing(text: str, start: int) -> int | None:
    """The parenthesis closing the one at ``start`` (None when the text ends first)."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return i
    return None


def top_comma(text: str) -> int | None:
    """The first comma outside brackets (None if there is none)."""
    depth = 0
    for i, ch in enumerate(text):
        depth += 1 if ch in "({[" else -1 if ch in ")}]" else 0
        if depth == 0 and ch == ",":
            return i
    return None


def term_end(text: str, start: int) -> int:
    """Where the term starting at ``start`` ends: the next + - = , outside brackets and |...|."""
    depth, pos, bars = 0, start, 0
    while pos < len(text):
        ch = text[pos]
        depth += 1 if ch in "{([" else -1 if ch in "})]" else 0
        bars ^= depth == 0 and ch == "|"
        if depth < 0 or depth == 0 and not bars and ch in "+-=," and pos > start:
            break
        pos += 1
    return pos


def uses_index(term: str, variable: str) -> bool:
    """Whether ``term`` subscripts something with ``variable`` (TP_i, mat_{i,j}, \\phi(i))."""
    v = re.escape(variable)
    return bool(re.search(rf"_{v}(?![A-Za-z0-9])|_\{{[^{{}}]*(?<![A-Za-z]){v}(?![A-Za-z])[^{{}}]*\}}|\(\s*{v}\s*\)"
                          rf"|_\{{\s*[a-z]{{0,2}}{v}[a-z]{{0,2}}\s*\}}", term))  # C_{kl}: indices run together
