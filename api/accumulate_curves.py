"""Threshold counts added up over chunks: curve-level metrics (ROC AUC, average precision...)
of data that does not fit in memory.

A one-vs-rest count curve only depends on how many positive and negative samples take each
score: :class:`ThresholdAccumulator` keeps, per class and for the pooled (micro) problem,
those two counts per distinct score (``exact``: merged exactly, the curves equal
:func:`~metricc.runtime.curves.score_curves` of all the data) or per score bin (``bins=``
edges: memory fixed by the number of bins, thresholds at the bin edges).

>>> acc = ThresholdAccumulator(labels=[0, 1])
>>> acc.update([1, 0], [0.9, 0.8]).update([1, 0], [0.8, 0.1]).compute("roc_auc")["roc_auc"].item()
0.875
"""

from __future__ import annotations

import math

import numpy as np

from metricc.runtime import confusion, inputs
from metricc.runtime.curves import Curves, check_scores
from metricc.core.errors import InputError
from metricc.api.evaluate import metric
from metricc.runtime.kernel import average_curve_metric

__all__ = ["ThresholdAccumulator"]


class _Histogram:
    """Positives and negatives per score value, values ascending; rows are problems (classes)."""

    def __init__(self, values: list[np.ndarray], positives: list[np.ndarray], negatives: list[np.ndarray]) -> None:
        self.values, self.positives, self.negatives = values, positives, negatives

    @classmethod
    def of(cls, truth: np.ndarray, scores: np.ndarray) -> _Histogram:
        """From one-hot truth and scores, both ``(n, K)``: one row per column."""
        rows = [cls._column(truth[:, k], scores[:, k]) for k in range(scores.shape[1])]
        return cls(*(list(part) for part in zip(*rows)))

    @staticmethod
    def _column(truth, scores):
        values, inverse = np.unique(scores, return_inverse=True)
        positives = np.bincount(inverse.ravel(), weights=truth, minlength=values.size).astype(np.int64)
        return values, positives, np.bincount(inverse.ravel(), minlength=values.size) - positives

    def __add__(self, other: _Histogram) -> _Histogram:
        rows = []
        for k in range(len(self.values)):
            values, inverse = np.unique(np.r_[self.values[k], other.values[k]], return_inverse=True)

            def add(a, b):  # counts of equal scores land on one value; float64 sums are exact below 2**53
                return np.bincount(inverse, weights=np.r_[a, b], minlength=values.size).astype(np.int64)

            rows.append((values, add(self.positives[k], other.positives[k]), add(self.negatives[k], other.negatives[k])))
        return _Histogram(*(list(part) for part in zip(*rows)))

    def curves(self) -> Curves:
        """Count curves from the highest score down, padded like ``score_curves`` pads them."""
        length = max(v.size for v in self.values)
        fields = {name: [] for name in ("tp", "fp", "fn", "tn", "valid")}
        for positives, negatives in zip(self.positives, self.negatives):
            keep = (positives + negatives) > 0  # an empty bin is no threshold
            tp = np.r_[0, np.cumsum(positives[keep][::-1])].astype(float)
            fp = np.r_[0, np.cumsum(negatives[keep][::-1])].astype(float)
            pad = length + 1 - tp.size
            for name, curve in (("tp", tp), ("fp", fp), ("fn", tp[-1] - tp), ("tn", fp[-1] - fp)):
                fields[name].append(np.r_[curve, np.full(pad, curve[-1])])
            fields["valid"].append(np.r_[np.ones(tp.size - 1, dtype=bool), np.zeros(pad, dtype=bool)])
        return Curves(*(np.stack(fields[name]) for name in ("tp", "fp", "fn", "tn", "valid")))


class ThresholdAccumulator:
    """Threshold counts of scored single-label data, added up over chunks.

    ``labels``: the classes in score-column order (for ``(n,)`` scores of two classes, the
    negative then the positive class), fixed up front because a chunk need not hold every
    class. ``bins``: increasing score edges (e.g. ``np.linspace(0, 1, 101)``): a score is
    counted in the bin ``[edge[i], edge[i + 1])`` it falls in (the last bin includes its
    right edge) and stands for that bin's lower edge; scores outside the edges are an error.
    Without ``bins`` every distinct score is kept (exact).
    """

    def __init__(self, labels, *, bins=None) -> None:
        self.labels = confusion.check_labels(labels)
        if len(self.labels) < 2:
            raise InputError("labels", "a threshold curve needs at least two classes")
        self.bins = None if bins is None else self._check_bins(bins)
        self.per_class: _Histogram | None = None
        self.pooled: _Histogram | None = None

    @staticmethod
    def _check_bins(bins) -> np.ndarray:
        edges = np.asarray(bins, dtype=float)
        if edges.ndim != 1 or edges.size < 2 or not np.isfinite(edges).all() or (np.diff(edges) <= 0).any():
            raise InputError("bins", "expected at least two finite, strictly increasing score edges")
        return edges

    def _binned(self, scores: np.ndarray) -> np.ndarray:
        if self.bins is None:
            return scores
        outside = (scores < self.bins[0]) | (scores > self.bins[-1])
        if outside.any():
            raise InputError("scores", f"score {scores[outside][0]!r} is outside the bins "
                                       f"[{self.bins[0]}, {self.bins[-1]}]; widen the bins")
        index = np.minimum(np.searchsorted(self.bins, scores, side="right") - 1, self.bins.size - 2)
        return self.bins[index]

    def update(self, y_true, scores) -> ThresholdAccumulator:
        """Add one chunk: true labels ``(n,)`` and scores ``(n, C)`` (or ``(n,)`` for two classes)."""
        scores, _ = inputs.read_scores(scores, self.labels)  # a DataFrame's named columns, by name
        truth, values = check_scores(inputs.one_label_per_sample(y_true, "y_true"), scores, self.labels)
        if values.shape[1] != len(self.labels):
            raise InputError("scores", f"expected one column per label ({len(self.labels)}), got {values.shape[1]}")
        values = self._binned(values)
        per_class = _Histogram.of(truth, values)
        pooled = _Histogram.of(truth.reshape(-1, 1), values.reshape(-1, 1))
        self._add(per_class, pooled)
        return self

    def _add(self, per_class: _Histogram, pooled: _Histogram) -> None:
        if self.per_class is None:
            self.per_class, self.pooled = per_class, pooled
        else:
            self.per_class, self.pooled = self.per_class + per_class, self.pooled + pooled

    def merge(self, other: ThresholdAccumulator) -> ThresholdAccumulator:
        """Add the counts of ``other`` (same labels and bins); returns self."""
        if not isinstance(other, ThresholdAccumulator):
            raise InputError("other", f"expected a ThresholdAccumulator, got {type(other).__name__}")
        if self.labels.tolist() != other.labels.tolist():
            raise InputError("other", f"has labels {other.labels.tolist()!r}, this one {self.labels.tolist()!r}")
        if (self.bins is None) != (other.bins is None) or (self.bins is not None and not np.array_equal(self.bins, other.bins)):
            raise InputError("other", "was binned differently; merge accumulators with the same bins")
        if other.per_class is not None:
            self._add(other.per_class, other.pooled)
        return self

    def reset(self) -> ThresholdAccumulator:
        self.per_class = self.pooled = None
        return self

    def curves(self) -> tuple[Curves, Curves]:
        """Per-class and pooled curves, as :func:`~metricc.runtime.curves.score_curves` returns them."""
        if self.per_class is None:
            raise InputError("update", "no data yet: call update() with at least one chunk first")
        positives = np.array([p.sum() for p in self.per_class.positives])
        if np.count_nonzero(positives) < 2:
            raise InputError("y_true", "only one class is present: a threshold curve needs positive and negative samples")
        return self.per_class.curves(), self.pooled.curves()

    def compute(self, metrics, *, average=None, weights=None, pos_label=None, zero_division=math.nan,
                params=None) -> dict[str, object]:
        """Curve-level metrics of the counts so far (score-level ones need the scores themselves);
        ``params``: their scalar parameters, e.g. ``{"min_recall": 0.8}`` (else the defaults)."""
        names = [metrics] if isinstance(metrics, str) else list(metrics)
        curves = self.curves()
        results = {}
        for name in names:
            info = metric(name)
            if not info.thresholds:
                raise InputError("metrics", f"{info.id} is a {info.level}-level metric; threshold counts give "
                                            "curve-level metrics only (roc_auc, average_precision, ...)")
            # The metric's per-curve kernel (the function itself takes raw scores), its parameters checked.
            given = {p.name: (params or {}).get(p.name, p.default) for p in info.params}
            results[name] = average_curve_metric(
                info.curve_kernel, curves, average=average or info.default_average, averages=info.averages,
                params=info.curve_params(**given) if given else None,
                weights=weights, pos_label=self._pos_index(pos_label), zero_division=zero_division)
        return results

    def _pos_index(self, pos_label) -> int:
        if pos_label is None:
            return 1
        matches = [k for k, v in enumerate(self.labels.tolist())
                   if v == pos_label and isinstance(v, str) == isinstance(pos_label, str)]
        if not matches:
            raise InputError("pos_label", f"{pos_label!r} is not one of the labels {self.labels.tolist()!r}")
        return matches[0]
