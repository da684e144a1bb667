"""The confusion matrix as a heatmap: class names on both axes, each cell with its count and
its share of the true class (row-normalised rate), coloured by that rate.

Colouring by the rate rather than the count keeps a small class readable next to a large one:
a row of 5 samples with 4 correct is as dark on the diagonal as a row of 500 with 400.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from metricc.bridges.plot._figure import SEQUENTIAL, display_names, new_figure, plain
from metricc.runtime import confusion
from metricc.core.errors import InputError

__all__ = ["confusion_matrix"]

MAX_ANNOTATED = 30  # classes; beyond this the cells are too small to print in


def _matrix_and_labels(matrix, y_true, y_pred, labels, orientation):
    if (matrix is None) == (y_true is None and y_pred is None):
        raise InputError("input", "give either matrix=, or y_true= with y_pred=")
    if matrix is not None:
        m = confusion.check_matrix(confusion.orient(matrix, orientation), integer=False)
        if m.ndim != 2:
            raise InputError("matrix", f"expected one confusion matrix (C, C), got shape {m.shape}")
        return m, display_names(labels, m.shape[0], "labels", "class {}")
    if y_true is None or y_pred is None:
        raise InputError("y_pred" if y_pred is None else "y_true", "y_true and y_pred go together")
    classes = confusion.class_labels(y_true, y_pred, labels)
    m = confusion.confusion_matrix(y_true, y_pred, labels=classes).astype(float)
    return m, [plain(label) for label in classes]


def _count_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.3g}"


def confusion_matrix(matrix=None, *, y_true=None, y_pred=None, labels=None, orientation: str = "true-rows",
                     title: str | None = None) -> Figure:
    """A heatmap of one confusion matrix, true classes in rows, predicted in columns.

    Give ``matrix`` ``(C, C)`` (``orientation="pred-rows"`` for the transposed convention)
    or ``y_true`` and ``y_pred`` labels; ``labels`` names (or, with labels, orders) the
    classes. Each cell shows its count and its rate within the row (the true class); the
    colour is the rate. A row without samples has no rates and is left blank.
    """
    m, class_names = _matrix_and_labels(matrix, y_true, y_pred, labels, orientation)
    support = m.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = np.where(support > 0, m / np.where(support > 0, support, 1), np.nan)
    size = max(4.0, 0.6 * len(class_names) + 2.5)
    figure = new_figure(size + 1.2, size)
    ax = figure.add_subplot()
    image = ax.imshow(np.ma.masked_invalid(rates), cmap=SEQUENTIAL, vmin=0.0, vmax=1.0)
    colorbar = figure.colorbar(image, ax=ax, shrink=0.8)
    colorbar.set_label("rate within the true class (row-normalised)")
    positions = np.arange(len(class_names))
    ax.set_xticks(positions, class_names, rotation=45 if max(map(len, class_names)) > 3 else 0, ha="right"
                  if max(map(len, class_names)) > 3 else "center")
    ax.set_yticks(positions, class_names)
    ax.set_xlabel("predicted class")
    ax.set_ylabel("true class")
    ax.set_title(title if title is not None else f"Confusion matrix ({_count_text(m.sum())} samples)")
    if len(class_names) <= MAX_ANNOTATED:
        for (i, j), count in np.ndenumerate(m):
            rate = rates[i, j]
            text = _count_text(count) if np.isnan(rate) else f"{_count_text(count)}\n{rate:.1%}"
            dark = not np.isnan(rate) and rate < 0.5  # viridis is dark at the low end
            ax.text(j, i, text, ha="center", va="center", fontsize=8 if len(class_names) < 10 else 6,
                    color="white" if dark else "black")
    return figure
