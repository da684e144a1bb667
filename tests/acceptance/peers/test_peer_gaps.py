"""Differential tests for the peer functions audit/peers.yaml maps that no other test
compared: scikit-learn's class_likelihood_ratios and zero_one_loss(normalize=False), and
torchmetrics' multilabel MCC, EER and label-ranking functions."""

from __future__ import annotations

import numpy as np
import pytest

import metricc as mc
from metricc.generated import CATALOG

RTOL = 1e-12


def _labels(seed: int, n: int = 60):
    rng = np.random.default_rng(seed)
    y_true = np.r_[0, 1, 0, 1, rng.integers(0, 2, n - 4)]
    y_pred = np.r_[0, 1, 1, 0, np.where(rng.random(n - 4) < 0.7, y_true[4:], 1 - y_true[4:])]
    return y_true, y_pred


@pytest.mark.parametrize("seed", range(6))
def test_class_likelihood_ratios_are_the_positive_and_negative_likelihood_ratios(seed):
    metrics = pytest.importorskip("sklearn.metrics")
    y_true, y_pred = _labels(seed)
    positive, negative = metrics.class_likelihood_ratios(y_true, y_pred)
    ours = mc.evaluate(["positive_likelihood_ratio", "negative_likelihood_ratio"], y_true=y_true, y_pred=y_pred,
                       average="binary")
    assert ours["positive_likelihood_ratio"] == pytest.approx(positive, rel=RTOL)
    assert ours["negative_likelihood_ratio"] == pytest.approx(negative, rel=RTOL)


@pytest.mark.parametrize("seed", range(4))
def test_zero_one_loss_unnormalized_is_the_misclassification_count(seed):
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(seed)
    y_true, y_pred = rng.integers(0, 4, 80), rng.integers(0, 4, 80)
    ours = mc.evaluate("misclassification_count", y_true=y_true, y_pred=y_pred)["misclassification_count"]
    assert ours == metrics.zero_one_loss(y_true, y_pred, normalize=False)


@pytest.fixture
def tmf():
    """torchmetrics' functions with float64 as torch's default dtype (its rates round at 1e-7 in float32)."""
    torch = pytest.importorskip("torch")
    functions = pytest.importorskip("torchmetrics.functional.classification")
    saved = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield functions
    torch.set_default_dtype(saved)


def _t(array):
    import torch

    return torch.tensor(np.asarray(array))


def _multilabel(seed: int, c: int = 4, n: int = 40):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, (n, c))
    truth[:2] = ((0,), (1,))  # every label has both a positive and a negative sample
    scores = np.round(rng.random((n, c)), 2)
    return truth, scores


@pytest.mark.parametrize("seed", range(4))
def test_torchmetrics_multilabel_mcc_is_mcc_per_class_micro(tmf, seed):
    truth, scores = _multilabel(seed)
    predicted = (scores >= 0.5).astype(int)
    theirs = tmf.multilabel_matthews_corrcoef(_t(predicted), _t(truth), truth.shape[1]).item()
    ours = mc.evaluate("mcc_per_class", y_true=truth, y_pred=predicted, multilabel=True, average="micro")["mcc_per_class"]
    assert ours == pytest.approx(theirs, rel=1e-6, abs=1e-6)  # torchmetrics' MCC is float32


@pytest.mark.parametrize("seed", range(4))
def test_torchmetrics_multilabel_eer_is_the_binary_equal_error_rate_of_each_label(tmf, seed):
    truth, scores = _multilabel(seed)
    theirs = tmf.multilabel_eer(_t(scores), _t(truth), truth.shape[1]).numpy()
    function = CATALOG["equal_error_rate"].function
    ours = [float(function(truth[:, k], scores[:, k], average="binary")) for k in range(truth.shape[1])]
    # torchmetrics may take another of equally close thresholds (docs/differences.md); these scores have none.
    np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=0)


@pytest.mark.parametrize("metric_id, name", [("lrap", "multilabel_ranking_average_precision"),
                                             ("label_ranking_loss", "multilabel_ranking_loss"),
                                             ("coverage_error", "multilabel_coverage_error")])
@pytest.mark.parametrize("seed", range(4))
def test_torchmetrics_label_ranking_metrics(tmf, metric_id, name, seed):
    truth, scores = _multilabel(seed)
    truth[2] = 1  # a row with every label true
    if metric_id == "label_ranking_loss":  # torchmetrics orders tied labels by argsort (docs/differences.md)
        scores = scores + np.arange(scores.size).reshape(scores.shape) * 1e-6
    theirs = getattr(tmf, name)(_t(scores), _t(truth), truth.shape[1]).item()
    ours = float(CATALOG[metric_id].function(truth, scores))
    assert ours == pytest.approx(theirs, rel=1e-6)  # torchmetrics accumulates these in float32 whatever the dtype


def _log_auc_columns(seed: int, labels: int = 3):
    """Multi-label truth and scores whose every column is a binary problem where each distinct
    score holds exactly one negative (no vertical ROC step, where torchmetrics' unstable sort
    may interpolate from the wrong end: docs/differences.md)."""
    rng = np.random.default_rng(seed)
    groups = int(rng.integers(3, 20))
    y, scores = [], []
    for k, score in enumerate(rng.permutation(groups) / groups):
        positives = int(rng.integers(k == 0, 3))
        y += [0] + [1] * positives
        scores += [score] * (1 + positives)
    y, scores = np.array(y), np.array(scores)
    orders = [rng.permutation(y.size) for _ in range(labels)]
    return np.stack([y[o] for o in orders], axis=1), np.stack([scores[o] for o in orders], axis=1)


@pytest.mark.parametrize("seed", range(6))
def test_torchmetrics_multilabel_logauc_is_log_roc_auc_of_each_label(tmf, seed):
    truth, scores = _log_auc_columns(seed)
    theirs = tmf.multilabel_logauc(_t(scores), _t(truth), truth.shape[1], average="none").numpy()
    function = CATALOG["log_roc_auc"].function
    ours = [float(function(truth[:, k], scores[:, k], average="binary")) for k in range(truth.shape[1])]
    np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=1e-15)


@pytest.mark.parametrize("seed", range(6))
def test_torchmetrics_multiclass_logauc_is_log_roc_auc_per_class(tmf, seed):
    """One-vs-rest per class on three classes, per-class values (average none). Vertical ROC
    steps occur here; on these short inputs (up to 40 samples) torchmetrics' sort kept equal
    false positive rates in order, so its interpolation agrees (the longer case that differs is
    pinned in test_torchmetrics_curves.py)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(6, 40))
    y = np.r_[0, 1, 2, rng.integers(0, 3, n - 3)]
    scores = rng.dirichlet(np.ones(3), size=n)
    theirs = tmf.multiclass_logauc(_t(scores), _t(y), 3, average="none", fpr_range=(0.01, 0.5)).numpy()
    ours = mc.evaluate("log_roc_auc", y_true=y, scores=scores, average="none",
                       params={"fpr_min": 0.01, "fpr_max": 0.5})["log_roc_auc"]
    np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=1e-15)


@pytest.mark.parametrize("seed", range(4))
def test_torchmetrics_multiclass_exact_match_is_exact_match_ratio_of_multioutput_indicators(tmf, seed):
    """Several class labels per sample ((N, M) and (N, H, W), a label per pixel): exact match on
    the one-hot indicator rows of :func:`metricc.api.multioutput_indicators`."""
    rng = np.random.default_rng(seed)
    for shape in ((30, 3), (12, 4, 5)):
        y_true = rng.integers(0, 4, shape)
        y_pred = np.where(rng.random(shape) < 0.9, y_true, rng.integers(0, 4, shape))
        y_pred[:3] = y_true[:3]  # some samples match on every output
        theirs = tmf.multiclass_exact_match(_t(y_pred), _t(y_true), 4).item()
        rows_true, rows_pred = mc.multioutput_indicators(y_true, y_pred, labels=range(4))
        ours = mc.evaluate("exact_match_ratio", y_true=rows_true, y_pred=rows_pred, multilabel=True)["exact_match_ratio"]
        assert np.float32(ours) == np.float32(theirs)  # torchmetrics divides in float32 whatever the default dtype
