"""The curve row of ``speed.py`` (issue 31, run as its part: ``--only curves``): three curve
metrics in one ``evaluate`` call against the numpy users write for them, one descending sort
per score column shared by the three, each column's threshold counts from its tie groups.
"""

from __future__ import annotations

import numpy as np

import metricc.api as mc

METRICS = ("roc_auc:macro", "average_precision:macro", "partial_roc_auc:macro")
MAX_FPR = 0.1  # partial_roc_auc's default


def _column_curve(truth: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(tp, fp) at each distinct threshold, highest first, the origin prepended: one argsort."""
    order = np.argsort(-score, kind="stable")
    ranked, hits = score[order], truth[order]
    ends = np.r_[np.flatnonzero(np.diff(ranked)), ranked.size - 1]
    tp = np.r_[0.0, np.cumsum(hits)[ends]]
    return tp, np.r_[0.0, ends + 1.0] - tp


def _partial_auc(tpr: np.ndarray, fpr: np.ndarray) -> float:
    """scikit-learn's McClish-standardized partial AUC up to ``MAX_FPR``."""
    stop = np.searchsorted(fpr, MAX_FPR, "right")
    x_interp, y_interp = [fpr[stop - 1], fpr[stop]], [tpr[stop - 1], tpr[stop]]
    tpr = np.r_[tpr[:stop], np.interp(MAX_FPR, x_interp, y_interp)]
    fpr = np.r_[fpr[:stop], MAX_FPR]
    area = np.trapezoid(tpr, fpr)
    least, most = 0.5 * MAX_FPR ** 2, MAX_FPR
    return 0.5 * (1 + (area - least) / (most - least))


def hand_curves(y: np.ndarray, scores: np.ndarray) -> dict[str, float]:
    """Macro ROC AUC, average precision and partial ROC AUC from one sort of each column."""
    found = {name: [] for name in METRICS}
    for k in range(scores.shape[1]):
        tp, fp = _column_curve((y == k).astype(float), scores[:, k])
        positives, negatives = tp[-1], fp[-1]
        found["roc_auc:macro"].append(np.sum(np.diff(fp) * (tp[1:] + tp[:-1])) / (2 * positives * negatives))
        found["average_precision:macro"].append(np.sum(np.diff(tp) * tp[1:] / (tp[1:] + fp[1:])) / positives)
        found["partial_roc_auc:macro"].append(_partial_auc(tp / positives, fp / negatives))
    return {name: float(np.mean(values)) for name, values in found.items()}


def curves_row(table, n: int, rng, classes: int = 5) -> None:
    """``evaluate`` of the three metrics in one call against :func:`hand_curves`."""
    y = rng.integers(0, classes, n)
    scores = rng.random((n, classes)).round(3)
    scores /= scores.sum(axis=1, keepdims=True)
    ours = mc.evaluate(list(METRICS), y_true=y, scores=scores)
    hand = hand_curves(y, scores)
    for name in METRICS:
        assert abs(ours[name] - hand[name]) <= 1e-12, (name, ours[name], hand[name])
    table.add(f"roc_auc, average_precision and partial_roc_auc (macro) in one `evaluate`, N = {n:.0e}, C = {classes}; "
              "target: numpy, one argsort per column shared", lambda: hand_curves(y, scores),
              lambda: mc.evaluate(list(METRICS), y_true=y, scores=scores))
