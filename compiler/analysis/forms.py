"""The exact forms of a variant the prover compares: general (any number of classes) and binary.

A variant (a class-level metric under one averaging mode, or an aggregate or matrix metric)
has a **general** form valid for any number of classes, under the identities of single-label
counts (pooled sums ``sum TP = T``, ``sum FP = sum FN = n - T``, ``sum TN = (C - 2) n + T``,
``trace(M) = T``), and a **binary** form over the four entries of a 2 x 2 confusion matrix.
What each averaging mode means in either form is its row of the averaging table
(:mod:`metricc.compiler.language.averaging`); this module applies it to metrics and terms.
"""

from __future__ import annotations

import sympy

from metricc.compiler.language import averaging, ir, symbols
from metricc.compiler.language.levels import rules

__all__ = ["A", "B", "C", "Cc", "D", "N", "TRACE", "binary_form", "class_sum", "fixed", "general_form"]

N = symbols.N_TOTAL
C = symbols.N_CLASSES
TRACE, A, B, Cc, D = averaging.TRACE, averaging.A, averaging.B, averaging.Cc, averaging.D  # M[true, pred], C = 2
TP, FP, FN, TN = symbols.COUNTS
_CLASS_COUNTS = averaging.CLASS_COUNTS_2X2
_BINARY_MATRIX = {(0, 0): A, (0, 1): B, (1, 0): Cc, (1, 1): D}


def fixed(metric: ir.Metric, expr: sympy.Expr) -> sympy.Expr | None:
    """``expr`` with its scalar parameters free; None when a class vector is involved.

    A statement proved with a parameter free holds for every value of it; a statement that
    needs a value is proved on a variant that binds it and says so (``f_beta(beta=1)``).
    """
    if any(p.kind == "class_vector" for p in metric.params):
        return None
    return expr


def _averaged_general(mode: str, per_class: sympy.Expr) -> sympy.Expr:
    return averaging.MODES[mode].general_form(per_class)


def general_form(metric: ir.Metric, mode: str | None) -> sympy.Expr | None:
    """The variant for any C, or None when it cannot be written without the matrix."""
    if not rules(metric.level).of_confusion_matrix:  # not functions of a confusion matrix
        return None
    if rules(metric.level).per_class:
        per_class = fixed(metric, metric.simplified)
        return None if per_class is None else _averaged_general(mode, per_class)
    expr = fixed(metric, metric.simplified)
    if expr is None:
        return None
    replacements = {}
    for term in metric.terms:
        if term.mode is None or term.weights:
            return None
        per_class = fixed(metric, term.simplified)
        if per_class is None:
            return None
        replacements[term.symbol] = _averaged_general(term.mode, per_class)
    expr = expr.xreplace(replacements)
    expr = expr.replace(lambda e: isinstance(e, sympy.Sum), class_sum)
    if expr.has(sympy.Sum) or expr.has(sympy.Indexed):
        return None
    return sympy.cancel(expr)


_POOLED_SUMS = {symbols.ROW_TOTAL: N, symbols.COLUMN_TOTAL: N}


def class_sum(total: sympy.Sum) -> sympy.Expr:
    """A sum over the classes in normal form, for any number of classes C: its summand
    expanded into monomials of the class's diagonal cell and totals, each factor free of the
    index taken out (linearity of a finite sum), ``Sum(1) = C``, ``Sum(M[k, k]) = T``,
    ``Sum(t[k]) = Sum(p[k]) = n``, every other monomial one symbol named by it (the same in
    every formula: ``Sum(p[k]**2)``). Two forms equal by cancellation over these symbols are
    equal for every C. A summand of other terms (a ratio, a logarithm, an off-diagonal
    cell) or a sum over several indices is left as it is, and the form is then not written."""
    if len(total.limits) != 1 or tuple(total.limits[0][1:]) != (0, C - 1):
        return total
    index = total.limits[0][0]
    k = symbols.index_symbol("k")
    body = sympy.expand(total.function.xreplace({index: k}))
    cells = {symbols.M[k, k], symbols.ROW_TOTAL[k], symbols.COLUMN_TOTAL[k]}
    out = sympy.S.Zero
    for term in sympy.Add.make_args(body):
        inner = sympy.Mul(*(f for f in sympy.Mul.make_args(term) if f.has(k)))
        outer = term / inner
        if inner == 1:
            out += outer * C
            continue
        if not all(isinstance(f, sympy.Pow) and f.base in cells and f.exp.is_Integer and f.exp > 0 or f in cells
                   for f in sympy.Mul.make_args(inner)):
            return total
        if inner == symbols.M[k, k]:
            out += outer * TRACE
        elif isinstance(inner, sympy.Indexed) and inner.base in _POOLED_SUMS:
            out += outer * _POOLED_SUMS[inner.base]
        else:
            out += outer * sympy.Symbol(f"Sum({sympy.sstr(inner)})", nonnegative=True)
    return out


def _averaged_binary(mode: str, per_class: sympy.Expr) -> sympy.Expr:
    averaged = averaging.MODES[mode].binary
    if averaged is None:
        return averaging.opaque(mode, per_class)
    return averaged(per_class, tuple(per_class.xreplace(c) for c in _CLASS_COUNTS))


def binary_form(metric: ir.Metric, mode: str | None) -> sympy.Expr | None:
    """The variant on a 2 x 2 matrix ``[[m00, m01], [m10, m11]]``, or None."""
    if not rules(metric.level).of_confusion_matrix:
        return None
    if rules(metric.level).per_class:
        per_class = fixed(metric, metric.simplified)
        return None if per_class is None else _averaged_binary(mode, per_class)
    expr = fixed(metric, metric.simplified)
    if expr is None:
        return None
    per_class_values = {}
    for term in metric.terms:
        per_class = fixed(metric, term.simplified)
        if per_class is None or term.weights:
            return None
        if term.mode is None:
            per_class_values[term.symbol] = [per_class.xreplace(c) for c in _CLASS_COUNTS]
        else:
            expr = expr.xreplace({term.symbol: _averaged_binary(term.mode, per_class)})
    # Two classes: sums over classes expand to the indices 0 and 1, so terms like recall[k]
    # and cells like M[k, k] take integer indices (any symbolic index left: no binary form).
    expr = expr.xreplace({C: sympy.Integer(2)}).doit()
    if any(not all(i.is_Integer for i in e.indices) for e in expr.atoms(sympy.Indexed)):
        return None
    expr = expr.replace(lambda e: isinstance(e, sympy.Indexed) and e.base in per_class_values,
                        lambda e: per_class_values[e.base][int(e.indices[0])])
    rows = {k: _BINARY_MATRIX[(k, 0)] + _BINARY_MATRIX[(k, 1)] for k in (0, 1)}
    columns = {k: _BINARY_MATRIX[(0, k)] + _BINARY_MATRIX[(1, k)] for k in (0, 1)}

    def entry(e):
        name, index = e.base.label.name, tuple(int(i) for i in e.indices)
        if name == "M":
            return _BINARY_MATRIX[index]
        return (rows if name == "t" else columns)[index[0]]

    expr = expr.replace(lambda e: isinstance(e, sympy.Indexed) and e.base.label.name in ("M", "t", "p"), entry)
    return expr.xreplace({N: A + B + Cc + D})
