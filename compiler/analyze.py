"""Checks and simplification on the symbolic IR: canonical forms and undefined cases.

``SIMPLIFICATIONS`` are pure ``Expr -> Expr`` passes applied in order. Undefined cases are
derived, never declared: every denominator of the simplified form that depends on the data
and can vanish for non-negative counts.
"""

from __future__ import annotations

import dataclasses

import sympy

from metricc.compiler import ir, symbols

__all__ = ["SIMPLIFICATIONS", "simplify", "denominators", "undefined_cases", "analyze_metric", "depends_on_data"]


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
    """Whether ``expr`` varies with the counts (so it may vanish for some data)."""
    data = set(symbols.COUNTS) | {symbols.N_TOTAL}
    if expr.free_symbols & data:
        return True
    bases = {i.base.label.name for i in expr.atoms(sympy.Indexed)}
    if bases & {"M", "t", "p"} or any("__" in name for name in bases):
        return True
    return any("__" in s.name for s in expr.free_symbols)


def _strip(factor: sympy.Expr) -> sympy.Expr:
    """A factor that can vanish, without numeric coefficient or power."""
    if isinstance(factor, sympy.Pow) and factor.exp.is_number:
        factor = factor.base
    coefficient, rest = factor.as_coeff_Mul()
    return rest


def denominators(expr: sympy.Expr) -> tuple[sympy.Expr, ...]:
    """Data-dependent denominators of ``expr``, as distinct factors, sorted."""
    found: dict[str, sympy.Expr] = {}
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Pow) and node.exp.is_number and node.exp.is_negative and depends_on_data(node.base):
            base = node.base
            parts = sympy.factor(base).as_ordered_factors() if not base.has(sympy.Sum) else sympy.Mul.make_args(base)
            for part in parts:
                part = _strip(part)
                if depends_on_data(part) and not part.is_positive:
                    found.setdefault(sympy.srepr(part), part)
    return tuple(found[k] for k in sorted(found, key=lambda k: (len(k), k)))


def undefined_cases(expr: sympy.Expr) -> tuple[sympy.Expr, ...]:
    """Expressions whose vanishing makes ``expr`` undefined."""
    return denominators(expr)


def _analyze_term(term: ir.Term) -> ir.Term:
    simplified = simplify(term.expr)
    return dataclasses.replace(term, simplified=simplified, undefined=undefined_cases(simplified))


def analyze_metric(metric: ir.Metric) -> ir.Metric:
    """Fill ``simplified`` and ``undefined`` (equivalences are proved catalog-wide)."""
    simplified = simplify(metric.written)
    terms = tuple(_analyze_term(t) for t in metric.terms)
    return dataclasses.replace(metric, simplified=simplified, undefined=undefined_cases(simplified), terms=terms)
