"""``group_sum``, the group-by that replaces sums over pairs of samples comparing keys, and the
binned calibration errors it makes linear at sizes the broadcast refused."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metricc.api import evaluate
from metricc.core.errors import InputError as InputError
from metricc.runtime.kernel import equal
from metricc.runtime.scores import check_score_memory, group_sum


def _by_pairs(keys, values, lookup):
    """The definition: every lookup key against every sample's key, O(n^2)."""
    values = np.broadcast_to(values, np.shape(values)[:-1] + keys.shape if np.ndim(values) else keys.shape)
    lookup = np.asarray(lookup)
    pairs = equal(keys, lookup.reshape(-1, 1)) * values[..., None, :]  # (..., lookup, sample)
    return np.sum(pairs, axis=-1).reshape(values.shape[:-1] + lookup.shape)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(1, 25), st.integers(0, 3), st.data())
def test_group_sum_is_the_sum_over_pairs(n, n_classes, data):
    keys = np.array(data.draw(st.lists(st.sampled_from([-1.0, -0.0, 0.0, 2.0, 3.5]), min_size=n, max_size=n)))
    shape = (n_classes, n) if n_classes else (n,)
    values = np.array(data.draw(st.lists(st.floats(-4, 4), min_size=int(np.prod(shape)),
                                         max_size=int(np.prod(shape))))).reshape(shape)
    lookup = np.array(data.draw(st.lists(st.sampled_from([-1.0, 0.0, 1.0, 2.0, 3.5, 7.0]), min_size=n, max_size=n)))
    for look in (keys, lookup, lookup[0]):
        assert np.allclose(group_sum(keys, values, look), _by_pairs(keys, values, look), rtol=1e-12, atol=1e-12)
    assert np.array_equal(group_sum(keys, 1.0, keys), _by_pairs(keys, 1.0, keys))  # counts: exact


def test_group_sum_propagates_undefined_keys_as_the_bracket_does():
    keys, values = np.array([0.0, np.nan, 1.0]), np.array([1.0, 2.0, 3.0])
    assert np.isnan(group_sum(keys, values, np.array([0.0, 1.0]))).all()
    looked = group_sum(np.array([0.0, 1.0]), np.array([1.0, 2.0]), np.array([np.nan, 1.0]))
    assert np.isnan(looked[0]) and looked[1] == 2.0


def _ece_by_hand(y, proba, bins):
    """Expected calibration error as users write it in numpy: top-label confidence binned with
    np.digitize (a confidence of 1 in a bin of its own), per-bin sums by np.bincount."""
    confidence, predicted = proba.max(axis=1), proba.argmax(axis=1)
    edges = np.arange(1, bins + 1) / bins
    which = np.digitize(confidence, edges)  # floor(bins * confidence), 1 -> bins
    gaps = np.bincount(which, weights=(predicted == y) - confidence, minlength=bins + 1)
    return np.abs(gaps).sum() / len(y)


def test_calibration_error_of_200_000_samples_and_10_classes_is_linear_and_agrees_with_numpy():
    rng = np.random.default_rng(3)
    n, n_classes = 200_000, 10  # broadcast over pairs of samples: 8 * n**2 bytes = 298 GiB
    proba = rng.dirichlet(np.full(n_classes, 0.3), size=n)
    proba[::1000] = np.eye(n_classes)[rng.integers(0, n_classes, size=200)]  # confidences of exactly 1
    y = np.where(rng.random(n) < 0.7, proba.argmax(axis=1), rng.integers(0, n_classes, size=n))
    ece = evaluate("calibration_error", y_true=y, scores=proba, params={"bins": 10})["calibration_error"]
    assert ece == pytest.approx(_ece_by_hand(y, proba, 10), rel=1e-12, abs=1e-15)


def test_binary_calibration_error_of_200_000_samples():
    rng = np.random.default_rng(4)
    p = rng.random(200_000)
    y = (rng.random(200_000) < p ** 1.5).astype(int)
    which = np.minimum(np.floor(15 * p), 15).astype(int)
    expected = np.abs(np.bincount(which, weights=y - p, minlength=16)).sum() / len(y)
    value = evaluate("binary_calibration_error", y_true=y, scores=p)["binary_calibration_error"]
    assert value == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_the_memory_check_measures_the_largest_array():
    check_score_memory("calibration_error", 10 ** 6, 10, ((1, 1),))  # 80 MB: linear, not refused
    with pytest.raises(InputError, match=r"^scores: x on 20000 samples and 10 classes needs arrays of 3\.0 GiB "
                                          r"\(n\*\*2 floats\)"):
        check_score_memory("x", 20_000, 10, ((1, 1), (2, 0)))
    with pytest.raises(InputError, match=r"needs arrays of 1\.5 GiB \(n \* C\*\*2 floats\)"):
        check_score_memory("x", 2 * 10 ** 6, 10, ((1, 2), (0, 2)))
