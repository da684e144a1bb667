"""runtime/intervals.py against statsmodels' proportion_confint and scipy's beta distribution."""

import math

import numpy as np
import pytest

from metricc.runtime import intervals
from metricc.runtime.errors import InputError

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


def test_beta_cdf_and_quantile_match_scipy():
    rng = np.random.default_rng(3)
    a, b = rng.uniform(0.5, 500, 200), rng.uniform(0.5, 500, 200)
    x = rng.uniform(0, 1, 200)
    np.testing.assert_allclose(intervals.beta_cdf(x, a, b), stats.beta.cdf(x, a, b), rtol=1e-12, atol=1e-14)
    q = rng.uniform(1e-6, 1 - 1e-6, 200)
    np.testing.assert_allclose(intervals.beta_quantile(q, a, b), stats.beta.ppf(q, a, b), rtol=1e-12, atol=1e-14)


def test_no_trials_give_nan_and_arrays_keep_their_shape():
    lower, upper = intervals.wilson(np.array([[0, 3], [2, 0]]), np.array([[0, 4], [2, 5]]), 0.95)
    assert lower.shape == (2, 2) and math.isnan(lower[0, 0]) and math.isnan(upper[0, 0])
    assert np.isfinite(lower[1]).all()


@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.1, True, "0.95", None])
def test_the_confidence_level_is_checked(bad):
    with pytest.raises(InputError, match="confidence"):
        intervals.check_confidence(bad)
