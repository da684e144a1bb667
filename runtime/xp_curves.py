"""Threshold count curves on the device: what ``generated/arrays/``' curve modules call.

The namespace-generic twin of :mod:`metricc.runtime.curves` and of the runtime's
``average_curve_metric``: the curves of every class at once from one stable descending sort
of the score columns (``argsort(..., stable=True)``), the true positives as a
``cumulative_sum`` read at the last sample of each tie group, those ends found in order by
one ``searchsorted`` of their running count; the same padded ``(K, L + 1)``
layout (origin first, each curve padded with its last point, ``valid`` marking the real
thresholds), in the value dtype on the scores' device. One number is read from the device
per curve set: ``L``, the most distinct thresholds of a class, which fixes the shape.

>>> import array_api_strict as xp
>>> curves = score_curves(xp.asarray([1, 0, 1, 0]), xp.asarray([0.9, 0.8, 0.8, 0.1]))
>>> namespace.to_host(curves.per_class.tp[1, :]).tolist(), namespace.to_host(curves.per_class.fp[1, :]).tolist()
([0.0, 1.0, 2.0, 2.0], [0.0, 0.0, 1.0, 2.0])
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from metricc.core.errors import InputError
from metricc.runtime import averaging, namespace
from metricc.runtime.division import zero_division_value
from metricc.runtime.xp_kernel import Space, average_class_metric, finish, quiet
from metricc.runtime.xp_scores import by_class, check_scores, one_hot, positions

__all__ = ["Curves", "ScoreCurves", "average_curve_metric", "curve_pick", "score_curves"]


@dataclass(frozen=True)
class Curves:
    """Count curves ``(K, L + 1)`` and the real thresholds ``valid`` ``(K, L)``, as
    :class:`metricc.runtime.curves.Curves` holds them."""

    tp: object
    fp: object
    fn: object
    tn: object
    valid: object

    @property
    def positives(self):
        return self.tp[..., -1] + self.fn[..., -1]

    @property
    def negatives(self):
        return self.fp[..., -1] + self.tn[..., -1]


def _rows_at(xp: Space, matrix, at):
    """``matrix[k, at[k, i]]`` for every ``(k, i)``: one ``take`` of the flattened ``(K, m)`` matrix."""
    width = matrix.shape[1]
    flat = xp.astype(at, xp.counts) + positions(xp, at.shape[0])[:, None] * width
    return xp.reshape(xp.take(xp.reshape(matrix, (-1,)), xp.reshape(flat, (-1,))), tuple(at.shape))


def _curves(xp: Space, truth, values) -> Curves:
    """The curve of every column of ``truth`` (1 = positive) and ``values`` ``(n, K)``.

    Worked class by row (:func:`~metricc.runtime.xp_scores.by_class`): each class's samples are
    contiguous, so the sort, the gathers and the running sums run along the last axis."""
    n, width = values.shape
    values, truth = by_class(xp, values), by_class(xp, truth)
    order = xp.argsort(values, axis=1, descending=True, stable=True)
    ranked, hits = _rows_at(xp, values, order), _rows_at(xp, truth, order)
    ends = xp.concat([ranked[:, 1:] != ranked[:, :-1], xp.ones((width, 1), dtype=xp.bool, device=xp.device)], axis=1)
    lengths = xp.sum(xp.astype(ends, xp.counts), axis=1)
    longest = int(namespace.to_host(xp.max(lengths)))
    at = _ends_in_order(xp, ends, lengths, longest)
    cumulative = xp.cumulative_sum(hits, axis=1)
    positives = cumulative[:, -1]
    real = positions(xp, longest)[None, :] < lengths[:, None]
    tp = xp.where(real, _rows_at(xp, cumulative, at), positives[:, None])
    fp = xp.where(real, xp.astype(at, xp.values) + 1.0 - tp, n - positives[:, None])
    origin = xp.zeros((width, 1), dtype=xp.values, device=xp.device)
    tp, fp = (xp.concat([origin, c], axis=1) for c in (tp, fp))
    negatives = n - positives
    return Curves(tp, fp, positives[:, None] - tp, negatives[:, None] - fp, real)


def _ends_in_order(xp: Space, ends, lengths, longest: int):
    """The sample of the j-th tie-group end of each class ``(K, longest)``, the last end past a
    class's own: one ``searchsorted`` of the running count of ends over the classes laid end to
    end (it only grows), where a second sort would move the ends to the front."""
    width, n = ends.shape
    running = xp.cumulative_sum(xp.reshape(xp.astype(ends, xp.counts), (-1,)))
    before = xp.cumulative_sum(lengths) - lengths  # the ends of the classes above
    wanted = xp.minimum(positions(xp, longest)[None, :] + 1, lengths[:, None]) + before[:, None]
    found = xp.searchsorted(running, xp.reshape(wanted, (-1,)), side="left")
    return xp.reshape(found, (width, longest)) - positions(xp, width)[:, None] * n


class ScoreCurves:
    """The per-class curves ``(C, L + 1)`` and, built when read (micro), the pooled curve
    ``(1, L + 1)`` of every (sample, class) pair; ``xp`` their :class:`~metricc.runtime.xp_kernel.Space`."""

    def __init__(self, xp: Space, truth, values) -> None:
        self.xp, self._truth, self._values = xp, truth, values
        self.per_class = _curves(xp, truth, values)
        self._pooled = None

    @property
    def pooled(self) -> Curves:
        if self._pooled is None:
            self._pooled = _curves(self.xp, *(self.xp.reshape(a, (-1, 1)) for a in (self._truth, self._values)))
        return self._pooled


def score_curves(y_true, scores, labels=None, multilabel=False) -> ScoreCurves:
    """As :func:`metricc.runtime.curves.score_curves`, on the scores' device."""
    if not isinstance(multilabel, (bool, np.bool_)):
        raise InputError("multilabel", f"expected True or False, got {multilabel!r}")
    if multilabel:
        truth, values, xp = check_scores(y_true, scores, labels, indicator=True)
        seen = namespace.to_host(xp.stack([xp.all(truth == 1), xp.any(truth == 1)])).tolist()
        if seen[0] or not seen[1]:
            raise InputError("y_true", f"every entry is {int(seen[0])}: a threshold curve needs positive and negative "
                                       "(sample, label) pairs")
    else:
        columns, values, xp = check_scores(y_true, scores, labels, codes=True)
        truth = one_hot(xp, columns, values)
        if int(namespace.to_host(xp.count_nonzero(xp.sum(truth, axis=0)))) < 2:
            raise InputError("y_true", "only one class is present: a threshold curve needs positive and negative "
                                       "samples")
    return ScoreCurves(xp, truth, values)


def curve_pick(xp: Space, value, key, holds, valid):
    """``value`` at the first threshold with the greatest ``key`` among the real ones where
    ``holds``; NaN where none holds (as :func:`metricc.runtime.curves.curve_pick`)."""
    meets = valid & xp.astype(holds, xp.bool)
    key, value = (xp.broadcast_to(xp.astype(a, xp.values), meets.shape) for a in (key, value))
    top = xp.max(xp.where(meets, key, xp.asarray(-math.inf)), axis=-1, keepdims=True)
    first = xp.argmax(xp.astype(meets & (key == top), xp.values), axis=-1, keepdims=True)
    chosen = xp.sum(xp.where(positions(xp, meets.shape[-1]) == first, value, 0.0), axis=-1)
    return xp.where(xp.any(meets, axis=-1), chosen, xp.asarray(math.nan))


def average_curve_metric(kernel: Callable, curves: ScoreCurves, *, average: str, averages: tuple[str, ...],
                         params: Mapping | None = None, weights=None, pos_label: int = 1, zero_division=math.nan):
    """A per-curve kernel ``(xp, tp, fp, fn, tn, *previous, positives, negatives, valid)``
    applied and averaged over the classes as the numpy runtime's ``average_curve_metric``:
    ``micro`` on the pooled curve, the other modes with each class's positives as its support."""
    xp = curves.xp
    mode = averaging.mode(average, averages)
    zero = zero_division_value(zero_division)
    with quiet():
        if mode.pools:
            return finish(xp, *_apply(xp, kernel, curves.pooled, params or {}), zero)[0]
        value, undefined = _apply(xp, kernel, curves.per_class, params or {})
        values = xp.where(xp.astype(undefined, xp.bool) if namespace.is_array(undefined) else xp.asarray(
            bool(undefined), dtype=xp.bool), xp.asarray(zero), xp.astype(value, xp.values)) + 0.0
        per_class = curves.per_class
        positives, negatives = per_class.positives, per_class.negatives
        support = xp.stack([positives, xp.zeros_like(positives), xp.zeros_like(positives), negatives])
        unset = xp.zeros(values.shape, dtype=xp.bool, device=xp.device)
        return average_class_metric(lambda _, *counts: (values, unset), support, average=average, averages=averages,
                                    params={}, weights=weights, pos_label=pos_label, zero_division=zero)


def _apply(xp: Space, kernel: Callable, curves: Curves, params: Mapping):
    """The kernel on the counts at each threshold (``[..., 1:]``) and at the one before (``[..., :-1]``)."""
    counts = (curves.tp, curves.fp, curves.fn, curves.tn)
    return kernel(xp, *(c[..., 1:] for c in counts), *(c[..., :-1] for c in counts), curves.positives,
                  curves.negatives, curves.valid, **params)
