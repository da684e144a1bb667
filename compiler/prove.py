"""Prove equivalences across the catalog, symbolically.

Every scalar *variant* (a class-level metric under one averaging mode, or an aggregate or
matrix metric) gets two exact forms:

- a **general** form valid for any number of classes, under the identities of single-label
  counts: pooled sums ``sum TP = T``, ``sum FP = sum FN = n - T``, ``sum TN = (C - 2) n + T``
  and ``trace(M) = T``; per-class averages that cannot be pooled become one opaque symbol per
  (mode, canonical per-class formula);
- a **binary** form over the four entries of a 2 x 2 confusion matrix.

Pairs whose values agree at random points are then proved by exact cancellation of their
difference: in general (``scope="all"``) or, failing that, for two classes (``"binary"``).
Statements hold wherever both sides are defined.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
from collections.abc import Mapping

import sympy

from metricc.compiler import ir, symbols

__all__ = ["prove_equivalences", "general_form", "binary_form"]

TRACE = sympy.Symbol("T", nonnegative=True)
N = symbols.N_TOTAL
C = symbols.N_CLASSES
A, B, Cc, D = sympy.symbols("m00 m01 m10 m11", nonnegative=True)  # M[true, pred], C = 2
TP, FP, FN, TN = symbols.COUNTS
_POOLED = {TP: TRACE, FP: N - TRACE, FN: N - TRACE, TN: (C - 2) * N + TRACE}
_CLASS_COUNTS = ({TP: A, FP: Cc, FN: B, TN: D}, {TP: D, FP: B, FN: Cc, TN: A})
_BINARY_MATRIX = {(0, 0): A, (0, 1): B, (1, 0): Cc, (1, 1): D}


def _scalar_defaults(metric: ir.Metric, expr: sympy.Expr) -> sympy.Expr | None:
    """Scalar parameters at their defaults; None when a class vector is involved."""
    if any(p.kind == "class_vector" for p in metric.params):
        return None
    return expr.xreplace({p.symbol: p.default for p in metric.params})


def _opaque(mode: str, per_class: sympy.Expr) -> sympy.Symbol:
    digest = hashlib.sha256(sympy.srepr(per_class).encode()).hexdigest()[:12]
    return sympy.Symbol(f"avg_{mode}_{digest}", real=True)


def _averaged_general(mode: str, per_class: sympy.Expr) -> sympy.Expr:
    if mode == "micro":
        return sympy.cancel(per_class.xreplace(_POOLED))
    if mode == "weighted":
        linear = sympy.cancel(per_class * (TP + FN))
        if linear.is_polynomial(*symbols.COUNTS) and sympy.Poly(linear, *symbols.COUNTS).total_degree() <= 1:
            return sympy.cancel(linear.xreplace(_POOLED) / N)
    return _opaque(mode, per_class)


def general_form(metric: ir.Metric, mode: str | None) -> sympy.Expr | None:
    """The variant for any C, or None when it cannot be written without the matrix."""
    if metric.level == "class":
        per_class = _scalar_defaults(metric, metric.simplified)
        return None if per_class is None else _averaged_general(mode, per_class)
    expr = _scalar_defaults(metric, metric.simplified)
    if expr is None:
        return None
    replacements = {}
    for term in metric.terms:
        if term.mode is None:
            return None
        per_class = _scalar_defaults(metric, term.simplified)
        if per_class is None:
            return None
        replacements[term.symbol] = _averaged_general(term.mode, per_class)
    k = symbols.index_symbol("k")
    expr = expr.xreplace(replacements)
    expr = expr.replace(lambda e: isinstance(e, sympy.Sum) and e.function == symbols.M[k, k], lambda e: TRACE)
    if expr.has(sympy.Sum) or expr.has(sympy.Indexed):
        return None
    return sympy.cancel(expr)


def _averaged_binary(mode: str, per_class: sympy.Expr) -> sympy.Expr:
    values = [per_class.xreplace(c) for c in _CLASS_COUNTS]
    if mode == "binary":
        return values[1]
    if mode == "micro":
        return per_class.xreplace({TP: A + D, FP: B + Cc, FN: B + Cc, TN: A + D})
    if mode == "macro":
        return (values[0] + values[1]) / 2
    if mode == "weighted":
        return ((A + B) * values[0] + (Cc + D) * values[1]) / (A + B + Cc + D)
    return sympy.sqrt(values[0] * values[1])


def binary_form(metric: ir.Metric, mode: str | None) -> sympy.Expr | None:
    """The variant on a 2 x 2 matrix ``[[m00, m01], [m10, m11]]``, or None."""
    if metric.level == "class":
        per_class = _scalar_defaults(metric, metric.simplified)
        return None if per_class is None else _averaged_binary(mode, per_class)
    expr = _scalar_defaults(metric, metric.simplified)
    if expr is None:
        return None
    for term in metric.terms:
        per_class = _scalar_defaults(metric, term.simplified)
        if per_class is None:
            return None
        if term.mode is None:
            values = [per_class.xreplace(c) for c in _CLASS_COUNTS]
            expr = expr.replace(lambda e: isinstance(e, sympy.Indexed) and e.base == term.symbol, lambda e: values[int(e.indices[0])])
        else:
            expr = expr.xreplace({term.symbol: _averaged_binary(term.mode, per_class)})
    expr = expr.xreplace({C: 2}).doit()
    rows = {k: _BINARY_MATRIX[(k, 0)] + _BINARY_MATRIX[(k, 1)] for k in (0, 1)}
    columns = {k: _BINARY_MATRIX[(0, k)] + _BINARY_MATRIX[(1, k)] for k in (0, 1)}

    def entry(e):
        name, index = e.base.label.name, tuple(int(i) for i in e.indices)
        if name == "M":
            return _BINARY_MATRIX[index]
        return (rows if name == "t" else columns)[index[0]]

    expr = expr.replace(lambda e: isinstance(e, sympy.Indexed) and e.base.label.name in ("M", "t", "p"), entry)
    return expr.xreplace({N: A + B + Cc + D})


def _fingerprint(expr: sympy.Expr, points: list[dict]) -> tuple | None:
    values = []
    for point in points:
        try:
            value = complex(expr.xreplace(point).evalf(30))
        except (TypeError, ValueError):
            return None
        if value != value or abs(value.imag) > 1e-12 or abs(value.real) == float("inf"):
            return None
        values.append(round(value.real, 9))
    return tuple(values)


def _points(free: set, count: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    return [{s: sympy.Integer(rng.randint(1, 60)) for s in sorted(free, key=str)} for _ in range(count)]


def _equal(left: sympy.Expr, right: sympy.Expr) -> bool:
    difference = sympy.cancel(sympy.together(left - right))
    if difference == 0:
        return True
    if difference.has(sympy.Pow):
        return sympy.simplify(sympy.radsimp(sympy.factor(left) - sympy.factor(right))) == 0
    return False


def _variants(metrics: Mapping[str, ir.Metric]) -> list[tuple[str, str | None]]:
    out = []
    for metric in metrics.values():
        if metric.level == "class":
            out.extend((metric.id, mode) for mode in metric.averages if mode != "none")
        else:
            out.append((metric.id, None))
    return out


def _proved_pairs(metrics, variants, form, scope, method, skip=frozenset()):
    forms = {v: form(metrics[v[0]], v[1]) for v in variants}
    forms = {v: f for v, f in forms.items() if f is not None}
    free = set().union(*(f.free_symbols for f in forms.values())) if forms else set()
    points = _points(free, 4, seed=2022)
    prints = {v: _fingerprint(f, points) for v, f in forms.items()}
    groups: dict[tuple, list] = {}
    for v, p in prints.items():
        if p is not None:
            groups.setdefault(p, []).append(v)
    proved = []
    for members in groups.values():
        for i, left in enumerate(members):
            for right in members[i + 1:]:
                if (left, right) not in skip and _equal(forms[left], forms[right]):
                    proved.append((left, right, scope, method))
    return proved


def prove_equivalences(metrics: Mapping[str, ir.Metric]) -> dict[str, ir.Metric]:
    """Attach every proved equivalence to both metrics it relates."""
    variants = _variants(metrics)
    general = _proved_pairs(metrics, variants, general_form, "all",
                            "cancellation under the single-label count identities")
    done = {(l, r) for l, r, *_ in general}
    binary = _proved_pairs(metrics, variants, binary_form, "binary",
                           "cancellation over the entries of a 2 x 2 matrix", skip=frozenset(done))
    # Two-class coincidences between averaged variants are many and rarely informative; keep
    # those that say what a binary value or a one-per-matrix metric equals.
    binary = [(l, r, s, m) for l, r, s, m in binary if {l[1], r[1]} & {"binary", None}]
    found: dict[str, list[ir.Equivalence]] = {m: [] for m in metrics}
    for (left, right, scope, method) in general + binary:
        found[left[0]].append(ir.Equivalence(left[1], right[0], right[1], scope, method))
        found[right[0]].append(ir.Equivalence(right[1], left[0], left[1], scope, method))
    order = lambda e: (e.scope != "all", e.mode or "", e.other, e.other_mode or "")
    return {m: dataclasses.replace(metric, equivalences=tuple(sorted(found[m], key=order))) for m, metric in metrics.items()}
