"""Sums over a one-hot truth row as gathers: ``Sum(Y[s, k] * f(s, k), k)`` -> ``f(s, y[s])``.

Where the truth is one label per sample, row ``s`` of ``Y`` is 1 at the true class ``y[s]``
and 0 elsewhere, so a class sum weighted by it picks one term: the log loss's
``Sum(Y[s, k] * S[s, k], k)`` is the true class's score, top-k accuracy's rank of the true
class compares the row with that one score. Printed as they stand, both multiply ``(n, C)``
arrays (the one-hot ``Y`` among them) only to add zeros; gathered, they read ``S[s, y[s]]``
(``S__true``, one ``take_along_axis``) and the true class itself (``Y__class``), and a
comparison with the true class's score is one pass over the scores, no sort. Run again after
the row ranks (:mod:`.row_ranks`), a sum of a count array read elsewhere too (calibration's
top label, both its confidence and its correctness) gathers that array: ``S__top__true``.

A sum over the other classes ``(1 - Y[s, k])`` of ``[no other class ahead of k] * f(s, k)``
(ahead: a higher score, or the same at an earlier class) picks one term too, the first maximum
of the row among the classes other than the true one (hinge loss's best wrong class):
``f(s, Y__other[s])``, the row's maximum with its true entry masked, one pass and no sort.

A sum over the classes of the top label's one-hot row (:mod:`.row_ranks`' ``S__top``, 1 at
the row's first maximum) times ``f(s, k)`` picks one term the same way: ``f`` at the row's
``argmax`` (the first of tied maxima, as ``top``), the score there ``S__max`` and the truth
there ``[y[s] = argmax]`` (:func:`at_top`): calibration's confidence and correctness without
the ``(n, C)`` top array.

The value is the same float: the dropped terms are exact zeros, ``0 * f`` for a finite ``f``.
So only bodies finite wherever the scores are (sums, products, whole powers, indicators,
``max``, ``abs``, ``floor`` of scores and counts) are gathered: ``0 * log(0)`` is NaN in the
sum, and stays so. A body that reads the class ``k`` other than in the true sample's row
(``S[u, k]`` of another sample, a class parameter ``w[k]``) is left as it is.
"""

from __future__ import annotations

import sympy

from metricc.compiler.emit.row_ranks import top_row
from metricc.compiler.emit.sums import rewrite_sums
from metricc.compiler.language import symbols

__all__ = ["OTHER_CLASS", "TRUE_CLASS", "TRUE_COUNTS", "at_top", "column_bases", "gathered_bases", "other_bases", "rewrite",
           "top_bases", "true_counts"]

TRUE_CLASS = sympy.IndexedBase("Y__class")  # the true class of each sample: y[s]
OTHER_CLASS = sympy.IndexedBase("Y__other")  # the first maximum of each row among the other classes
_SUFFIX = "__true"  # X[s, y[s]] is X__true[s]: S__true the true class's score, S__top__true its top mark
_OTHER_SUFFIX = "__other"  # X[s, Y__other[s]]: S__other the best score among the other classes

_FINITE = (sympy.Add, sympy.Mul, sympy.Indexed, sympy.Idx, sympy.Symbol, sympy.Number, sympy.Heaviside,
           sympy.KroneckerDelta, sympy.Sum, sympy.Tuple, sympy.Max, sympy.Min, sympy.Abs, sympy.floor,
           sympy.IndexedBase, symbols.step)


def _finite(expr: sympy.Basic) -> bool:
    """Whether ``expr`` is finite wherever the scores and counts are: no logarithm, no division."""
    if isinstance(expr, sympy.Pow):
        return expr.exp.is_Integer and expr.exp > 0 and _finite(expr.base)
    if isinstance(expr, sympy.Heaviside):  # its second argument is the value at 0, a number
        return _finite(expr.args[0])
    return isinstance(expr, _FINITE) and all(map(_finite, expr.args))


def _gathered(total: sympy.Sum, elsewhere: tuple[sympy.Expr, ...]) -> sympy.Expr | None:
    """``f(s, y[s])`` of ``Sum(Y[s, k] * f(s, k), (k, 0, C - 1))``, or None; also None where a sum
    inside ``f`` is read ``elsewhere`` as well, in whatever form the rebuilt terms take (its
    array, computed anyway, is gathered after the ranks)."""
    if len(total.limits) != 1:
        return None
    index, low, high = total.limits[0]
    if low != 0 or high != symbols.N_CLASSES - 1:
        return None
    factors = sympy.Mul.make_args(total.function)
    truth = next((f for f in factors if _truth_entry(f, index)), None)
    if truth is None:
        return _split(total, elsewhere)
    sample = truth.indices[0]
    body = sympy.Mul(*(f for f in factors if f is not truth))
    if not _finite(body):
        return None
    rest = {a for e in elsewhere for a in e.atoms(sympy.Sum)} - total.atoms(sympy.Sum)
    if any(a.limits == inner.limits and sympy.expand(_any_sample(a.function) - _any_sample(inner.function)) == 0
           for inner in body.atoms(sympy.Sum) for a in rest):
        return None
    rows = {a: sympy.S.One if a.base == symbols.TRUTH else sympy.IndexedBase(f"{a.base.label}{_SUFFIX}")[sample]
            for a in body.atoms(sympy.Indexed) if a.indices == (sample, index)}
    picked = body.xreplace(rows).xreplace({index: TRUE_CLASS[sample]})
    if any(TRUE_CLASS[sample] in atom.indices for atom in picked.atoms(sympy.Indexed)):
        return None  # the class read elsewhere than in the sample's own row of an array
    return picked


def _any_sample(expr: sympy.Expr) -> sympy.Expr:
    """``expr`` with its sample indices renamed alike: a row's array serves every sample."""
    return expr.xreplace({i: _SAMPLE for i in expr.free_symbols if symbols.is_sample_index(i)})


_SAMPLE = sympy.Dummy("sample")


def _truth_entry(factor: sympy.Basic, index: sympy.Symbol) -> bool:
    return (isinstance(factor, sympy.Indexed) and factor.base == symbols.TRUTH and factor.indices[1] == index
            and symbols.is_sample_index(factor.indices[0]))


def _whole(term: sympy.Expr) -> bool:
    """Whether ``term`` is a whole number wherever the scores are finite: integers times
    indicators and truth entries, so its sums are exact in any grouping."""
    return all(f.is_Integer or isinstance(f, sympy.KroneckerDelta) or isinstance(f, sympy.Indexed) and f.base == symbols.TRUTH
               or isinstance(f, sympy.Heaviside) and f.args[1] in (0, 1) for f in sympy.Mul.make_args(term))


def _split(total: sympy.Sum, elsewhere) -> sympy.Expr | None:
    """``Sum((1 - Y[s, l]) * g(l), l)`` of whole-number terms (hinge loss's count of the other
    classes ahead) -> ``Sum(g(l), l) - g(y[s])``: the same whole number, one sum fewer to weigh
    by the truth (the row ranks then sort without weights)."""
    index = total.limits[0][0]
    terms = sympy.Add.make_args(sympy.expand_mul(total.function))
    weighed = [t for t in terms if any(_truth_entry(f, index) for f in sympy.Mul.make_args(t))]
    if not weighed or not all(map(_whole, terms)):
        return None
    picked = [_gathered(sympy.Sum(t, *total.limits), elsewhere) for t in weighed]
    if any(p is None for p in picked):
        return None
    return sympy.Sum(sympy.Add(*(t for t in terms if t not in weighed)), *total.limits) + sympy.Add(*picked)


def gathered_bases(outputs) -> list[tuple[str, sympy.IndexedBase]]:
    """``[(array name, gathered base)]`` read by ``outputs``, by name: ``("S", S__true)``; the
    true score is read by the counts against it too."""
    found = {a.base for o in outputs for a in o.atoms(sympy.Indexed) if str(a.base.label).endswith(_SUFFIX)}
    found |= {sympy.IndexedBase(f"S{_SUFFIX}") for _ in true_counts(outputs)[:1]}
    return sorted((str(b.label)[:-len(_SUFFIX)], b) for b in found)


# Counts of a row's entries against the true class's score, by name: the comparison of S with
# S__true and, for ties, the class order against the true class (code of S, S__true, Y__class and the
# classes ``{classes}``, which the level's printer writes in its namespace).
TRUE_COUNTS = {
    "above": "S > S__true[:, None]",
    "at_least": "S >= S__true[:, None]",
    "below": "S < S__true[:, None]",
    "at_most": "S <= S__true[:, None]",
    "tied": "S == S__true[:, None]",
    "tied_before": "(S == S__true[:, None]) & ({classes} < Y__class[:, None])",
    "tied_after": "(S == S__true[:, None]) & ({classes} > Y__class[:, None])",
}
_RELATIONS = {(1, 0): "above", (1, 1): "at_least", (-1, 0): "below", (-1, 1): "at_most"}


def _true_count(factor: sympy.Basic, index: sympy.Symbol, sample: sympy.Symbol) -> str | None:
    """The count of ``TRUE_COUNTS`` whose entry ``[index]`` is ``factor`` (a comparison of
    ``S[s, index]`` with ``S__true[s]``), else None."""
    entry, true = symbols.SCORE[sample, index], sympy.IndexedBase(f"S{_SUFFIX}")[sample]
    if isinstance(factor, sympy.KroneckerDelta):
        return "tied" if set(factor.args) == {entry, true} else None
    if not isinstance(factor, sympy.Heaviside) or len(factor.args) != 2 or factor.args[1] not in (0, 1):
        return None
    difference = sympy.expand(factor.args[0])
    sign = 1 if difference == entry - true else -1 if difference == true - entry else 0
    return _RELATIONS.get((sign, int(factor.args[1])))


def _class_side(factor: sympy.Basic, index: sympy.Symbol, sample: sympy.Symbol) -> str | None:
    """``"before"`` for ``[index < y[s]]``, ``"after"`` for ``[index > y[s]]``, else None."""
    if not isinstance(factor, sympy.Heaviside) or len(factor.args) != 2 or factor.args[1] != 0:
        return None
    difference = sympy.expand(factor.args[0])
    return {TRUE_CLASS[sample] - index: "before", index - TRUE_CLASS[sample]: "after"}.get(difference)


def _counted_term(term: sympy.Expr, index: sympy.Symbol) -> sympy.Expr | None:
    factors = sympy.Mul.make_args(term)
    inside = [f for f in factors if f.has(index)]
    samples = {a.indices[0] for f in inside for a in f.atoms(sympy.Indexed) if a.base == symbols.SCORE}
    if len(samples) != 1:
        return None
    sample = samples.pop()
    counts = [c for c in (_true_count(f, index, sample) for f in inside) if c]
    sides = [c for c in (_class_side(f, index, sample) for f in inside) if c]
    if len(counts) != 1 or len(counts) + len(sides) != len(inside) or len(sides) > 1 or sides and counts != ["tied"]:
        return None
    name = f"tied_{sides[0]}" if sides else counts[0]
    outside = sympy.Mul(*(f for f in factors if not f.has(index)))
    return outside * sympy.IndexedBase(f"S{_SUFFIX}_{name}")[sample]  # one underscore: no row_ranks count


def _counted(total: sympy.Sum) -> sympy.Expr | None:
    """``Sum([S[s, l] > S__true[s]] + [S[s, l] = S__true[s]] * [l > y[s]], l)`` as counts of the
    row against the true score, ``S__true_above[s] + S__true_tied_after[s]``: one pass over
    the scores (``np.count_nonzero``), whole numbers as the sum of zeros and ones is."""
    if len(total.limits) != 1 or tuple(total.limits[0][1:]) != (0, symbols.N_CLASSES - 1):
        return None
    index = total.limits[0][0]
    counted = [_counted_term(t, index) for t in sympy.Add.make_args(sympy.expand_mul(total.function))]
    return None if any(c is None for c in counted) else sympy.Add(*counted)


def true_counts(outputs) -> list[tuple[str, sympy.IndexedBase]]:
    """``[(count, base)]`` of ``TRUE_COUNTS`` read by ``outputs``, by name."""
    prefix = f"S{_SUFFIX}_"
    found = {a.base for o in outputs for a in o.atoms(sympy.Indexed) if str(a.base.label).startswith(prefix)}
    return sorted((str(b.label)[len(prefix):], b) for b in found)


def _other_top(total: sympy.Sum) -> sympy.Expr | None:
    """``f(s, Y__other[s])`` of ``Sum((1 - Y[s, k]) * [0 = Sum((1 - Y[s, l]) * ([S[s, l] > S[s, k]]
    + [S[s, l] = S[s, k]] * [l < k]), l)] * f(s, k), k)``, else None: of the other classes
    exactly one has none of the others ahead, the first maximum among them (``C >= 2``)."""
    if len(total.limits) != 1 or tuple(total.limits[0][1:]) != (0, symbols.N_CLASSES - 1):
        return None
    k = total.limits[0][0]
    factors = sympy.Mul.make_args(total.function)
    others = [f for f in factors if isinstance(f, sympy.Add) and _other_entry(f, k)]
    firsts = [f for f in factors if isinstance(f, sympy.KroneckerDelta) and 0 in f.args]
    if len(others) != 1 or len(firsts) != 1:
        return None
    sample = _other_entry(others[0], k)
    ahead = next(a for a in firsts[0].args if a != 0)
    if not (isinstance(ahead, sympy.Sum) and len(ahead.limits) == 1
            and tuple(ahead.limits[0][1:]) == (0, symbols.N_CLASSES - 1)):
        return None
    l = ahead.limits[0][0]
    entry, other = symbols.SCORE[sample, l], symbols.SCORE[sample, k]
    first = (1 - symbols.TRUTH[sample, l]) * (sympy.Heaviside(entry - other, 0)
                                              + sympy.KroneckerDelta(entry, other) * sympy.Heaviside(k - l, 0))
    if l == k or sympy.expand(ahead.function - first) != 0:
        return None
    body = sympy.Mul(*(f for f in factors if f is not others[0] and f is not firsts[0]))
    if not _finite(body):
        return None
    rows = {a: sympy.S.Zero if a.base == symbols.TRUTH else sympy.IndexedBase(f"{a.base.label}{_OTHER_SUFFIX}")[sample]
            for a in body.atoms(sympy.Indexed) if a.indices == (sample, k)}
    picked = body.xreplace(rows).xreplace({k: OTHER_CLASS[sample]})
    if any(OTHER_CLASS[sample] in atom.indices for atom in picked.atoms(sympy.Indexed)):
        return None
    return picked


def _other_entry(factor: sympy.Expr, index: sympy.Symbol) -> sympy.Symbol | None:
    """The sample ``s`` if ``factor`` is ``1 - Y[s, index]``, else None."""
    truths = [a for a in factor.atoms(sympy.Indexed) if a.base == symbols.TRUTH and a.indices[1] == index]
    if len(truths) == 1 and symbols.is_sample_index(truths[0].indices[0]) and sympy.expand(factor - 1 + truths[0]) == 0:
        return truths[0].indices[0]
    return None


def other_bases(outputs) -> list[tuple[str, sympy.IndexedBase]]:
    """``[(array name, base)]`` gathered at the first maximum among the other classes, by name."""
    found = {a.base for o in outputs for a in o.atoms(sympy.Indexed) if str(a.base.label).endswith(_OTHER_SUFFIX)}
    return sorted((str(b.label)[:-len(_OTHER_SUFFIX)], b) for b in found)


def _column(total: sympy.Sum) -> sympy.Expr | None:
    """``f(s, c)`` of ``Sum([k = c] * f(s, k), k)`` for the class ``c`` 0 or 1, which every score
    matrix has (``C >= 2``), ``f`` finite and reading the scores' row ``s`` alone: the binary
    hinge's decision value ``S[s, 1]`` is one column (``S__column1``), not a sum over the row."""
    if len(total.limits) != 1 or tuple(total.limits[0][1:]) != (0, symbols.N_CLASSES - 1):
        return None
    k = total.limits[0][0]
    factors = sympy.Mul.make_args(total.function)
    picks = [f for f in factors if isinstance(f, sympy.KroneckerDelta) and k in f.args and set(f.args) - {k} <= {0, 1}]
    if len(picks) != 1 or picks[0].args[0] == picks[0].args[1]:
        return None
    column = next(a for a in picks[0].args if a != k)
    body = sympy.Mul(*(f for f in factors if f is not picks[0]))
    reads = [a for a in body.atoms(sympy.Indexed) if k in a.indices]
    if not _finite(body) or any(a.base != symbols.SCORE or not symbols.is_sample_index(a.indices[0]) or a.indices[1] != k
                                for a in reads):
        return None
    picked = body.xreplace({a: sympy.IndexedBase(f"S{_COLUMN_SUFFIX}{column}")[a.indices[0]] for a in reads})
    return None if picked.has(k) else picked


_COLUMN_SUFFIX = "__column"


def column_bases(outputs) -> list[tuple[int, sympy.IndexedBase]]:
    """``[(class, base)]`` of the score columns read by ``outputs`` (``S__column1``), by class."""
    prefix = f"S{_COLUMN_SUFFIX}"
    found = {a.base for o in outputs for a in o.atoms(sympy.Indexed) if str(a.base.label).startswith(prefix)}
    return sorted((int(str(b.label)[len(prefix):]), b) for b in found)


_ARGMAX_SUFFIX, _MAX_SUFFIX = "__argmax", "__max"  # S__argmax[s] the class of the row's first maximum, S__max[s] its score


def _on_top(total: sympy.Sum) -> sympy.Expr | None:
    """``f(s, S__argmax[s])`` of ``Sum(S__top[s, k] * f(s, k), (k, 0, C - 1))``, ``f`` finite and
    reading the class ``k`` only in row ``s`` of the scores ranked (``S__max[s]``) or of the
    one-hot truth (``[y[s] = S__argmax[s]]``); else None."""
    if len(total.limits) != 1 or tuple(total.limits[0][1:]) != (0, symbols.N_CLASSES - 1):
        return None
    k = total.limits[0][0]
    factors = sympy.Mul.make_args(total.function)
    tops = [f for f in factors if isinstance(f, sympy.Indexed) and top_row(f.base) and f.indices[1:] == (k,)
            and symbols.is_sample_index(f.indices[0])]
    if len(tops) != 1 or top_row(tops[0].base) == str(symbols.TRUTH.label):
        return None
    sample, row = tops[0].indices[0], top_row(tops[0].base)
    body = sympy.Mul(*(f for f in factors if f is not tops[0]))
    reads = [a for a in body.atoms(sympy.Indexed) if k in a.indices]
    if not _finite(body) or any(a.indices != (sample, k) or a.base not in (symbols.TRUTH, sympy.IndexedBase(row))
                                for a in reads):
        return None
    argmax = sympy.IndexedBase(f"{row}{_ARGMAX_SUFFIX}")[sample]
    picked = body.xreplace({a: sympy.KroneckerDelta(TRUE_CLASS[sample], argmax) if a.base == symbols.TRUTH
                            else sympy.IndexedBase(f"{row}{_MAX_SUFFIX}")[sample] for a in reads})
    return None if picked.has(k) else picked


def at_top(outputs) -> tuple[sympy.Expr, ...]:
    """``outputs`` with every class sum weighted by a top label's one-hot row read at the row's
    argmax (run after the row ranks, before :func:`rewrite` gathers what is left at ``y[s]``)."""
    return tuple(rewrite_sums(o, _on_top) for o in outputs)


def top_bases(outputs) -> list[tuple[str, sympy.IndexedBase, sympy.IndexedBase | None]]:
    """``[(row, argmax base, max base or None)]`` of the rows read at their argmax, by name."""
    found = {str(a.base.label) for o in outputs for a in o.atoms(sympy.Indexed)}
    rows = sorted({name.removesuffix(suffix) for name in found for suffix in (_ARGMAX_SUFFIX, _MAX_SUFFIX)
                   if name.endswith(suffix) and "__" not in name.removesuffix(suffix)})
    return [(row, sympy.IndexedBase(f"{row}{_ARGMAX_SUFFIX}"),
             sympy.IndexedBase(f"{row}{_MAX_SUFFIX}") if f"{row}{_MAX_SUFFIX}" in found else None) for row in rows]


def rewrite(outputs) -> tuple[sympy.Expr, ...]:
    """``outputs`` with every class sum over a one-hot truth row gathered, inner sums first,
    and the sums comparing a row with its true class's score counted; a row's fixed class 0
    or 1 is read as a column."""
    outputs = tuple(rewrite_sums(o, _other_top) for o in outputs)
    gathered = (rewrite_sums(o, lambda total: _gathered(total, outputs)) for o in outputs)
    return tuple(rewrite_sums(rewrite_sums(o, _counted), _column) for o in gathered)
