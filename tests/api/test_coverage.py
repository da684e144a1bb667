"""A bounded run of benchmarks/coverage.py: intervals cover the true value about as often as they claim.

400 matrices per check (the benchmark draws 1,000 per cell and more with flags); the tolerance here is 3.5%,
about three binomial standard deviations of a share near 0.95 over 400 draws.
"""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "coverage.py"
SPEC = importlib.util.spec_from_file_location("coverage_benchmark", PATH)
coverage_benchmark = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(coverage_benchmark)


@pytest.mark.parametrize("population", sorted(coverage_benchmark.POPULATIONS))
@pytest.mark.parametrize("request_, method", [("mcc", "delta"), ("f1:macro", "delta"), ("cohen_kappa", "delta"),
                                              ("recall:none", "wilson"), ("accuracy", "agresti_coull")])
def test_nominal_95_percent_is_met(population, request_, method):
    shares = coverage_benchmark.coverage(request_, method, coverage_benchmark.POPULATIONS[population](0.85), n=300,
                                         n_matrices=400, confidence=0.95, rng=np.random.default_rng(1))
    assert np.all(np.abs(np.atleast_1d(shares) - 0.95) <= 0.035), shares


@pytest.mark.parametrize("request_", ["accuracy", "recall:binary", "mcc"])
def test_the_delta_interval_covers_near_the_end_of_the_range_where_wald_does_not(request_):
    """Issue 27: at q = 0.999, n = 500 the Wald interval covered about 0.4 (most matrices are
    perfect: [1, 1] with se 0); the delta interval on the logit / Fisher z scale, from smoothed
    counts at the end of the range, covers near the nominal 0.95."""
    population = coverage_benchmark.binary(0.999)
    rng = np.random.default_rng(3)
    delta = coverage_benchmark.coverage(request_, "delta", population, n=500, n_matrices=400, confidence=0.95, rng=rng)
    wald = coverage_benchmark.coverage(request_, "wald", population, n=500, n_matrices=400, confidence=0.95, rng=rng)
    assert delta >= 0.915 and wald < 0.8, (delta, wald)


def test_the_bootstrap_covers_too():
    shares = coverage_benchmark.coverage("mcc", "bootstrap", coverage_benchmark.binary(0.85), n=300,
                                         n_matrices=60, confidence=0.95, rng=np.random.default_rng(2), n_resamples=300)
    assert shares >= 0.85  # 60 draws: a loose bound; the benchmark's --bootstrap run is the real check
