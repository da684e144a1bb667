"""Limits that keep simplification finite, checked before sympy starts.

Simplification brings a formula over one denominator (``together``) and cancels common
factors (``cancel``). Both are fast on metric formulas and hopeless on some short texts: a
continued fraction 30 deep doubles in size at each level once over one denominator, a sum of
200 fractions with distinct denominators becomes a polynomial of degree 200, and
``((TP + FP + FN + TN)**16 + 1)**16`` one of degree 256. :func:`estimate` bounds the size and
the degree of the combined fraction from the expression tree alone (linear time), the way
``together`` builds it; :func:`problem` compares them with the limits below, which sit far
above every formula of the catalog (largest today: size 77, degree 12; a continued fraction 8 deep is about 7,500). A time limit would
make whether a spec compiles depend on the machine; these bounds do not.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

import sympy

from metricc.compiler.errors import Diagnostic, FormulaError
from metricc.compiler.language import ir

__all__ = ["MAX_SIZE", "MAX_DEGREE", "Estimate", "estimate", "problem", "check_catalog"]

MAX_SIZE = 20_000  # operations of the formula over one denominator
MAX_DEGREE = 48  # total degree of that fraction's numerator plus denominator


@dataclass(frozen=True)
class Estimate:
    """Upper bounds for ``together(expr)`` = numerator / denominator: tree sizes and total
    degrees in the atoms (counts, functions, sums, roots)."""

    numerator_size: int = 1
    denominator_size: int = 0  # 0: the denominator is 1
    numerator_degree: int = 0
    denominator_degree: int = 0

    @property
    def size(self) -> int:
        return self.numerator_size + self.denominator_size

    @property
    def degree(self) -> int:
        return self.numerator_degree + self.denominator_degree

    def inverse(self) -> "Estimate":
        return Estimate(max(self.denominator_size, 1), self.numerator_size, self.denominator_degree,
                        self.numerator_degree)


_ATOM = Estimate(1, 0, 1, 0)
_NUMBER = Estimate(1, 0, 0, 0)


def _sum(parts: list[tuple[sympy.Expr, Estimate]]) -> Estimate:
    """Terms over the product of their distinct denominators: each numerator is multiplied by
    the denominators it lacks (a copy of each, as ``together`` writes it)."""
    denominators: dict[sympy.Expr, Estimate] = {}
    for term, part in parts:
        if part.denominator_size:
            denominators.setdefault(sympy.fraction(term)[1], part)
    size = sum(p.denominator_size for p in denominators.values())
    degree = sum(p.denominator_degree for p in denominators.values())
    numerator_size = sum(p.numerator_size + size - p.denominator_size + 1 for _, p in parts)
    numerator_degree = max(p.numerator_degree + degree - p.denominator_degree for _, p in parts)
    return Estimate(numerator_size, size, numerator_degree, degree)


def _product(parts: list[Estimate]) -> Estimate:
    return Estimate(sum(p.numerator_size for p in parts), sum(p.denominator_size for p in parts),
                    sum(p.numerator_degree for p in parts), sum(p.denominator_degree for p in parts))


@functools.lru_cache(maxsize=4096)
def estimate(expr: sympy.Basic) -> Estimate:
    """Bounds for ``expr`` over one denominator; function arguments are bounded separately by
    :func:`problem` (``together`` leaves them alone, ``cancel`` sees the function as one atom)."""
    if expr.is_Number or expr.is_NumberSymbol:
        return _NUMBER
    if isinstance(expr, sympy.Add):
        return _sum([(a, estimate(a)) for a in expr.args])
    if isinstance(expr, sympy.Mul):
        return _product([estimate(a) for a in expr.args])
    if isinstance(expr, sympy.Pow) and isinstance(expr.exp, sympy.Integer):
        base, power = estimate(expr.base), int(expr.exp)
        if power < 0:
            base, power = base.inverse(), -power
        return Estimate(base.numerator_size + 1, base.denominator_size + (1 if base.denominator_size else 0),
                        base.numerator_degree * power, base.denominator_degree * power)
    return _ATOM


def _largest(expr: sympy.Basic) -> Estimate:
    """The largest estimate of ``expr`` and of every function argument and radicand inside it
    (each node visited once; :func:`estimate` is cached, so shared subtrees cost nothing)."""
    found = [estimate(expr)]
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Pow) and not isinstance(node.exp, sympy.Integer):
            found.append(estimate(node.base))  # a root: its radicand is simplified on its own
        elif not isinstance(node, (sympy.Add, sympy.Mul, sympy.Pow, sympy.Symbol, sympy.Number)) and node.args:
            found.extend(estimate(a) for a in node.args if isinstance(a, sympy.Expr))
    return max(found, key=lambda e: (e.size > MAX_SIZE or e.degree > MAX_DEGREE, e.size, e.degree))


def problem(expr: sympy.Expr) -> str | None:
    """Why ``expr`` is too complex to simplify, or None."""
    bounds = _largest(expr)
    if bounds.size > MAX_SIZE:
        return (f"this formula is too complex to simplify: over one denominator it would have about "
                f"{bounds.size:,} operations (limit {MAX_SIZE:,}); nested fractions and sums of fractions with "
                f"different denominators grow fast: write it with fewer of them")
    if bounds.degree > MAX_DEGREE:
        return (f"this formula is too complex to simplify: over one denominator it would be a polynomial "
                f"fraction of degree up to {bounds.degree} (limit {MAX_DEGREE}); fractions with many "
                f"different denominators or large powers multiply out: write it with fewer of them")
    return None


def check_catalog(metrics: Mapping[str, ir.Metric]) -> dict[str, ir.Metric]:
    """The lowered catalog unchanged, or a :class:`FormulaError` naming every formula that is
    too complex to simplify (at the spec's ``formula``)."""
    problems = []
    for metric in metrics.values():
        for expr in (metric.written, *(t.expr for t in metric.terms)):
            message = problem(expr)
            if message:
                problems.append(Diagnostic(metric.key_location("formula"), "$.formula", message))
                break
    if problems:
        raise FormulaError(sorted(problems, key=lambda d: (d.location.file, d.location.line, d.location.column)))
    return dict(metrics)
