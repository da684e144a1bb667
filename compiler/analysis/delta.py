"""Derive each metric's delta-method gradient, and which metrics are proportions.

The model: the confusion matrix ``M`` (C x C, n samples) is one draw of a multinomial with
cell probabilities ``p = E[M] / n``, n fixed. A metric is a function ``f(M)``; to first order
``Var f = n (sum_ij p_ij G_ij**2 - (sum_ij p_ij G_ij)**2)`` with ``G_ij = df/dM_ij`` (the
gradient in counts; with ``g = dF/dp = n G`` this is the textbook ``(1/n)(sum p g**2 -
(sum p g)**2)``), evaluated at ``p = M / n``. Adding a constant to every ``G_ij`` leaves it
unchanged, so whether a formula reads ``n`` as a constant or as ``sum M`` does not matter.

What the compiler derives, per level (the runtime assembles ``G`` and the variance):

- class: the four partials ``df/dTP, df/dFP, df/dFN, df/dTN`` of the per-class formula. The
  runtime turns them, through the averaging, into ``G`` (``TP_k = M_kk``, ``FP_k`` the column
  ``k`` off the diagonal, ...). A metric parameter and a parameter whose default is computed
  from the counts each add a partial, which the runtime chains with the bound metric's or the
  default's own partials.
- aggregate: the partials of the formula in its averaged terms, and each term's four partials.
- matrix: ``G`` itself, a formula in two free class indices (row, column), by the chain rule
  through ``t[i]``, ``p[j]``, ``n`` and ``Sum`` (a ``Sum`` over ``KroneckerDelta(k, a) * f(k)``
  collapses to ``f(a)``). A per-class formula (``per_class: j``) gets ``G[j, a, b]``, one
  gradient per class, which the runtime averages as it averages the values.

Only cells with a positive count are weighed (the runtime gives the others weight 0), which
makes the x log x family differentiable: ``xlogy`` is differentiated on the interior, a zero
guard ``[X = 0]`` of a sum of counts is constant where the multinomial moves, and a case that
forces the cell itself to 0 (``t[a] = 0``) is no undefined case of ``G[a, b]``
(:mod:`metricc.compiler.analysis.support`).

A metric gets no gradient, with the reason in ``ir.Metric.no_delta`` (the runtime then offers
the bootstrap), where it is not differentiable in the counts (``abs``, ``min``, ``max``, ``Max(x, k)``,
indicators and steps of the data other than a matrix formula's zero guards), where a term averages over
instances, where an aggregate or matrix formula's parameter is another metric or has a default
computed from the counts, or where a partial exceeds the compile budget
(:mod:`metricc.compiler.analysis.budget`). Never an error: the build does not stop here.

A class-level metric whose simplified form is ``counts / counts`` with the numerator's counts
among the denominator's (``TP / (TP + FN)``), and a matrix-level one whose form is the
diagonal or off-diagonal cells over all of them, is a proportion: ``proportion`` names the
successes and trials, for the Wilson, Agresti-Coull and Clopper-Pearson intervals.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import sympy

from metricc.compiler.analysis import analyze, budget
from metricc.compiler.analysis.support import (
    at_a_positive_cell, cells, opaque, restored, weighed_out, zero_guard,
)
from metricc.compiler.language import averaging, ir, symbols
from metricc.compiler.language.levels import Partials, rules

__all__ = ["derive_metric", "derive_catalog", "cell_indices", "COUNT_ORDER"]

COUNT_ORDER = symbols.COUNTS  # TP, FP, FN, TN: the order of the four partials
_KINKS = (sympy.Abs, sympy.Min, sympy.Max, sympy.Heaviside, sympy.Piecewise, sympy.KroneckerDelta,
          sympy.sign, sympy.floor, sympy.ceiling, symbols.step, symbols.index_extreme, symbols.binomial_tail)
_KINK_NAMES = {sympy.Abs: "abs", sympy.Min: "min", sympy.Max: "max", symbols.step: "step",
               symbols.index_max: "a maximum over an index", symbols.index_min: "a minimum over an index",
               symbols.binomial_tail: "a binomial tail"}
_MATRIX_DATA = (symbols.M, symbols.ROW_TOTAL, symbols.COLUMN_TOTAL)


def _data(expr: sympy.Basic) -> bool:
    return analyze.depends_on_data(expr)


def _not_differentiable(expr: sympy.Expr, guards: bool = True) -> str:
    """Why ``expr`` is not differentiable in the data, or ''. Zero guards count as constants
    only where ``guards`` (matrix formulas): in a class formula a guard multiplies partials
    that can be infinite where it is 0 (``1 / sqrt(TP)`` under ``[TP != 0]``), and the class
    kernels would print ``0 * inf``."""
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, _KINKS) and _data(node) and not (guards and zero_guard(node)):
            name = _KINK_NAMES.get(type(node), "an indicator")
            return f"not differentiable in the counts ({name} of the data)"
    return ""


def _simplified(expr: sympy.Expr) -> sympy.Expr | None:
    """``expr`` simplified as the value is, or None when that exceeds the compile budget."""
    if budget.problem(expr):
        return None
    if not expr.has(sympy.Sum, sympy.Indexed) and expr.is_rational_function():
        numerator, denominator = sympy.fraction(sympy.cancel(expr))  # what simplify would reach, at a third of the cost
        return numerator / (sympy.factor(denominator) if analyze.depends_on_data(denominator) else denominator)
    simplified = analyze.simplify(expr)
    numerator, denominator = sympy.fraction(simplified)
    if denominator.has(sympy.Sum) or not analyze.depends_on_data(denominator):
        return simplified
    # a squared denominator stays a square: (TP + FN)**2, not TP**2 + 2*TP*FN + FN**2
    return numerator / sympy.factor(denominator)


def _partials(expr: sympy.Expr, wrt) -> tuple[sympy.Expr, ...] | None:
    out = []
    for symbol in wrt:
        partial = _simplified(sympy.diff(opaque(expr), symbol))
        if partial is None:
            return None
        out.append(restored(partial))
    return tuple(out)


def _undefined(partials, value_undefined) -> tuple[sympy.Expr, ...]:
    """Where the gradient is undefined: where the value is, and where a partial's own
    denominators or log arguments vanish (a root's derivative: ``1/sqrt(x)`` at ``x = 0``)."""
    found = {sympy.srepr(c): c for c in value_undefined}
    for partial in partials:
        found.update({sympy.srepr(c): c for c in analyze.undefined_cases(partial)})
    return tuple(found[k] for k in sorted(found, key=lambda k: (len(k), k)))


def _class_proportion(expr: sympy.Expr) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """``(("tp",), ("tp", "fn"))`` for ``TP / (TP + FN)``; None if ``expr`` is no such ratio."""
    numerator, denominator = sympy.fraction(sympy.together(expr))

    def counts_of(part):
        terms = sympy.Add.make_args(sympy.expand(part))
        if all(t in symbols.COUNTS for t in terms) and len(set(terms)) == len(terms):
            return tuple(str(t).lower() for t in COUNT_ORDER if t in terms)
        return None

    top, bottom = counts_of(numerator), counts_of(denominator)
    if top and bottom and set(top) < set(bottom):
        return top, bottom
    return None


def _matrix_proportion(expr: sympy.Expr) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """``(("diagonal",), ("all",))`` for ``Sum(M[k, k], k) / n``; None otherwise."""
    if expr.atoms(symbols.TermSymbol) or expr.atoms(sympy.IndexedBase) - set(_MATRIX_DATA):
        return None
    numerator, denominator = sympy.fraction(sympy.together(expr))
    names = []
    for n_classes in (2, 3):
        top, bottom = cells(numerator, n_classes), cells(denominator, n_classes)
        if top is None or bottom is None or set(bottom.values()) != {1}:
            return None
        if all(top[i, j] == (1 if i == j else 0) for i, j in top):
            names.append("diagonal")
        elif all(top[i, j] == (0 if i == j else 1) for i, j in top):
            names.append("off_diagonal")
        else:
            return None
    return ((names[0],), ("all",)) if len(set(names)) == 1 else None


def cell_indices(expr: sympy.Expr) -> tuple[sympy.Symbol, sympy.Symbol]:
    """Two new class indices for the row and column of ``G``, distinct from ``expr``'s own
    summation indices and in alphabetical order (the printer orders axes by name); the delta
    stage stores them in ``ir.Metric.gradient_cell``."""
    used = {str(s) for s in expr.atoms(sympy.Symbol)}
    free = [c for c in "abcdefghuvwxyz" if c not in used]
    return symbols.index_symbol(free[0]), symbols.index_symbol(free[1])


def _collapse(expr: sympy.Expr) -> sympy.Expr:
    """``Sum(KroneckerDelta(k, a) * f(k), (k, 0, C - 1))`` -> ``f(a)`` (``a`` is a class), term
    by term; terms without such a delta stay summed."""
    if not isinstance(expr, sympy.Basic) or not expr.args:
        return expr
    expr = expr.func(*[_collapse(a) for a in expr.args]) if not isinstance(expr, sympy.Sum) else expr
    if not isinstance(expr, sympy.Sum):
        return expr
    total = sympy.S.Zero
    for term in sympy.Add.make_args(sympy.expand(_collapse(expr.function), deep=False, mul=True, multinomial=False,
                                                 power_exp=False, power_base=False, log=False)):
        limits = list(expr.limits)
        changed = True
        while changed:
            changed = False
            for delta in [f for f in sympy.Mul.make_args(term) if isinstance(f, sympy.KroneckerDelta)]:
                for index, other in (delta.args, delta.args[::-1]):
                    if any(limit[0] == index for limit in limits):
                        term = (term / delta).xreplace({index: other})
                        limits = [limit for limit in limits if limit[0] != index]
                        changed = True
                        break
                if changed:
                    break
        total += sympy.Sum(term, *limits) if limits else term
    return total


def _matrix_gradient(expr: sympy.Expr, cell: tuple | None = None) -> sympy.Expr:
    """``dF/dM[a, b]`` with ``t[a]``, ``p[b]`` and ``n`` read as sums of cells, in the form of
    :func:`opaque` (:func:`restored` after simplification)."""
    row, column = cell or cell_indices(expr)
    c = sympy.Dummy("c", integer=True)
    expr = opaque(expr)
    total = sympy.diff(expr, symbols.M[row, column]) + sympy.diff(expr, symbols.N_TOTAL)
    total += sympy.diff(expr, symbols.ROW_TOTAL[c]).xreplace({c: row})
    total += sympy.diff(expr, symbols.COLUMN_TOTAL[c]).xreplace({c: column})
    return _collapse(total)


def _computed(metric: ir.Metric) -> list[ir.Param]:
    """The class_vector parameters whose default is a formula of the counts."""
    return [p for p in metric.params if p.kind == "class_vector" and _data(p.default)]


def _class_delta(metric: ir.Metric) -> ir.Metric:
    """The four partials, then one per metric parameter: ``df/dB`` with ``B = base(TP, FP, FN,
    TN)`` held as a variable, which the runtime multiplies by the bound metric's own partials
    (the chain rule ``df/dTP + df/dB dB/dTP``, whatever metric is bound at run time); then one
    per parameter whose default is computed from the counts, ``df/dkappa``, with the default's
    own four partials beside it: the runtime chains them only when the parameter is left at
    its default (a value the user gives is a constant)."""
    held = {p.symbol: sympy.Dummy(p.name, real=True) for p in metric.params if p.kind == "metric"}
    value = metric.simplified.xreplace(held)
    back = {v: k for k, v in held.items()}
    computed = _computed(metric)
    partials = _partials(value, (*COUNT_ORDER, *held.values(), *(p.symbol for p in computed)))
    if partials is not None:
        partials = tuple(p.xreplace(back) for p in partials)
    defaults = []
    for param in computed:
        reason = _not_differentiable(param.default, guards=False)
        inner = None if reason else _partials(param.default, COUNT_ORDER)
        if inner is None:
            return dataclasses.replace(metric, no_delta=f"the default of {param.name}: {reason}" if reason else
                                       "its gradient exceeds the compile budget")
        defaults.append(ir.DefaultGradient(param.name, inner, _undefined(inner, analyze.undefined_cases(param.default))))
    if partials is None:
        return dataclasses.replace(metric, no_delta="its gradient exceeds the compile budget")
    return dataclasses.replace(metric, gradient=partials, gradient_undefined=_undefined(partials, metric.undefined),
                               default_gradients=tuple(defaults), proportion=_class_proportion(metric.simplified) or ())


def _aggregate_delta(metric: ir.Metric) -> ir.Metric:
    if any(averaging.per_instance(t.mode) for t in metric.terms):
        return dataclasses.replace(metric, no_delta="a term averages over instances, not a function of one matrix")
    terms = []
    for term in metric.terms:
        reason = _not_differentiable(term.simplified, guards=False)
        partials = None if reason else _partials(term.simplified, COUNT_ORDER)
        if partials is None:
            return dataclasses.replace(metric, no_delta=reason or "its gradient exceeds the compile budget")
        terms.append(dataclasses.replace(term, gradient=partials,
                                         gradient_undefined=_undefined(partials, term.undefined)))
    partials = _partials(metric.simplified, [t.symbol for t in metric.terms])
    if partials is None:
        return dataclasses.replace(metric, no_delta="its gradient exceeds the compile budget")
    return dataclasses.replace(metric, terms=tuple(terms), gradient=partials,
                               gradient_undefined=_undefined(partials, metric.undefined))


def _quotient_rule(expr: sympy.Expr, cell: tuple) -> sympy.Expr | None:
    """``dF/dM[a, b]`` as ``(N' D - N D') / D**2`` of ``F = N / D`` over one denominator, or None
    when that too exceeds the budget. The chain rule through nested fractions (gwet_ac1's
    chance agreement inside ``1 - chance``) builds a fraction whose degree the budget refuses
    before simplification could cancel it; ``N'`` and ``D'`` are short sums."""
    numerator, denominator = sympy.fraction(sympy.together(expr))
    if not _data(denominator):
        return None
    top, bottom = (_simplified(_matrix_gradient(part, cell)) for part in (numerator, denominator))
    if top is None or bottom is None:
        return None
    return _simplified((top * denominator - numerator * bottom) / denominator ** 2)


def _class_counts(k) -> dict:
    """TP, FP, FN, TN of class ``k`` in the cells: ``M[k, k]``, the rest of column and row ``k``, the remainder."""
    M, t, p, n = symbols.M, symbols.ROW_TOTAL, symbols.COLUMN_TOTAL, symbols.N_TOTAL
    return dict(zip(COUNT_ORDER, (M[k, k], p[k] - M[k, k], t[k] - M[k, k], n - t[k] - p[k] + M[k, k])))


def _inlined(metric: ir.Metric) -> sympy.Expr | None:
    """The matrix formula with each per-class term ``recall[k]`` written in the cells
    (``M[k, k] / t[k]``), so that its gradient is a matrix gradient; None where a term is
    averaged or reads anything but its class's four counts (a parameter)."""
    expr = metric.simplified
    for term in metric.terms:
        if term.mode is not None or not term.simplified.free_symbols <= set(COUNT_ORDER):
            return None
        base = term.symbol if isinstance(term.symbol, sympy.IndexedBase) else sympy.IndexedBase(term.symbol)
        expr = expr.replace(lambda e: isinstance(e, sympy.Indexed) and e.base == base,
                            lambda e: term.simplified.xreplace(_class_counts(e.indices[0])))
    return None if expr.atoms(symbols.TermSymbol) else expr


def _at_the_class(gradient: sympy.Expr, index: sympy.Symbol) -> sympy.Expr:
    """``G[j, a, b]`` of a per-class value with the class ``j`` read as ``a`` (``b``) under
    ``[a = j]`` (``[b = j]``): ``[b = j] log(M[a, j])`` becomes ``[b = j] log(M[a, b])``, the
    weighed cell's own count, so that numpy does not print ``0 * log 0`` where ``b != j``."""
    def renamed(e):
        for factor in e.args:
            if isinstance(factor, sympy.KroneckerDelta) and index in factor.args:
                other = factor.args[1] if factor.args[0] == index else factor.args[0]
                return sympy.Mul(*[f if f is factor else f.xreplace({index: other}) for f in e.args])
        return e

    return gradient.replace(lambda e: isinstance(e, sympy.Mul) and any(
        isinstance(f, sympy.KroneckerDelta) and index in f.args for f in e.args), renamed)


def _per_class_delta(metric: ir.Metric) -> ir.Metric:
    """``G[j, a, b] = df_j/dM[a, b]`` for a formula with one value per class ``j``; the
    runtime averages it over ``j`` as it averages the values."""
    if metric.terms:
        return dataclasses.replace(metric, no_delta="terms in a per-class matrix formula are not derived yet")
    index = symbols.index_symbol(metric.per_class)
    row, column = cell_indices(metric.simplified)
    gradient = _simplified(_matrix_gradient(metric.simplified, (row, column)))
    if gradient is None:
        return dataclasses.replace(metric, no_delta="its gradient exceeds the compile budget")
    gradient = at_a_positive_cell(_at_the_class(_collapse(restored(gradient)), index), row, column)
    cases = [c for c in _undefined((gradient,), ()) if not weighed_out(c, row, column)]
    return dataclasses.replace(metric, gradient=(gradient,), gradient_cell=(row, column),
                               gradient_undefined=_undefined((), (*metric.undefined, *cases)))


def _matrix_delta(metric: ir.Metric) -> ir.Metric:
    if metric.per_class:
        return _per_class_delta(metric)
    value = _inlined(metric) if metric.terms else metric.simplified
    if value is None:
        return dataclasses.replace(metric, no_delta="averaged or parametrized terms in a matrix formula are not "
                                                    "derived yet")
    row, column = cell_indices(metric.simplified)
    gradient = _simplified(_matrix_gradient(value, (row, column)))
    if gradient is None:
        gradient = _quotient_rule(value, (row, column))
    if gradient is None:
        return dataclasses.replace(metric, no_delta="its gradient exceeds the compile budget")
    gradient = restored(gradient)
    gradient = at_a_positive_cell(gradient, row, column)
    cases = [c for c in _undefined((gradient,), ()) if not weighed_out(c, row, column)]
    return dataclasses.replace(metric, gradient=(gradient,), gradient_cell=(row, column),
                               gradient_undefined=_undefined((), (*metric.undefined, *cases)),
                               proportion=_matrix_proportion(metric.simplified) or ())


# What the gradient is taken in, as the level's row says (levels.RULES).
_BY_PARTIALS = {Partials.COUNTS: _class_delta, Partials.TERMS: _aggregate_delta, Partials.CELLS: _matrix_delta}


def derive_metric(metric: ir.Metric) -> ir.Metric:
    """Fill ``gradient``, ``gradient_undefined`` and ``proportion``, or ``no_delta``."""
    level = getattr(metric.level, "value", metric.level)
    partials = rules(level).partials
    if partials is None:
        return dataclasses.replace(metric, no_delta=f"a {level}-level metric is not a function of the confusion matrix")
    if partials is not Partials.COUNTS and any(p.kind == "metric" for p in metric.params):
        return dataclasses.replace(metric, no_delta="a parameter is another metric, whose gradient is not derived")
    computed = _computed(metric)
    if computed and partials is not Partials.COUNTS:
        return dataclasses.replace(metric, no_delta=f"the default of {computed[0].name} is computed from the counts, "
                                                    "which only class-level gradients chain")
    reason = _not_differentiable(metric.simplified, guards=partials is Partials.CELLS)
    if reason:
        return dataclasses.replace(metric, no_delta=reason)
    return _BY_PARTIALS[partials](metric)


def derive_catalog(metrics: Mapping[str, ir.Metric]) -> dict[str, ir.Metric]:
    """:func:`derive_metric` for every metric of the catalog."""
    return {metric_id: derive_metric(metric) for metric_id, metric in metrics.items()}
