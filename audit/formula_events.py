"""Probabilities of a prediction's events as the counts they stand for: ``P(\\hat{y} = 1 | y = 1)``.

Papers define rates as probabilities (``TPR = \\Pr(\\hat{Y} = 1 \\mid Y = 1)``, ``PPV = P(y = 1 |
\\hat{y} = 1)``). Each event is a set of the 2 x 2 table's cells: the truth ``y = 1`` is TP and FN,
the prediction ``\\hat{y} = 1`` TP and FP (1, +, +1 the positive class; 0, -, -1 the negative);
a joint event (``,``, ``\\wedge``, ``\\cap``) is their common cells. ``P(A)`` is A's share of all
samples, ``P(A | B)`` the share of B's samples in A. The hat tells the prediction from the
truth; events over other letters are left to the scanner (which refuses them). A text rewrite,
like :mod:`.formula_indicators`; nothing is evaluated.
"""

from __future__ import annotations

import re

from metricc.audit.formula_source import Source

__all__ = ["events"]

_CELLS = {(1, 1): "TP", (1, 0): "FP", (0, 1): "FN", (0, 0): "TN"}  # (predicted, true)
_VALUE = r"(\+1|-1|\+|-|1|0)"
_ATOM = rf"(\\hat\s*\{{\s*[yY]\s*\}}|\\hat\s+[yY]|[yY])\s*=\s*{_VALUE}"
_EVENT = rf"{_ATOM}(?:\s*(?:,|\\wedge|\\land|\\cap)\s*{_ATOM})?"
_PROBABILITY = re.compile(rf"(?:\\Pr|\\mathbb\s*\{{\s*P\s*\}}|\\operatorname\s*\{{\s*P\s*\}}|(?<![A-Za-z\\])P|(?<![A-Za-z\\])Pr)"
                          rf"\s*(?:\(|\[)\s*({_EVENT})\s*(?:(?:\||\\mid)\s*({_EVENT})\s*)?(?:\)|\])")


def _cells(event: str) -> set[str] | None:
    """The cells where every atom of ``event`` holds; None when two atoms name one variable."""
    found, cells = set(), set(_CELLS)
    for match in re.finditer(_ATOM, event):
        predicted = match.group(1).startswith("\\")
        if predicted in found:
            return None
        found.add(predicted)
        value = 0 if match.group(2) in ("0", "-", "-1") else 1
        cells = {c for c in cells if c[0 if predicted else 1] == value}
    return {_CELLS[c] for c in cells}


def _sum(cells: set[str]) -> str:
    return "(" + " + ".join(sorted(cells)) + ")" if cells else "0"


def events(source: Source) -> Source:
    """``source`` with each probability of prediction events replaced by its counts."""
    def replace(match):
        event, given = _cells(match.group(1)), _cells(match.group(6)) if match.group(6) else set(_CELLS.values())
        if event is None or given is None:
            return match.group(0)
        return "\\frac{%s}{%s}" % (_sum(event & given), _sum(given))
    return source.sub(_PROBABILITY, replace)
