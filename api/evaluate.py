"""``evaluate``: labels, indicator matrices, confusion matrices or counts in; metric values out.

>>> values = evaluate(["accuracy", "f1"], y_true=[0, 1, 1, 2], y_pred=[0, 1, 2, 2], average="macro")
>>> print(f"{values['accuracy']:.4f} {values['f1']:.4f}")
0.7500 0.7778
>>> sorted(evaluate(["f1:micro", ("f1", "weighted")], y_true=[0, 1, 1], y_pred=[0, 1, 0]))
['f1:micro', 'f1:weighted']
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np

from metricc.api import relevance as relevance_estimates, uncertainty
from metricc.runtime import confusion, inputs as containers, per_class, probabilistic as probabilistic_matrices
from metricc.core.errors import InputError
from metricc.api.intervals import Interval, check_confidence
from metricc.runtime.registry import Catalog, MetricInfo, install_lookup
from metricc.runtime.scores import score_array
from metricc.runtime.terms import MatrixTerms, read_matrix

__all__ = ["catalog", "metric", "evaluate"]


def catalog() -> Catalog:
    """The compiled catalog (imported on first use: generated modules import the runtime)."""
    from metricc.generated import CATALOG

    return CATALOG


def metric(name: str) -> MetricInfo:
    """Metadata and function of one metric, by id or alias."""
    return catalog()[name]


install_lookup(metric)  # metric parameters of generated functions resolve their ids here


class Request(NamedTuple):
    """One requested value: the key it is returned under, the metric, and its own averaging
    (None: the call's ``average=``, else the metric's default)."""

    key: str
    info: MetricInfo
    average: str | None


def _requests(metrics) -> list[Request]:
    """``metrics`` as requests: one entry or a sequence of ids, ``"id:average"`` strings and
    ``(id, average)`` tuples, each keyed by its string as requested (a tuple as ``"id:average"``)."""
    if isinstance(metrics, (str, tuple)):
        metrics = [metrics]
    if isinstance(metrics, (bytes, Mapping)) or not isinstance(metrics, Sequence | np.ndarray):
        raise InputError("metrics", f"expected a metric id or a list of ids, got {type(metrics).__name__}")
    entries = list(metrics)
    if not entries:
        raise InputError("metrics", "name at least one metric")
    requests = []
    for entry in entries:
        if isinstance(entry, tuple) and len(entry) == 2 and all(isinstance(part, str) for part in entry):
            name, own = entry
            key = f"{name}:{own}"
        elif isinstance(entry, str):
            key = entry
            name, _, own = entry.partition(":")
            own = own if ":" in entry else None
        else:
            raise InputError("metrics", f"expected metric ids (strings), got {entry!r}; "
                                        "give an averaging as 'id:average' or (id, average)")
        info = metric(name)
        if own is not None:
            if info.level not in ("class", "curve") and not info.averages:
                raise InputError("metrics", f"{key!r}: {info.id} is a {info.level}-level metric without averaging; "
                                            f"ask for {name!r}")
            if own not in info.averages:
                raise InputError("metrics", f"{key!r}: {info.id} does not support {own!r} averaging; "
                                            f"choose one of {', '.join(info.averages)}")
        requests.append(Request(key, info, own))
    return requests


def _inputs(y_true, y_pred, labels, matrix, counts, multilabel, orientation):
    """-> (the matrix read once (:class:`MatrixTerms`) or None, per-class counts, class labels or None)."""
    given = [name for name, value in (("y_true", y_true), ("matrix", matrix), ("counts", counts)) if value is not None]
    if len(given) != 1:
        raise InputError("input", "give exactly one of y_true/y_pred, matrix or counts")
    if y_true is not None:
        if y_pred is None:
            raise InputError("y_pred", "y_true needs y_pred")
        if multilabel:  # the columns are the classes: labels, if given, name them
            counts = confusion.multilabel_counts(y_true, y_pred)
            return None, counts, _column_labels(labels, counts.true_positives.shape[-1])
        labels = per_class.categorical_labels(y_true, y_pred) if labels is None else labels
        class_labels, matrix = confusion.classes_and_matrix(y_true, y_pred, labels=labels)
        terms = MatrixTerms(matrix, confusion.row_totals(matrix))  # counted here: nothing to check
        return terms, terms.counts(), class_labels
    if y_pred is not None:
        raise InputError("y_pred", "y_pred needs y_true")
    if matrix is not None:
        terms = read_matrix(confusion.orient(matrix, orientation), integer=True)
        n_classes = terms.n_classes
        labels = None if labels is None else confusion.check_labels(labels)
        if labels is not None and len(labels) != n_classes:
            raise InputError("labels", f"expected one label per class of the matrix ({n_classes}), got {len(labels)}")
        return terms, terms.counts(), labels
    counts = confusion.check_counts(counts)
    labels = None if labels is None else confusion.check_labels(labels)
    if labels is not None and len(labels) != counts.true_positives.shape[-1]:
        raise InputError("labels", f"expected one label per class of the counts ({counts.true_positives.shape[-1]}), got {len(labels)}")
    return None, counts, labels


def _column_labels(labels, n_classes: int) -> list | None:
    """``labels`` naming the ``n_classes`` columns of multi-label data, checked."""
    labels = None if labels is None else confusion.check_labels(labels)
    if labels is not None and len(labels) != n_classes:
        raise InputError("labels", f"expected one label per column of the multi-label data ({n_classes}), got {len(labels)}")
    return labels


def _instance_counts(requests, averages, average, y_true, y_pred, multilabel):
    """Per-instance counts when a requested metric averages over instances (samples), else None."""
    per_instance = [r.info.id for r, average in zip(requests, averages)
                    if r.info.per_instance or (r.info.level == "class" and average == "samples")]
    if not per_instance:
        return None
    if y_true is None or not multilabel:
        asked = "samples" in [average, *(r.average for r in requests)]  # by the caller, not a metric's default
        raise InputError("average" if asked else "multilabel",
                         f"{per_instance[0]} averages over instances (samples): pass indicator matrices "
                         "y_true and y_pred with multilabel=True")
    return confusion.samplewise_counts(y_true, y_pred)


def _binary_needs_pos_label(info, average, n_classes: int, class_labels=None) -> None:
    """Binary averaging reports one class: on more than two classes that class must be named
    (scikit-learn refuses too), else a multi-class result would silently be one class's value.
    With labels that are not numbers (``benign``, ``malignant``) it must be named as well:
    "the second sorted label" is no answer a reader can see in ``f1: 0.927`` (scikit-learn
    refuses string labels without ``pos_label`` for the same reason)."""
    other = ", ".join(repr(a) for a in info.averages if a not in ("binary", "samples"))
    how = "averages 'binary' by default" if average is None else "with average='binary'"
    if n_classes > 2:
        raise InputError("average", f"{info.id} {how}, the value of one class; with {n_classes} classes "
                                    f"name that class (pos_label=) or choose another average ({other})")
    named = [label for label in ([] if class_labels is None else per_class.label_list(class_labels))
             if not isinstance(label, (int, float, np.number, bool, np.bool_))]
    if named:
        shown = ", ".join(repr(label) for label in per_class.label_list(class_labels))
        raise InputError("pos_label", f"{info.id} {how}, the value of one class, and the labels ({shown}) are not "
                                      f"numbers: name the positive class (pos_label=) or choose another average ({other})")


def _pos_index(pos_label, class_labels, n_classes: int) -> int:
    if pos_label is None:
        return 1  # the second class, as in scikit-learn; single-class data needs labels= or pos_label=
    if class_labels is None:
        return pos_label
    matches = np.flatnonzero(np.asarray(class_labels, dtype=object) == pos_label)
    if matches.size == 0:
        raise InputError("pos_label", f"{pos_label!r} is not one of the labels {np.asarray(class_labels).tolist()!r}")
    return int(matches[0])


def _relevance(relevance, order, params, infos, counts, class_labels):
    """The relevance vector from ``relevance=`` or ``relevance_order=``, or None."""
    given = [name for name, value in (("relevance", relevance), ("relevance_order", order)) if value is not None]
    if not given:
        return None
    if len(given) > 1 or "relevance" in params:
        raise InputError(given[-1], "give the relevance once: relevance=, relevance_order= or params['relevance']")
    if not any(p.name == "relevance" for info in infos for p in info.params):
        raise InputError(given[0], "no requested metric takes a relevance; e.g. relevance_recall, relevance_f_beta")
    n_classes = counts.true_positives.shape[-1]
    names = list(range(n_classes)) if class_labels is None else list(class_labels)
    if order is not None:
        return relevance_estimates.relevance_from_order(order, names, argument="relevance_order")
    if isinstance(relevance, str):
        if relevance != "prevalence":
            raise InputError("relevance", f"expected per-class values, a {{label: value}} mapping or 'prevalence', got {relevance!r}")
        return relevance_estimates.relevance_from_prevalence(counts.true_positives + counts.false_negatives, argument="relevance")
    if isinstance(relevance, Mapping):
        vector = [None] * n_classes
        for label, value in relevance.items():
            vector[relevance_estimates.class_index(label, names, "relevance")] = value
        missing = [str(names[k]) for k, value in enumerate(vector) if value is None]
        if missing:
            raise InputError("relevance", f"no relevance for class {missing[0]}; give one value per class")
        return vector
    return relevance


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
    y_true, y_pred, scores, labels = containers.normalized(y_true, y_pred, scores, labels, multilabel)
    if interval is not None:
        call = dict(y_true=y_true, y_pred=y_pred, labels=labels, matrix=matrix, orientation=orientation, counts=counts,
                    scores=scores, multilabel=multilabel, average=average, params=params, weights=weights,
                    pos_label=pos_label, zero_division=zero_division, relevance=relevance,
                    relevance_order=relevance_order, probabilistic=probabilistic)
        return _with_intervals(metrics, interval, check_confidence(confidence), n_resamples, random_state, call)
    requests = _requests(metrics)
    infos = [r.info for r in requests]
    if params is not None and not isinstance(params, Mapping):
        raise InputError("params", f"expected a mapping {{parameter: value}}, got {type(params).__name__}")
    if not isinstance(multilabel, (bool, np.bool_)):
        raise InputError("multilabel", f"expected True or False, got {multilabel!r}")
    params = dict(params or {})
    declared = {p.name for info in infos for p in info.params}
    unknown = sorted(set(params) - declared)
    if unknown:
        raise InputError("params", f"no requested metric has a parameter '{unknown[0]}'")
    if average is not None:
        unsupported = [r.info.id for r in requests if r.average is None
                       and (r.info.level == "class" or per_class_matrix(r.info) or per_class_score(r.info))
                       and average not in r.info.averages]
        if unsupported:
            raise InputError("average", f"{unsupported[0]} does not support {average!r} averaging")
    averages = [r.average or average or r.info.default_average for r in requests]
    results: dict[str, object] = {}
    on_scores = [(r, mode) for r, mode in zip(requests, averages) if r.info.level in SCORE_LEVELS]
    if on_scores or scores is not None:
        results.update(_evaluate_scores(on_scores, y_true, scores, labels, multilabel, weights, pos_label, zero_division,
                                        params))
        if len(on_scores) == len(requests):
            if multilabel:  # the columns are the classes
                score_labels = labels if labels is not None else list(range(np.shape(scores)[-1]))
            else:
                score_labels = labels if labels is not None else _sorted_labels(y_true)
                n_scored = np.shape(scores)[-1] if np.ndim(scores) == 2 else 2
                if labels is None and len(score_labels) != n_scored:
                    score_labels = list(range(n_scored))  # integer labels index the score columns (check_scores reads them so)
            return _labelled(requests, averages, results, score_labels, len(score_labels))
    if probabilistic is not None:
        n_scored = np.shape(scores)[-1] if scores is not None and np.ndim(scores) == 2 else 2
        matrix_labels = labels if labels is not None or y_true is None else _sorted_labels(y_true)
        if labels is None and matrix_labels is not None and len(matrix_labels) != n_scored:
            matrix_labels = list(range(n_scored))  # integer labels index the score columns (curves read them so)
        on_matrix = []
        for (key, info, asked), mode in zip(requests, averages):
            if info.level != "matrix":
                continue
            averaging = {}
            if per_class_matrix(info):  # one value per class of the probabilistic matrix, averaged as asked
                if mode == "binary" and pos_label is None:
                    _binary_needs_pos_label(info, asked or average, n_scored, matrix_labels)
                averaging = {"average": mode, "weights": weights,
                             "pos_label": _pos_index(pos_label, matrix_labels, n_scored)}
            on_matrix.append((key, info, averaging))
        results.update(probabilistic_matrices.evaluate_matrix_metrics(
            on_matrix, y_true, scores, probabilistic, labels, params, zero_division))
        if all(r.key in results for r in requests):
            return _labelled(requests, averages, results, matrix_labels, n_scored)
    terms, the_counts, class_labels = _inputs(y_true, y_pred, labels, matrix, counts, multilabel, orientation)
    instance_counts = _instance_counts(requests, averages, average, y_true, y_pred, multilabel)
    n_classes = the_counts.true_positives.shape[-1]
    phi = _relevance(relevance, relevance_order, params, infos, the_counts, class_labels)
    if phi is not None:
        params["relevance"] = phi
    for (key, info, asked), mode in zip(requests, averages):
        if key in results:  # score-level, or read off a probabilistic matrix
            continue
        kwargs = {p.name: params[p.name] for p in info.params if p.name in params}
        kwargs["zero_division"] = zero_division
        if info.level == "matrix":
            if terms is None:
                raise InputError("input", f"{info.id} needs a confusion matrix; per-class counts (multi-label data) are not enough")
            if per_class_matrix(info):
                if mode == "binary" and pos_label is None:
                    _binary_needs_pos_label(info, asked or average, n_classes, class_labels)
                kwargs.update(average=mode, weights=weights, pos_label=_pos_index(pos_label, class_labels, n_classes))
            results[key] = info.function(terms, **kwargs)
            continue
        if info.level == "class":
            kwargs["average"] = mode
            kwargs["weights"] = weights
            if kwargs["average"] == "binary" and pos_label is None:
                _binary_needs_pos_label(info, asked or average, n_classes, class_labels)
            kwargs["pos_label"] = _pos_index(pos_label, class_labels, n_classes)
        per_instance = info.per_instance or kwargs.get("average") == "samples"
        results[key] = info.function(*(instance_counts if per_instance else the_counts), **kwargs)
    return _labelled(requests, averages, results, class_labels, n_classes)


def _with_intervals(metrics, method, confidence, n_resamples, random_state, call) -> dict[str, Interval]:
    """``evaluate(..., interval=method)``: the values, then each one's interval (:mod:`~metricc.api.uncertainty`)."""
    values = evaluate(metrics, **call)
    requests = _requests(metrics)
    averages = [r.average or call["average"] or r.info.default_average for r in requests]
    # Several metrics, one method: applied where it applies, the others keep their value with
    # NaN bounds and a note saying why; only a request it applies to nowhere is refused.
    notes = {key: uncertainty.inapplicable(method, info, mode, key) for (key, info, _), mode in zip(requests, averages)}
    if all(notes.values()):
        raise InputError("interval", next(iter(notes.values())))
    on_scores = call["scores"] is not None or call["probabilistic"] is not None  # resampled by instance
    counted = call["probabilistic"] is None and any(call[k] is not None for k in ("y_pred", "matrix", "counts"))
    if not counted and method not in ("bootstrap", "bootstrap_bca"):
        raise InputError("interval", f"{method} needs counts (y_pred=, matrix= or counts=); on scores and "
                                     "probabilistic matrices the bootstrap applies, resampling the instances")
    terms, counts, class_labels = _inputs(call["y_true"], call["y_pred"], call["labels"], call["matrix"], call["counts"],
                                          call["multilabel"], call["orientation"]) if counted else (None, None, None)
    matrix = None if terms is None else terms.matrix
    if method in ("bootstrap", "bootstrap_bca"):
        return _bootstrapped(requests, averages, method, None if on_scores else matrix, class_labels, confidence,
                             n_resamples, random_state, call)
    n_classes = counts.true_positives.shape[-1]
    params = dict(call["params"] or {})
    phi = _relevance(call["relevance"], call["relevance_order"], params, [r.info for r in requests], counts, class_labels)
    if phi is not None:
        params["relevance"] = phi
    pos = _pos_index(call["pos_label"], class_labels, n_classes)
    out = {}
    for (key, info, _), mode in zip(requests, averages):
        value = values[key]
        if notes[key]:
            nan = np.full(np.shape(np.asarray(value, dtype=float)), np.nan)
            found = Interval(value, nan, nan, nan, "", notes[key])
        elif method in ("delta", "wald"):
            kwargs = {p.name: params[p.name] for p in info.params if p.name in params}
            kwargs["zero_division"] = call["zero_division"]
            if info.level == "class" or per_class_matrix(info):
                kwargs.update(average=mode, weights=call["weights"], pos_label=pos)
            found = uncertainty.delta_interval(info, mode, value, matrix=matrix, counts=counts, kwargs=kwargs,
                                               confidence=confidence, key=key, transformed=method == "delta")
        else:
            found = uncertainty.proportion_interval(info, mode, value, method, matrix=matrix, counts=counts,
                                                    pos_index=pos, confidence=confidence, key=key)
        out[key] = uncertainty.labelled(found, class_labels, n_classes, _per_class_values(info, mode))
    return out


def _bootstrapped(requests, averages, method, matrix, class_labels, confidence, n_resamples, random_state, call) -> dict:
    """Bootstrap intervals: the matrix resampled (single-label data, matrices), else the instances."""
    keys = [r.key for r in requests]
    fixed = {**call, "labels": class_labels if call["labels"] is None else call["labels"]}
    if matrix is not None:
        inputs = {"y_true": None, "y_pred": None, "counts": None, "orientation": "true-rows"}
        found = uncertainty.bootstrap_intervals(keys, method, lambda **given: evaluate(keys, **{**fixed, **inputs, **given}),
                                                matrix=matrix, instances=None, confidence=confidence,
                                                n_resamples=n_resamples, random_state=random_state)
    else:
        instances = {name: call[name] for name in ("y_true", "y_pred", "scores") if call[name] is not None}
        if call["scores"] is not None and call["labels"] is None and not call["multilabel"]:
            # Fixed, as a resample may lack a class (multi-label columns are the classes, by index); when
            # y_true holds fewer classes than there are score columns, its labels index the columns.
            seen, scored = _sorted_labels(call["y_true"]), np.shape(call["scores"])
            fixed["labels"] = seen if len(scored) != 2 or len(seen) == scored[-1] else list(range(scored[-1]))
        found = uncertainty.bootstrap_intervals(keys, method, lambda **given: evaluate(keys, **{**fixed, **given}),
                                                matrix=None, instances=instances, confidence=confidence,
                                                n_resamples=n_resamples, random_state=random_state)
    n_classes = None if matrix is None else matrix.shape[-1]
    out = {}
    for (key, info, _), mode in zip(requests, averages):
        per_class = _per_class_values(info, mode)
        size = n_classes if n_classes is not None else np.shape(found[key].value)[-1] if per_class else 0
        out[key] = uncertainty.labelled(found[key], fixed["labels"], size, per_class)
    return out


def _labelled(requests, averages, results, class_labels, n_classes) -> dict:
    """The results in request order; per-class values (average ``none``) carry their class
    labels as :class:`~metricc.runtime.per_class.ClassValues` (class indices without labels)."""
    out = {}
    for (key, info, _), mode in zip(requests, averages):
        value = results[key]
        if _per_class_values(info, mode):
            value = per_class.with_labels(value, class_labels, n_classes)
        out[key] = value
    return out


SCORE_LEVELS = ("curve", "score")


def per_class_matrix(info) -> bool:
    """A matrix formula giving one value per class (spec ``per_class: j``), averaged like a class metric."""
    return info.level == "matrix" and bool(info.averages)


def per_class_score(info) -> bool:
    """A score formula giving one value per class (spec ``per_class: k``), averaged like a class metric."""
    return info.level == "score" and bool(info.averages)


def _per_class_values(info, mode) -> bool:
    """Whether the value is one per class (labelled with the classes): averaging ``none``."""
    return mode == "none" and (info.level in ("class", *SCORE_LEVELS) or per_class_matrix(info))


def _evaluate_scores(requested, y_true, scores, labels, multilabel, weights, pos_label, zero_division,
                     params) -> dict:
    """Curve- and score-level metrics, each with its averaging: true labels and a score matrix in."""
    if scores is None:
        raise InputError("scores", f"{requested[0][0].info.id} needs scores (rows = samples, columns = classes) and y_true")
    if y_true is None:
        raise InputError("y_true", "scores need y_true")
    scores = score_array(scores)  # read once: the shape checks below need an array (ragged rows are refused here)
    if multilabel and not any(info.indicator_truth or info.level == "curve" for (_, info, _), _ in requested):
        single = requested[0][0].info.id if requested else "the score matrix"
        raise InputError("multilabel", f"{single} is single-label: one true class per sample")
    results = {}
    for (key, info, asked), mode in requested:
        if multilabel != info.indicator_truth and not (info.level == "curve" and multilabel):  # curves take both
            raise InputError("multilabel", f"{info.id} takes a matrix y_true (n, C) (indicators or relevances): "
                                           "pass multilabel=True"
                             if info.indicator_truth else f"{info.id} is single-label: one true class per sample")
        kwargs = {"labels": labels, "zero_division": zero_division,
                  **{p.name: params[p.name] for p in info.params if p.name in params}}
        if info.level == "curve":
            kwargs["average"] = mode
            kwargs["weights"] = weights
            named = pos_label is not None and not isinstance(pos_label, (int, np.integer))
            class_labels = _sorted_labels(y_true) if labels is None and named and not multilabel else labels
            if kwargs["average"] == "binary" and pos_label is None:
                _binary_needs_pos_label(info, asked, np.shape(scores)[-1] if np.ndim(scores) == 2 else 2,
                                        labels if labels is not None or multilabel else _sorted_labels(y_true))
            kwargs["pos_label"] = _pos_index(pos_label, class_labels, 2)
            kwargs["multilabel"] = multilabel
        elif per_class_score(info):  # one value per class (column of the scores), averaged as asked
            if mode == "binary" and pos_label is None:
                by_default = asked is None and mode == info.default_average
                n_scored = np.shape(scores)[-1] if np.ndim(scores) == 2 else 2
                _binary_needs_pos_label(info, None if by_default else mode, n_scored,
                                        labels if labels is not None or multilabel else _sorted_labels(y_true))
            named = pos_label is not None and not isinstance(pos_label, (int, np.integer))
            class_labels = _sorted_labels(y_true) if labels is None and named and not multilabel else labels
            kwargs.update(average=mode, weights=weights, pos_label=_pos_index(pos_label, class_labels, 2))
        results[key] = info.function(y_true, scores, **kwargs)
    return results


def _sorted_labels(y_true) -> list:
    """The distinct true labels in order: the classes a named ``pos_label`` is looked up in."""
    try:
        return sorted(set(confusion.label_array(y_true, "y_true", max_ndim=1).tolist()))
    except TypeError:
        raise InputError("y_true", "labels of mixed types cannot be ordered; give labels=") from None
