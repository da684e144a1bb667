"""What the multinomial's support makes of a matrix formula's derivative (analysis/delta.py).

The delta method weighs only cells with a positive count: an empty cell has probability 0
and stays empty under the multinomial (the runtime's ``delta_variance`` gives it weight 0).
Where a cell is positive, so are its row and column totals and ``n``. Hence, for the gradient:

- ``xlogy(x, y)`` is differentiable on the interior: ``log(y) dx + (x / y) dy``;
- a zero guard ``[X = 0]`` of a sum of counts ``X`` is a constant: a positive cell of ``X``
  keeps ``X > 0``, and the empty ones stay empty;
- a case of ``G[a, b]`` that forces ``M[a, b] = 0`` (``t[a] = 0``, ``p[b] = 0``) is never read;
- under ``[a = b]``, ``G`` reads the cell's own ``M[a, b]``, ``t[a]``, ``p[b]``.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import sympy

from metricc.compiler.analysis import analyze
from metricc.compiler.language import symbols

__all__ = ["cells", "in_cells", "count_weights", "zero_guard", "opaque", "restored", "at_a_positive_cell", "weighed_out"]


def in_cells(expr: sympy.Expr, n_classes: int) -> tuple[sympy.Expr, sympy.Matrix]:
    """``expr`` of an ``n_classes`` matrix written in its cells alone (sums done, totals
    replaced by sums of cells), and the grid of cell symbols ``m_i_j``."""
    grid = sympy.Matrix(n_classes, n_classes, lambda i, j: sympy.Symbol(f"m_{i}_{j}"))
    concrete = expr.subs(symbols.N_CLASSES, n_classes).doit()
    concrete = concrete.replace(lambda e: isinstance(e, sympy.Indexed) and e.base == symbols.ROW_TOTAL,
                                lambda e: sum(grid[int(e.indices[0]), j] for j in range(n_classes)))
    concrete = concrete.replace(lambda e: isinstance(e, sympy.Indexed) and e.base == symbols.COLUMN_TOTAL,
                                lambda e: sum(grid[i, int(e.indices[0])] for i in range(n_classes)))
    concrete = concrete.replace(lambda e: isinstance(e, sympy.Indexed) and e.base == symbols.M,
                                lambda e: grid[int(e.indices[0]), int(e.indices[1])])
    return concrete.subs(symbols.N_TOTAL, sum(grid)), grid


def cells(expr: sympy.Expr, n_classes: int) -> dict | None:
    """The linear coefficients of ``expr`` in the cells of an ``n_classes`` matrix, or None."""
    concrete, grid = in_cells(expr, n_classes)
    if not _homogeneous_at_a_point(concrete, grid):
        return None
    concrete = sympy.expand(concrete)
    if not concrete.free_symbols or concrete.free_symbols - set(grid) or not concrete.is_polynomial(*grid):
        return None
    poly = sympy.Poly(concrete, *grid)
    if poly.total_degree() != 1 or poly.coeff_monomial(1) != 0:
        return None
    return {(i, j): poly.coeff_monomial(grid[i, j]) for i in range(n_classes) for j in range(n_classes)}


def _homogeneous_at_a_point(expr: sympy.Expr, grid: sympy.Matrix) -> bool:
    """False when ``expr`` (in the cells only) is certainly no linear form: f(2x) != 2 f(x) at
    one point, in exact arithmetic. Expanding a large nonlinear numerator (Pearson's C, Cramer's
    V) only to find its degree took most of the delta stage; a linear form passes by identity."""
    if expr.free_symbols - set(grid):
        return True  # not in the cells alone: the full test says so
    point = {cell: sympy.Integer(3 + 7 * k) for k, cell in enumerate(grid)}
    try:
        once, twice = expr.xreplace(point), expr.xreplace({c: 2 * v for c, v in point.items()})
    except (ZeroDivisionError, ValueError, TypeError):
        return True
    if once.is_Rational and twice.is_Rational:
        return twice == 2 * once
    if not (once.is_number and twice.is_number):
        return True
    gap = complex((twice - 2 * once).evalf(30))  # a root or a log: far from linear, or decided by the full test
    return not (gap == gap and abs(gap) > 1e-20 * (1 + abs(complex(once.evalf(30)))))


def count_weights(expr: sympy.Expr, fixed: Mapping = {}) -> list[dict] | None:
    """The coefficients of ``expr`` in the counts, one dict per assignment of its free class
    indices (each in 0..2 of a 3 x 3 matrix, or as ``fixed``); None unless ``expr`` is a sum of
    counts with coefficients >= 0 (``TP + FN``, ``t[k]``, ``t[j] + p[j]``) in every one."""
    if expr.free_symbols <= set(symbols.COUNTS):
        if not expr.free_symbols or not expr.is_polynomial(*symbols.COUNTS):
            return None
        poly = sympy.Poly(expr, *symbols.COUNTS)
        weights = {c: poly.coeff_monomial(c) for c in symbols.COUNTS}
        linear = poly.total_degree() == 1 and poly.coeff_monomial(1) == 0
        return [weights] if linear and all(w >= 0 for w in weights.values()) else None
    expr = expr.xreplace(fixed)
    loose = sorted((s for s in expr.free_symbols if symbols.is_index(s)), key=str)
    out = []
    for values in itertools.product(range(3), repeat=len(loose)):
        found = cells(expr.xreplace(dict(zip(loose, values))), 3)
        if found is None or any(w < 0 for w in found.values()):
            return None
        out.append(found)
    return out


def zero_guard(node: sympy.Basic) -> bool:
    """``[X = 0]`` with ``X`` a sum of counts (``indicator(t[k] != 0)``, a zero guard): constant
    wherever the multinomial moves. A cell of ``X`` with a positive count keeps ``X > 0``;
    empty cells have probability 0 and stay empty; so its derivative is 0 on the support."""
    if not isinstance(node, sympy.KroneckerDelta) or sympy.S.Zero not in node.args:
        return False
    side = node.args[0] if node.args[1] == 0 else node.args[1]
    return analyze.depends_on_data(side) and count_weights(side) is not None


class _xlogy(symbols.xlogy):
    """``xlogy`` with its derivative on the interior, where the weight ``x`` is positive:
    ``d(x log y) = log(y) dx + (x / y) dy``. Where ``x = 0`` the cell has no weight in the
    variance (see :func:`weighed_out`), so the derivative is never read there."""

    def fdiff(self, argindex=1):
        x, y = self.args
        return sympy.log(y) if argindex == 1 else x / y


class _constant_guard(sympy.Function):
    """A :func:`zero_guard` ``[X = 0]`` while differentiating: its derivative is 0."""

    def fdiff(self, argindex=1):
        return sympy.S.Zero


class _constant_complement(_constant_guard):
    """``1 - [X = 0]`` kept as one factor, so that simplification does not spread the guard
    over a sum (``x - x [X = 0]``) and out of the reach of the undefined-case analysis."""


def opaque(expr: sympy.Expr) -> sympy.Expr:
    """``expr`` with ``xlogy`` as :class:`_xlogy` and zero guards as constants, ready for
    ``sympy.diff``; :func:`restored` gives the language's functions back."""
    expr = expr.replace(lambda e: type(e) is symbols.xlogy, lambda e: _xlogy(*e.args))
    expr = expr.replace(zero_guard, lambda e: _constant_guard(*e.args))
    return expr.replace(lambda e: _complement(e) is not None, lambda e: _constant_complement(*_complement(e).args))


def _complement(expr: sympy.Expr):
    """The guard ``G`` of ``1 - G``, or None."""
    if isinstance(expr, sympy.Add) and len(expr.args) == 2 and sympy.S.One in expr.args:
        other = -(expr - 1)
        return other if type(other) is _constant_guard else None
    return None


def restored(expr: sympy.Expr) -> sympy.Expr:
    """The inverse of :func:`opaque`, after differentiation and simplification."""
    expr = expr.replace(lambda e: isinstance(e, _xlogy), lambda e: symbols.xlogy(*e.args))
    expr = expr.replace(lambda e: isinstance(e, _constant_complement), lambda e: 1 - sympy.KroneckerDelta(*e.args))
    return expr.replace(lambda e: isinstance(e, _constant_guard), lambda e: sympy.KroneckerDelta(*e.args))


def at_a_positive_cell(gradient: sympy.Expr, row, column) -> sympy.Expr:
    """``G[a, b]`` written so that where ``M[a, b] > 0`` only positive totals are read.

    ``G`` is only weighed where ``M[a, b] > 0``, and there ``M[a, b]``, ``t[a]``, ``p[b]``, ``n``
    are positive. Under a Kronecker delta ``[a = b]`` the formula may read the same quantity by
    another name (``M[a, a]``, ``p[a]``), which numpy evaluates off the diagonal too, where it
    may be 0: ``0 * log 0`` would be NaN. Renamed to the cell's own, it stays finite there.
    """
    same = {symbols.M[row, row]: symbols.M[row, column], symbols.M[column, column]: symbols.M[row, column],
            symbols.COLUMN_TOTAL[row]: symbols.COLUMN_TOTAL[column], symbols.ROW_TOTAL[column]: symbols.ROW_TOTAL[row]}
    delta = sympy.KroneckerDelta(row, column)
    return gradient.replace(lambda e: isinstance(e, sympy.Mul) and delta in e.args, lambda e: e.xreplace(same))


def weighed_out(case: sympy.Expr, row, column) -> bool:
    """Whether ``case = 0`` forces ``M[row, column] = 0``: ``case`` is a sum of counts that
    holds the cell (``t[row]``, ``p[column]``, ``t[row] + p[row]``, ...), checked on every
    cell of a 3 x 3 matrix. The multinomial variance gives such a cell weight 0, so the
    gradient there is never read: no reason to call it undefined."""
    loose = {s for s in case.free_symbols if symbols.is_index(s) and s not in (row, column)}
    if analyze.split_case(case)[1] or loose:
        return False
    for a, b in itertools.product(range(3), repeat=2):
        weights = count_weights(case, {row: a, column: b})
        if weights is None or not all(w[a, b] > 0 for w in weights):
            return False
    return True
