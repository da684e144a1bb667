"""Plots over the decision threshold: any metric of a confusion matrix against the threshold
(best threshold marked), and the ROC and precision-recall curves.

All three read the one-vs-rest count curves of :mod:`metricc.runtime.curves`: at every distinct
score, the counts of predicting "positive" for the samples scoring at or above it. A metric
against the threshold is the metric of the 2 x 2 confusion matrix at each of those points, so
every class-, aggregate- or matrix-level metric of the catalog can be drawn, not only the
areas the curve-level metrics integrate.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

from metricc.bridges.plot._figure import new_figure, plain
from metricc.runtime import inputs as containers
from metricc.runtime.curves import check_scores, score_curves, threshold_curve
from metricc.core.errors import InputError
from metricc.api.evaluate import evaluate, metric

__all__ = ["det", "precision_recall", "roc", "threshold"]


def _class_names(y_true, n_classes: int, labels) -> list:
    """The classes of the score columns, in column order (as :mod:`metricc.runtime.curves` reads them)."""
    if labels is not None:
        return list(labels)
    distinct = sorted(set(np.asarray(y_true, dtype=object).tolist()))
    return distinct if len(distinct) == n_classes else list(range(n_classes))


def _positive_column(names: list, pos_label) -> int:
    if pos_label is None:
        if len(names) != 2:
            raise InputError("pos_label", f"{len(names)} classes: name the positive class (pos_label=) whose "
                                          "one-vs-rest threshold to sweep")
        return 1
    matches = [k for k, name in enumerate(names) if name == pos_label]
    if not matches:
        raise InputError("pos_label", f"{pos_label!r} is not one of the classes {names!r}")
    return matches[0]


def _metric_names(metrics) -> list[str]:
    listed = [metrics] if isinstance(metrics, str) else list(metrics) if isinstance(metrics, Sequence) else None
    if not listed or not all(isinstance(name, str) for name in listed):
        raise InputError("metrics", f"expected a metric id or a list of ids, got {metrics!r}")
    for name in listed:
        if metric(name).needs_scores:
            raise InputError("metrics", f"{name} is itself computed from scores; choose a metric of a confusion "
                                        "matrix (f1, mcc, accuracy...) to draw against the threshold")
    return listed


def threshold(metrics, y_true, scores, *, labels=None, pos_label=None, params: Mapping | None = None,
              zero_division=math.nan) -> Figure:
    """``metrics`` (ids: ``"f1"``, ``["mcc", "f1"]``) against the decision threshold.

    ``scores`` ``(n,)`` for two classes or ``(n, C)``; the class ``pos_label`` is the positive
    one (default: the second of two classes; required for more). At threshold ``t`` a sample is
    predicted positive when its score is at least ``t``; each metric is evaluated on the
    resulting 2 x 2 matrix (class-level metrics as ``binary``), and its best threshold
    (largest, or smallest for a loss) is marked.
    """
    names = _metric_names(metrics)
    y_true, _, scores, labels = containers.normalized(y_true, None, scores, labels, False)  # columns by name
    truth, values = check_scores(y_true, scores, labels)
    classes = _class_names(y_true, values.shape[1], labels)
    column = _positive_column(classes, pos_label)
    if truth[:, column].min() == truth[:, column].max():
        raise InputError("y_true", "a threshold curve needs samples of the positive class and of the others")
    curve = threshold_curve(truth[:, column], values[:, column])
    cuts = np.unique(values[:, column])[::-1]  # the distinct scores, highest first: point i + 1 of the curve
    matrices = np.stack([np.stack([curve.tn, curve.fp], -1), np.stack([curve.fn, curve.tp], -1)], -2)[1:]
    figure = new_figure(6.4, 4.2)
    ax = figure.add_subplot()
    results = evaluate(names, matrix=matrices, average="binary", pos_label=1, params=params,
                       zero_division=zero_division)  # the average applies to class-level metrics only
    for name in names:
        info, value = metric(name), np.asarray(results[name], dtype=float)
        line, = ax.step(cuts[::-1], value[::-1], where="pre", label=info.name)
        if np.isfinite(value).any() and info.higher_is_better is not None:  # a statistic has no best threshold
            best = int(np.nanargmax(value) if info.higher_is_better else np.nanargmin(value))
            ax.plot(cuts[best], value[best], marker="*", markersize=13, color=line.get_color(), linestyle="none",
                    markeredgecolor="black", label=f"best {name} = {value[best]:.4f} at threshold {cuts[best]:.4g}")
    ax.set_xlabel(f"decision threshold (score of class {plain(classes[column])} ≥ threshold)")
    ax.set_ylabel("metric value")
    ax.set_title(f"Metrics against the decision threshold (positive class {plain(classes[column])})")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return figure


def _curve_figure(y_true, scores, labels, area: str, title: str, x_label: str, y_label: str, points):
    """Per-class one-vs-rest curves (one for two classes), pooled (micro) for more, with areas."""
    y_true, _, scores, labels = containers.normalized(y_true, None, scores, labels, False)  # columns by name
    curves, pooled = score_curves(y_true, scores, labels)
    n_classes = curves.tp.shape[0]
    classes = _class_names(y_true, n_classes, labels)
    areas = np.atleast_1d(np.asarray(evaluate(area, y_true=y_true, scores=scores, labels=labels,
                                              average="none")[area], dtype=float))
    figure = new_figure(8.2, 5.0)  # room for the legend beside the square axes
    ax = figure.add_subplot()
    shown = [1] if n_classes == 2 else range(n_classes)
    for k in shown:
        x, y = points(curves, k)
        ax.plot(x, y, drawstyle="steps-pre" if area == "average_precision" else "default",
                label=f"class {plain(classes[k])} ({_area_name(area)} = {areas[k]:.4f})")
    if n_classes > 2:
        micro = float(np.asarray(evaluate(area, y_true=y_true, scores=scores, labels=labels,
                                          average="micro")[area]))
        x, y = points(pooled, 0)
        ax.plot(x, y, color="black", linestyle="dashed", drawstyle="steps-pre" if area == "average_precision" else "default",
                label=f"micro, pooled ({_area_name(area)} = {micro:.4f})")
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_aspect("equal")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    return figure, ax


def _area_name(area: str) -> str:
    return {"roc_auc": "AUC", "average_precision": "AP"}[area]


def _roc_points(curves, k):
    valid = np.r_[True, curves.valid[k]]
    with np.errstate(invalid="ignore", divide="ignore"):
        return curves.fp[k][valid] / curves.negatives[k], curves.tp[k][valid] / curves.positives[k]


def _pr_points(curves, k):
    valid = curves.valid[k]
    tp, fp = curves.tp[k][1:][valid], curves.fp[k][1:][valid]
    return tp / curves.positives[k], tp / (tp + fp)  # tp + fp >= 1 past the origin


def roc(y_true, scores, *, labels=None) -> Figure:
    """ROC curves (true positive rate against false positive rate) with their areas: the
    positive class of two, else every class against the rest and the pooled (micro) curve."""
    figure, ax = _curve_figure(y_true, scores, labels, "roc_auc", "ROC curve", "false positive rate",
                               "true positive rate", _roc_points)
    ax.plot([0, 1], [0, 1], color="grey", linestyle="dotted", label="chance")
    _legend_aside(ax)
    return figure


def precision_recall(y_true, scores, *, labels=None) -> Figure:
    """Precision-recall curves with their average precision (step-wise, as the AP is computed)."""
    figure, ax = _curve_figure(y_true, scores, labels, "average_precision", "Precision-recall curve", "recall",
                               "precision", _pr_points)
    _legend_aside(ax)
    return figure


def _legend_aside(ax) -> None:
    """The legend beside the axes, never over the curves (which may pass through any corner)."""
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)


# Probabilities marked on the axes of a DET plot (normal deviate scale), as in Martin et al. 1997.
_DET_TICKS = (0.001, 0.01, 0.05, 0.2, 0.5, 0.8, 0.95, 0.99, 0.999)


def _probit(p: np.ndarray) -> np.ndarray:
    """The normal deviate of each probability (``statistics.NormalDist``: no scipy), 0 and 1 clipped."""
    from statistics import NormalDist

    inverse = NormalDist().inv_cdf
    clipped = np.clip(np.asarray(p, dtype=float), 5e-4, 1 - 5e-4)
    return np.vectorize(inverse, otypes=[float])(clipped)


def det(y_true, scores, *, labels=None) -> Figure:
    """Detection error tradeoff (DET) curves: false negative rate against false positive rate,
    both on the normal deviate scale (Martin et al. 1997), where curves of normally distributed
    scores are straight lines; the positive class of two, else every class against the rest.
    The points are those of the ROC curve (``fnr = 1 - tpr``); the equal error rate is marked."""
    y_true, _, scores, labels = containers.normalized(y_true, None, scores, labels, False)  # columns by name
    curves, _ = score_curves(y_true, scores, labels)
    n_classes = curves.tp.shape[0]
    classes = _class_names(y_true, n_classes, labels)
    eer = np.atleast_1d(np.asarray(evaluate("equal_error_rate", y_true=y_true, scores=scores, labels=labels,
                                            average="none")["equal_error_rate"], dtype=float))
    figure = new_figure(8.2, 5.0)
    ax = figure.add_subplot()
    for k in [1] if n_classes == 2 else range(n_classes):
        fpr, tpr = _roc_points(curves, k)
        keep = np.isfinite(fpr) & np.isfinite(tpr)
        line, = ax.plot(_probit(fpr[keep]), _probit(1 - tpr[keep]),
                        label=f"class {plain(classes[k])} (EER = {eer[k]:.4f})")
        if np.isfinite(eer[k]):
            ax.plot(_probit(eer[k]), _probit(eer[k]), marker="o", color=line.get_color(), linestyle="none")
    ticks = _probit(np.asarray(_DET_TICKS))
    names = [f"{100 * t:g}%" for t in _DET_TICKS]
    ax.set_xticks(ticks, names)
    ax.set_yticks(ticks, names)
    ax.set_xlim(ticks[0], ticks[-1])
    ax.set_ylim(ticks[0], ticks[-1])
    ax.plot([ticks[0], ticks[-1]], [ticks[0], ticks[-1]], color="grey", linestyle="dotted", label="FNR = FPR")
    ax.set_aspect("equal")
    ax.set_xlabel("false positive rate (normal deviate scale)")
    ax.set_ylabel("false negative rate (normal deviate scale)")
    ax.set_title("DET curve")
    ax.grid(alpha=0.3)
    _legend_aside(ax)
    return figure
