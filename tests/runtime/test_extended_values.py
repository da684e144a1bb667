"""Values on the extended real line and NaN propagation through indicators (issue 13 findings)."""

from __future__ import annotations

import math
import warnings

import numpy as np

from metricc.api import evaluate
from metricc.runtime.kernel import equal, extended_log


def test_log_loss_is_infinite_without_a_warning_where_the_true_class_has_probability_0():
    """-log(0) = inf is the value (a class sum's log(0) is -inf), not a divide warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = evaluate("log_loss", y_true=[0, 1], scores=[[1.0, 0.0], [1.0, 0.0]])["log_loss"]
    assert value == math.inf


def test_extended_log_of_zero_is_minus_infinity_silently():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert extended_log(np.array([0.0, math.e])).tolist() == [-math.inf, 1.0]


def test_indicator_of_an_undefined_value_is_undefined():
    assert np.isnan(equal(np.nan, 1.0)) and np.isnan(equal(0.0, np.array([np.nan])))[0]
    assert equal(np.array([2**60 + 1], dtype=object), 2**60 + 1).tolist() == [1.0]  # exact integers


def test_adjusted_g_mean_guard_gives_zero_at_tp_0_and_nan_without_positives():
    """The guard indicator(recall != 0): TP = 0 of a class with positives gives 0 (Batuwita and
    Palade); a class without positives has no recall, so no value (docs/differences.md)."""
    value = evaluate("adjusted_g_mean", matrix=[[0, 5], [0, 0]], average="none")["adjusted_g_mean"]
    assert np.asarray(value)[0] == 0.0 and np.isnan(np.asarray(value)[1])


def test_exact_copies_of_a_batched_matrix_are_the_matrix_not_its_diagonal():
    """A formula reading every cell and a cancelling polynomial of them (1 - n) took the
    remembered diagonal as the matrix's integer twin: summed over the batch axis (spec-fuzz)."""
    from metricc.runtime.kernel import exact
    from metricc.runtime.terms import matrix_terms

    batch = np.array([[[1, 2], [3, 4]], [[5, 0], [0, 5]]])
    M, *_ = matrix_terms(batch, elementwise=True)
    [twin] = exact(lambda bound: 4 * bound + 1, M)  # below 2**53: the float64 matrix itself is exact
    assert twin.shape == (2, 2, 2) and twin.dtype.kind == "f" and twin.tolist() == batch.tolist()
    [twin] = exact(lambda bound: 2 ** 60 + bound, M)
    assert twin.shape == (2, 2, 2) and twin.dtype.kind == "i" and twin.tolist() == batch.tolist()
