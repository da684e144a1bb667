"""``evaluate`` on scores: curve- and score-level metrics from ``y_true`` and a score matrix,
and matrix-level metrics from a probabilistic confusion matrix of the scores.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from metricc.api.request import EvaluationRequest, Requested, pos_index, sorted_labels
from metricc.core.errors import InputError
from metricc.runtime import probabilistic as probabilistic_matrices
from metricc.runtime.context import ScoreContext
from metricc.runtime.scores import score_array

__all__ = ["on_scores", "on_probabilistic", "score_kwargs", "score_labels"]


def _n_scored(scores) -> int:
    """The classes the scores are of: their columns, or 2 for a score vector."""
    return np.shape(scores)[-1] if scores is not None and np.ndim(scores) == 2 else 2


def on_scores(request: EvaluationRequest, requested: list[Requested]) -> dict:
    """Curve- and score-level metrics, each with its averaging: true labels and a score matrix in."""
    y_true, labels, multilabel = request.y_true, request.labels, request.multilabel
    if request.scores is None:
        raise InputError("scores", f"{requested[0].info.id} needs scores (rows = samples, columns = classes) and y_true")
    if y_true is None:
        raise InputError("y_true", "scores need y_true")
    scores = score_array(request.scores, finite=False)  # the shape checks below need an array; each metric checks finiteness
    if multilabel and not any(r.info.indicator_truth or r.info.thresholds for r in requested):
        single = requested[0].info.id if requested else "the score matrix"
        raise InputError("multilabel", f"{single} is single-label: one true class per sample")
    guard_labels = (lambda: labels) if labels is not None or multilabel else (lambda: sorted_labels(y_true))
    context = ScoreContext(y_true, scores, labels)  # the curve metrics of the call sort each column once
    results = {}
    for r in requested:
        kwargs = score_kwargs(request, r, _n_scored(scores), guard_labels)
        if r.info.thresholds:
            kwargs["context"] = context
        results[r.key] = r.info.function(y_true, scores, **kwargs)
    return results


def score_kwargs(request: EvaluationRequest, r: Requested, n_scored: int, class_labels: Callable[[], list]) -> dict:
    """The keyword arguments of a score or curve metric's function, numpy's or an array module's;
    a truth of the other kind (labels for indicators, or the reverse) is refused. ``class_labels``:
    the classes, read from the truth only when a guard or a named ``pos_label`` needs them."""
    info, labels, multilabel, pos_label = r.info, request.labels, request.multilabel, request.pos_label
    if multilabel != info.indicator_truth and not (info.thresholds and multilabel):  # curves take both
        raise InputError("multilabel", f"{info.id} takes a matrix y_true (n, C) (indicators or relevances): "
                                       "pass multilabel=True"
                         if info.indicator_truth else f"{info.id} is single-label: one true class per sample")
    kwargs = {"labels": labels, **request.kwargs(info)}
    if info.per_class:  # one value per class (column of the scores), averaged as asked
        request.guard_binary(r, n_scored, class_labels)
        named = pos_label is not None and not isinstance(pos_label, (int, np.integer))
        kwargs.update(average=r.mode, weights=request.weights,
                      pos_label=pos_index(pos_label, class_labels() if named else labels, 2))
        if info.thresholds:
            kwargs["multilabel"] = multilabel
    return kwargs


def score_labels(request: EvaluationRequest) -> list:
    """The classes of the score columns: ``labels``, else the sorted true labels (integer
    labels index the columns when there are fewer of them), else the column indices."""
    labels, scores = request.labels, request.scores
    if request.multilabel:  # the columns are the classes
        return labels if labels is not None else list(range(np.shape(scores)[-1]))
    found = labels if labels is not None else sorted_labels(request.y_true)
    n_scored = _n_scored(scores)
    if labels is None and len(found) != n_scored:
        found = list(range(n_scored))  # integer labels index the score columns (check_scores reads them so)
    return found


def on_probabilistic(request: EvaluationRequest) -> tuple[dict, object, int]:
    """Matrix-level metrics of the probabilistic confusion matrix of the scores -> (values, class labels, classes)."""
    labels, y_true = request.labels, request.y_true
    n_scored = _n_scored(request.scores)
    matrix_labels = labels if labels is not None or y_true is None else sorted_labels(y_true)
    if labels is None and matrix_labels is not None and len(matrix_labels) != n_scored:
        matrix_labels = list(range(n_scored))  # integer labels index the score columns (curves read them so)
    on_matrix = []
    for r in request.requested:
        if r.info.takes != "matrix":
            continue
        averaging = request.averaging(r, n_scored, matrix_labels) if r.info.per_class else {}
        on_matrix.append((r.key, r.info, averaging))
    found = probabilistic_matrices.evaluate_matrix_metrics(on_matrix, y_true, request.scores, request.probabilistic,
                                                           labels, request.params, request.zero_division)
    return found, matrix_labels, n_scored
