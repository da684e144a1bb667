"""Weighted kappa against scikit-learn's ``cohen_kappa_score(weights="linear" | "quadratic")``.

``weighted_kappa`` weighs a disagreement between class indices i and j by ``|i - j|**power``;
power 1 is scikit-learn's linear and power 2 its quadratic weights, which
``quadratic_weighted_kappa`` fixes. Class indices follow ``labels`` (or the sorted labels), as in
scikit-learn's confusion matrix.
"""

from __future__ import annotations

import numpy as np
import pytest

import metricc.runtime as mc

metrics = pytest.importorskip("sklearn.metrics")

CASES = [("linear", "weighted_kappa", {}), ("quadratic", "weighted_kappa", {"power": 2}),
         ("quadratic", "quadratic_weighted_kappa", {})]


@pytest.mark.parametrize("weights, metric, params", CASES)
def test_weighted_kappa_equals_sklearn_on_random_labels(weights, metric, params):
    rng = np.random.default_rng(len(metric) + len(params))
    for _ in range(60):
        c = int(rng.integers(2, 7))
        size = int(rng.integers(5, 80))
        y_true = rng.integers(0, c, size)
        y_pred = np.where(rng.random(size) < 0.5, y_true, rng.integers(0, c, size))  # some agreement
        labels = list(range(c))
        if len(set(y_true) | set(y_pred)) < 2:
            continue
        theirs = metrics.cohen_kappa_score(y_true, y_pred, labels=labels, weights=weights)
        ours = mc.evaluate(metric, y_true=y_true, y_pred=y_pred, labels=labels, params=params)[metric]
        assert float(ours) == pytest.approx(theirs, rel=1e-12, abs=1e-12), (y_true.tolist(), y_pred.tolist())


@pytest.mark.parametrize("weights, metric, params", CASES)
def test_weighted_kappa_equals_sklearn_on_random_matrices(weights, metric, params):
    """The matrix read as labels: row i, column j, M[i, j] times."""
    rng = np.random.default_rng(7 + len(params))
    batch = rng.integers(0, 9, size=(40, 4, 4))
    ours = mc.evaluate(metric, matrix=batch, params=params)[metric]
    for matrix, value in zip(batch, np.asarray(ours)):
        rows, cols = np.nonzero(matrix)
        y_true = np.repeat(rows, matrix[rows, cols])
        y_pred = np.repeat(cols, matrix[rows, cols])
        theirs = metrics.cohen_kappa_score(y_true, y_pred, labels=[0, 1, 2, 3], weights=weights)
        assert float(value) == pytest.approx(theirs, rel=1e-12, abs=1e-12), matrix.tolist()


def test_two_classes_every_weighting_is_cohen_kappa():
    """With two classes |i - j|**power is 1 off the diagonal whatever the power."""
    matrix = np.array([[20, 5], [3, 12]])
    plain = mc.evaluate("cohen_kappa", matrix=matrix)["cohen_kappa"]
    for power in (1, 2, 3.5):
        assert mc.evaluate("weighted_kappa", matrix=matrix, params={"power": power})["weighted_kappa"] == pytest.approx(plain, rel=1e-12)


def test_undefined_where_sklearn_is_nan():
    """Every rating in one class: no disagreement is expected by chance (0 / 0)."""
    with pytest.warns(Warning):
        theirs = metrics.cohen_kappa_score([2, 2, 2], [2, 2, 2], labels=[0, 1, 2], weights="linear")
    ours = mc.evaluate("weighted_kappa", y_true=[2, 2, 2], y_pred=[2, 2, 2], labels=[0, 1, 2])["weighted_kappa"]
    assert np.isnan(theirs) and np.isnan(ours)


def test_power_below_one_is_refused():
    with pytest.raises(mc.InputError, match="power"):
        mc.evaluate("weighted_kappa", matrix=np.eye(3, dtype=int) + 1, params={"power": 0.5})
