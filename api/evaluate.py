"""``evaluate``: labels, indicator matrices, confusion matrices or counts in; metric values out.

The call is read once into an :class:`~metricc.api.request.EvaluationRequest`; curve- and
score-level metrics are computed by :mod:`.evaluate_scores`, the others from the counts of
:mod:`.read_inputs` by :mod:`.evaluate_counts`, intervals by :mod:`.evaluate_intervals`.

>>> values = evaluate(["accuracy", "f1"], y_true=[0, 1, 1, 2], y_pred=[0, 1, 2, 2], average="macro")
>>> print(f"{values['accuracy']:.4f} {values['f1']:.4f}")
0.7500 0.7778
>>> sorted(evaluate(["f1:micro", ("f1", "weighted")], y_true=[0, 1, 1], y_pred=[0, 1, 0]))
['f1:micro', 'f1:weighted']
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from metricc.api import evaluate_arrays
from metricc.api.evaluate_counts import on_counts
from metricc.api.evaluate_intervals import with_intervals
from metricc.api.evaluate_scores import on_probabilistic, on_scores, score_labels
from metricc.api.intervals import check_confidence
from metricc.api.request import EvaluationRequest
from metricc.runtime import inputs as containers
from metricc.runtime.registry import Catalog, MetricInfo

__all__ = ["catalog", "metric", "evaluate"]


def catalog() -> Catalog:
    """The compiled catalog (imported on first use: generated modules import the runtime)."""
    from metricc.generated import CATALOG

    return CATALOG


def metric(name: str) -> MetricInfo:
    """Metadata and function of one metric, by id or alias."""
    return catalog()[name]


def evaluate(
    metrics: str | tuple[str, str] | Sequence[str | tuple[str, str]],
    *,
    y_true=None,
    y_pred=None,
    labels=None,
    matrix=None,
    orientation: str = "true-rows",
    counts=None,
    scores=None,
    multilabel: bool = False,
    average: str | None = None,
    params: Mapping[str, object] | None = None,
    weights=None,
    pos_label=None,
    zero_division=math.nan,
    relevance=None,
    relevance_order=None,
    probabilistic: str | None = None,
    interval: str | None = None,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    random_state=None,
) -> dict[str, object]:
    """Evaluate metrics (ids or aliases) on one kind of input; returns ``{name: value}``.

    ``metrics``: one entry or a list of them, each a metric id (``"accuracy"``), an id with
    its own averaging as ``"f1:macro"``, or the tuple ``("f1", "macro")``. Values are keyed
    by the entry as requested (a tuple by ``"f1:macro"``), so one call can ask for
    ``["accuracy", "f1:macro", "f1:weighted", ("recall", "micro")]``; ``average=`` is the
    averaging of entries without their own. The labels are read and counted once per call,
    the matrix checked and totalled once, and every metric computed from those counts:
    asking for more metrics costs O(C^2) each, not another pass over the samples.

    Input: ``y_true``/``y_pred`` labels (``labels=`` fixes the class order; with
    ``multilabel=True`` they are indicator matrices), a confusion ``matrix`` (``(..., C, C)``,
    ``orientation`` "true-rows" or "pred-rows"), or per-class ``counts`` (TP, FP, FN, TN).
    ``average`` applies to class-level metrics (default: each metric's own default);
    aggregate and matrix-level metrics have a single value per matrix. ``samples`` averages
    over the instances of multi-label data (``multilabel=True``): each metric is applied to
    the counts of one instance over its labels, then the mean is taken. ``params`` maps a
    parameter name to its value for every requested metric that declares it.
    ``zero_division``: a number or NaN replaces undefined values; ``"skip"`` leaves undefined
    classes out of means over classes (Branco et al. 2017, Section 4.3).

    ``relevance`` (one value per class, a ``{label: value}`` mapping, or ``"prevalence"``
    for Eq. 9) or ``relevance_order`` (e.g. ``"c3 < c1, c3 < c2"``, Eq. 10) supply the
    ``relevance`` parameter of the relevance-based metrics; see :mod:`metricc.api.relevance`.

    ``scores`` (``(n, C)``, columns in ``labels`` order, or ``(n,)`` for two classes) with
    ``y_true`` feeds curve- and score-level metrics (ROC AUC, log loss...); with ``y_pred``
    too, the other metrics are computed from the labels.

    ``probabilistic`` ("relative", Eq. 5, or "absolute", Eq. 12 of Wang et al. 2013) with
    ``scores`` (class probabilities) and ``y_true``: matrix-level metrics read the
    probabilistic confusion matrix instead of a count matrix (``cen`` gives rpCEN or pCEN).

    ``interval`` ("delta", "wald", "wilson", "agresti_coull", "clopper_pearson", "bootstrap" or
    "bootstrap_bca") returns each value as an :class:`~metricc.api.intervals.Interval`
    ``(value, lower, upper, se, scale, note)`` at level ``confidence`` (``scale``: the scale the
    bounds were formed on; with several metrics, one the method does not apply to has NaN
    bounds and ``note`` says why); the bootstrap draws ``n_resamples``
    resamples from ``random_state`` (a seed or a numpy Generator). See
    :mod:`metricc.api.uncertainty` for which method applies to which metric.

    Containers are read by :mod:`metricc.runtime.inputs`: lists, numpy, pandas (a one-column
    ``(n, 1)`` input is one label per sample), torch tensors; the named columns of a
    DataFrame of scores are matched to ``labels`` (or, without it, are the classes) by name.
    """
    if evaluate_arrays.native(y_true, y_pred, matrix, counts=counts, scores=scores, orientation=orientation,
                              interval=interval, probabilistic=probabilistic, relevance=relevance,
                              relevance_order=relevance_order):  # torch, JAX...: values on the arrays' device
        return evaluate_arrays.evaluate_arrays(metrics, metric, y_true=y_true, y_pred=y_pred, labels=labels,
                                               matrix=matrix, scores=scores, multilabel=multilabel, average=average,
                                               params=params, weights=weights, pos_label=pos_label,
                                               zero_division=zero_division)
    y_true, y_pred, scores, labels = containers.normalized(y_true, y_pred, scores, labels, multilabel)
    if interval is not None:
        confidence = check_confidence(confidence)
    options = dict(labels=labels, matrix=matrix, orientation=orientation, counts=counts, scores=scores,
                   multilabel=multilabel, average=average, params=params, weights=weights, pos_label=pos_label,
                   zero_division=zero_division, relevance=relevance, relevance_order=relevance_order,
                   probabilistic=probabilistic)
    request = EvaluationRequest.build(metrics, metric, y_true=y_true, y_pred=y_pred, **options)
    values = _values(request)
    if interval is None:
        return values
    return with_intervals(request, values, interval, confidence, n_resamples, random_state,
                          lambda **data: evaluate(request.keys, **{"y_true": y_true, "y_pred": y_pred, **options,
                                                                   **data}))


def _values(request: EvaluationRequest) -> dict[str, object]:
    """The requested values, by input kind: scores first, then a probabilistic matrix of the
    scores, then the counts of labels, a matrix or counts."""
    results: dict[str, object] = {}
    scored = [r for r in request.requested if r.scored]
    if scored or request.scores is not None:
        results.update(on_scores(request, scored))
        if len(scored) == len(request.requested):
            labels = score_labels(request)
            return request.labelled(results, labels, len(labels))
    if request.probabilistic is not None:
        found, matrix_labels, n_scored = on_probabilistic(request)
        results.update(found)
        if all(r.key in results for r in request.requested):
            return request.labelled(results, matrix_labels, n_scored)
    results.update(on_counts(request, results))
    counted = request.counted()
    return request.labelled(results, counted.class_labels, counted.n_classes)
