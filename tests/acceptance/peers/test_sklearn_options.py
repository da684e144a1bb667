"""scikit-learn options that once had no catalog metric (issue 27 item 8), at 1e-12:
``roc_auc_score(multi_class="ovo", average="weighted")`` is ``ovo_weighted_roc_auc``;
``roc_auc_score`` and ``average_precision_score`` with ``average="samples"`` on multi-label
indicators are ``samples_roc_auc`` and ``samples_average_precision``; ``zero_one_loss`` on
multi-label indicators is ``subset_zero_one_loss``. Random inputs of varied sizes and class
counts, with ties; where the two differ by convention (an absent class, a sample without a true
label) the test pins both."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import metricc as mc
from metricc.generated import CATALOG

skm = pytest.importorskip("sklearn.metrics")

RTOL = 1e-12


def ours(metric_id: str, y_true, scores, **kwargs) -> float:
    return float(CATALOG[metric_id].function(y_true, scores, **kwargs))


def close(actual: float, expected: float) -> None:
    assert actual == pytest.approx(expected, rel=RTOL, abs=1e-15), (actual, expected)


def _labelled(seed: int):
    """(y, probabilities) of 2 to 6 classes, every class present; rows of small whole weights
    (ties within and across rows) on odd seeds, continuous on even ones."""
    rng = np.random.default_rng(seed)
    c = int(rng.integers(2, 7))
    n = int(rng.integers(c, 80))
    y = np.r_[np.arange(c), rng.integers(0, c, size=n - c)]
    rng.shuffle(y)
    raw = rng.integers(1, 5, size=(n, c)).astype(float) if seed % 2 else rng.dirichlet(np.ones(c), size=n)
    return y, raw / raw.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("seed", range(16))
def test_ovo_weighted_roc_auc(seed):
    """Two classes: scikit-learn takes the second column and gives the binary AUC."""
    y, proba = _labelled(seed)
    expected = skm.roc_auc_score(y, proba if proba.shape[1] > 2 else proba[:, 1], multi_class="ovo", average="weighted")
    close(ours("ovo_weighted_roc_auc", y, proba), expected)
    value = mc.evaluate("ovo_weighted_roc_auc", y_true=y, scores=proba)["ovo_weighted_roc_auc"]
    close(float(value), expected)


def test_ovo_weighted_roc_auc_differs_from_au1u_and_au1p():
    """Three weightings of the same pairwise AUCs: uniform (AU1U, scikit-learn's ovo macro),
    the first class's prevalence (AU1P) and the pair's (scikit-learn's ovo weighted)."""
    y, proba = _labelled(3)
    values = {m: ours(m, y, proba) for m in ("au1u", "au1p", "ovo_weighted_roc_auc")}
    close(values["au1u"], skm.roc_auc_score(y, proba, multi_class="ovo"))
    assert len({round(v, 12) for v in values.values()}) == 3, values


def test_ovo_weighted_roc_auc_with_an_absent_class():
    """scikit-learn (``labels=`` naming a class no sample has) averages over the pairs of the
    classes present; the spec's pair AUCs of the absent class are 0/0, so its value is
    undefined (as AU1U's). On the present classes' columns the two agree."""
    y, proba = _labelled(5)
    c = proba.shape[1]
    y = np.where(y == 1, 0, y)  # class 1 absent
    expected = skm.roc_auc_score(y, proba, multi_class="ovo", average="weighted", labels=list(range(c)))
    assert math.isnan(ours("ovo_weighted_roc_auc", y, proba))
    assert math.isnan(ours("au1u", y, proba))
    present = [k for k in range(c) if k != 1]
    close(ours("ovo_weighted_roc_auc", y, proba[:, present], labels=present), expected)


def _multilabel(seed: int):
    """Indicator truth (n, C) whose every row has a true and a false label, and scores with
    ties (one decimal) on odd seeds."""
    rng = np.random.default_rng(seed)
    n, c = int(rng.integers(1, 60)), int(rng.integers(2, 8))
    truth = (rng.random((n, c)) < rng.uniform(0.2, 0.8)).astype(int)
    columns = rng.integers(0, c, size=(n, 2))
    columns[:, 1] = (columns[:, 0] + 1 + rng.integers(0, c - 1, size=n)) % c
    truth[np.arange(n), columns[:, 0]], truth[np.arange(n), columns[:, 1]] = 1, 0
    scores = rng.normal(size=(n, c))
    return truth, np.round(scores, 1) if seed % 2 else scores


@pytest.mark.parametrize("metric_id, name", [("samples_roc_auc", "roc_auc_score"),
                                             ("samples_average_precision", "average_precision_score")])
@pytest.mark.parametrize("seed", range(16))
def test_samples_average_of_roc_auc_and_average_precision(metric_id, name, seed):
    truth, scores = _multilabel(seed)
    expected = getattr(skm, name)(truth, scores, average="samples")
    close(ours(metric_id, truth, scores), expected)
    value = mc.evaluate(metric_id, y_true=truth, scores=scores, multilabel=True)[metric_id]
    close(float(value), expected)


def test_samples_average_precision_is_lrap_where_every_sample_has_a_true_label():
    for seed in range(6):
        truth, scores = _multilabel(seed)
        close(ours("samples_average_precision", truth, scores), ours("lrap", truth, scores))


def test_samples_average_of_a_sample_without_a_true_or_a_false_label():
    """Such a sample has no (true, false) pair: its AUC is undefined in both (scikit-learn: NaN
    with a warning), so the mean is NaN. Its average precision is undefined here; scikit-learn
    scores it 0 with a warning (and the label ranking average precision 1)."""
    truth = np.array([[1, 0, 1], [0, 0, 0], [1, 0, 0]])
    scores = np.array([[0.3, 0.2, 0.1], [0.5, 0.4, 0.3], [0.1, 0.2, 0.2]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs_auc = skm.roc_auc_score(truth, scores, average="samples")
        theirs_ap = skm.average_precision_score(truth, scores, average="samples")
    assert math.isnan(theirs_auc) and math.isnan(ours("samples_roc_auc", truth, scores))
    assert math.isnan(ours("samples_average_precision", truth, scores))
    assert ours("samples_average_precision", truth, scores, zero_division=0.0) == 0.0
    close(theirs_ap, (ours("samples_average_precision", truth[[0]], scores[[0]]) + 0
                      + ours("samples_average_precision", truth[[2]], scores[[2]])) / 3)
    every = np.array([[1, 1, 1], [1, 0, 0]])
    assert math.isnan(ours("samples_roc_auc", every, scores[:2]))
    close(ours("samples_average_precision", every, scores[:2]),
          skm.average_precision_score(every, scores[:2], average="samples"))


@pytest.mark.parametrize("seed", range(12))
def test_multilabel_zero_one_loss_is_subset_zero_one_loss(seed):
    """Indicator rows with no, some and every label true, predictions right on some rows."""
    rng = np.random.default_rng(seed)
    n, c = int(rng.integers(1, 60)), int(rng.integers(2, 8))
    truth = (rng.random((n, c)) < rng.choice([0.2, 0.5, 0.8])).astype(int)
    predicted = np.where(rng.random((n, c)) < 0.8, truth, 1 - truth)
    predicted[: n // 3] = truth[: n // 3]
    expected = skm.zero_one_loss(truth, predicted)
    value = mc.evaluate("subset_zero_one_loss", y_true=truth, y_pred=predicted, multilabel=True)["subset_zero_one_loss"]
    close(float(value), expected)
    exact = mc.evaluate("exact_match_ratio", y_true=truth, y_pred=predicted, multilabel=True)["exact_match_ratio"]
    close(float(value), 1 - float(exact))


def test_subset_zero_one_loss_on_single_label_data_is_the_error_rate():
    rng = np.random.default_rng(4)
    y, predicted = rng.integers(0, 4, 50), rng.integers(0, 4, 50)
    rows_true, rows_pred = np.eye(4, dtype=int)[y], np.eye(4, dtype=int)[predicted]
    value = mc.evaluate("subset_zero_one_loss", y_true=rows_true, y_pred=rows_pred, multilabel=True)
    close(float(value["subset_zero_one_loss"]), skm.zero_one_loss(y, predicted))
