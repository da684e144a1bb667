"""Pair-counting indices against scikit-learn, and Krippendorff's alpha against its definition.

scikit-learn's clustering scores take the confusion matrix as a contingency table of two
partitions of the samples. Where a partition puts no pair together, or both are trivial,
scikit-learn returns a number by convention and metricc NaN (docs/differences.md).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import metricc as mc

metrics = pytest.importorskip("sklearn.metrics")


def random_labels(count: int, seed: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        size, c = int(rng.integers(2, 40)), int(rng.integers(2, 6))
        y_true = rng.integers(0, c, size)
        noisy = rng.random(size) < rng.random()
        yield y_true, np.where(noisy, rng.integers(0, c, size), y_true)


@pytest.mark.parametrize(("entry", "peer"), [
    ("adjusted_rand_index", "adjusted_rand_score"), ("fowlkes_mallows", "fowlkes_mallows_score")])
def test_pair_counting_index_equals_sklearn_where_defined(entry, peer):
    compared = 0
    for y_true, y_pred in random_labels(80, seed=len(entry)):
        ours = float(mc.evaluate(entry, y_true=y_true, y_pred=y_pred)[entry])
        if math.isnan(ours):
            continue
        assert ours == pytest.approx(getattr(metrics, peer)(y_true, y_pred), rel=1e-12, abs=1e-12)
        compared += 1
    assert compared >= 60


@pytest.mark.parametrize(("entry", "y_true", "y_pred", "sklearn_value"), [
    # No pair of samples shares a class in either partition: the chance-corrected ARI is 0/0.
    ("adjusted_rand_index", [0, 1, 2], [0, 1, 2], 1.0),
    ("adjusted_rand_index", [0, 1], [1, 0], 1.0),
    # Both partitions put every sample together: also 0/0 for ARI, 1 for Fowlkes-Mallows.
    ("adjusted_rand_index", [0, 0, 0], [0, 0, 0], 1.0),
    # Pair precision or pair recall is 0/0 when one partition puts no pair together.
    ("fowlkes_mallows", [0, 1, 2], [0, 0, 0], 0.0),
    ("fowlkes_mallows", [0, 1, 2], [0, 1, 2], 0.0),
])
def test_sklearn_conventions_where_the_index_is_undefined(entry, y_true, y_pred, sklearn_value):
    peer = {"adjusted_rand_index": metrics.adjusted_rand_score, "fowlkes_mallows": metrics.fowlkes_mallows_score}[entry]
    assert peer(y_true, y_pred) == sklearn_value
    assert math.isnan(mc.evaluate(entry, y_true=y_true, y_pred=y_pred)[entry])


def test_fowlkes_mallows_of_identical_partitions_with_pairs_is_one():
    assert mc.evaluate("fowlkes_mallows", y_true=[0, 0, 0], y_pred=[0, 0, 0])["fowlkes_mallows"] == 1.0


def _krippendorff_nominal(y_true, y_pred) -> float:
    """Krippendorff 2011, Section C, literally: the coincidence matrix of two coders, 1 - D_o / D_e."""
    values = np.unique(np.concatenate([y_true, y_pred]))
    index = {v: i for i, v in enumerate(values)}
    coincidences = np.zeros((len(values), len(values)))
    for a, b in zip(y_true, y_pred):  # each unit: two pairable values, both ordered pairs count 1/(2 - 1)
        coincidences[index[a], index[b]] += 1
        coincidences[index[b], index[a]] += 1
    m, total = coincidences.sum(axis=1), coincidences.sum()
    observed = coincidences.sum() - np.trace(coincidences)
    expected = (np.outer(m, m).sum() - (m**2).sum()) / (total - 1)
    return 1 - observed / expected


def test_krippendorff_alpha_is_the_nominal_alpha_of_the_true_and_predicted_coders():
    """The catalog's (and PyCM's) Krippendorff alpha is the literature's, not an approximation of it."""
    for y_true, y_pred in random_labels(40, seed=3):
        if len(np.unique(np.concatenate([y_true, y_pred]))) < 2:
            continue
        ours = float(mc.evaluate("krippendorff_alpha", y_true=y_true, y_pred=y_pred)["krippendorff_alpha"])
        assert ours == pytest.approx(_krippendorff_nominal(y_true, y_pred), rel=1e-12, abs=1e-12)


WHOLE_COUNTS = ("fowlkes_mallows", "adjusted_rand_index", "krippendorff_alpha")


@pytest.mark.parametrize("metric_id", WHOLE_COUNTS)
def test_pair_counting_refuses_a_matrix_of_fractions(metric_id):
    """Pairs of samples exist only between whole samples: a probabilistic matrix gave
    Fowlkes-Mallows -7e7 (the seeded runtime fuzz); now it is an InputError naming the entry."""
    from metricc.generated import CATALOG
    from metricc.core.errors import InputError

    assert CATALOG[metric_id].function(np.array([[3.0, 1.0], [2.0, 4.0]])) == pytest.approx(
        CATALOG[metric_id].function(np.array([[3, 1], [2, 4]])), rel=1e-15)
    with pytest.raises(InputError, match=r"^matrix: entry \[0, 1\] = 0.5 is not a whole count; this metric counts pairs"):
        CATALOG[metric_id].function(np.array([[3.0, 0.5], [2.0, 4.0]]))
    with pytest.raises(InputError, match="not a whole count"):
        mc.evaluate(metric_id, y_true=[0, 1, 1], scores=[[0.7, 0.3], [0.2, 0.8], [0.6, 0.4]], probabilistic="absolute")
