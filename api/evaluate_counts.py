"""``evaluate`` on counts: class-, aggregate- and matrix-level metrics from the labels, matrix or
counts of the call (read once, :meth:`~metricc.api.request.EvaluationRequest.counted`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import NamedTuple

from metricc.api import evaluate_plan
from metricc.api import relevance as relevance_estimates
from metricc.api.read_inputs import Counted
from metricc.api.request import EvaluationRequest, Requested, checked_entries, pos_index
from metricc.core.errors import InputError
from metricc.runtime import averaging, confusion
from metricc.runtime.context import CallContext

__all__ = ["Plan", "Step", "on_counts", "counted_params", "plan"]


class Step(NamedTuple):
    """One requested value of a plan: the generated function to call and what its call takes,
    read once per request (:func:`plan`) instead of once per call."""

    requested: Requested
    function: Callable
    matrix: bool  # takes the matrix (its terms), else the per-class counts
    averaged: bool  # takes average=, weights=, pos_label=
    per_instance: bool  # the per-instance counts of multi-label data
    param_names: tuple[str, ...]
    fused: Callable | None  # the value off the metric's bare kernel (:mod:`.evaluate_plan`), where a call allows it


class Plan(NamedTuple):
    """The steps of a request, with what a call of them needs to know beforehand."""

    steps: tuple[Step, ...]
    per_instance: tuple[str, ...]  # the metrics that average over instances (samples)
    takes_params: bool  # a metric takes parameters: the call's are read (relevance= included)
    fused: bool  # a step has a fused form (:mod:`.evaluate_plan`)


def plan(request: EvaluationRequest) -> Plan:
    """The steps of the requested values; made once per request signature (the metrics,
    averaging and parameter names of a loop of small calls), else per call."""
    if request.signature is None:
        return _steps(tuple(request.requested))
    return _planned(request.signature)


@functools.lru_cache(maxsize=256)
def _planned(signature: tuple) -> Plan:
    return _steps(checked_entries(signature)[0])


def _steps(requested: tuple[Requested, ...]) -> Plan:
    steps = []
    for r in requested:
        info = r.info
        matrix = info.takes == "matrix"
        averaged = info.per_class if matrix else info.per_class_counts
        per_instance = not matrix and (info.per_instance or (averaged and averaging.per_instance(r.mode)))
        fused = None if matrix or per_instance else evaluate_plan.fused_step(info, r.mode)
        steps.append(Step(r, info.function, matrix, averaged, per_instance, tuple(p.name for p in info.params), fused))
    return Plan(tuple(steps), tuple(step.requested.info.id for step in steps if step.per_instance),
                any(step.param_names for step in steps), any(step.fused is not None for step in steps))


def on_counts(request: EvaluationRequest, done: Mapping) -> dict:
    """The values of the requested metrics not in ``done`` (read off scores already): each
    step's function called on the terms or counts read once, with the context that carries
    what the call's metrics share, its keyword arguments made once per averaging mode; a fused
    step reads its value off its kernel instead, where the call allows (:mod:`.evaluate_plan`)."""
    counted = request.counted()
    planned = plan(request)
    fused = evaluate_plan.fused_call(counted, request.zero_division, request.weights) if planned.fused else None
    if fused is not None and request.pos_label is not None:
        pos_index(request.pos_label, counted.class_labels, counted.n_classes)  # refused as an averaged step refuses it
    instance_counts = _instance_counts(request, planned.per_instance) if planned.per_instance else None
    given_params = planned.takes_params or request.relevance is not None or request.relevance_order is not None
    params = counted_params(request, counted) if given_params else request.params  # relevance= is checked there
    terms, context, class_labels, n_classes = counted.terms, counted.context, counted.class_labels, counted.n_classes
    plain = {"zero_division": request.zero_division}
    by_mode: dict = {}  # the keyword arguments of an averaging mode, made once per call
    results = {}
    for step in planned.steps:
        r = step.requested
        if r.key in done:
            continue
        if fused is not None and step.fused is not None:
            results[r.key] = step.fused(fused)
            continue
        if step.matrix and terms is None:
            raise InputError("input", f"{r.info.id} needs a confusion matrix; per-class counts (multi-label data) "
                                      "are not enough")
        kwargs = plain
        if step.averaged:
            if averaging.positive_class(r.mode):
                request.guard_binary(r, n_classes, class_labels)
            kwargs = by_mode.get(r.mode)
            if kwargs is None:
                kwargs = by_mode[r.mode] = {**plain, "average": r.mode, "weights": request.weights,
                                            "pos_label": pos_index(request.pos_label, class_labels, n_classes)}
        if step.param_names:
            kwargs = {**{name: params[name] for name in step.param_names if name in params}, **kwargs}
        if step.matrix:
            results[r.key] = step.function(terms, **kwargs)
            continue
        given = instance_counts if step.per_instance else context
        results[r.key] = step.function(*given.counts, context=given, **kwargs)
    return results


def _instance_counts(request: EvaluationRequest, per_instance: tuple[str, ...]) -> CallContext:
    """Per-instance counts (in a context of their own) for the metrics that average over
    instances (samples): indicator matrices are required."""
    if request.y_true is None or not request.multilabel:
        asked = any(map(averaging.per_instance, [request.average, *(r.asked for r in request.requested)]))  # by the caller, not a default
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
