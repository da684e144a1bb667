"""Curve metrics on multi-label truth (``multilabel=True``: one curve per indicator column)
against scikit-learn's ``roc_auc_score`` / ``average_precision_score`` and torchmetrics'
``multilabel_auroc`` / ``multilabel_average_precision``, every averaging, at 1e-12."""

from __future__ import annotations

import numpy as np
import pytest

import metricc as mc

RTOL = 1e-12
FLOAT32 = 1e-6  # torchmetrics' weighted average takes its label weights in float32 whatever the dtype
AVERAGES = ("none", "macro", "micro", "weighted")


def _multilabel(seed: int):
    """Indicator truth (n, C), several labels per sample, every column with both values; scores
    with ties (two decimals), related to the truth."""
    rng = np.random.default_rng(seed)
    n, c = int(rng.integers(20, 120)), int(rng.integers(2, 6))
    truth = (rng.random((n, c)) < rng.uniform(0.2, 0.6)).astype(int)
    truth[:2] = ((0,), (1,))
    scores = np.round(np.clip(rng.random((n, c)) * 0.8 + truth * rng.uniform(0, 0.4), 0, 1), 2)
    return truth, scores


def _ours(metric_id: str, truth, scores, average: str):
    return np.asarray(mc.evaluate(metric_id, y_true=truth, scores=scores, multilabel=True, average=average)[metric_id],
                      dtype=float)


@pytest.mark.parametrize("metric_id, name", [("roc_auc", "roc_auc_score"), ("average_precision", "average_precision_score")])
@pytest.mark.parametrize("seed", range(8))
def test_scikit_learn_multilabel_curves(metric_id, name, seed):
    metrics = pytest.importorskip("sklearn.metrics")
    truth, scores = _multilabel(seed)
    for average in AVERAGES:
        theirs = getattr(metrics, name)(truth, scores, average=None if average == "none" else average)
        np.testing.assert_allclose(_ours(metric_id, truth, scores, average), theirs, rtol=RTOL, atol=0,
                                   err_msg=f"{metric_id} {average}")


@pytest.mark.parametrize("metric_id, name", [("roc_auc", "multilabel_auroc"),
                                             ("average_precision", "multilabel_average_precision")])
@pytest.mark.parametrize("seed", range(4))
def test_torchmetrics_multilabel_curves(metric_id, name, seed):
    torch = pytest.importorskip("torch")
    tmf = pytest.importorskip("torchmetrics.functional.classification")
    truth, scores = _multilabel(seed)
    saved = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)  # torchmetrics counts in the default dtype
    try:
        for average in AVERAGES:
            theirs = getattr(tmf, name)(torch.tensor(scores), torch.tensor(truth), truth.shape[1], average=average)
            np.testing.assert_allclose(_ours(metric_id, truth, scores, average), theirs.numpy(),
                                       rtol=FLOAT32 if average == "weighted" else RTOL, atol=0, err_msg=f"{metric_id} {average}")
    finally:
        torch.set_default_dtype(saved)


def test_multilabel_truth_is_checked_and_labels_name_the_columns():
    truth, scores = _multilabel(0)
    named = mc.evaluate("roc_auc", y_true=truth, scores=scores, multilabel=True, average="none",
                        labels=[f"l{k}" for k in range(truth.shape[1])])["roc_auc"]
    assert named.labels == [f"l{k}" for k in range(truth.shape[1])]
    with pytest.raises(mc.InputError, match="y_true: expected a multi-label indicator matrix"):
        mc.evaluate("roc_auc", y_true=truth[:, 0], scores=scores, multilabel=True)
    with pytest.raises(mc.InputError, match="every entry is 0"):
        mc.evaluate("roc_auc", y_true=np.zeros_like(truth), scores=scores, multilabel=True)
    with pytest.raises(mc.InputError, match="log_loss is single-label"):
        mc.evaluate("log_loss", y_true=truth, scores=scores, multilabel=True)
