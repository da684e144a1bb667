"""torchmetrics' chosen-threshold curve metrics against the catalog, at 1e-12 in float64.

Binary, multiclass (one-vs-rest per class) and multilabel (one binary curve per label) on
random scores with many ties, each on numpy arrays and on the same tensors as torchmetrics. metricc returns the value at the chosen threshold; torchmetrics
also returns the threshold, whose rules are pinned here and in docs/differences.md, as are
the cases where the two differ: where no threshold meets the constraint torchmetrics returns
0 and metricc an undefined value (NaN, or ``zero_division``), and torchmetrics' ROC-based
metrics also consider the threshold above every score (nothing predicted positive).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import metricc as mc
from tests.acceptance.peers import on_tensors
from tests.acceptance.peers.on_tensors import given_as  # noqa: F401 - every test runs on numpy and on tensors

torch = pytest.importorskip("torch")
tmf = pytest.importorskip("torchmetrics.functional.classification")

# metricc id -> (its parameter, torchmetrics' binary, multiclass and multilabel functions)
CONSTRAINED = {
    "precision_at_fixed_recall": ("min_recall", "precision_at_fixed_recall"),
    "recall_at_fixed_precision": ("min_precision", "recall_at_fixed_precision"),
    "sensitivity_at_specificity": ("min_specificity", "sensitivity_at_specificity"),
    "specificity_at_sensitivity": ("min_sensitivity", "specificity_at_sensitivity"),
}
LEVELS = (0.1, 0.25, 0.5, 0.62, 0.8, 0.95, 1.0)
RTOL = 1e-12


@pytest.fixture(autouse=True, scope="module")
def float64_default():
    """torchmetrics counts in the default dtype: float32 would round its rates at 1e-7."""
    saved = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(saved)


def _peer(name: str, kind: str):
    return getattr(tmf, f"{kind}_{name}")


def _binary_cases(count: int, seed: int):
    """(y, scores): 4 to 60 samples, scores of 1 or 2 decimals (many ties), both classes present."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(4, 61))
        y = rng.integers(0, 2, n)
        y[:2] = (0, 1)
        yield y, np.round(rng.random(n), int(rng.integers(1, 3)))


def _multiclass_cases(count: int, seed: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        c, n = int(rng.integers(3, 6)), int(rng.integers(10, 50))
        y = rng.integers(0, c, n)
        y[:c] = np.arange(c)
        weights = rng.integers(0, 4, (n, c)).astype(float)
        weights[weights.sum(axis=1) == 0, 0] = 1
        yield y, weights / weights.sum(axis=1, keepdims=True)


def _ours(metric: str, y, scores, param: str | None = None, level: float | None = None, **kwargs):
    params = {param: level} if param else kwargs.pop("params", None)
    given = on_tensors.inputs({"y_true": y, "scores": scores})
    return on_tensors.value(metric, mc.evaluate(metric, **given, params=params, **kwargs)[metric])


def _value(result) -> np.ndarray:
    value = result[0] if isinstance(result, tuple) else result
    return value.numpy() if isinstance(value, torch.Tensor) else np.array([v.item() for v in value])


@pytest.mark.parametrize("metric", sorted(CONSTRAINED))
def test_binary_equals_torchmetrics(metric):
    param, name = CONSTRAINED[metric]
    for y, scores in _binary_cases(25, seed=sum(map(ord, metric))):
        for level in LEVELS:
            theirs = _value(_peer(name, "binary")(torch.tensor(scores), torch.tensor(y), level))
            # torchmetrics: 0 where no threshold meets the constraint (metricc: undefined).
            ours = _ours(metric, y, scores, param, level, average="binary", zero_division=0)
            np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=0, err_msg=f"{metric}({level}) on {y.tolist()}, {scores.tolist()}")


@pytest.mark.parametrize("metric", sorted(CONSTRAINED))
def test_multiclass_per_class_equals_torchmetrics(metric):
    param, name = CONSTRAINED[metric]
    for y, scores in _multiclass_cases(10, seed=sum(map(ord, metric)) + 1):
        for level in (0.25, 0.5, 0.8):
            theirs = _value(_peer(name, "multiclass")(torch.tensor(scores), torch.tensor(y), scores.shape[1], level))
            ours = _ours(metric, y, scores, param, level, average="none", zero_division=0)
            np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=0, err_msg=f"{metric}({level}) on {y.tolist()}")


@pytest.mark.parametrize("metric", sorted(CONSTRAINED))
def test_multilabel_per_label_equals_binary_curves(metric):
    """torchmetrics' multilabel form is one binary curve per label: metricc's multi-label curves
    (``multilabel=True``, average none), and its binary curve of each column."""
    param, name = CONSTRAINED[metric]
    rng = np.random.default_rng(7)
    truth = rng.integers(0, 2, (30, 4))
    truth[:2] = ((0,), (1,))
    scores = np.round(rng.random((30, 4)), 1)
    theirs = _value(_peer(name, "multilabel")(torch.tensor(scores), torch.tensor(truth), 4, 0.5))
    ours = [_ours(metric, truth[:, k], scores[:, k], param, 0.5, average="binary", zero_division=0) for k in range(4)]
    np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=0)
    ours = _ours(metric, truth, scores, param, 0.5, average="none", zero_division=0, multilabel=True)
    np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=0)


def _equally_close(truth, score) -> list[Fraction]:
    """The mean error rates of the thresholds where |FPR - FNR| is least, exactly, highest first."""
    positives, negatives = int(truth.sum()), int(truth.size - truth.sum())
    points = [(sum(int(t) for t, v in zip(truth, score) if v >= x), sum(1 - int(t) for t, v in zip(truth, score) if v >= x))
              for x in sorted(set(score.tolist()), reverse=True)]
    rates = [(Fraction(fp, negatives), Fraction(positives - tp, positives)) for tp, fp in points]
    least = min(abs(a - b) for a, b in rates)
    return [(a + b) / 2 for a, b in rates if abs(a - b) == least]


def _check_equal_error_rate(ours: float, theirs: float, truth, score) -> None:
    """metricc: the first equally close threshold; torchmetrics: one of them, by float rounding
    (test_equal_error_rate_of_equally_close_thresholds)."""
    means = _equally_close(truth, score)
    assert ours == pytest.approx(float(means[0]), rel=RTOL), (truth.tolist(), score.tolist())
    assert any(theirs == pytest.approx(float(m), rel=RTOL) for m in means), (truth.tolist(), score.tolist())


def test_equal_error_rate_equals_torchmetrics():
    ties = 0
    for y, scores in _binary_cases(60, seed=11):
        theirs = tmf.binary_eer(torch.tensor(scores), torch.tensor(y)).item()
        _check_equal_error_rate(float(_ours("equal_error_rate", y, scores, average="binary")), theirs, y, scores)
        ties += len(set(_equally_close(y, scores))) > 1
    for y, scores in _multiclass_cases(15, seed=12):
        theirs = tmf.multiclass_eer(torch.tensor(scores), torch.tensor(y), scores.shape[1]).numpy()
        ours = _ours("equal_error_rate", y, scores, average="none")
        for k in range(scores.shape[1]):
            _check_equal_error_rate(ours[k], theirs[k], (y == k).astype(int), scores[:, k])
    assert ties < 10  # most inputs have one closest threshold: the comparison is mostly exact


# ---------------------------------------------------------------- pinned conventions

Y = np.array([0, 1, 1, 0, 1, 0])
SCORES = np.array([0.9, 0.8, 0.7, 0.6, 0.4, 0.2])  # the highest score is a negative


def test_no_threshold_meets_the_constraint():
    """No threshold reaches precision 1: torchmetrics returns recall 0 and threshold NaN,
    metricc an undefined value (NaN by default, ``zero_division`` if given)."""
    recall, threshold = tmf.binary_recall_at_fixed_precision(torch.tensor(SCORES), torch.tensor(Y), 1.0)
    assert recall.item() == 0 and math.isnan(threshold.item())
    assert math.isnan(_ours("recall_at_fixed_precision", Y, SCORES, "min_precision", 1.0, average="binary"))
    assert _ours("recall_at_fixed_precision", Y, SCORES, "min_precision", 1.0, average="binary", zero_division=0) == 0


def test_roc_metrics_also_consider_predicting_nothing_positive():
    """torchmetrics' ROC starts at the threshold above every score (FPR = TPR = 0): with
    min_sensitivity 0 it gives specificity 1 there; metricc's thresholds are the scores, the
    highest of which already takes the top-scored negative (specificity 2/3)."""
    specificity, threshold = tmf.binary_specificity_at_sensitivity(torch.tensor(SCORES), torch.tensor(Y), 0.0)
    assert specificity.item() == 1.0 and threshold.item() == 1.0
    ours = _ours("specificity_at_sensitivity", Y, SCORES, "min_sensitivity", 0.0, average="binary")
    assert ours == pytest.approx(2 / 3, rel=RTOL)
    # With specificity 1 demanded, that same point is torchmetrics' only one: sensitivity 0,
    # which is metricc's value with zero_division=0 (no score threshold has specificity 1).
    sensitivity, _ = tmf.binary_sensitivity_at_specificity(torch.tensor(SCORES), torch.tensor(Y), 1.0)
    assert sensitivity.item() == 0.0
    assert math.isnan(_ours("sensitivity_at_specificity", Y, SCORES, "min_specificity", 1.0, average="binary"))


def test_torchmetrics_threshold_of_equal_values():
    """Several thresholds give the best precision: torchmetrics returns the one of highest
    recall (then highest threshold); the value is the same whichever is chosen."""
    y, scores = np.array([1, 0, 1, 0, 1, 1]), np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4])
    precision, threshold = tmf.binary_precision_at_fixed_recall(torch.tensor(scores), torch.tensor(y), 0.25)
    assert precision.item() == 1.0 and threshold.item() == 0.9  # the only precision-1 threshold
    precision, threshold = tmf.binary_precision_at_fixed_recall(torch.tensor(scores), torch.tensor(y), 0.5)
    # precision 2/3 at 0.7 (recall 1/2) and at 0.4 (4/6, recall 1): the higher recall wins.
    assert precision.item() == pytest.approx(2 / 3, rel=RTOL) and threshold.item() == 0.4
    assert _ours("precision_at_fixed_recall", y, scores, "min_recall", 0.5, average="binary") == pytest.approx(2 / 3, rel=RTOL)


def test_equal_error_rate_of_equally_close_thresholds():
    """|FPR - FNR| is 1/6 at two thresholds (FPR 1/3 and 2/3, FNR 1/2 at both), whose means
    differ (5/12 and 7/12). metricc compares the gaps exactly and takes the first, highest
    score; torchmetrics compares them in floats, where 1/3 - 1/2 rounds further from 0 than
    2/3 - 1/2, and takes the second."""
    y, scores = np.array([1, 1, 0, 0, 0, 1, 1]), np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3])
    assert tmf.binary_eer(torch.tensor(scores), torch.tensor(y)).item() == pytest.approx(7 / 12, rel=RTOL)
    assert _ours("equal_error_rate", y, scores, average="binary") == pytest.approx(5 / 12, rel=RTOL)


# ---------------------------------------------------------------- partial and log-scaled AUC

def test_partial_roc_auc_equals_torchmetrics_max_fpr():
    for y, scores in _binary_cases(25, seed=13):
        for max_fpr in (0.05, 0.1, 0.3, 0.8):
            theirs = tmf.binary_auroc(torch.tensor(scores), torch.tensor(y), max_fpr=max_fpr).item()
            ours = _ours("partial_roc_auc", y, scores, "max_fpr", max_fpr, average="binary")
            np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=0, err_msg=f"max_fpr={max_fpr} on {y.tolist()}, {scores.tolist()}")


def _distinct_false_positive_rates(count: int, seed: int):
    """(y, scores) where every distinct score has exactly one negative: no two ROC points share
    a false positive rate (test_log_roc_auc_where_points_share_a_false_positive_rate)."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        groups = int(rng.integers(2, 40))
        y, scores = [], []
        for k, score in enumerate(rng.permutation(groups) / groups):
            positives = int(rng.integers(k == 0, 3))  # at least one positive in all
            y += [0] + [1] * positives
            scores += [score] * (1 + positives)
        yield np.array(y), np.array(scores)


def test_log_roc_auc_equals_torchmetrics():
    for y, scores in _distinct_false_positive_rates(30, seed=14):
        for fpr_range in ((0.001, 0.1), (0.01, 0.5), (0.05, 1.0)):
            theirs = tmf.binary_logauc(torch.tensor(scores), torch.tensor(y), fpr_range=fpr_range).item()
            ours = _ours("log_roc_auc", y, scores, average="binary", params={"fpr_min": fpr_range[0], "fpr_max": fpr_range[1]})
            np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=1e-15, err_msg=f"{fpr_range} on {y.tolist()}, {scores.tolist()}")


def test_log_roc_auc_where_points_share_a_false_positive_rate():
    """The two top scores hold one positive and one negative, so the ROC climbs at FPR 0 to
    TPR 1/13 and runs flat to FPR 1/4: over [0.001, 0.1] its TPR is 1/13 and so is the log-AUC.
    torchmetrics interpolates after sorting the points by FPR with torch.argsort, which does not
    keep the order of equal FPRs (for longer inputs), and here starts from the wrong end of a
    vertical step."""
    y = np.array([0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1])
    scores = np.array([0.7, 0.52, 0.39, 0.67, 0.47, 0.13, 0.95, 0.0, 0.98, 0.97, 0.61, 0.47, 0.14, 0.84, 0.8, 0.05, 0.73])
    assert _ours("log_roc_auc", y, scores, average="binary") == pytest.approx(1 / 13, rel=RTOL)
    fpr, tpr, _ = tmf.binary_roc(torch.tensor(scores), torch.tensor(y))
    assert fpr[1].item() == 0 and tpr[1].item() == pytest.approx(1 / 13) and fpr[2].item() == 0.25
    assert tmf.binary_logauc(torch.tensor(scores), torch.tensor(y)).item() != pytest.approx(1 / 13, rel=1e-6)
