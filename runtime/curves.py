"""Score matrices in, threshold count curves out: the data of curve- and score-level metrics.

A *curve* is the sequence of one-vs-rest counts (TP, FP, FN, TN) obtained by predicting
"positive" for every sample scoring at or above a threshold, for every distinct score taken
as threshold, from the highest down. Index 0 is the origin (no sample predicted positive),
so a generated kernel reads ``tp[..., 1:]`` as ``TP[i]`` and ``tp[..., :-1]`` as
``TP[i - 1]``. One sort per curve: O(n log n).

>>> curve = threshold_curve([1, 0, 1, 0], [0.9, 0.8, 0.8, 0.1])
>>> curve.tp.tolist(), curve.fp.tolist()
([0.0, 1.0, 2.0, 2.0], [0.0, 0.0, 1.0, 2.0])
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from metricc.runtime.confusion import check_labels, label_array
from metricc.runtime.context import ScoreContext
from metricc.core.errors import InputError
from metricc.runtime.scores import check_probabilities, indicator_truth, plainly_probabilities, score_array

__all__ = ["Curves", "ScoreCurves", "check_scores", "curve_pick", "threshold_curve", "score_curves"]


class Curves(NamedTuple):
    """Count curves ``(K, L + 1)`` (origin first), padded past each curve's end by its last
    point; ``valid`` ``(K, L)`` marks the real thresholds; ``positives``/``negatives`` ``(K,)``."""

    tp: np.ndarray
    fp: np.ndarray
    fn: np.ndarray
    tn: np.ndarray
    valid: np.ndarray

    @property
    def positives(self) -> np.ndarray:
        return self.tp[..., -1] + self.fn[..., -1]

    @property
    def negatives(self) -> np.ndarray:
        return self.fp[..., -1] + self.tn[..., -1]


def _column_index(y_true, n_classes: int, labels) -> np.ndarray:
    """Class labels -> score columns: ``labels`` order, else the sorted distinct labels, else 0..C-1."""
    y = label_array(y_true, "y_true", max_ndim=1)
    if labels is None and y.dtype.kind in "iu" and y.min() >= 0 and y.max() < n_classes:
        return y.astype(np.intp, copy=False)  # both rules below read such labels as the columns: no sort needed
    if labels is None and y.dtype.kind != "O":  # numbers or strings of one type: numpy sorts them
        distinct, codes = np.unique(y, return_inverse=True)
        if len(distinct) == n_classes:
            return codes.ravel()
        if y.dtype.kind in "iu" and distinct[0] >= 0 and distinct[-1] < n_classes:
            return y.astype(int)
        raise InputError("labels", f"y_true has {len(distinct)} distinct labels for {n_classes} score columns: "
                         "give labels= (one per column, in column order)")
    y = y.astype(object)
    if labels is not None:
        order = check_labels(labels).tolist()
        if len(order) != n_classes:
            raise InputError("labels", f"expected one label per score column ({n_classes}), got {len(order)}")
        position = {label: k for k, label in enumerate(order)}
        missing = [v for v in y.tolist() if v not in position]
        if missing:
            raise InputError("y_true", f"label {missing[0]!r} is not one of the labels {order!r}")
        return np.array([position[v] for v in y.tolist()], dtype=int)
    try:
        distinct = sorted(set(y.tolist()))
    except TypeError:
        raise InputError("y_true", "labels of mixed types cannot be ordered; give labels=") from None
    if len(distinct) == n_classes:
        position = {label: k for k, label in enumerate(distinct)}
        return np.array([position[v] for v in y.tolist()], dtype=int)
    integral = all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in distinct)
    if integral and min(distinct) >= 0 and max(distinct) < n_classes:
        return np.array(y.tolist(), dtype=int)
    raise InputError("labels", f"y_true has {len(distinct)} distinct labels for {n_classes} score columns: "
                     "give labels= (one per column, in column order)")


def check_scores(y_true, scores, labels=None, probabilities: bool = False,
                 indicator: bool = False, relevance: bool = False, codes: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """-> (one-hot truth ``Y``, scores ``S``), both ``(n, C)`` floats; with ``codes`` (single-label
    truth only) the true class of each row ``(n,)`` (its score column) instead of ``Y``, for
    kernels that gather ``S[s, y[s]]`` rather than sum ``Y[s, k] S[s, k]`` over a one-hot row.

    1-D scores are the scores of the second of two classes; the first gets ``1 - s`` (a
    decreasing transform, so rankings are kept and probabilities stay probabilities).
    With ``indicator`` (multi-label metrics) ``y_true`` is ``Y`` itself, an ``(n, C)`` 0/1
    matrix beside ``(n, C)`` scores; ``labels`` then only names the columns. With
    ``relevance`` as well, ``Y`` holds graded relevances (finite reals >= 0).
    """
    values = score_array(scores, finite=False)
    plain = probabilities and plainly_probabilities(values)  # finite then, and probabilities: checked once
    if not plain:
        score_array(values)
    if indicator:
        if probabilities and not plain:
            check_probabilities(values)
        return indicator_truth(y_true, values, labels, graded=relevance), values
    if values.ndim == 1:
        values = np.stack([1.0 - values, values], axis=-1)
    if values.ndim != 2 or values.shape[0] == 0 or values.shape[1] < 2:
        raise InputError("scores", f"expected shape (n_samples, n_classes >= 2) or (n_samples,), got {np.shape(scores)}")
    y = y_true if isinstance(y_true, np.ndarray) else np.asarray(y_true, dtype=object)
    if y.ndim != 1 or y.shape[0] != values.shape[0]:
        raise InputError("y_true", f"expected one label per score row ({values.shape[0]}), got shape {y.shape}")
    if probabilities and not plain:
        check_probabilities(values)
    columns = _column_index(y, values.shape[1], labels)
    if codes:
        return columns, values
    truth = np.zeros_like(values)
    truth[np.arange(values.shape[0]), columns] = 1.0
    return truth, values


def _tie_groups(truth: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the last sample of each tie group in descending score order, the positives up to it): one sort.

    The sort need not be stable: only the ends of tie groups are read, and the positives up to
    an end are a sum of 0/1 truths, exact in any order; introsort takes 0.64 of mergesort's time."""
    order = np.argsort(-score)
    ranked = score[order]
    ends = np.r_[np.flatnonzero(np.diff(ranked)), ranked.size - 1]
    return ends, np.cumsum(truth[order])[ends]


def threshold_curve(truth, score) -> Curves:
    """Counts at every distinct threshold of one binary problem (``truth`` 1 = positive)."""
    ends, hits = _tie_groups(np.asarray(truth, dtype=float), np.asarray(score, dtype=float))
    tp = np.r_[0.0, hits]
    fp = np.r_[0.0, ends + 1.0] - tp
    positives, negatives = tp[-1], fp[-1]
    return Curves(tp, fp, positives - tp, negatives - fp, np.ones(ends.size, dtype=bool))


def curve_pick(value, key, holds, valid) -> np.ndarray:
    """``value`` at one threshold per curve: among the real thresholds (``valid``) where ``holds``,
    the first (highest score) with the greatest ``key``; NaN where no threshold holds.

    The chosen-threshold reductions of curve formulas (``Max(x, i, where=...)``); all four
    arguments are ``(..., L)``.

    >>> curve_pick(np.array([[0.5, 0.6, 0.4]]), np.array([[1.0, 2.0, 2.0]]),
    ...            np.array([[True, True, True]]), np.array([[True, True, True]])).tolist()
    [0.6]
    """
    meets = valid & holds
    top = np.max(np.where(meets, key, -np.inf), axis=-1, keepdims=True)
    first = np.argmax(meets & (key == top), axis=-1)[..., None]
    chosen = np.take_along_axis(np.broadcast_to(value, meets.shape), first, axis=-1)[..., 0]
    return np.where(meets.any(axis=-1), chosen, np.nan)


def _column_curves(truth: np.ndarray, values: np.ndarray) -> Curves:
    """The curve of each column of ``values`` ``(n, K)`` against that of ``truth``, as
    :func:`threshold_curve` makes it, written into ``(K, L + 1)`` arrays: each padded past its
    end by its last point (``valid`` marks the real thresholds). False negatives and true
    negatives are taken from the stacked counts, the same subtractions as one curve's."""
    groups = [_tie_groups(truth[:, k], values[:, k]) for k in range(values.shape[1])]
    length = max(ends.size for ends, _ in groups)
    tp, fp = np.zeros((len(groups), length + 1)), np.zeros((len(groups), length + 1))
    valid = np.zeros((len(groups), length), dtype=bool)
    for k, (ends, hits) in enumerate(groups):
        size = ends.size
        tp[k, 1:size + 1], tp[k, size + 1:] = hits, hits[-1]  # the curve stays where it ended
        fp[k, 1:size + 1] = ends + 1.0 - hits
        fp[k, size + 1:] = fp[k, size]
        valid[k, :size] = True
    return Curves(tp, fp, tp[:, -1:] - tp, fp[:, -1:] - fp, valid)


class ScoreCurves:
    """The one-vs-rest curves of every class ``(C, L + 1)`` and the pooled (micro) curve
    ``(1, L + 1)`` of every (sample, class) pair; unpacks as ``per_class, pooled``. The pooled
    curve sorts n * C scores: it is built only when read (micro averaging), not for macro."""

    def __init__(self, truth: np.ndarray, values: np.ndarray):
        self._truth, self._values = truth, values
        self.per_class = _column_curves(truth, values)
        self._pooled = None

    @property
    def pooled(self) -> Curves:
        if self._pooled is None:
            self._pooled = _column_curves(self._truth.reshape(-1, 1), self._values.reshape(-1, 1))
        return self._pooled

    def __iter__(self):
        return iter((self.per_class, self.pooled))


def score_curves(y_true, scores, labels=None, multilabel=False, context: ScoreContext | None = None) -> ScoreCurves:
    """One-vs-rest curves per class ``(C, L + 1)`` and the pooled (micro) curve ``(1, L + 1)``;
    with ``multilabel`` the curve of each column of an indicator ``y_true`` (n, C), as
    scikit-learn's ``roc_auc_score`` reads a multi-label truth. ``context``: the call's
    :class:`~metricc.runtime.context.ScoreContext`; the curves of its own inputs are built by
    the first metric that reads them and shared by the others (one sort per column a call)."""
    if not isinstance(multilabel, (bool, np.bool_)):
        raise InputError("multilabel", f"expected True or False, got {multilabel!r}")
    if context is not None and context.holds(y_true, scores, labels):
        return context.curves(bool(multilabel), lambda: _curves_of(y_true, scores, labels, bool(multilabel)))
    return _curves_of(y_true, scores, labels, bool(multilabel))


def _curves_of(y_true, scores, labels, multilabel: bool) -> ScoreCurves:
    truth, values = check_scores(y_true, scores, labels, indicator=multilabel)
    if multilabel:
        if truth.all() or not truth.any():
            raise InputError("y_true", f"every entry is {int(truth.flat[0])}: a threshold curve needs positive and "
                                       "negative (sample, label) pairs")
    elif np.count_nonzero(truth.sum(axis=0)) < 2:
        raise InputError("y_true", "only one class is present: a threshold curve needs positive and negative samples")
    return ScoreCurves(truth, values)
