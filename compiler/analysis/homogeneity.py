"""Whether a metric's value is homogeneous of degree 0 in the counts: unchanged when the
matrix (or the per-class counts) is scaled by any positive factor; for graded relevance
(``truth: relevance``), unchanged when one sample's gains are.

Rates, ratios, correlations and agreement coefficients are, and so is ndcg in each sample's
gains; chi-squared, error counts and dcg are not. For such a metric the emitted function
scales a real-valued matrix with a tiny total (subnormal weights) by a power of two before the
formula (the runtime's ``rescaled``), where float64 products of the counts would otherwise
underflow to 0 / 0, or each row of gains whose largest is huge or tiny (``rescaled_rows``),
where the sums of gains 1e308 overflow.

The test is exact arithmetic at fixed generic points of a 3-class matrix (or of TP, FP, FN,
TN): ``f(s x) = f(x)`` for two factors ``s`` at two points, the way identity testing proves a
rational function zero with high probability. The proof composes: a term of another metric
(``macro(recall)``, ``recall[k]``) whose per-class formula, its bindings applied, is of degree
0 is a constant of the scale (every averaging mode scales a row of classes alike), and so is a
metric parameter (iba's ``base``), whose binding the runtime checks at each call (a metric
bound there is scaled only if it is ``scale_free`` itself: :func:`metricc.runtime.terms.rescaled_counts`).
A metric the test cannot read is not scaled, which only leaves its old behaviour in place.
"""

from __future__ import annotations

import sympy

from metricc.compiler.analysis import support
from metricc.compiler.language import ir, symbols

__all__ = ["degree_zero"]

_FACTORS = (sympy.Integer(2), sympy.Rational(1, 3))
_N_CLASSES = 3
_DIGITS = 40  # a root or a logarithm is compared to this many digits
_GENERIC = sympy.Rational(2, 7)  # a parameter value no default takes


def degree_zero(metric: ir.Metric) -> bool:
    """True when the value of a count-level metric is the same for counts scaled by
    any positive factor, and that of a score-level metric of graded relevance for the gains of
    a sample scaled so; for the parameters' defaults and for other values alike (checked at
    generic points; see the module docstring)."""
    level = getattr(metric.level, "value", metric.level)
    if level == "score":
        return _rows_degree_zero(metric)
    if level not in ("class", "aggregate", "matrix") or (level != "class" and any(p.kind == "metric" for p in metric.params)):
        return False  # the runtime checks a metric parameter's binding at class level only
    for values in _parameter_values(metric):
        if not all(_degree_zero(term.simplified.xreplace(values), "class") for term in metric.terms):
            return False
        expr = metric.simplified.xreplace(values).xreplace(_constants(metric))
        if not _degree_zero(expr, "class" if level == "aggregate" else level):
            return False
    return True


def _constants(metric: ir.Metric) -> dict:
    """Generic constants for the atoms proved (terms) or required at the call (metric
    parameters) to be of degree 0: an averaged term's symbol, a metric parameter's application.
    A per-class term ``recall[k]`` is an entry of a class vector, which the matrix test fixes."""
    atoms = [t.symbol for t in metric.terms if isinstance(t.symbol, sympy.Symbol)]
    atoms += [p.symbol for p in metric.params if p.kind == "metric"]
    return {atom: _GENERIC + sympy.Rational(k + 1, 11) for k, atom in enumerate(atoms)}


def _rows_degree_zero(metric: ir.Metric) -> bool:
    """Graded relevance: the value is the same when the gains of one sample (a row of ``Y``)
    are scaled by any positive factor; checked on two samples of two classes, the first one's
    gains scaled, with scores that rank them wrongly."""
    if metric.truth != "relevance" or any(p.kind != "scalar" for p in metric.params):
        return False
    gains, scores = ((5, 3), (0, 2)), ((1, 3), (2, 1))
    for values in _parameter_values(metric):
        expr = metric.simplified.xreplace(values).subs({symbols.N_TOTAL: 2, symbols.N_CLASSES: 2}).doit()
        point = {symbols.SCORE[s, k]: sympy.Integer(scores[s][k]) for s in range(2) for k in range(2)}
        point.update({symbols.TRUTH[s, k]: sympy.Integer(gains[s][k]) for s in range(2) for k in range(2)})
        concrete = expr.xreplace({y: v for y, v in point.items() if y.base == symbols.TRUTH and y.indices[0] != 0})
        concrete = concrete.xreplace({y: v for y, v in point.items() if y.base == symbols.SCORE})
        first = {y: v for y, v in point.items() if y.base == symbols.TRUTH and y.indices[0] == 0}
        if concrete.free_symbols - set(first) - {symbols.TRUTH.label, symbols.SCORE.label} or not _unchanged(concrete, first):
            return False
    return True


def _parameter_values(metric: ir.Metric) -> list[dict]:
    """The parameters at their defaults, then at a generic value: a value homogeneous only at
    the default (``(TP + a) / (n + 2 a)`` at ``a = 0``) is not, for a caller who passes another."""
    params = [p for p in metric.params if p.kind in ("scalar", "class_vector") and isinstance(p.symbol, sympy.Symbol)]
    return [{p.symbol: p.default for p in params}, {p.symbol: _GENERIC for p in params}]


def _degree_zero(expr: sympy.Expr, level: str) -> bool:
    if level == "class":
        variables = symbols.COUNTS
        points = [{c: sympy.Integer(3 + 7 * k + 5 * shift) for k, c in enumerate(variables)} for shift in (0, 1)]
        return expr.free_symbols <= set(variables) and all(_unchanged(expr, point) for point in points)
    loose = sorted((s for s in expr.free_symbols if s.is_integer and s not in (symbols.N_CLASSES, symbols.N_TOTAL)),
                   key=str)
    for index in range(_N_CLASSES if loose else 1):  # a per-class formula: each class's value
        try:
            concrete, grid = support.in_cells(expr.xreplace({s: index for s in loose}), _N_CLASSES)
        except (TypeError, ValueError):
            return False
        concrete = concrete.replace(  # a class-vector or class-matrix parameter's entries: fixed generic weights
            lambda e: isinstance(e, sympy.Indexed) and all(i.is_Integer for i in e.indices),
            lambda e: _GENERIC + sum((3 + 2 * k) * int(i) for k, i in enumerate(e.indices)))
        if concrete.free_symbols - set(grid):
            return False
        points = [{c: sympy.Integer(2 + 3 * k + shift * (k % 4)) for k, c in enumerate(grid)} for shift in (0, 1)]
        if not all(_unchanged(concrete, point) for point in points):
            return False
    return True


def _unchanged(expr: sympy.Expr, point: dict) -> bool:
    """``expr`` at ``point`` equals ``expr`` at the point scaled by each factor."""
    try:
        value = expr.xreplace(point)
        scaled = [expr.xreplace({c: s * v for c, v in point.items()}) for s in _FACTORS]
    except (ZeroDivisionError, ValueError, TypeError):
        return False
    for other in scaled:
        if value.is_Rational and other.is_Rational:
            if value != other:
                return False
            continue
        if not (value.is_number and other.is_number):
            return False
        try:
            gap, size = complex((value - other).evalf(_DIGITS)), complex(value.evalf(_DIGITS))
        except TypeError:  # infinite or undefined at the point
            return False
        if not (gap == gap and size == size and abs(gap) <= 1e-25 * (1 + abs(size))):
            return False
    return True
