"""``p_value`` (PyCM's P-Value) against exact rational arithmetic, at its edges, and the
``binomial_tail`` function of the spec language it is written with."""

from __future__ import annotations

import math
from fractions import Fraction
from math import comb

import numpy as np
import pytest
import sympy

import metricc as mc
from metricc.compiler.language.symbols import binomial_tail
from metricc.generated.p_value import p_value
from metricc.core.errors import InputError


def exact_p_value(matrix) -> Fraction:
    """``P(X >= trace)``, ``X ~ Binomial(n, max_k t_k / n)``, as one exact rational sum."""
    m = np.asarray(matrix)
    n, trace, chance = int(m.sum()), int(np.trace(m)), Fraction(int(m.sum(axis=1).max()), int(m.sum()))
    return sum((comb(n, j) * chance ** j * (1 - chance) ** (n - j) for j in range(trace, n + 1)), Fraction(0))


def test_exact_on_small_random_matrices():
    rng = np.random.default_rng(5)
    for _ in range(25):
        c = int(rng.integers(2, 6))
        matrix = rng.integers(0, int(rng.choice([3, 20, 80])), size=(c, c)) + np.diag(rng.integers(0, 40, size=c))
        if matrix.sum() == 0:
            continue
        assert abs(float(p_value(matrix)) - float(exact_p_value(matrix))) < 1e-12, matrix.tolist()


def test_edges():
    perfect = np.diag([3, 5, 2])
    assert float(p_value(perfect)) == pytest.approx(0.5 ** 10, rel=1e-14)  # every sample right: NIR**n
    assert float(p_value([[7]])) == 1.0  # one class: the accuracy is the rate itself
    always_largest = [[0, 4], [0, 6]]  # always the largest class: the accuracy is the rate, nothing significant
    assert float(p_value(always_largest)) == pytest.approx(float(exact_p_value(always_largest)), abs=1e-14)
    assert 0.5 < float(p_value(always_largest)) < 0.7
    assert math.isnan(p_value(np.zeros((3, 3))))  # empty: NIR = 0/0
    assert float(p_value(np.zeros((3, 3)), zero_division=1.0)) == 1.0


def test_batches_and_whole_counts():
    stack = np.array([[[5, 1], [2, 6]], [[0, 0], [0, 0]], [[9, 0], [0, 1]]])
    got = p_value(stack)
    assert got.shape == (3,) and math.isnan(got[1])
    assert got[0] == pytest.approx(float(exact_p_value(stack[0])), abs=1e-15)
    with pytest.raises(InputError, match=r"^matrix: entry \[0, 0\] = 0.5 is not a whole count"):
        p_value(np.array([[0.5, 1.0], [1.0, 2.0]]))
    assert mc.evaluate("p_value", matrix=stack[0])["p_value"] == got[0]


def test_sympy_meaning_agrees_with_exact_evaluation():
    """The rewrites are the function: the finite sum and the incomplete beta give its value."""
    third, symbol = sympy.Rational(1, 3), sympy.Symbol("x", integer=True)
    as_sum = binomial_tail(symbol, 7, third).rewrite(sympy.Sum)
    as_beta = binomial_tail(symbol, 7, third).rewrite(sympy.betainc_regularized)
    for x in range(-1, 9):
        value = binomial_tail(x, 7, third)
        assert value.is_Rational and value == as_sum.subs(symbol, x).doit()
        assert abs(sympy.N(as_beta.subs(symbol, x), 30) - sympy.N(value, 30)) < 1e-25
    beyond = binomial_tail(2500, 5000, sympy.Rational(1, 2))  # past EXACT_TRIALS: evalf in mpmath
    assert beyond.func is binomial_tail
    exact = sympy.Rational(1, 2) + sympy.binomial(5000, 2500) / sympy.Integer(2) ** 5001  # the symmetry of p = 1/2
    assert abs(sympy.N(beyond, 40) - sympy.N(exact, 40)) < 1e-38


@pytest.mark.parametrize("big", [2 ** 20, 2 ** 40, 2 ** 50, 10 ** 15])
@pytest.mark.parametrize("extra", [0, 50, 10 ** 5])
def test_large_counts_within_1e_12_absolute(big, extra):
    """Near the mean at up to 2**50 samples: the NIR reaches the tail with its count as the
    exact mean, so its rounding as a ratio does not move the tail (it did by 1.6e-9)."""
    from metricc.compiler.language.binomial_reference import tail

    matrix = np.array([[big, 5, 0], [0, 0, 0], [23, big + extra, 27]], dtype=np.int64)
    n, trace, largest = int(matrix.sum()), int(np.trace(matrix)), int(matrix.sum(axis=1).max())
    assert abs(float(p_value(matrix)) - float(tail(trace, n, largest, n, 80))) < 1e-12


@pytest.mark.parametrize("matrix", [[[2, 2], [1, 175033786542184]], [[5, 0], [0, 2 ** 52]], [[0, 3], [0, 2 ** 50]]])
def test_a_chance_within_1e_13_of_one(matrix):
    """Hypothesis found the first: NIR = 1 - 4/n, every sample right but three. ``p ** n`` from
    the rounded ratio was 1e-4 off (its log times n); from the counts' deviance it is exact."""
    from metricc.compiler.language.binomial_reference import tail

    matrix = np.array(matrix, dtype=np.int64)
    n, trace, largest = int(matrix.sum()), int(np.trace(matrix)), int(matrix.sum(axis=1).max())
    assert abs(float(p_value(matrix)) - float(tail(trace, n, largest, n, 60))) < 1e-12
