"""The runtime's binomial upper tail against exact arithmetic, at the edges of its domain and
where its continued fraction is slowest (runtime/binomial.py)."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import mpmath
import numpy as np
import pytest

from metricc.core import binomial
from metricc.compiler.language.binomial_reference import tail
from metricc.core.binomial import binomial_probability, binomial_tail
from metricc.core.errors import InputError

ABSOLUTE = 1e-12


def exact_tail(x: int, n: int, p: Fraction) -> Fraction:
    """``P(X >= x)`` as one exact rational sum."""
    if x <= 0:
        return Fraction(1)
    return sum((comb(n, j) * p ** j * (1 - p) ** (n - j) for j in range(x, n + 1)), Fraction(0))


def summed_tail(x: int, n: int, p: float, digits: int = 40) -> mpmath.mpf:
    """``P(X >= x)`` summed term by term at ``digits`` digits over mean +- 15 sd (the terms
    beyond are below 1e-45): independent of the continued fraction and of Loader's form."""
    with mpmath.workdps(digits):
        pp = mpmath.mpf(p)
        sd = float(mpmath.sqrt(n * pp * (1 - pp)))
        low, high = max(x, int(n * p - 15 * sd)), min(n, int(n * p + 15 * sd) + 1)
        if low > high:
            return mpmath.mpf(0) if x > n * p else mpmath.mpf(1)
        term = mpmath.exp(mpmath.loggamma(n + 1) - mpmath.loggamma(low + 1) - mpmath.loggamma(n - low + 1)
                          + low * mpmath.log(pp) + (n - low) * mpmath.log(1 - pp))
        ratio = pp / (1 - pp)
        total = mpmath.mpf(0)
        for j in range(low, high + 1):
            total += term
            term *= (n - j) * ratio / (j + 1)
        return total


def test_small_trials_exact_everywhere():
    """Every successes count of every trials count up to 40, at probabilities 0, 1 and between."""
    probabilities = [Fraction(0), Fraction(1), Fraction(1, 2), Fraction(1, 3), Fraction(999, 1000), Fraction(1, 10 ** 6)]
    xs, ns, ps, expected = [], [], [], []
    for n in range(0, 41):
        for x in range(-1, n + 2):
            for p in probabilities:
                xs.append(x), ns.append(n), ps.append(float(p))
                expected.append(float(exact_tail(x, n, Fraction(float(p)))))
    got = binomial_tail(np.array(xs), np.array(ns), np.array(ps))
    assert np.max(np.abs(got - np.array(expected))) < 1e-14


def test_exact_rational_reference_at_hundreds_of_trials():
    rng = np.random.default_rng(7)
    for _ in range(12):
        n = int(rng.integers(1, 300))
        x = int(rng.integers(0, n + 1))
        p = Fraction(int(rng.integers(0, n + 1)), n)  # a no-information rate: a count over n
        got = binomial_tail(x, n, float(p))
        assert abs(got - float(exact_tail(x, n, Fraction(float(p))))) < ABSOLUTE, (x, n, p)


@pytest.mark.parametrize("n, p", [(10 ** 6, 0.5), (10 ** 7, 0.01), (10 ** 9, 1e-4), (2 ** 53, 1e-12)])
def test_large_trials_against_a_term_by_term_sum(n, p):
    """Around the mean (where the continued fraction is slowest) and in both tails."""
    sd = (n * p * (1 - p)) ** 0.5
    for z in (-30, -3, -1, -0.3, 0, 0.2, 1, 2.5, 8, 30):
        x = int(n * p + z * sd)
        reference = summed_tail(x, n, p)
        assert abs(float(binomial_tail(x, n, p)) - float(reference)) < ABSOLUTE, (x, n, p, z)


def test_certain_and_impossible_outcomes_at_the_largest_counts():
    n = float(2 ** 53)
    assert binomial_tail(0, n, 0.3) == 1.0
    assert binomial_tail(n + 1, n, 0.3) == 0.0
    assert binomial_tail(n, n, 1.0) == 1.0 and binomial_tail(1, n, 0.0) == 0.0
    assert binomial_tail(n, n, 0.5) == 0.0  # 2**-n underflows to 0, far below 1e-12
    assert binomial_tail(1, n, 1e-300) == pytest.approx(n * 1e-300, rel=1e-12)  # 1 - (1 - p)**n
    assert binomial_tail(n, n, 1 - 2 ** -53) == pytest.approx(float(mpmath.power(1 - mpmath.mpf(2) ** -53, 2 ** 53)), abs=1e-15)


def test_probabilities_of_loader_form_are_relatively_exact():
    for x, n, p in [(3, 10, 0.3), (500, 1000, 0.5), (123456, 10 ** 9, 1.3e-4), (0, 10 ** 9, 1e-9), (10 ** 9, 10 ** 9, 1 - 1e-9)]:
        with mpmath.workdps(40):
            pp = mpmath.mpf(p)
            reference = mpmath.binomial(n, x) * pp ** x * (1 - pp) ** (n - x)
        assert float(binomial_probability(x, n, p)) == pytest.approx(float(reference), rel=1e-13)


def test_batches_broadcast_and_keep_their_shape():
    matrices = np.arange(2 * 3 * 3).reshape(2, 3, 3).astype(float)
    got = binomial_tail(matrices, 20.0, np.array([0.2, 0.5, 0.9]))
    assert got.shape == (2, 3, 3)
    expected = [[[float(exact_tail(int(x), 20, Fraction(p))) for x, p in zip(row, (0.2, 0.5, 0.9))] for row in m] for m in matrices]
    assert np.max(np.abs(got - np.array(expected))) < 1e-14
    assert np.isnan(binomial_tail(np.nan, 3, 0.5)) and np.isnan(binomial_tail(1, 3, np.nan))


@pytest.mark.parametrize("args, argument", [
    ((1.5, 10, 0.5), "binomial_tail successes"),
    ((1, 10.25, 0.5), "binomial_tail trials"),
    ((0, -1, 0.5), "binomial_tail trials"),
    ((1, 10, 1.5), "binomial_tail probability"),
    ((1, 10, -0.1), "binomial_tail probability"),
])
def test_outside_the_domain_is_an_input_error(args, argument):
    with pytest.raises(InputError) as raised:
        binomial_tail(*args)
    assert raised.value.argument == argument


@pytest.mark.parametrize("n, p", [(4 * 10 ** 6, 0.5), (int(1e6 / (0.99 * 0.01)), 0.01)])
def test_both_ways_agree_across_the_seam(n, p):
    """Just below and just above SUMMED_SD (sum of terms, then the expansion): both exact."""
    for scale in (0.999, 1.001):
        trials = int(n * scale ** 2)
        sd = (trials * p * (1 - p)) ** 0.5
        assert (sd > binomial.SUMMED_SD) == (scale > 1)
        for z in (-2, 0, 0.05, 1.5):
            x = int(trials * p + z * sd)
            assert abs(float(binomial_tail(x, trials, p)) - float(summed_tail(x, trials, p))) < ABSOLUTE, (x, trials, p)


@pytest.mark.parametrize("x, n, numerator, denominator", [
    (2 ** 52, 2 ** 53, 1, 2),  # the mean of the largest count: P(X = n/2) / 2 above 1/2
    (562949953421312 + 353085, 1125899906842624 + 355000, 1, 2),  # hypothesis found this matrix's tail
    (10 ** 15 // 100 + 3 * 10 ** 6, 10 ** 15, 1, 100),
    (9007, 2 ** 53, 1, 10 ** 12),  # a tiny chance of a huge number of trials
])
def test_at_the_mean_of_the_largest_counts(x, n, numerator, denominator):
    """Against the compiler's mpmath reference (a quadrature of the beta density, not this
    expansion) at the float64 chance the runtime is given: the rounding of a ratio moves a tail
    at the mean of 10**15 trials by more than 1e-12 (docs/differences.md, ``conditioning``)."""
    chance = numerator / denominator
    reference = tail(x, n, *Fraction(chance).as_integer_ratio(), 80)
    assert abs(float(binomial_tail(x, n, chance)) - float(reference)) < ABSOLUTE


@pytest.mark.parametrize("x, n, count", [
    (2 ** 49 + 40, 2 ** 50 + 55, 2 ** 49 + 5),  # near the middle, both ways: the expansion
    (10 ** 15 // 3 + 7 * 10 ** 6, 10 ** 15, 10 ** 15 // 3),
    (1_000_000 + 300, 3_000_001, 1_000_000),  # the summed way
])
def test_a_count_over_the_trials_passed_as_the_mean_is_exact(x, n, count):
    """``mean=count``: the chance count / n enters exactly, not as its rounded ratio."""
    reference = float(tail(x, n, count, n, 80))
    assert abs(float(binomial_tail(x, n, count / n, mean=count)) - reference) < ABSOLUTE
    with pytest.raises(InputError) as raised:
        binomial_tail(x, n, count / n, mean=count * (1 + 1e-9) + 1)
    assert raised.value.argument == "binomial_tail mean"


@pytest.mark.parametrize("n, count", [(2 ** 50 + 3, 2 ** 50), (2 ** 50 + 3, 3), (10 ** 15, 10 ** 15 - 7)])
def test_all_or_no_successes_from_the_count(n, count):
    """``p ** n`` and ``(1 - p) ** n`` at ``p = count / n``: from the counts' deviance, where
    ``n log p`` of the rounded ratio is off by ``n`` ulps (1e-4 relative at 1e14 trials)."""
    import mpmath

    mpmath.mp.dps = 40
    chance = mpmath.mpf(count) / n
    for successes, exact in ((n, chance ** n), (0, (1 - chance) ** n)):
        found = float(binomial_probability(successes, n, count / n, mean=count))
        assert abs(found - float(exact)) <= 1e-14 * float(exact) + 1e-300, (successes, found, float(exact))


def test_an_expansion_that_does_not_converge_is_refused(monkeypatch):
    """Too few terms allowed (the test lowers the bound): an InputError, never the partial sum."""
    monkeypatch.setattr(binomial, "MAX_TERMS", 2)
    with pytest.raises(InputError, match="did not converge within 2 terms"):
        binomial_tail(np.array([5 * 10 ** 6, 3.0]), 10 ** 7, 0.5)
    assert binomial_tail(3.0, 10 ** 7, 0.5) == 1.0  # summed, far below the mean: untouched


def test_the_expansion_converges_across_its_domain():
    """Every variance from the seam (1e6) to the largest counts, chances from 1e-9 to 1 - 1e-9,
    successes from 40 sd below to 40 sd above the mean: converged (no InputError), in [0, 1],
    monotone in the successes, and through 1/2 at the mean."""
    n = np.repeat(np.floor(np.geomspace(1.001e6 / 0.25, 2.0 ** 53, 12)), 81)
    z = np.tile(np.linspace(-40, 40, 81), 12)
    for p in (0.5, 0.01, 1e-6, 1 - 1e-6):
        trials = np.maximum(n, np.ceil(1.001e6 / (p * (1 - p))))
        trials = np.minimum(trials, 2.0 ** 53)
        sd = np.sqrt(trials * p * (1 - p))
        x = np.clip(np.floor(trials * p + z * sd), 0, trials)
        got = binomial_tail(x, trials, p)
        assert np.all((got >= 0) & (got <= 1))
        assert np.all(np.diff(got.reshape(12, 81), axis=1) <= 1e-15)
        middle = got.reshape(12, 81)[:, 40]
        assert np.all(np.abs(middle - 0.5) < 0.01)
