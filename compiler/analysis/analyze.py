"""The analysis stage: each metric's canonical form and where it is undefined.

``SIMPLIFICATIONS`` are pure ``Expr -> Expr`` passes applied in order; :func:`simplify` keeps
guarded products, chosen thresholds and extremes over an index out of their reach. The
undefined cases are derived in :mod:`.undefined` (whose names are importable from here too,
where the later stages read them).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import sympy

from metricc.compiler.analysis.undefined import (
    DATA_SYMBOLS, GUARDS, case_conditions, denominators, depends_on_data, excused_denominators, excuses, guarded_case,
    is_guard, log_zeros, split_case, split_guards, undefined_cases, unmet_constraints,
)
from metricc.compiler.language import ir, symbols

__all__ = [
    "analyze_catalog",
    "SIMPLIFICATIONS", "simplify", "denominators", "excused_denominators", "excuses", "log_zeros", "undefined_cases",
    "GUARDS", "is_guard", "guarded_case", "split_case", "case_conditions",
    "analyze_metric", "depends_on_data", "unmet_constraints",
]


def _combine(expr: sympy.Expr) -> sympy.Expr:
    return sympy.together(expr)


def _cancel(expr: sympy.Expr) -> sympy.Expr:
    if expr.has(sympy.Sum):
        return expr
    return sympy.cancel(expr)


def _factor_terms(expr: sympy.Expr) -> sympy.Expr:
    return sympy.factor_terms(expr)


SIMPLIFICATIONS = (_combine, _cancel, _factor_terms)


def _has_data_denominator(expr: sympy.Expr) -> bool:
    return any(isinstance(p, sympy.Pow) and p.exp.is_number and p.exp.is_negative and depends_on_data(p.base)
               for p in sympy.preorder_traversal(expr))


def _hide_guarded(expr: sympy.Expr, hidden: dict) -> sympy.Expr:
    """Replace each guarded product with a data denominator by a placeholder, outermost first.

    Combining into one fraction would spread the guard over a sum (``TN - TN*[TP = 0]``) and put
    the denominators out of its reach; the product, its other factors simplified, comes back
    intact instead, so the analysis still sees what the guard zeroes and the emitted value is
    the guard times a finite number (0) where it does.
    """
    if isinstance(expr, sympy.Mul):
        guards, others = split_guards(expr)
        if guards and _has_data_denominator(sympy.Mul(*others)):
            placeholder = sympy.Dummy("guarded")
            hidden[placeholder] = sympy.Mul(*guards) * simplify(sympy.Mul(*others))
            return placeholder
    if not expr.args or isinstance(expr, (sympy.Sum, *GUARDS)):
        return expr
    args = tuple(_hide_guarded(a, hidden) for a in expr.args)
    return expr if args == expr.args else expr.func(*args)


def _hide_picks(expr: sympy.Expr, hidden: dict) -> sympy.Expr:
    """Replace each chosen-threshold value (``symbols.pick``) by a placeholder, its value and
    key simplified on their own and its constraint's sides kept as written: the constraint is
    compared as the spec writes it (``TP[i] / P >= r``, as the peers compare recall), and the
    passes over the whole formula must not reach into a bound index."""
    def hide(node: sympy.Expr) -> sympy.Expr:
        value, key, holds, index, last = node.args
        placeholder = sympy.Dummy("picked")
        hidden[placeholder] = symbols.pick(simplify(value), _ranking(simplify(key), index), holds, index, last)
        return placeholder
    return expr.replace(lambda e: isinstance(e, symbols.pick), hide)


def _hide_extremes(expr: sympy.Expr, hidden: dict) -> sympy.Expr:
    """Replace each extreme over an index (``symbols.index_extreme``, ``Max(x, k)``) by a
    placeholder, its term simplified on its own: the passes over the whole formula would
    otherwise reach into the bound index. A placeholder inside a sum keeps the enclosing
    indices its term uses (``Max(M[i, j], j)`` varies with the row ``i``), so nothing moves it
    out of that sum. Innermost first: a nested extreme is simplified with its term."""
    def hide(node: sympy.Expr) -> sympy.Expr:
        body, index, last = node.args
        outer = sorted((s for s in node.free_symbols if symbols.is_index(s)), key=str)
        placeholder = sympy.IndexedBase(sympy.Dummy("extreme"))[tuple(outer)] if outer else sympy.Dummy("extreme")
        hidden[placeholder] = type(node)(simplify(body.xreplace(hidden)), index, last)
        return placeholder
    return expr.replace(lambda e: isinstance(e, symbols.index_extreme), hide)


def _simplify_arguments(expr: sympy.Expr) -> sympy.Expr:
    """Each function argument simplified on its own where that cancels an undefined case: the
    passes over the whole formula treat ``min(...)``, ``abs(...)``, ``log(...)`` as opaque, so a
    referenced metric inside one would keep its written fractions (``f1`` as its precision and
    recall) and their denominators, undefining it where the reference itself has a value
    (``min(f1, 1)`` at TP = FP = 0 < FN, where f1 is 0). An argument whose cases stay as many
    keeps its written form."""
    def argument(a: sympy.Expr) -> sympy.Expr:
        if not _has_data_denominator(a):
            return a
        simplified = simplify(a)
        return simplified if len(undefined_cases(simplified)) < len(undefined_cases(a)) else a
    return expr.replace(lambda e: e.is_Function and not isinstance(e, sympy.Piecewise)  # branches: (value, condition)
                        and any(map(_has_data_denominator, e.args)),
                        lambda e: e.func(*map(argument, e.args)))


def _ranking(key: sympy.Expr, index: sympy.Symbol) -> sympy.Expr:
    """A pick's key without a non-negative factor that is the same at every threshold: it ranks
    the thresholds alike, and ``|FN[i] N - FP[i] P|`` compares counts exactly where
    ``|FP[i] / N - FN[i] / P|`` would round (equal error rates tie)."""
    key = key.replace(lambda e: isinstance(e, sympy.Abs), lambda e: sympy.Abs(sympy.together(e.args[0])))
    factor, rest = sympy.factor_terms(key).as_independent(index, as_Add=False)
    sign = -1 if factor.could_extract_minus_sign() else 1
    positive = {s: sympy.Dummy(positive=True) for s in factor.free_symbols & DATA_SYMBOLS}  # P, N: 0 is undefined anyway
    return sign * rest if (sign * factor).xreplace(positive).is_positive and rest.has(index) else key


def simplify(expr: sympy.Expr) -> sympy.Expr:
    """Canonical form: one fraction, common factors cancelled and pulled out; guarded products,
    chosen thresholds and extremes over classes kept (their terms simplified on their own)."""
    hidden: dict = {}
    expr = _hide_picks(expr, hidden)
    expr = _hide_extremes(expr, hidden)
    expr = _simplify_arguments(_hide_guarded(expr, hidden))
    for rewrite in SIMPLIFICATIONS:
        expr = rewrite(expr)
    return expr.xreplace(hidden)


def _analyze_term(term: ir.Term) -> ir.Term:
    simplified = simplify(term.expr)
    return dataclasses.replace(term, simplified=simplified, undefined=undefined_cases(simplified))


def _can_vanish(case: sympy.Expr, params: tuple[ir.Param, ...]) -> bool:
    """Whether ``case`` can be 0 for parameters in their declared domains. Decided for a case
    of one scalar parameter alone (``pt - 1`` with ``0 < pt < 1``: never, so no undefined case
    to list or test); any other case is kept (it may vanish with the data)."""
    free = case.free_symbols
    scalars = {p.symbol: p for p in params if p.kind == "scalar" and p.domain}
    if len(free) != 1 or case.atoms(sympy.Indexed) or next(iter(free)) not in scalars:
        return True
    x = next(iter(free))
    try:
        roots = sympy.solveset(case, x, sympy.S.Reals)
        allowed = sympy.And(*scalars[x].domain).as_set()
        return roots.intersect(allowed) != sympy.S.EmptySet
    except (NotImplementedError, TypeError, ValueError):
        return True


def analyze_metric(metric: ir.Metric) -> ir.Metric:
    """Fill ``simplified``, ``undefined`` and ``excused`` (equivalences are proved catalog-wide);
    undefined cases that no parameter value in its domain reaches are left out."""
    simplified = simplify(metric.written)
    terms = tuple(_analyze_term(t) for t in metric.terms)
    undefined = tuple(c for c in undefined_cases(simplified) if _can_vanish(c, metric.params))
    return dataclasses.replace(metric, simplified=simplified, undefined=undefined,
                               excused=excused_denominators(simplified), terms=terms)


def analyze_catalog(metrics: Mapping[str, ir.Metric]) -> dict[str, ir.Metric]:
    """:func:`analyze_metric` for every metric of the catalog."""
    return {metric_id: analyze_metric(metric) for metric_id, metric in metrics.items()}
