"""Which class-vector parameters a metric is affine in: what lets a sweep be a matrix product.

A class-level value is ``average_k(v_k(kappa_k))``. When every per-class value is affine in
its parameter (``v_k = a_k + b_k kappa_k``: the second derivative cancels) and where it is
undefined does not depend on the parameter, then for the averages that weight classes
independently of it (``none``, ``binary``, ``macro``, ``weighted``, also with ``skip``) the
whole value is ``f(0) + kappa @ c`` with ``c_k = f(e_k) - f(0)``: a sweep over a grid of
vectors is one matrix product instead of one formula evaluation per vector.
``preference_driven``, ``kappa * precision + (1 - kappa) * recall``, is the catalog's case.

The sweep checks a grid's values through the metric's own domain check on the grid's least
and greatest values, which is exact only for an interval, so a parameter whose domain is not
an interval of constant bounds is not marked.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import sympy

from metricc.compiler.language import ir
from metricc.compiler.language.levels import Level

__all__ = ["affine_params", "mark_affine"]

_INTERVAL = (sympy.LessThan, sympy.StrictLessThan, sympy.GreaterThan, sympy.StrictGreaterThan)


def _interval(param: ir.Param) -> bool:
    """Whether the domain is a conjunction of constant bounds on the parameter."""
    return all(isinstance(r, _INTERVAL) and param.symbol in (r.lhs, r.rhs) and (r.rhs if r.lhs == param.symbol else r.lhs).is_number
               for r in param.domain)


def affine_params(metric: ir.Metric) -> tuple[str, ...]:
    """The class-vector parameters of a class-level metric whose per-class value is affine.

    >>> from metricc.compiler.language.symbols import COUNTS
    >>> TP, FP, FN, TN = COUNTS
    >>> kappa = ir.Param("kappa", "class_vector", sympy.S.Zero, (), "", "", None)
    >>> def metric(expr, undefined=()):
    ...     return ir.Metric("m", "m", (), "", (), Level.CLASS, (kappa,), ("macro",), "macro", (0, 1), True, "", expr, expr, (),
    ...                      "", "", None, simplified=expr, undefined=undefined)
    >>> affine_params(metric(TP * (TP + FN * kappa.symbol) / (TP + FN)))
    ('kappa',)
    >>> affine_params(metric(TP / (TP + kappa.symbol * FN)))
    ()
    """
    if metric.level != Level.CLASS:
        return ()
    found = []
    for param in metric.params:
        p = param.symbol
        if param.kind != "class_vector" or not metric.simplified.has(p) or not _interval(param):
            continue
        if any(case.has(p) for case in (*metric.undefined, *metric.excused)):
            continue
        if sympy.cancel(sympy.diff(metric.simplified, p, 2)) == 0:
            found.append(param.name)
    return tuple(found)


def mark_affine(metrics: Mapping[str, ir.Metric]) -> dict[str, ir.Metric]:
    """The catalog with :attr:`ir.Metric.affine` filled."""
    return {m: dataclasses.replace(metric, affine=affine_params(metric)) for m, metric in metrics.items()}
