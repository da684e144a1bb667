"""Sums over a class that compare two entries of one score row, as counts from a sort: O(C log C).

The top label (``[Sum([S[s, l] > S[s, k]] + [S[s, l] = S[s, k]] * [l < k], l) = 0]``), the
rank of a class (top-k accuracy, DCG) and its ties read, after lowering, sums over a class
index ``l`` of comparisons of ``X[s, l]`` with ``X[s, k]`` (``X`` the scores ``S`` or the
truth ``Y``). Printed as they stand, each is a loop over ``l`` of an ``(n, C)`` comparison:
O(n C^2) work. The runtime's ``row_ranks`` sorts each row once and counts, per entry, the
entries above it, tied with it and tied at an earlier class; every such sum is a whole-number
combination of those three counts (``>=`` is ``above + tied``, ``<`` is ``C - above - tied``,
ties at a later class ``tied - tied_before - 1``), exact as the loop's sum of zeros and ones.

:func:`rewrite` brings a sum to that form when every term of its expanded body is one such
comparison (or its diagonal ``[l = k] * f(l)``, which is ``f(k)``) times factors free of ``l``;
a sum with any other term is left as it is. The top label's test ``[above + tied_before = 0]``
becomes one count, ``top`` (the row's first maximum: an ``argmax``, no sort, when it is the
only count of its row read).

A comparison weighted by the truth, ``Y[s, l] * [S[s, l] >= S[s, k]]`` (hinge loss's runner-up
among the other classes, the label-ranking metrics' true labels above), is a weighted count:
the same sort, the weights summed in sorted order (``S__Y__above[s, k]``). Only where the
truth is labels or 0/1 indicators (``weights=True``): sums of zeros and ones are exact in any
order, where graded relevances summed in another order than the loop's would round otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from metricc.compiler.emit.sums import rewrite_sums
from metricc.compiler.language import symbols

__all__ = ["COUNTS", "Ranked", "rewrite", "rows_read", "top_row"]

COUNTS = ("above", "tied", "tied_before", "top")  # the runtime's ROW_COUNTS, in its order (and by name)


@dataclass(frozen=True)
class Ranked:
    """The rewritten expressions and the rows they rank: ``(row name, weights name or "",
    ((count, IndexedBase), ...))`` in order of the rows' names, then the weights', then the
    counts' (``S__above[s, k]``, ``S__Y__above[s, k]``), only the counts read."""

    outputs: tuple[sympy.Expr, ...]
    rows: tuple[tuple[str, str, tuple[tuple[str, sympy.IndexedBase], ...]], ...]


def _count(row: sympy.IndexedBase, count: str, weights: sympy.IndexedBase | None = None) -> sympy.IndexedBase:
    return sympy.IndexedBase(f"{row.label}__{weights.label}__{count}" if weights is not None else f"{row.label}__{count}")


def _parts(base: sympy.IndexedBase) -> tuple[str, str, str] | None:
    """``(row, weights, count)`` of a count's name (``S__above``, ``S__Y__above``), else None."""
    head, _, count = str(base.label).rpartition("__")
    row, _, weights = head.partition("__")
    return (row, weights, count) if head and count in COUNTS and row else None


def _entries(a: sympy.Basic, b: sympy.Basic, index: sympy.Symbol):
    """``(row, sample, other class)`` if ``a`` is ``X[s, index]`` and ``b`` is ``X[s, k]`` for one
    array ``X``, one sample ``s`` and a class ``k`` other than ``index``; else None."""
    if not (isinstance(a, sympy.Indexed) and isinstance(b, sympy.Indexed) and a.base == b.base
            and a.base in (symbols.SCORE, symbols.TRUTH) and len(a.indices) == 2 == len(b.indices)):
        return None
    (sample, mine), (other_sample, other) = a.indices, b.indices
    if (sample != other_sample or not symbols.is_sample_index(sample) or mine != index
            or not symbols.is_index(other) or other == index or symbols.is_sample_index(other)):
        return None
    return a.base, sample, other


def _comparison(factor: sympy.Basic, index: sympy.Symbol):
    """``(row, sample, k, relation)`` if ``factor`` compares ``X[s, index]`` with ``X[s, k]``:
    ``[X[s, index] > X[s, k]]`` (and ``>=``, ``<``, ``<=``) or ``[X[s, index] = X[s, k]]``."""
    if isinstance(factor, sympy.KroneckerDelta):
        for a, b in (factor.args, factor.args[::-1]):
            found = _entries(a, b, index)
            if found:
                return (*found, "==")
        return None
    if not isinstance(factor, sympy.Heaviside) or len(factor.args) != 2 or factor.args[1] not in (0, 1):
        return None
    difference, strict = sympy.expand(factor.args[0]), factor.args[1] == 0
    terms = sympy.Add.make_args(difference)
    if len(terms) != 2:
        return None
    for plus, minus in (terms, terms[::-1]):
        if minus.could_extract_minus_sign() and not plus.could_extract_minus_sign():
            found = _entries(plus, -minus, index)  # [X[s, l] - X[s, k] (>|>=) 0]
            if found:
                return (*found, ">" if strict else ">=")
            found = _entries(-minus, plus, index)  # [X[s, k] - X[s, l] (>|>=) 0]: X[s, l] (<|<=) X[s, k]
            if found:
                return (*found, "<" if strict else "<=")
    return None


def _class_order(factor: sympy.Basic, index: sympy.Symbol, other: sympy.Symbol) -> str | None:
    """``"<"`` if ``factor`` is ``[index < other]`` (``Heaviside(other - index, 0)``), ``">"``
    if it is ``[index > other]``; else None."""
    if not isinstance(factor, sympy.Heaviside) or len(factor.args) != 2 or factor.args[1] != 0:
        return None
    difference = sympy.expand(factor.args[0])
    return {other - index: "<", index - other: ">"}.get(difference)


def _weight(factor: sympy.Basic, index: sympy.Symbol, sample: sympy.Symbol) -> bool:
    """True if ``factor`` is the truth of the compared entry, ``Y[s, index]``."""
    return isinstance(factor, sympy.Indexed) and factor.base == symbols.TRUTH and factor.indices == (sample, index)


def _counted(term: sympy.Expr, index: sympy.Symbol, weights: bool) -> sympy.Expr | None:
    """``Sum(term, (index, 0, C - 1))`` as counts of the row it compares, or None."""
    factors = sympy.Mul.make_args(term)
    for factor in factors:  # Sum([l = k] * f(l), l) = f(k): one class of the row
        if (isinstance(factor, sympy.KroneckerDelta) and index in factor.args
                and all(map(symbols.is_index, factor.args)) and factor.args[0] != factor.args[1]):
            other = next(a for a in factor.args if a != index)
            if not symbols.is_sample_index(other):
                return sympy.Mul(*(f for f in factors if f is not factor)).xreplace({index: other})
    outside = sympy.Mul(*(f for f in factors if not f.has(index)))
    inside = [f for f in factors if f.has(index)]
    comparisons = [(f, _comparison(f, index)) for f in inside if _comparison(f, index)]
    if len(comparisons) != 1:
        return None
    factor, (row, sample, other, relation) = comparisons[0]
    rest = [f for f in inside if f is not factor]
    weight = next((f for f in rest if weights and _weight(f, index, sample)), None)
    rest = [f for f in rest if f is not weight]
    order = _class_order(rest[0], index, other) if len(rest) == 1 and relation == "==" else None
    if rest and order is None:
        return None
    by = weight.base if weight is not None else None
    above, tied, before = (_count(row, c, by)[sample, other] for c in COUNTS[:3])
    size = symbols.N_CLASSES if weight is None else sympy.Sum(weight, (index, 0, symbols.N_CLASSES - 1))
    own = 1 if weight is None else weight.xreplace({index: other})  # the weight of the entry k itself
    counts = {">": above, ">=": above + tied, "<": size - above - tied, "<=": size - above, "==": tied}
    if order:
        counts["=="] = before if order == "<" else tied - before - own
    return outside * counts[relation]


def _ranked(total: sympy.Sum, weights: bool) -> sympy.Expr | None:
    if len(total.limits) > 1:  # Sum(f, l, j) = Sum(Sum(f, l), j): count over one index, sum the other
        for inner in total.limits:
            counted = _ranked(sympy.Sum(total.function, inner), weights)
            if counted is not None:
                return sympy.Sum(counted, *(limit for limit in total.limits if limit is not inner))
        return None
    index, low, high = total.limits[0]
    if low != 0 or high != symbols.N_CLASSES - 1:
        return None
    counted = [_counted(t, index, weights) for t in sympy.Add.make_args(sympy.expand_mul(total.function))]
    return None if any(c is None for c in counted) else sympy.Add(*counted)


def rewrite(outputs, weights: bool = False) -> Ranked:
    """``outputs`` with every sum over a class that compares entries of one row counted;
    ``weights``: also those weighted by the truth (labels or 0/1 indicators only).

    Inner sums first, so a sum whose terms held a ranked sum sees its counts."""
    rewritten = tuple(_top(rewrite_sums(o, lambda total: _ranked(total, weights))) for o in outputs)
    return Ranked(rewritten, rows_read(rewritten))


def rows_read(outputs) -> tuple[tuple[str, str, tuple[tuple[str, sympy.IndexedBase], ...]], ...]:
    """The rows whose counts ``outputs`` read, as :attr:`Ranked.rows`: after a later rewrite
    (the top label's sums gathered at the row's argmax) a count may no longer be read."""
    rows: dict[tuple[str, str], dict[str, sympy.IndexedBase]] = {}  # the counts read, by (row, weights)
    for atom in {atom for o in outputs for atom in o.atoms(sympy.Indexed)}:
        parts = _parts(atom.base)
        if parts:
            rows.setdefault(parts[:2], {})[parts[2]] = atom.base
    return tuple((row, by, tuple(sorted(counts.items()))) for (row, by), counts in sorted(rows.items()))


def top_row(base: sympy.Basic) -> str | None:
    """The row whose unweighted ``top`` count ``base`` is (``S`` of ``S__top``), else None."""
    parts = _parts(base) if isinstance(base, sympy.IndexedBase) else None
    return parts[0] if parts and parts[2] == "top" and not parts[1] else None


def _top(expr: sympy.Expr) -> sympy.Expr:
    """``[X__above[s, k] + X__tied_before[s, k] = 0]`` -> ``X__top[s, k]``: the top label (no
    entry above, none tied at an earlier class) is the row's first maximum, which the runtime
    finds by ``argmax`` without a sort when no other count is read."""
    def top(delta):
        for zero, total in (delta.args, delta.args[::-1]):
            terms = sympy.Add.make_args(total)
            if zero != 0 or len(terms) != 2 or not all(isinstance(t, sympy.Indexed) for t in terms):
                continue
            parts = [_parts(t.base) for t in terms]
            if (all(parts) and {p[2] for p in parts} == {"above", "tied_before"} and len({p[:2] for p in parts}) == 1
                    and not parts[0][1] and len({t.indices for t in terms}) == 1):  # unweighted counts only
                return _count(sympy.IndexedBase(parts[0][0]), "top")[terms[0].indices]
        return delta

    return expr.replace(lambda e: isinstance(e, sympy.KroneckerDelta), top)
