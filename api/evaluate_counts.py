"""``evaluate`` on counts: class-, aggregate- and matrix-level metrics from the labels, matrix or
counts of the call (read once, :meth:`~metricc.api.request.EvaluationRequest.counted`).
"""

from __future__ import annotations

from collections.abc import Mapping

from metricc.api import relevance as relevance_estimates
from metricc.api.read_inputs import Counted
from metricc.api.request import EvaluationRequest
from metricc.core.errors import InputError
from metricc.runtime import averaging, confusion
from metricc.runtime.context import CallContext

__all__ = ["on_counts", "counted_params"]


def on_counts(request: EvaluationRequest, done: Mapping) -> dict:
    """The values of the requested metrics not in ``done`` (read off scores already)."""
    counted = request.counted()
    instance_counts = _instance_counts(request)
    params = counted_params(request, counted)
    terms, context, class_labels, n_classes = counted.terms, counted.context, counted.class_labels, counted.n_classes
    results = {}
    for r in request.requested:
        if r.key in done:
            continue
        info, kwargs = r.info, request.kwargs(r.info, params)
        if info.takes == "matrix":
            if terms is None:
                raise InputError("input", f"{info.id} needs a confusion matrix; per-class counts (multi-label data) "
                                          "are not enough")
            if info.per_class:
                kwargs.update(request.averaging(r, n_classes, class_labels))
            results[r.key] = info.function(terms, **kwargs)
            continue
        if info.per_class_counts:
            kwargs.update(request.averaging(r, n_classes, class_labels))
        per_instance = info.per_instance or averaging.per_instance(kwargs.get("average"))
        given = instance_counts if per_instance else context
        results[r.key] = info.function(*given.counts, context=given, **kwargs)
    return results


def _instance_counts(request: EvaluationRequest):
    """Per-instance counts (in a context of their own) when a requested metric averages over
    instances (samples), else None."""
    per_instance = [r.info.id for r in request.requested
                    if r.info.per_instance or (r.info.per_class_counts and averaging.per_instance(r.mode))]
    if not per_instance:
        return None
    if request.y_true is None or not request.multilabel:
        asked = "samples" in [request.average, *(r.asked for r in request.requested)]  # by the caller, not a default
        raise InputError("average" if asked else "multilabel",
                         f"{per_instance[0]} averages over instances (samples): pass indicator matrices "
                         "y_true and y_pred with multilabel=True")
    return CallContext(confusion.samplewise_counts(request.y_true, request.y_pred))


def counted_params(request: EvaluationRequest, counted: Counted) -> dict:
    """The call's parameters, with the relevance vector from ``relevance=`` or ``relevance_order=``."""
    phi = _relevance(request, counted)
    return request.params if phi is None else {**request.params, "relevance": phi}


def _relevance(request: EvaluationRequest, counted: Counted):
    """The relevance vector from ``relevance=`` or ``relevance_order=``, or None."""
    relevance, order = request.relevance, request.relevance_order
    given = [name for name, value in (("relevance", relevance), ("relevance_order", order)) if value is not None]
    if not given:
        return None
    if len(given) > 1 or "relevance" in request.params:
        raise InputError(given[-1], "give the relevance once: relevance=, relevance_order= or params['relevance']")
    if not any(p.name == "relevance" for r in request.requested for p in r.info.params):
        raise InputError(given[0], "no requested metric takes a relevance; e.g. relevance_recall, relevance_f_beta")
    counts, n_classes = counted.counts, counted.n_classes
    names = list(range(n_classes)) if counted.class_labels is None else list(counted.class_labels)
    if order is not None:
        return relevance_estimates.relevance_from_order(order, names, argument="relevance_order")
    if isinstance(relevance, str):
        if relevance != "prevalence":
            raise InputError("relevance", f"expected per-class values, a {{label: value}} mapping or 'prevalence', "
                                          f"got {relevance!r}")
        return relevance_estimates.relevance_from_prevalence(counts.true_positives + counts.false_negatives,
                                                             argument="relevance")
    if isinstance(relevance, Mapping):
        vector = [None] * n_classes
        classes = relevance_estimates.ClassNames(names)
        for label, value in relevance.items():
            vector[classes.index(label, "relevance")] = value
        missing = [str(names[k]) for k, value in enumerate(vector) if value is None]
        if missing:
            raise InputError("relevance", f"no relevance for class {missing[0]}; give one value per class")
        return vector
    return relevance
