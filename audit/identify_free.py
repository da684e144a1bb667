"""A formula with a free class index is a per-class (or per-pair) value: of which catalog metric?

Wang et al. print CEN_j (Eq. 7), the confusion entropy of class j, and AUC(j, k) (Eq. 13),
the AUC of class j against class k. CEN_j is the catalog's ``class_cen`` (a matrix formula
with ``per_class: j``, matched by :mod:`.identify_per_class`); there is no per-pair AUC. The
metrics built from them are: cen, the sum of CEN_j weighted by P_j = (t_j + p_j) / (2n) (Eq.
10-11), au1u the mean of AUC(j, k) over the ordered pairs of distinct classes, au1p that mean
weighted by the prevalence of j. So the free indices are summed in the usual ways and each sum
is identified; a match is reported as the nearest metric with the sentence that says how it is
built from the formula (and, without a per-class match, that the catalog has no such value).
"""

from __future__ import annotations

import sympy

from metricc.audit.identify_numeric import numeric_matches
from metricc.audit.notation import CLASS_COUNTS, unless_equal
from metricc.compiler.language import symbols

__all__ = ["free_indices", "nearest_aggregates"]

N, C = symbols.N_TOTAL, symbols.N_CLASSES


def free_indices(expr) -> tuple[sympy.Symbol, ...]:
    """The class indices no sum binds (``j`` of CEN_j, ``j, k`` of AUC(j, k))."""
    used = {s for node in expr.atoms(sympy.Indexed) for i in node.indices for s in i.free_symbols}
    return tuple(sorted(used & expr.free_symbols, key=lambda s: s.name))


def _support(j):
    return CLASS_COUNTS["TP"][j] + CLASS_COUNTS["FN"][j]


def _aggregates(expr, free) -> list[tuple[sympy.Expr, str]]:
    """(a sum over the free indices, how the metric is built from the formula)."""
    if len(free) == 1:
        j = free[0]
        mass = 2 * CLASS_COUNTS["TP"][j] + CLASS_COUNTS["FP"][j] + CLASS_COUNTS["FN"][j]
        return [
            (sympy.Sum(expr, (j, 0, C - 1)) / C, "its mean over the classes"),
            (sympy.Sum(expr, (j, 0, C - 1)), "its sum over the classes"),
            (sympy.Sum(mass / (2 * N) * expr, (j, 0, C - 1)),
             f"its sum over the classes weighted by P_{j} = (t_{j} + p_{j}) / (2n)"),
            (sympy.Sum(_support(j) / N * expr, (j, 0, C - 1)), "its sum over the classes weighted by their prevalence"),
        ]
    if len(free) == 2:
        j, k = free
        pairs = unless_equal(expr, k, j)
        return [
            (sympy.Sum(pairs, (k, 0, C - 1), (j, 0, C - 1)) / (C * (C - 1)),
             f"its mean over the ordered pairs of distinct classes ({j}, {k})"),
            (sympy.Sum(_support(j) / N * pairs, (k, 0, C - 1), (j, 0, C - 1)) / (C - 1),
             f"its sum over the ordered pairs of distinct classes ({j}, {k}) weighted by the prevalence of {j}, "
             "divided by C - 1"),
        ]
    return []


def nearest_aggregates(expr, free, limit: int = 3, matched: bool = False) -> list[tuple[str, str | None, str]]:
    """(metric, average, differs) of the catalog metrics the formula is a per-class or
    per-pair value of; ``matched``: a per-class metric of the catalog is the formula itself."""
    what = "per-class" if len(free) == 1 else "per-pair"
    out: dict = {}
    for aggregate, built in _aggregates(expr, free):
        for variant, _ in numeric_matches(aggregate, "any"):
            key = variant[:2]
            name = f"{key[0]} [{key[1]}]" if key[1] else key[0]
            missing = "" if matched else f"; the catalog has no {what} {name}"
            out.setdefault(key, f"a {what} value: {name} is {built}{missing}")
    return [(metric, mode, differs) for (metric, mode), differs in list(out.items())[:limit]]
