"""Tests for :mod:`metricc.compiler.emit.numpy_printer`: the exact code of every node kind,
strictness (unsupported nodes raise) and the recorded runtime helpers."""

from __future__ import annotations

import pytest
import sympy

from metricc.compiler.emit.numpy_printer import NumpyPrinter, Printed
from metricc.compiler.errors import InternalError
from metricc.compiler.language import symbols

I, J, K = (symbols.index_symbol(name) for name in "ijk")
M, T, P, N, C = symbols.M, symbols.ROW_TOTAL, symbols.COLUMN_TOTAL, symbols.N_TOTAL, symbols.N_CLASSES
TP, FP = symbols.TP, symbols.FP
X = sympy.Symbol("x0")
CURVE_TP = symbols.CURVE_NAMES["TP"]
LEVEL = symbols.THRESHOLDS


def _printer() -> NumpyPrinter:
    names = {M: Printed("M"), T: Printed("t"), P: Printed("p"), N: Printed("n"), TP: Printed("tp"),
             FP: Printed("fp"), X: Printed("x0", batched=False), CURVE_TP: Printed("tp")}
    return NumpyPrinter(names)


CASES = [
    # atoms
    (sympy.Integer(3), "3", set()),
    (sympy.Integer(-3) * X, "-3 * x0", set()),
    (sympy.Rational(1, 3) * N, "n / 3", set()),
    (sympy.Float(-0.5) * N, "-0.5 * n", set()),
    (sympy.oo, "np.inf", {"np"}),
    (-sympy.oo, "-np.inf", {"np"}),
    (sympy.pi * N, "np.pi * n", {"np"}),
    (C, "C", set()),
    (I - J, 'align(arange(C), "i", "ij") - align(arange(C), "j", "ij")', {"align", "arange"}),
    # indexed arrays: axes in index order, transposed or diagonal where needed
    (T[I], "t", set()),
    (M[I, J], "M", set()),
    (M[J, I], "transpose(M)", {"transpose"}),
    (M[K, K], "diagonal(M)", {"diagonal"}),
    (M[I, J] + T[I], 'M + align(t, "i", "ij")', {"align"}),
    (sympy.KroneckerDelta(I, J), "eye(C)", {"eye"}),
    (sympy.KroneckerDelta(TP, 0), "equal(0, tp)", {"equal"}),
    # extremes over classes reduce the axis of their index
    (symbols.index_max(T[K], K, C - 1), "np.max(t, axis=-1)", {"np"}),
    (symbols.index_max(M[I, J], I, C - 1), "np.max(M, axis=-2)", {"np"}),
    (symbols.index_min(M[I, J] / T[I], J, C - 1), 'np.min(M / nonzero(align(t, "i", "ij")), axis=-1)', {"np", "nonzero", "align"}),
    (sympy.Sum(symbols.index_max(M[I, J], J, C - 1), (I, 0, C - 1)), "sum_last_axis(np.max(M, axis=-1))", {"np", "sum_last_axis"}),
    # arithmetic
    (TP - FP, "tp - fp", set()),
    (-TP, "-tp", set()),
    (2 * N, "2 * n", set()),
    (TP / (TP + FP), "tp / nonzero(fp + tp)", {"nonzero"}),
    (1 / (T[I] + P[I]), "1 / nonzero(p + t)", {"nonzero"}),
    (N / (C * (C - 1)), "n / (C * (C - 1))", set()),
    (X / 2, "x0 / 2", set()),
    (sympy.Mul(-1, sympy.Rational(1, 2), N, evaluate=False), "-n / 2", set()),
    (sympy.Mul(sympy.Rational(1, 2), N, evaluate=False), "n / 2", set()),
    (N ** 2, "n ** 2", set()),
    (N ** sympy.Rational(3, 2), "n ** (3 / 2)", set()),
    (sympy.sqrt(N), "np.sqrt(n)", {"np"}),
    (1 / sympy.sqrt(N), "1 / nonzero(np.sqrt(n))", {"nonzero", "np"}),
    # functions
    (sympy.exp(T[I]), "np.exp(t)", {"np"}),
    (sympy.log(N), "np.log(nonzero(n))", {"np", "nonzero"}),
    (sympy.Abs(N - 1), "np.abs(n - 1)", {"np"}),
    (symbols.xlogy(T[I], N), 'xlogy(t, align(n, "", "i"))', {"xlogy", "align"}),
    (symbols.step(T[I] - P[I]), "np.heaviside(t - p, 0.5)", {"np"}),
    (sympy.Min(N, 1), "np.minimum(1, n)", {"np"}),
    (sympy.Max(T[I], P[J]), 'np.maximum(align(p, "j", "ij"), align(t, "i", "ij"))', {"np", "align"}),
    # sums: over a used index (the last class axis by einsum), over an unused one (times C), over thresholds
    (sympy.Sum(M[K, K], (K, 0, C - 1)), "sum_last_axis(diagonal(M))", {"sum_last_axis", "diagonal"}),
    (sympy.Sum(T[I], (I, 0, C - 1), (J, 0, C - 1)), "sum_last_axis(C * t)", {"sum_last_axis"}),
    (-sympy.Sum(M[K, K], (K, 0, C - 1)) / (2 * N), "-sum_last_axis(diagonal(M)) / nonzero(2 * n)",
     {"sum_last_axis", "diagonal", "nonzero"}),
    (sympy.Sum(CURVE_TP[I], (I, 0, LEVEL - 1)), "np.sum(np.where(valid, tp, 0.0), axis=-1)", {"np"}),
]


@pytest.mark.parametrize(("expr", "code", "helpers"), CASES, ids=[str(case[0]) for case in CASES])
def test_node_prints_exact_code_and_records_its_helpers(expr, code, helpers):
    printer = _printer()
    assert printer.code(expr) == code
    assert printer.helpers == helpers


def test_helpers_accumulate_over_one_printer():
    printer = _printer()
    printer.code(TP / (TP + FP))
    printer.code(M[J, I])
    assert printer.helpers == {"nonzero", "transpose"}


def test_free_indices_and_batching_are_reported():
    printed = _printer().print(M[I, J] + T[I])
    assert (printed.indices, printed.batched) == ("ij", True)
    assert not _printer().print(C - 1).batched


UNSUPPORTED = [
    (sympy.sin(N), "unsupported function sin"),
    (sympy.Symbol("unknown") + 1, "no variable for symbol unknown"),
    (sympy.Symbol("k", integer=True) + 1, "no variable for symbol k"),  # spelt like an index, not one
    (sympy.IndexedBase("q")[I], "no variable for q"),
    (sympy.Sum(T[I], (I, 1, C)), "sums run over"),
    (N ** T[I], "indexed exponents"),
    (sympy.Sum(N, (I, 0, LEVEL - 1)), "threshold sum"),
    (sympy.Interval(0, 1), "unsupported node Interval"),
]


@pytest.mark.parametrize(("expr", "message"), UNSUPPORTED, ids=[m for _, m in UNSUPPORTED])
def test_unsupported_nodes_raise_internal_error(expr, message):
    with pytest.raises(InternalError, match=message):
        _printer().code(expr)
