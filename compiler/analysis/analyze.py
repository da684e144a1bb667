"""Checks and simplification on the symbolic IR: canonical forms and undefined cases.

``SIMPLIFICATIONS`` are pure ``Expr -> Expr`` passes applied in order. Undefined cases are
derived, never declared: every denominator of the simplified form that depends on the data
and can vanish for non-negative counts, except those inside ``xlogy(x, y)`` that force
``x = 0`` where they vanish (the term is 0 there: 0 log 0 = 0; see :func:`excuses`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import sympy

from metricc.compiler.language import ir, symbols

__all__ = [
    "analyze_catalog",
    "SIMPLIFICATIONS", "simplify", "denominators", "excused_denominators", "excuses", "log_zeros", "undefined_cases",
    "analyze_metric", "depends_on_data",
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


def simplify(expr: sympy.Expr) -> sympy.Expr:
    """Canonical form: one fraction, common factors cancelled and pulled out."""
    for rewrite in SIMPLIFICATIONS:
        expr = rewrite(expr)
    return expr


def depends_on_data(expr: sympy.Expr) -> bool:
    """Whether ``expr`` varies with the data passed at call time (so it may vanish there).

    Counts, matrix cells and totals, scores, averaged terms, and anything indexed by class:
    a class_vector parameter is given per call like the data (``Sum(w[k], k)`` is 0 when every
    weight is), so it counts as data too.
    """
    data = set(symbols.COUNTS) | {symbols.N_TOTAL} | set(symbols.CURVE_TOTALS.values())
    if expr.free_symbols & data or expr.atoms(sympy.Indexed):
        return True
    return any(isinstance(s, symbols.TermSymbol) for s in expr.free_symbols)


def _strip(factor: sympy.Expr) -> sympy.Expr:
    """A factor that can vanish, without numeric coefficient or power."""
    if isinstance(factor, sympy.Pow) and factor.exp.is_number:
        factor = factor.base
    coefficient, rest = factor.as_coeff_Mul()
    return rest


def _predicted_positive(factor: sympy.Expr) -> bool:
    """A curve fact: at each threshold (not the origin ``i - 1``) some sample scores at or above it.

    So ``TP[i] + FP[i] >= 1``; a factor that is that sum plus non-negative terms never vanishes.
    """
    tp, fp = symbols.CURVE_NAMES["TP"], symbols.CURVE_NAMES["FP"]
    predicted = sympy.Dummy("predicted", positive=True)
    at_threshold = [e for e in factor.atoms(sympy.Indexed) if e.base == fp and e.indices[0].is_Symbol]
    if not at_threshold:
        return False
    replaced = sympy.expand(factor.xreplace({e: predicted - tp[e.indices[0]] for e in at_threshold}))
    return bool(replaced.is_positive)


def _parts(base: sympy.Expr) -> list[sympy.Expr]:
    """The factors of a denominator that can vanish with the data."""
    parts = sympy.factor(base).as_ordered_factors() if not base.has(sympy.Sum) else sympy.Mul.make_args(base)
    return [p for p in map(_strip, parts) if depends_on_data(p) and not p.is_positive and not _predicted_positive(p)]


_DATA_BASES = {symbols.M, symbols.ROW_TOTAL, symbols.COLUMN_TOTAL}


def _data_atom(expr: sympy.Expr) -> sympy.Expr | None:
    """``expr`` as a non-negative data atom (a count, n, M[a, b], t[a], p[a]), powers dropped."""
    if isinstance(expr, sympy.Pow) and expr.exp.is_positive:
        expr = expr.base
    if expr in symbols.COUNTS or expr == symbols.N_TOTAL:
        return expr
    if isinstance(expr, sympy.Indexed) and expr.base in _DATA_BASES:
        return expr
    return None


def _bounded(small: sympy.Expr, large: sympy.Expr) -> bool:
    """``0 <= small <= large`` for every confusion matrix (a cell is at most its row total...)."""
    if small == large or large == symbols.N_TOTAL and isinstance(small, sympy.Indexed):
        return True
    if isinstance(small, sympy.Indexed) and small.base == symbols.M and isinstance(large, sympy.Indexed):
        row, column = small.indices
        return large == symbols.ROW_TOTAL[row] or large == symbols.COLUMN_TOTAL[column]
    return False


def excuses(weight: sympy.Expr, denominator: sympy.Expr) -> bool:
    """Whether ``weight`` vanishes wherever ``denominator`` does, for non-negative data.

    Sufficient test: the denominator is a sum of non-negative single atoms (so it is 0 only
    where each of them is), and one of them bounds a factor of the weight: ``t[j] + p[j] = 0``
    forces ``M[j, k] = 0``, ``p[j] = 0`` forces ``M[i, j] = 0``, ``n = 0`` forces ``t[i] = 0``.
    """
    atoms = []
    for term in sympy.Add.make_args(sympy.expand(denominator)):
        coefficient, rest = term.as_coeff_Mul()
        atom = _data_atom(rest)
        if not coefficient.is_positive or atom is None:
            return False
        atoms.append(atom)
    factors = [_data_atom(f) for f in sympy.Mul.make_args(weight)]
    return any(f is not None and _bounded(f, a) for f in factors for a in atoms)


def _walk(expr: sympy.Expr, found: dict, excused: dict) -> None:
    if isinstance(expr, symbols.xlogy):
        weight, argument = expr.args
        _walk(weight, found, excused)
        inner: dict = {}
        _walk(argument, inner, excused)
        for key, part in inner.items():
            (excused if excuses(weight, part) else found).setdefault(key, part)
        return
    if isinstance(expr, sympy.Pow) and expr.exp.is_number and expr.exp.is_negative and depends_on_data(expr.base):
        for part in _parts(expr.base):
            found.setdefault(sympy.srepr(part), part)
    for arg in expr.args:
        _walk(arg, found, excused)


def _sorted(found: dict) -> tuple[sympy.Expr, ...]:
    return tuple(found[k] for k in sorted(found, key=lambda k: (len(k), k)))


def denominators(expr: sympy.Expr) -> tuple[sympy.Expr, ...]:
    """Data-dependent denominators of ``expr``, as distinct factors, sorted.

    A denominator inside the argument ``y`` of ``xlogy(x, y)`` that forces ``x = 0`` where it
    vanishes is excused: that term is 0 there (see :func:`excused_denominators`).
    """
    found: dict = {}
    _walk(expr, found, {})
    return _sorted(found)


def excused_denominators(expr: sympy.Expr) -> tuple[sympy.Expr, ...]:
    """Denominators whose vanishing only zeroes an ``xlogy`` term, not the whole value."""
    found: dict = {}
    excused: dict = {}
    _walk(expr, found, excused)
    return _sorted({k: v for k, v in excused.items() if k not in found})


def log_zeros(expr: sympy.Expr) -> tuple[sympy.Expr, ...]:
    """Data-dependent factors of logarithm arguments that can vanish (log(0) is undefined).

    Arguments inside class sums (``Sum(M[i, j] * log(M[i, j]), ...)``) are left alone: a
    sum's terms follow their own conventions, and one zero cell must not undefine the sum.
    """
    found: dict[str, sympy.Expr] = {}
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.log) and depends_on_data(node.args[0]) and not node.args[0].atoms(sympy.Indexed):
            numerator, _ = sympy.fraction(sympy.together(node.args[0]))
            for part in sympy.factor(numerator).as_ordered_factors():
                part = _strip(part)
                if depends_on_data(part) and not part.is_positive:
                    found.setdefault(sympy.srepr(part), part)
    return tuple(found[k] for k in sorted(found, key=lambda k: (len(k), k)))


def undefined_cases(expr: sympy.Expr) -> tuple[sympy.Expr, ...]:
    """Expressions whose vanishing makes ``expr`` undefined: denominators and log arguments."""
    cases = {sympy.srepr(c): c for c in (*denominators(expr), *log_zeros(expr))}
    return tuple(cases[k] for k in sorted(cases, key=lambda k: (len(k), k)))


def _analyze_term(term: ir.Term) -> ir.Term:
    simplified = simplify(term.expr)
    return dataclasses.replace(term, simplified=simplified, undefined=undefined_cases(simplified))


def analyze_metric(metric: ir.Metric) -> ir.Metric:
    """Fill ``simplified``, ``undefined`` and ``excused`` (equivalences are proved catalog-wide)."""
    simplified = simplify(metric.written)
    terms = tuple(_analyze_term(t) for t in metric.terms)
    return dataclasses.replace(metric, simplified=simplified, undefined=undefined_cases(simplified),
                               excused=excused_denominators(simplified), terms=terms)


def analyze_catalog(metrics: Mapping[str, ir.Metric]) -> dict[str, ir.Metric]:
    """:func:`analyze_metric` for every metric of the catalog."""
    return {metric_id: analyze_metric(metric) for metric_id, metric in metrics.items()}
