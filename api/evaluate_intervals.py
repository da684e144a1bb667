"""``evaluate(..., interval=method)``: the values, then each one's interval
(:mod:`~metricc.api.uncertainty`), from the request and the counts the values were computed from.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from metricc.api import uncertainty
from metricc.api.evaluate_counts import counted_params
from metricc.api.intervals import Interval
from metricc.api.request import EvaluationRequest, per_class_values, pos_index, sorted_labels
from metricc.core.errors import InputError

__all__ = ["with_intervals"]

BOOTSTRAPS = ("bootstrap", "bootstrap_bca")


def with_intervals(request: EvaluationRequest, values: dict, method: str, confidence: float, n_resamples: int,
                   random_state, again: Callable[..., dict]) -> dict[str, Interval]:
    """Each value's interval by ``method``; ``again(**data)`` evaluates the request's metrics on
    resampled data (the bootstrap)."""
    # Several metrics, one method: applied where it applies, the others keep their value with
    # NaN bounds and a note saying why; only a request it applies to nowhere is refused.
    notes = {r.key: uncertainty.inapplicable(method, r.info, r.mode, r.key) for r in request.requested}
    if all(notes.values()):
        raise InputError("interval", next(iter(notes.values())))
    counted = request.probabilistic is None and any(v is not None for v in (request.y_pred, request.matrix,
                                                                             request.counts))
    if not counted and method not in BOOTSTRAPS:
        raise InputError("interval", f"{method} needs counts (y_pred=, matrix= or counts=); on scores and "
                                     "probabilistic matrices the bootstrap applies, resampling the instances")
    found = request.counted() if counted else None
    terms, class_labels = (found.terms, found.class_labels) if found is not None else (None, None)
    matrix = None if terms is None else terms.matrix
    if method in BOOTSTRAPS:
        on_scores = request.scores is not None or request.probabilistic is not None  # resampled by instance
        return _bootstrapped(request, method, None if on_scores else matrix, class_labels, confidence, n_resamples,
                             random_state, again, values)
    counts, n_classes = found.counts, found.n_classes
    params = counted_params(request, found)
    pos = pos_index(request.pos_label, class_labels, n_classes)
    out = {}
    for r in request.requested:
        info, mode, key, value = r.info, r.mode, r.key, values[r.key]
        if notes[key]:
            nan = np.full(np.shape(np.asarray(value, dtype=float)), np.nan)
            interval = Interval(value, nan, nan, nan, "", notes[key])
        elif method in ("delta", "wald"):
            kwargs = request.kwargs(info, params)
            if info.per_class and not info.needs_scores:
                kwargs.update(average=mode, weights=request.weights, pos_label=pos)
            interval = uncertainty.delta_interval(info, mode, value, matrix=matrix, counts=counts, kwargs=kwargs,
                                                  confidence=confidence, key=key, transformed=method == "delta")
        else:
            interval = uncertainty.proportion_interval(info, mode, value, method, matrix=matrix, counts=counts,
                                                       pos_index=pos, confidence=confidence, key=key)
        out[key] = uncertainty.labelled(interval, class_labels, n_classes, per_class_values(r))
    return out


def _bootstrapped(request: EvaluationRequest, method, matrix, class_labels, confidence, n_resamples, random_state,
                  again, values) -> dict:
    """Bootstrap intervals: the matrix resampled (single-label data, matrices), else the instances."""
    keys = request.keys
    labels = class_labels if request.labels is None else request.labels
    if matrix is not None:
        inputs = {"y_true": None, "y_pred": None, "counts": None, "orientation": "true-rows", "labels": labels}
        found = uncertainty.bootstrap_intervals(keys, method, lambda **given: again(**{**inputs, **given}),
                                                matrix=matrix, instances=None, confidence=confidence,
                                                n_resamples=n_resamples, random_state=random_state, values=values)
    else:
        instances = {name: getattr(request, name) for name in ("y_true", "y_pred", "scores")
                     if getattr(request, name) is not None}
        if request.scores is not None and request.labels is None and not request.multilabel:
            # Fixed, as a resample may lack a class (multi-label columns are the classes, by index); when
            # y_true holds fewer classes than there are score columns, its labels index the columns.
            seen, scored = sorted_labels(request.y_true), np.shape(request.scores)
            labels = seen if len(scored) != 2 or len(seen) == scored[-1] else list(range(scored[-1]))
        found = uncertainty.bootstrap_intervals(keys, method, lambda **given: again(**{"labels": labels, **given}),
                                                matrix=None, instances=instances, confidence=confidence,
                                                n_resamples=n_resamples, random_state=random_state)
    n_classes = None if matrix is None else matrix.shape[-1]
    out = {}
    for r in request.requested:
        per_class = per_class_values(r)
        size = n_classes if n_classes is not None else np.shape(found[r.key].value)[-1] if per_class else 0
        out[r.key] = uncertainty.labelled(found[r.key], labels, size, per_class)
    return out
