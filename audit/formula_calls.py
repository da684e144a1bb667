"""Names the scanner reads with the formula's context: PyCM's extremes and runs of letters.

``Max(Matrix(-,j))``, ``Max(P)``: the largest cell of a column, the largest of a per-class
vector (Goodman and Kruskal's lambda as PyCM prints it), over a fresh class index. ``ad``,
``NL``: a product of letters when the formula gives each its role (the cells of a 2 x 2 table,
a sum's bound), not one unknown abbreviation. Functions of the :class:`.formula_scanner.Scanner`
that calls them.
"""

from __future__ import annotations

import re

import sympy

from metricc.audit.formula_source import Source
from metricc.compiler.language import symbols

__all__ = ["extreme", "letters"]


def extreme(scanner, head: str, inside: str, end: int) -> bool:
    """PyCM's ``Max(Matrix(-,j))`` (a column's largest cell) and ``Max(P)`` (the largest of a
    per-class vector): the extreme over a fresh class index, put where ``-`` stands or on
    the bare name; a bare letter of several meanings is tried in each (P: the positives or
    precision). False (nothing read) for any other argument."""
    index = next(x for x in "kuvwxyz" if x not in scanner.text)
    filled = re.sub(r"(?<=[(,])\s*-\s*(?=[,)])", index, inside)
    bare = re.fullmatch(r"\s*([A-Z][A-Za-z]{0,3})\s*", inside)
    if filled == inside and not bare:
        return False
    scanner.notation.index_letters.add(index)
    if bare and bare.group(1) in ("P", "N"):
        meaning = scanner.notation.marked(bare.group(1), [index], ("positives", "precision", "predicted count"))
    else:
        text = f"{bare.group(1)}_{{{index}}}" if bare else filled
        source = Source(text, (scanner.source.cols[scanner.pos],) * (len(text) + 1), scanner.source.user)
        latex = type(scanner)(source, scanner.notation, scanner).run()
        meaning = scanner.parsed(latex, scanner.pos + 1, end)
    scanner.pos = end + 1
    k = sympy.Symbol(index)
    scanner.out.append(" " + scanner.placeholder(symbols.INDEX_EXTREMES[head](meaning, k, symbols.N_CLASSES - 1)) + " ")
    return True


def letters(scanner, run: str) -> list[str] | None:
    """``ad`` over a 2 x 2 table's cells, ``NL`` where N bounds a sum (the samples): a
    product of letters whose roles the formula gives, not one unknown abbreviation."""
    if 1 < len(run) <= 4 and set(run) <= set(scanner.notation.cells):
        return list(run)
    bound = rf"\^\s*\{{?\s*{run[:1]}\s*(-\s*1\s*)?(\}}|(?![A-Za-z]))"
    if len(run) == 2 and run[0] not in run[1:] and re.search(bound, scanner.source.user):
        return list(run)
    return None
