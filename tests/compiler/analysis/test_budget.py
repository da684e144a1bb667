"""The simplification budget (:mod:`metricc.compiler.analysis.budget`): bounds from the tree
alone, far above the catalog, refusing what sympy would never finish (fixtures
``too_complex_*`` in specs_formula_invalid/ hold the messages)."""

from __future__ import annotations

import sympy

from metricc.compiler.analysis import budget

TP, FP = sympy.symbols("TP FP", nonnegative=True)


def _continued(depth: int) -> sympy.Expr:
    expr = TP
    for _ in range(depth):
        expr = TP / (FP + 1 + expr)
    return expr


def test_the_estimate_bounds_what_together_builds():
    for depth in (2, 4, 6):
        combined = sympy.together(_continued(depth))
        bounds = budget.estimate(_continued(depth))
        assert sympy.count_ops(combined) <= bounds.size
        numerator, denominator = sympy.fraction(sympy.cancel(combined))
        assert sympy.Poly(numerator, TP, FP).total_degree() + sympy.Poly(denominator, TP, FP).total_degree() <= bounds.degree


def test_the_catalog_is_far_below_the_limits(compiled_metrics):
    for metric in compiled_metrics.values():
        for expr in (metric.written, *(t.expr for t in metric.terms)):
            bounds = budget.estimate(expr)
            assert bounds.size * 10 < budget.MAX_SIZE and bounds.degree * 3 < budget.MAX_DEGREE, metric.id


def test_arguments_of_functions_are_bounded_too():
    assert budget.problem(sympy.sqrt(_continued(30))) is not None
    assert budget.problem(sympy.log(TP / (FP + 1))) is None
    assert "degree" in budget.problem(sympy.exp(((TP + FP) ** 16 + 1) ** 16))
