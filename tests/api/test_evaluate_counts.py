"""api/evaluate_counts.py: one evaluate call of a metric set gives, to the last bit, what each
generated function gives called on its own, and its plan is made once per request signature."""

from __future__ import annotations

import math

import numpy as np
import pytest

import metricc.api as mc
from metricc.api import evaluate_counts
from metricc.runtime.confusion import counts_from_matrix

ENTRIES = [(info, mode) for info in (mc.catalog()[name] for name in mc.catalog())
           if not info.needs_scores and not info.per_instance
           for mode in ([m for m in info.averages if m != "samples"] if info.takes == "counts" and info.averages
                        else [None])]
PARAMS = {"kappa": [0.0, 1.0, 0.5, 1.0], "relevance": [0.2, 0.5, 0.9, 0.4],
          "class_weights": [1.0, 2.0, 0.5, 1.0]}


def _matrices():
    rng = np.random.default_rng(31)
    for _ in range(4):
        yield rng.integers(0, 50, (4, 4))
    with_zero_row = rng.integers(0, 50, (4, 4))
    with_zero_row[2] = 0
    yield with_zero_row
    with_zero_column = rng.integers(0, 50, (4, 4))
    with_zero_column[:, 0] = 0
    yield with_zero_column
    yield np.diag([5, 0, 7, 0])


def _alone(info, mode, matrix, zero_division):
    """The metric's generated function called on its own input, without a context."""
    params = {p.name: PARAMS[p.name] for p in info.params if p.name in PARAMS}
    if info.takes == "matrix":
        return info.function(matrix, zero_division=zero_division, **params)
    averaging = {} if mode is None else {"average": mode, "pos_label": 1}
    return info.function(*counts_from_matrix(matrix), zero_division=zero_division, **averaging, **params)


@pytest.mark.parametrize("zero_division", [math.nan, 0.0, "skip"])
def test_one_call_of_the_whole_catalog_equals_each_function_alone_to_the_bit(zero_division):
    keys = [info.id if mode is None else f"{info.id}:{mode}" for info, mode in ENTRIES]
    params = {name: value for name, value in PARAMS.items()
              if any(p.name == name for info, _ in ENTRIES for p in info.params)}
    compared = 0
    for matrix in _matrices():
        together = mc.evaluate(keys, matrix=matrix, params=params, pos_label=1, zero_division=zero_division)
        for key, (info, mode) in zip(keys, ENTRIES):
            alone = _alone(info, mode, matrix, zero_division)
            assert np.array_equal(np.asarray(together[key]), np.asarray(alone), equal_nan=True), (key, together[key], alone)
            assert np.asarray(together[key]).tobytes() == np.asarray(alone).tobytes(), key  # -0.0 and NaN bits too
            compared += 1
    assert compared == 7 * len(ENTRIES) and len(ENTRIES) > 100


def test_a_batch_of_matrices_gives_each_matrix_s_values():
    matrices = np.stack(list(_matrices()))
    keys = ["accuracy", "f1:micro", "f1:macro", "f1:weighted", "precision:none", "mcc", "balanced_accuracy"]
    together = mc.evaluate(keys, matrix=matrices)
    for b, matrix in enumerate(matrices):
        alone = mc.evaluate(keys, matrix=matrix)
        for key in keys:
            np.testing.assert_allclose(np.asarray(together[key])[b], np.asarray(alone[key]), rtol=1e-15, atol=0)


def test_the_plan_is_made_once_per_signature_and_not_by_identity():
    matrix = np.array([[5, 1], [2, 7]])
    first = mc.evaluate(["f1:macro", "accuracy"], matrix=matrix)
    plans = evaluate_counts._planned.cache_info().hits
    again = mc.evaluate(["f1:macro", "accuracy"], matrix=matrix + 1)  # another list, equal: the same plan
    assert evaluate_counts._planned.cache_info().hits == plans + 1
    assert first.keys() == again.keys()
    micro = mc.evaluate(["f1", "accuracy"], matrix=matrix, average="micro")  # another averaging: another plan
    assert micro["f1"] == micro["accuracy"]


def test_unhashable_entries_and_parameters_are_planned_per_call():
    matrix = np.array([[5, 1, 0], [2, 7, 1], [0, 3, 4]])
    weights = np.array([1.0, 2.0, 1.0])
    listed = mc.evaluate(np.array(["f1", "recall"]), matrix=matrix, average="weighted", weights=weights)
    assert listed == mc.evaluate(["f1", "recall"], matrix=matrix, average="weighted", weights=weights)
    kappa = mc.evaluate("preference_driven", matrix=matrix, params={"kappa": np.array([1.0, 0.0, 1.0])})
    assert kappa["preference_driven"] == mc.metric("preference_driven").function(
        *counts_from_matrix(matrix), kappa=np.array([1.0, 0.0, 1.0]))


def test_errors_of_a_cached_request_are_those_of_the_first_call():
    matrix = np.array([[5, 1], [2, 7]])
    for _ in range(2):
        with pytest.raises(mc.InputError, match="no requested metric has a parameter 'beta'"):
            mc.evaluate(["f1", "accuracy"], matrix=matrix, params={"beta": 2.0})
        with pytest.raises(mc.InputError, match="f1 does not support 'median' averaging"):
            mc.evaluate(["mcc", "f1"], matrix=matrix, average="median")
        with pytest.raises(mc.InputError, match="unknown metric 'f2'"):
            mc.evaluate(["mcc", "f2"], matrix=matrix)
