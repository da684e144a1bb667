"""runtime/intervals.py against statsmodels' proportion_confint and scipy's beta distribution."""

import math
import re

import numpy as np
import pytest

import metricc as mc
from metricc.api import intervals
from metricc.core.errors import InputError

statsmodels = pytest.importorskip("statsmodels.stats.proportion")
stats = pytest.importorskip("scipy.stats")

CASES = [(0, 1), (0, 10), (1, 10), (5, 10), (9, 10), (10, 10), (3, 7), (17, 250), (249, 250), (1234, 5000),
         (1, 100000), (50000, 100000)]
LEVELS = (0.5, 0.9, 0.95, 0.99, 0.999)


@pytest.mark.parametrize("confidence", LEVELS)
def test_the_normal_quantile_is_scipy_s(confidence):
    p = 0.5 + confidence / 2
    assert intervals.normal_quantile(p) == pytest.approx(stats.norm.ppf(p), rel=1e-14)
    assert intervals.normal_quantile(1 - p) == pytest.approx(stats.norm.ppf(1 - p), rel=1e-14)


@pytest.mark.parametrize("p", [1e-300, 1e-20, 1e-5, 0.3, 1 - 1e-12])
def test_the_normal_quantile_in_the_tails(p):
    assert intervals.normal_quantile(p) == pytest.approx(stats.norm.ppf(p), rel=1e-12)


@pytest.mark.parametrize("method, name", [("wilson", "wilson"), ("agresti_coull", "agresti_coull"),
                                          ("clopper_pearson", "beta")])
@pytest.mark.parametrize("confidence", LEVELS)
def test_proportion_intervals_match_statsmodels(method, name, confidence):
    successes, trials = np.array(CASES).T
    lower, upper = getattr(intervals, method)(successes, trials, confidence)
    expected = np.array([statsmodels.proportion_confint(x, n, alpha=1 - confidence, method=name) for x, n in CASES])
    np.testing.assert_allclose(lower, expected[:, 0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(upper, expected[:, 1], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("successes, trials", [(3, 10**7), (5 * 10**6, 10**7), (10**7 - 2, 10**7), (123456789, 10**9),
                                                (5 * 10**8, 10**9), (1, 2**40)])
def test_clopper_pearson_at_large_counts_matches_scipy_beta_quantiles(successes, trials):
    """The former continued fraction ran a fixed 300 steps: at n = 1e7 its bounds were 2e-12
    off scipy's, and its beta CDF went negative at 1e9. (At 0.999 and 1e9 trials scipy's own
    quantile is 1.7e-12 off the root of the exact tail, so the levels here are 0.9 and 0.95.)"""
    for confidence in (0.9, 0.95):
        alpha = 1 - confidence
        lower, upper = intervals.clopper_pearson(successes, trials, confidence)
        assert float(lower) == pytest.approx(stats.beta.ppf(alpha / 2, successes, trials - successes + 1), rel=1e-12)
        assert float(upper) == pytest.approx(stats.beta.ppf(1 - alpha / 2, successes + 1, trials - successes), rel=1e-12)


@pytest.mark.parametrize("confidence", LEVELS)
def test_clopper_pearson_keeps_its_digits_at_tiny_bounds(confidence):
    """One success in 2**40 trials: the lower bound 1 - (1 - alpha/2)**(1/n) is about 1e-14; it
    keeps 14 significant digits (a bisection of [0, 1] by halves of the interval kept 6)."""
    import mpmath

    trials = 2**40
    with mpmath.workdps(40):
        alpha = 1 - mpmath.mpf(confidence)
        exact = -mpmath.expm1(mpmath.log1p(-alpha / 2) / trials)
        lower, _ = intervals.clopper_pearson(1, trials, confidence)
        assert abs(float((mpmath.mpf(float(lower)) - exact) / exact)) < 1e-14


def test_clopper_pearson_at_2_53_trials_is_the_normal_interval():
    """At n = 2**53 the binomial is normal to within O(1/n): the bounds are p -+ z sqrt(p(1-p)/n)
    to 1e-15 (scipy's beta quantile is off by 8e-11 there, so it is not the reference)."""
    trials = 2**53
    for confidence in (0.9, 0.95, 0.999):
        z = intervals.normal_quantile(0.5 + confidence / 2)
        lower, upper = intervals.clopper_pearson(trials // 2, trials, confidence)
        half = z * math.sqrt(0.25 / trials)
        assert float(lower) == pytest.approx(0.5 - half, abs=1e-15)
        assert float(upper) == pytest.approx(0.5 + half, abs=1e-15)


def test_no_trials_give_nan_and_arrays_keep_their_shape():
    lower, upper = intervals.wilson(np.array([[0, 3], [2, 0]]), np.array([[0, 4], [2, 5]]), 0.95)
    assert lower.shape == (2, 2) and math.isnan(lower[0, 0]) and math.isnan(upper[0, 0])
    assert np.isfinite(lower[1]).all()


@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.1, True, "0.95", None])
def test_the_confidence_level_is_checked(bad):
    with pytest.raises(InputError, match="confidence"):
        intervals.check_confidence(bad)


def _wilson_exact(x: int, n: int, confidence: float) -> tuple[float, float]:
    """Wilson's bounds in 40-digit arithmetic, from the textbook centre -+ half."""
    import mpmath

    with mpmath.workdps(40):
        z = mpmath.sqrt(2) * mpmath.erfinv(mpmath.mpf(confidence))  # of the float as given
        centre, denominator = x + z * z / 2, n + z * z
        half = z * mpmath.sqrt(mpmath.mpf(x) * (n - x) / n + z * z / 4)
        return float((centre - half) / denominator), float((centre + half) / denominator)


@pytest.mark.parametrize("confidence", [0.5, 0.9, 0.95, 0.99, 0.999999])
@pytest.mark.parametrize("trials", [1, 2, 3, 10, 1000, 10 ** 6, 2 ** 53])
def test_wilson_holds_its_estimate_in_0_1_at_every_count(trials, confidence):
    """Issue 27: at x = n the bound was 0.9999999999999998 (excluding the estimate 1), at
    x = 0 -5.6e-17; the bounds are exactly 0 and 1 there and within 1e-13 of 40-digit
    arithmetic elsewhere (the lower bound relative to itself: it keeps its digits near 0)."""
    counts = sorted(c for c in {0, 1, 2, trials // 3, trials - 2, trials - 1, trials} if 0 <= c <= trials)
    lower, upper = intervals.wilson(np.array(counts, dtype=float), float(trials), confidence)
    share = np.array(counts) / trials
    assert np.all((0 <= lower) & (lower <= share) & (share <= upper) & (upper <= 1))
    assert lower[0] == 0 and upper[-1] == 1
    for x, low, high in zip(counts, lower, upper):
        exact_low, exact_high = _wilson_exact(x, trials, confidence)
        assert low == pytest.approx(exact_low, rel=1e-13, abs=1e-300)
        assert high == pytest.approx(exact_high, rel=1e-13)


@pytest.mark.parametrize("method", [intervals.wilson, intervals.agresti_coull, intervals.clopper_pearson])
@pytest.mark.parametrize("successes, trials, argument, rule", [
    (-1, 10, "successes", "successes must lie between 0 and the trials, got -1 successes of 10 trials"),
    (11, 10, "successes", "successes must lie between 0 and the trials, got 11 successes of 10 trials"),
    (1, 2.0 ** 60, "trials", "trials must be at most 2**53"),
])
def test_counts_outside_a_proportion_name_the_argument(method, successes, trials, argument, rule):
    """Not ``binomial_tail successes`` (issue 27): the user's own argument, and what it must be."""
    with pytest.raises(InputError, match=re.escape(rule)) as info:
        method(successes, trials, 0.95)
    assert info.value.argument == argument


def test_clopper_pearson_names_fractional_counts_as_its_own_rule():
    with pytest.raises(InputError, match=r"clopper_pearson counts whole successes of whole trials, got 2.5 successes") as info:
        intervals.clopper_pearson(2.5, 10, 0.95)
    assert info.value.argument == "successes"
    assert intervals.wilson(2.5, 10, 0.95)[0] > 0  # weighted counts are fine for the score interval


def test_a_weighted_matrix_under_clopper_pearson_names_the_interval():
    with pytest.raises(InputError, match=r"clopper_pearson counts whole .* \(a weighted matrix\): use wilson") as info:
        mc.evaluate("accuracy", matrix=[[2.5, 1], [1, 2]], interval="clopper_pearson")
    assert info.value.argument == "interval"


def test_no_count_no_interval():
    for method in (intervals.wilson, intervals.agresti_coull, intervals.clopper_pearson):
        assert all(np.isnan(bound) for bound in method(np.nan, 3, 0.95))
