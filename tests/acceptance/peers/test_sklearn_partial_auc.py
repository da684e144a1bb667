"""``partial_roc_auc`` against scikit-learn's ``roc_auc_score(max_fpr=...)`` (McClish's
standardized partial AUC), at 1e-12, binary and one-vs-rest per class."""

from __future__ import annotations

import numpy as np
import pytest

import metricc as mc

metrics = pytest.importorskip("sklearn.metrics")

MAX_FPRS = (0.01, 0.05, 0.1, 0.3, 0.5, 0.9, 1.0)


def _ours(y, scores, max_fpr: float, average: str) -> np.ndarray:
    return np.asarray(mc.evaluate("partial_roc_auc", y_true=y, scores=scores, average=average,
                                  params={"max_fpr": max_fpr})["partial_roc_auc"], dtype=float)


def test_binary_partial_auc_equals_sklearn():
    rng = np.random.default_rng(21)
    for _ in range(40):
        n = int(rng.integers(4, 80))
        y = rng.integers(0, 2, n)
        y[:2] = (0, 1)
        scores = np.round(rng.random(n), int(rng.integers(1, 3)))  # ties
        for max_fpr in MAX_FPRS:
            theirs = metrics.roc_auc_score(y, scores, max_fpr=max_fpr)
            np.testing.assert_allclose(_ours(y, scores, max_fpr, "binary"), theirs, rtol=1e-12, atol=0,
                                       err_msg=f"max_fpr={max_fpr} on {y.tolist()}, {scores.tolist()}")


def test_one_vs_rest_per_class_equals_sklearn_on_each_class():
    """scikit-learn refuses max_fpr for multiclass input; one-vs-rest per class is its binary
    score of each column."""
    rng = np.random.default_rng(22)
    for _ in range(10):
        c, n = int(rng.integers(3, 6)), int(rng.integers(10, 60))
        y = rng.integers(0, c, n)
        y[:c] = np.arange(c)
        scores = rng.dirichlet(np.ones(c), n).round(2)
        expected = [metrics.roc_auc_score(y == k, scores[:, k], max_fpr=0.2) for k in range(c)]
        np.testing.assert_allclose(_ours(y, scores, 0.2, "none"), expected, rtol=1e-12, atol=0)


def test_max_fpr_1_is_roc_auc():
    y, scores = np.array([0, 1, 1, 0, 1, 0, 1]), np.array([0.2, 0.9, 0.4, 0.4, 0.7, 0.8, 0.1])
    assert _ours(y, scores, 1.0, "binary") == pytest.approx(metrics.roc_auc_score(y, scores), rel=1e-12)
