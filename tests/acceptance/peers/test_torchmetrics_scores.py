"""torchmetrics' calibration errors (norms l1, l2, max) against the catalog (CPU, float64 tensors).

The binary calibration errors keep float64 and agree at 1e-12. The multi-class one casts
the top-label confidences to float32 inside torchmetrics (``confidences.float()`` in
``_multiclass_calibration_error_update``) whatever the input dtype, so it agrees only to
float32 rounding: the tests give it probabilities that float32 holds exactly and compare at
1e-6 relative. Bin boundaries: a probability within one rounding of a boundary b / bins may
be binned differently (torchmetrics compares with ``linspace`` boundaries, metricc floors the
float64 product ``bins * p``); the random probabilities here are never that close.
"""

from __future__ import annotations

import numpy as np
import pytest

from metricc.generated import CATALOG

torch = pytest.importorskip("torch")
classification = pytest.importorskip("torchmetrics.functional.classification")


def ours(metric_id: str, y_true, scores, **kwargs) -> float:
    return float(CATALOG[metric_id].function(y_true, scores, **kwargs))


def _multiclass(seed: int):
    """Labels and probability rows of 2 to 6 classes, exact in float32."""
    rng = np.random.default_rng(seed)
    c, n = int(rng.integers(2, 7)), int(rng.integers(5, 150))
    y = rng.integers(0, c, size=n)
    proba = rng.dirichlet(np.full(c, 0.7), size=n).astype(np.float32)
    proba[:, -1] = 0  # the last column takes what the others leave, so rows sum to 1 in float32
    proba[:, -1] = np.maximum(0, 1 - proba.sum(axis=1, dtype=np.float32))
    return y, proba.astype(np.float64)


@pytest.mark.parametrize("norm, metric_id", [("l1", "calibration_error"), ("l2", "rms_calibration_error"),
                                             ("max", "max_calibration_error")])
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("bins", [1, 4, 15])
def test_multiclass_calibration_error(norm, metric_id, seed, bins):
    y, proba = _multiclass(seed)
    expected = classification.multiclass_calibration_error(
        torch.tensor(proba), torch.tensor(y), num_classes=proba.shape[1], n_bins=bins, norm=norm)
    assert ours(metric_id, y, proba, bins=bins, labels=list(range(proba.shape[1]))) == pytest.approx(
        float(expected), rel=1e-6)


def test_calibration_error_default_bins_and_a_confidence_of_one():
    """15 bins by default, as torchmetrics'; a confidence of exactly 1 has a bin of its own."""
    y = np.array([0, 1, 2, 0, 1])
    proba = np.array([[1.0, 0.0, 0.0], [0.0, 0.96875, 0.03125], [0.5, 0.25, 0.25],
                      [0.25, 0.75, 0.0], [0.0, 0.0, 1.0]])
    expected = classification.multiclass_calibration_error(torch.tensor(proba), torch.tensor(y), num_classes=3)
    assert ours("calibration_error", y, proba) == pytest.approx(float(expected), rel=1e-6)
    # Bins: {1.0, 1.0}: accuracy 1/2, confidence 1; {0.96875}: 1 vs 0.96875; {0.5}: 0 vs 0.5; {0.75}: 0 vs 0.75.
    assert ours("calibration_error", y, proba) == pytest.approx((1.0 + 0.03125 + 0.5 + 0.75) / 5, rel=1e-15)


def test_max_calibration_error_is_the_largest_gap_of_a_bin_that_holds_a_sample():
    """Bins {1.0, 1.0}: accuracy 1/2, confidence 1; {0.96875}: 1 vs 0.96875; {0.5}: 0 vs 0.5;
    {0.75}: 0 vs 0.75. Empty bins (gap 0 in torchmetrics) cannot be the largest."""
    y = np.array([0, 1, 2, 0, 1])
    proba = np.array([[1.0, 0.0, 0.0], [0.0, 0.96875, 0.03125], [0.5, 0.25, 0.25],
                      [0.25, 0.75, 0.0], [0.0, 0.0, 1.0]])
    assert ours("max_calibration_error", y, proba) == 0.75
    expected = classification.multiclass_calibration_error(torch.tensor(proba), torch.tensor(y), num_classes=3, norm="max")
    assert float(expected) == 0.75


@pytest.mark.parametrize("norm, metric_id", [("l1", "binary_calibration_error"), ("max", "binary_max_calibration_error")])
@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("bins", [1, 7, 15])
def test_binary_calibration_error(norm, metric_id, seed, bins):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 200))
    y, p = rng.integers(0, 2, size=n), rng.random(n)
    expected = float(classification.binary_calibration_error(torch.tensor(p), torch.tensor(y), n_bins=bins, norm=norm))
    # Within a bin, the gap is a difference of two means: both sides round, so the
    # comparison is relative to the mean of the terms' magnitudes, not to a small value
    # (for the largest gap: the largest of the bins' means, at most 2 since y + p <= 2).
    scale = np.mean(y + p) if norm == "l1" else 2.0
    assert abs(ours(metric_id, y, p, bins=bins) - expected) <= 1e-12 * scale


def test_binary_calibration_error_on_two_columns_reads_column_one():
    rng = np.random.default_rng(11)
    y, p = rng.integers(0, 2, size=40), rng.random(40)
    assert ours("binary_calibration_error", y, np.c_[1 - p, p]) == pytest.approx(
        ours("binary_calibration_error", y, p), rel=1e-15)


@pytest.mark.parametrize("squared", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_binary_hinge_loss(squared, seed):
    """Probabilities of class 1 (torchmetrics passes scores outside [0, 1] through a sigmoid
    first; within [0, 1] it takes them as they are, as metricc does)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 80))
    y = np.r_[0, 1, rng.integers(0, 2, size=n - 2)]
    p = rng.random(n)
    expected = classification.binary_hinge_loss(torch.tensor(p), torch.tensor(y), squared=squared)
    assert ours("binary_hinge_loss", y, p, power=2 if squared else 1) == pytest.approx(float(expected), rel=1e-12)


@pytest.mark.parametrize("squared", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_multiclass_hinge_loss_crammer_singer(squared, seed):
    """Probability rows (torchmetrics applies a softmax to rows that are not)."""
    y, proba = _multiclass(seed)
    expected = classification.multiclass_hinge_loss(torch.tensor(proba), torch.tensor(y), num_classes=proba.shape[1],
                                                    squared=squared)
    assert ours("hinge_loss", y, proba, power=2 if squared else 1, labels=list(range(proba.shape[1]))) == pytest.approx(
        float(expected), rel=1e-12)


def _one_vs_all(scores, y, squared: bool) -> np.ndarray:
    """torchmetrics' one-vs-all hinge: one value per class, float64 kept."""
    found = classification.multiclass_hinge_loss(torch.tensor(scores), torch.tensor(y), num_classes=scores.shape[1],
                                                 squared=squared, multiclass_mode="one-vs-all")
    assert found.dtype == torch.float64
    return found.numpy()


@pytest.mark.parametrize("squared", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_multiclass_hinge_loss_one_vs_all(squared, seed):
    """Scores in [0, 1], not rows of probabilities: torchmetrics takes them as they are."""
    rng = np.random.default_rng(seed)
    c, n = int(rng.integers(2, 7)), int(rng.integers(5, 150))
    y, scores = rng.integers(0, c, size=n), rng.random((n, c))
    labels = list(range(c))
    found = CATALOG["one_vs_all_hinge_loss"].function(y, scores, power=2 if squared else 1, labels=labels)
    np.testing.assert_allclose(found, _one_vs_all(scores, y, squared), rtol=1e-12, atol=0)
    expected_macro = _one_vs_all(scores, y, squared).mean()
    assert ours("one_vs_all_hinge_loss", y, scores, power=2 if squared else 1, labels=labels,
                average="macro") == pytest.approx(expected_macro, rel=1e-12)


@pytest.mark.parametrize("squared", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_multiclass_hinge_loss_one_vs_all_of_logits(squared, seed):
    """Decision values outside [0, 1]: torchmetrics applies a softmax to each row first, which
    metricc does not (docs/differences.md); given the softmax rows the two agree."""
    rng = np.random.default_rng(seed)
    c, n = int(rng.integers(2, 7)), int(rng.integers(5, 150))
    y, logits = rng.integers(0, c, size=n), rng.normal(scale=3.0, size=(n, c))
    rows = np.exp(logits - logits.max(axis=1, keepdims=True))
    rows /= rows.sum(axis=1, keepdims=True)
    found = CATALOG["one_vs_all_hinge_loss"].function(y, rows, power=2 if squared else 1, labels=list(range(c)))
    np.testing.assert_allclose(found, _one_vs_all(logits, y, squared), rtol=1e-12, atol=0)
    as_given = CATALOG["one_vs_all_hinge_loss"].function(y, logits, power=2 if squared else 1, labels=list(range(c)))
    assert not np.allclose(as_given, _one_vs_all(logits, y, squared))  # the difference the row states
