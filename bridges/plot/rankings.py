"""Metric disagreement as a bump chart: several classifiers (confusion matrices) ranked by
several metrics, one column per metric, one line per classifier.

This is what the source papers argue about (Kozak et al. 2022, Tables 6-9, rank in brackets;
Branco et al. 2017, Cases 1-3): the same matrices, ordered differently by different metrics.
Rank 1 is the best value by the metric's own direction; tied values share the best rank of the
tie (competition ranking: 1, 2, 2, 4); an undefined value (NaN) gets no rank and no point.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from metricc.bridges.plot._figure import display_names, new_figure
from metricc.runtime import averaging, confusion
from metricc.core.errors import InputError
from metricc.api.evaluate import evaluate, metric

__all__ = ["rank", "rankings"]


def rank(values, higher_is_better: bool = True) -> np.ndarray:
    """Competition ranks (1 = best) of ``values``; NaN stays NaN.

    >>> rank([0.5, 0.9, 0.5, float("nan")]).tolist()
    [2.0, 1.0, 2.0, nan]
    """
    values = np.asarray(values, dtype=float)
    key = -values if higher_is_better else values
    defined = ~np.isnan(key)
    ranks = np.full(values.shape, np.nan)
    ranks[defined] = [1 + np.count_nonzero(key[defined] < v) for v in key[defined]]
    return ranks


def _scores(m: np.ndarray, metric_ids: list[str], average, params) -> np.ndarray:
    """``(M, B)``: each metric's single value for each matrix."""
    for name in metric_ids:
        info = metric(name)
        if info.needs_scores:
            raise InputError("metrics", f"{name} needs scores, not confusion matrices")
        if info.higher_is_better is None:
            raise InputError("metrics", f"{name} is a statistic with no better direction (higher_is_better: null): "
                                        "it ranks no classifier first; rank by metrics that have one")
        if info.per_class_counts and averaging.per_class(average or info.default_average):
            raise InputError("average", f"{name}: a ranking needs one value per classifier; choose an averaging "
                                        f"other than {averaging.PER_CLASS}")
    results = evaluate(metric_ids, matrix=m, average=average, params=params)
    rows = [np.asarray(results[name], dtype=float) for name in metric_ids]
    for name, row in zip(metric_ids, rows):
        if row.shape != (m.shape[0],):
            raise InputError("metrics", f"{name} gives shape {row.shape[1:]} per matrix; a ranking needs one value")
    return np.stack(rows)


def _spread(ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Heights that pull tied classifiers apart around their shared rank (else their lines
    hide each other), and which point of each tie carries the value label (the top one)."""
    heights = ranks.copy()
    first = np.zeros(ranks.shape, dtype=bool)
    for row, (shared, spread) in enumerate(zip(ranks, heights)):
        for value in np.unique(shared[np.isfinite(shared)]):
            members = np.flatnonzero(shared == value)
            step = min(0.2, 0.6 / len(members))
            spread[members] = value + (np.arange(members.size) - (members.size - 1) / 2) * step
            first[row, members[0]] = True
    return heights, first


def rankings(matrices, metrics, *, names=None, average: str | None = None, params=None,
             orientation: str = "true-rows") -> Figure:
    """A bump chart of classifiers ranked by each metric.

    ``matrices`` ``(B, C, C)``: one confusion matrix per classifier (``names``
    names them); ``metrics``: two or more metric ids. Class-level metrics use ``average``
    (default: each metric's own). Each point is labelled with the metric's value.
    """
    m = confusion.check_matrix(confusion.orient(matrices, orientation), integer=False)
    if m.ndim != 3 or m.shape[0] < 2:
        raise InputError("matrices", f"expected two or more confusion matrices (B, C, C), got shape {m.shape}")
    listed = [metrics] if isinstance(metrics, str) else list(metrics)
    if len(listed) < 2 or not all(isinstance(name, str) for name in listed):
        raise InputError("metrics", f"expected two or more metric ids to compare, got {metrics!r}")
    classifiers = display_names(names, m.shape[0], "names", "classifier {}")
    values = _scores(m, listed, average, params)
    ranks = np.stack([rank(row, metric(name).higher_is_better) for name, row in zip(listed, values)])
    heights, first_of_tie = _spread(ranks)
    figure = new_figure(1.6 * len(listed) + 3.5, 0.45 * m.shape[0] + 2.2)
    ax = figure.add_subplot()
    columns = np.arange(len(listed))
    for b, name in enumerate(classifiers):
        line, = ax.plot(columns, heights[:, b], marker="o", markersize=9, linewidth=2.5, label=name)
        for x in np.flatnonzero(first_of_tie[:, b]):
            ax.annotate(f"{values[x, b]:.3f}", (x, heights[x, b]), textcoords="offset points", xytext=(0, 8),
                        ha="center", fontsize=7)
        first = np.flatnonzero(np.isfinite(ranks[:, b]))
        if first.size:
            ax.annotate(name, (first[0], heights[first[0], b]), textcoords="offset points", xytext=(-12, 0),
                        ha="right", va="center", fontsize=8, color=line.get_color())
    undefined = np.isnan(ranks).sum(axis=1)
    listed = [f"{name}\n({n} undefined)" if n else name for name, n in zip(listed, undefined)]
    ax.set_xticks(columns, listed)
    ax.set_xlim(-0.9, len(listed) - 0.6)
    ax.set_yticks(np.arange(1, m.shape[0] + 1))
    ax.set_ylim(m.shape[0] + 0.5, 0.5)  # rank 1 on top
    ax.set_ylabel("rank (1 = best)")
    ax.set_xlabel("metric")
    ax.set_title(f"Rankings of {m.shape[0]} classifiers by {len(listed)} metrics")
    ax.grid(axis="y", alpha=0.3)  # each line is named once, beside its first point: no legend repeats the names
    return figure
