"""Delta-method standard errors through a default computed from the counts:
preference_driven's ``kappa``, the class prevalence ``(TP + FN) / n`` unless given.

The compiler derives ``df/dkappa`` and the default's own partials; the runtime chains them
only when kappa is left at its default (a kappa the user gives is a constant). Checked against
central differences of the value, which recomputes the default from the shifted counts.
"""

import numpy as np
import pytest

import metricc as mc
from metricc.api.evaluate import catalog

FULL = np.array([[40.0, 10, 3], [5, 45, 7], [2, 6, 30]])
WITH_EMPTY = np.array([[40.0, 0, 3], [5, 45, 0], [0, 6, 30]])
AVERAGES = [("none", {}), ("binary", {"pos_label": 0}), ("macro", {}), ("weighted", {})]


def _preference(**options):
    return lambda m: mc.evaluate("preference_driven", matrix=m, **options)["preference_driven"]


@pytest.mark.parametrize("kappa", [None, [0.2, 0.5, 0.9]], ids=["default kappa", "kappa given"])
@pytest.mark.parametrize("matrix", [FULL, WITH_EMPTY], ids=["all cells > 0", "empty cells"])
@pytest.mark.parametrize("average, options", AVERAGES, ids=[a for a, _ in AVERAGES])
def test_the_standard_error_is_the_finite_difference_delta_method(kappa, matrix, average, options, finite_difference_se):
    options = {"average": average, **options, **({"params": {"kappa": kappa}} if kappa is not None else {})}
    found = mc.evaluate("preference_driven", matrix=matrix, interval="delta", **options)["preference_driven"]
    expected = finite_difference_se(_preference(**options), matrix)
    np.testing.assert_allclose(np.asarray(found.se, dtype=float), expected, rtol=1e-8)
    assert np.all(np.asarray(found.se, dtype=float) > 0)


def test_the_default_moves_the_standard_error(finite_difference_se):
    """Holding the prevalence at its observed value gives the same values, not the same SEs:
    where precision and recall differ, the moving default adds ``df/dkappa dkappa/dcounts``."""
    matrix = np.array([[40.0, 25, 5], [1, 45, 2], [1, 2, 30]])
    prevalence = matrix.sum(axis=1) / matrix.sum()
    default = mc.evaluate("preference_driven", matrix=matrix, average="none", interval="delta")["preference_driven"]
    fixed = mc.evaluate("preference_driven", matrix=matrix, average="none", interval="delta",
                        params={"kappa": prevalence})["preference_driven"]
    np.testing.assert_allclose(default.value, fixed.value, rtol=1e-15)
    shift = np.abs(np.asarray(default.se) - np.asarray(fixed.se)) / np.asarray(fixed.se)
    assert shift[0] > 0.1 and shift[1] > 0.05  # classes 0 and 1: precision and recall far apart
    np.testing.assert_allclose(default.se, finite_difference_se(_preference(average="none"), matrix), rtol=1e-8)


def test_kappa_zero_has_recall_s_standard_error():
    """preference_driven(kappa=0) is recall (an equivalence the compiler proves): same SE."""
    found = mc.evaluate("preference_driven", matrix=FULL, average="none", interval="delta",
                        params={"kappa": [0.0, 0.0, 0.0]})["preference_driven"]
    recall = mc.evaluate("recall", matrix=FULL, average="none", interval="delta")["recall"]
    np.testing.assert_allclose(np.asarray(found.se, dtype=float), np.asarray(recall.se, dtype=float), rtol=1e-12)


def test_the_default_partials_are_the_prevalence_s():
    counts = np.array([[3.0], [5.0], [7.0], [11.0]])  # TP, FP, FN, TN of one class, n = 26
    kernel = vars(__import__(catalog()["preference_driven"].function.__module__, fromlist=["_"]))[
        "_default_kappa_gradient"]
    *partials, undefined = kernel(*counts)
    np.testing.assert_allclose(np.ravel(partials), [16 / 676, -10 / 676, 16 / 676, -10 / 676], rtol=1e-15)
    assert not np.any(undefined)


def test_delta_agrees_with_the_bootstrap_on_large_counts():
    matrix = FULL * 70
    delta = mc.evaluate("preference_driven", matrix=matrix, interval="delta")["preference_driven"]
    boot = mc.evaluate("preference_driven", matrix=matrix, interval="bootstrap", n_resamples=1000,
                       random_state=3)["preference_driven"]
    assert boot.se == pytest.approx(delta.se, rel=0.08)
