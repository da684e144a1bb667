"""The reliability diagram: accuracy against confidence over the bins of the catalog's
calibration errors (``calibration_error``, ECE, and ``max_calibration_error``, MCE).

The bins are the specs' own: a sample's confidence is its top-label score (the first class
when tied), its bin ``floor(bins * confidence)`` of ``bins`` equal-width bins of [0, 1] (a
confidence of exactly 1 in a bin of its own). Each bar is the accuracy of a bin's samples,
drawn at the bin, beside the diagonal of perfect calibration and the bin's mean confidence;
below, how many samples each bin holds. The title gives ECE and MCE as the catalog computes
them, which are the share-weighted mean and the largest of the gaps drawn.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from metricc.bridges.plot._figure import new_figure
from metricc.runtime import inputs as containers
from metricc.runtime.curves import check_scores
from metricc.core.errors import InputError
from metricc.api.evaluate import evaluate

__all__ = ["bin_statistics", "reliability"]


def bin_statistics(y_true, scores, *, labels=None, bins: int = 15) -> dict[str, np.ndarray]:
    """Per occupied bin: ``bin`` (its index), ``count``, ``confidence`` (mean) and ``accuracy``.

    >>> stats = bin_statistics([0, 1, 1], [[0.9, 0.1], [0.2, 0.8], [0.7, 0.3]], bins=5)
    >>> stats["bin"].tolist(), stats["count"].tolist(), stats["accuracy"].tolist()
    ([1, 3, 4], [1, 1, 1], [1.0, 0.0, 1.0])
    """
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
        raise InputError("bins", f"expected a whole number of bins >= 1, got {bins!r}")
    y_true, _, scores, labels = containers.normalized(y_true, None, scores, labels, False)  # columns by name
    truth, values = check_scores(y_true, scores, labels, probabilities=True)
    top = np.argmax(values, axis=1)  # the first class among tied maxima, as the specs' first_max
    rows = np.arange(values.shape[0])
    confidence, correct = values[rows, top], truth[rows, top]
    index = np.floor(bins * confidence).astype(np.int64)
    occupied, inverse, count = np.unique(index, return_inverse=True, return_counts=True)
    return {"bin": occupied, "count": count,
            "confidence": np.bincount(inverse, confidence) / count, "accuracy": np.bincount(inverse, correct) / count}


def reliability(y_true, scores, *, labels=None, bins: int = 15) -> Figure:
    """Reliability diagram of class probabilities ``scores`` (``(n, C)``, or ``(n,)`` for the
    second of two classes) over ``bins`` confidence bins (default 15, the catalog's default)."""
    stats = bin_statistics(y_true, scores, labels=labels, bins=bins)
    y_true, _, scores, labels = containers.normalized(y_true, None, scores, labels, False)
    errors = evaluate(["calibration_error", "max_calibration_error"], y_true=y_true, scores=scores, labels=labels,
                      params={"bins": bins})
    width = 1.0 / bins
    left = stats["bin"] * width
    figure = new_figure(6.0, 6.4)
    top, bottom = figure.subplots(2, 1, sharex=True, height_ratios=(3, 1))
    top.bar(left, stats["accuracy"], width=width, align="edge", edgecolor="black", linewidth=0.6,
            color="#4c72b0", label="accuracy of the bin")
    top.bar(left, stats["confidence"] - stats["accuracy"], bottom=stats["accuracy"], width=width, align="edge",
            fill=False, hatch="//", edgecolor="#c44e52", linewidth=0.8, label="gap to the mean confidence")
    top.plot(stats["confidence"], stats["accuracy"], marker="o", color="black", linestyle="none", markersize=4,
             label="(mean confidence, accuracy)")
    top.plot([0, 1], [0, 1], color="grey", linestyle="dotted", label="perfect calibration")
    top.set_xlim(0, 1 + (width if (stats["bin"] == bins).any() else 0))
    top.set_ylim(0, 1)
    top.set_ylabel("accuracy")
    top.set_title(f"Reliability diagram ({bins} bins): ECE = {float(errors['calibration_error']):.4f}, "
                  f"MCE = {float(errors['max_calibration_error']):.4f}")
    figure.legend(*top.get_legend_handles_labels(), loc="outside lower center", ncols=2, fontsize=8)  # off the bars
    top.grid(alpha=0.3)
    bottom.bar(left, stats["count"], width=width, align="edge", color="grey", edgecolor="black", linewidth=0.6)
    bottom.set_xlabel("confidence (top-label score)")
    bottom.set_ylabel("samples")
    bottom.grid(alpha=0.3)
    return figure
