"""The multinomial's support (:mod:`metricc.compiler.analysis.support`): what the gradient may ignore."""

import sympy

from metricc.compiler.analysis import support
from metricc.compiler.language import symbols

TP, FP, FN, TN = symbols.COUNTS
M, t, p, n = symbols.M, symbols.ROW_TOTAL, symbols.COLUMN_TOTAL, symbols.N_TOTAL
a, b, k = (symbols.index_symbol(name) for name in "abk")


def test_a_zero_guard_is_an_equality_of_a_sum_of_counts_with_zero():
    assert support.zero_guard(sympy.KroneckerDelta(t[k], 0))
    assert support.zero_guard(sympy.KroneckerDelta(TP + FN, 0))
    assert not support.zero_guard(sympy.KroneckerDelta(TP - FP, 0))  # a difference crosses 0 as counts move
    assert not support.zero_guard(sympy.KroneckerDelta(t[k], 1))


def test_cases_that_empty_the_cell_are_weighed_out():
    assert support.weighed_out(t[a], a, b) and support.weighed_out(p[b], a, b)
    assert support.weighed_out(t[a] + p[a], a, b) and support.weighed_out(n, a, b)
    assert not support.weighed_out(p[a], a, b)  # column a: M[a, b] need not be in it
    assert not support.weighed_out(t[k], a, b)  # some class k: not this cell's
    assert not support.weighed_out(n ** 2 - t[a] * p[b], a, b)


def test_xlogy_is_differentiated_on_the_interior_and_given_back():
    x = sympy.Symbol("x", positive=True)
    derivative = support.restored(sympy.diff(support.opaque(symbols.xlogy(x, x / n)), x))
    assert sympy.simplify(derivative - (sympy.log(x / n) + 1)) == 0
    guarded = (1 - sympy.KroneckerDelta(t[k], 0)) * t[k]
    assert support.restored(support.opaque(guarded)) == guarded
