"""Delta-method standard errors through a parameter: iba's ``base`` (another metric).

The compiler derives iba's partials with ``B = base(TP, FP, FN, TN)`` held as a variable and
adds ``df/dB``; the runtime multiplies it by the bound metric's own partials (the chain rule),
whatever metric is bound. Checked against central differences of the value.
"""

import numpy as np
import pytest

import metricc as mc
from metricc.core.errors import InputError
from metricc.api.evaluate import catalog

FULL = np.array([[40.0, 10, 3], [5, 45, 7], [2, 6, 30]])
WITH_EMPTY = np.array([[40.0, 0, 3], [5, 45, 0], [0, 6, 30]])
BASES = ["g_mean", "f1", ("f_beta", {"beta": 2.0})]


def _iba(**options):
    return lambda m: mc.evaluate("iba", matrix=m, **options)["iba"]


@pytest.mark.parametrize("base", BASES, ids=str)
@pytest.mark.parametrize("matrix", [FULL, WITH_EMPTY], ids=["all cells > 0", "empty cells"])
@pytest.mark.parametrize("average, options", [("none", {}), ("binary", {"pos_label": 0}), ("micro", {}),
                                              ("macro", {}), ("weighted", {})])
def test_the_standard_error_is_the_finite_difference_delta_method(base, matrix, average, options, finite_difference_se):
    options = {"average": average, "params": {"base": base, "alpha": 0.3}, **options}
    found = mc.evaluate("iba", matrix=matrix, interval="delta", **options)["iba"]
    expected = finite_difference_se(_iba(**options), matrix)
    np.testing.assert_allclose(np.asarray(found.se, dtype=float), expected, rtol=1e-8)
    assert np.all(np.asarray(found.se, dtype=float) > 0)


def test_a_base_without_a_gradient_is_refused_with_its_reason():
    with pytest.raises(InputError, match="base: 'adjusted_g_mean' has no delta-method gradient"):
        mc.evaluate("iba", matrix=FULL, params={"base": "adjusted_g_mean"}, pos_label=0, interval="delta")
    boot = mc.evaluate("iba", matrix=FULL, params={"base": "adjusted_g_mean"}, pos_label=0, interval="bootstrap",
                       n_resamples=100, random_state=0)["iba"]
    assert np.isfinite(boot.se)


def test_delta_agrees_with_the_bootstrap_on_large_counts():
    matrix = FULL * 70
    delta = mc.evaluate("iba", matrix=matrix, average="macro", interval="delta")["iba"]
    boot = mc.evaluate("iba", matrix=matrix, average="macro", interval="bootstrap", n_resamples=1000,
                       random_state=3)["iba"]
    assert boot.se == pytest.approx(delta.se, rel=0.08)


def test_the_partials_are_those_of_each_class_value():
    matrix = FULL
    tp = np.diag(matrix)
    fp, fn = matrix.sum(axis=0) - tp, matrix.sum(axis=1) - tp
    counts = np.stack([tp, fp, fn, matrix.sum() - tp - fp - fn])
    info = catalog()["iba"]
    partials = info.gradient(*counts, base="f1", average="none")
    for k in range(4):
        shift = np.zeros_like(counts)
        shift[k] = 1e-5
        numeric = (info.function(*(counts + shift), base="f1", average="none")
                   - info.function(*(counts - shift), base="f1", average="none")) / 2e-5
        np.testing.assert_allclose(partials[:, k], numeric, rtol=1e-6, atol=1e-9)
