"""``evaluate``: labels, indicator matrices, confusion matrices or counts in; metric values out.

>>> values = evaluate(["accuracy", "f1"], y_true=[0, 1, 1, 2], y_pred=[0, 1, 2, 2], average="macro")
>>> print(f"{values['accuracy']:.4f} {values['f1']:.4f}")
0.7500 0.7778
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from metricc.runtime import confusion, per_class, probabilistic as probabilistic_matrices, relevance as relevance_estimates
from metricc.runtime.errors import InputError
from metricc.runtime.registry import Catalog, MetricInfo, install_lookup
from metricc.runtime.scores import check_score_memory

__all__ = ["catalog", "metric", "evaluate"]


def catalog() -> Catalog:
    """The compiled catalog (imported on first use: generated modules import the runtime)."""
    from metricc.generated import CATALOG

    return CATALOG


def metric(name: str) -> MetricInfo:
    """Metadata and function of one metric, by id or alias."""
    return catalog()[name]


install_lookup(metric)  # metric parameters of generated functions resolve their ids here


def _metric_names(metrics) -> list[str]:
    """``metrics`` as a list of ids: one id, or a sequence of ids."""
    if isinstance(metrics, str):
        return [metrics]
    if isinstance(metrics, (bytes, Mapping)) or not isinstance(metrics, Sequence | np.ndarray):
        raise InputError("metrics", f"expected a metric id or a list of ids, got {type(metrics).__name__}")
    names = list(metrics)
    if not names:
        raise InputError("metrics", "name at least one metric")
    wrong = [name for name in names if not isinstance(name, str)]
    if wrong:
        raise InputError("metrics", f"expected metric ids (strings), got {wrong[0]!r}")
    return names


def _inputs(y_true, y_pred, labels, matrix, counts, multilabel, orientation):
    """-> (matrix or None, per-class counts, class labels or None)."""
    given = [name for name, value in (("y_true", y_true), ("matrix", matrix), ("counts", counts)) if value is not None]
    if len(given) != 1:
        raise InputError("input", "give exactly one of y_true/y_pred, matrix or counts")
    if y_true is not None:
        if y_pred is None:
            raise InputError("y_pred", "y_true needs y_pred")
        if multilabel:
            return None, confusion.multilabel_counts(y_true, y_pred), None
        labels = per_class.categorical_labels(y_true, y_pred) if labels is None else labels
        class_labels = confusion.class_labels(y_true, y_pred, labels)
        matrix = confusion.confusion_matrix(y_true, y_pred, labels=class_labels)
        return matrix, confusion.counts_from_matrix(matrix), class_labels
    if y_pred is not None:
        raise InputError("y_pred", "y_pred needs y_true")
    if matrix is not None:
        matrix = confusion.check_matrix(confusion.orient(matrix, orientation))
        labels = None if labels is None else confusion.check_labels(labels)
        if labels is not None and len(labels) != matrix.shape[-1]:
            raise InputError("labels", f"expected one label per class of the matrix ({matrix.shape[-1]}), got {len(labels)}")
        return matrix, confusion.counts_from_matrix(matrix), labels
    counts = confusion.check_counts(counts)
    labels = None if labels is None else confusion.check_labels(labels)
    if labels is not None and len(labels) != counts.true_positives.shape[-1]:
        raise InputError("labels", f"expected one label per class of the counts ({counts.true_positives.shape[-1]}), got {len(labels)}")
    return None, counts, labels


def _instance_counts(infos, average, y_true, y_pred, multilabel):
    """Per-instance counts when a requested metric averages over instances (samples), else None."""
    per_instance = [i.id for i in infos
                    if i.per_instance or (i.level == "class" and (average or i.default_average) == "samples")]
    if not per_instance:
        return None
    if y_true is None or not multilabel:
        raise InputError("average" if average == "samples" else "multilabel",
                         f"{per_instance[0]} averages over instances (samples): pass indicator matrices "
                         "y_true and y_pred with multilabel=True")
    return confusion.samplewise_counts(y_true, y_pred)


def _binary_needs_pos_label(info, average, n_classes: int) -> None:
    """Binary averaging reports one class: on more than two classes that class must be named
    (scikit-learn refuses too), else a multi-class result would silently be one class's value."""
    if n_classes > 2:
        other = ", ".join(repr(a) for a in info.averages if a not in ("binary", "samples"))
        how = "averages 'binary' by default" if average is None else "with average='binary'"
        raise InputError("average", f"{info.id} {how}, the value of one class; with {n_classes} classes "
                                    f"name that class (pos_label=) or choose another average ({other})")


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
    metrics: str | Sequence[str],
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
) -> dict[str, object]:
    """Evaluate metrics (ids or aliases) on one kind of input; returns ``{name: value}``.

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
    ``relevance`` parameter of the relevance-based metrics; see :mod:`metricc.runtime.relevance`.

    ``scores`` (``(n, C)``, columns in ``labels`` order, or ``(n,)`` for two classes) with
    ``y_true`` feeds curve- and score-level metrics (ROC AUC, log loss...); with ``y_pred``
    too, the other metrics are computed from the labels.

    ``probabilistic`` ("relative", Eq. 5, or "absolute", Eq. 12 of Wang et al. 2013) with
    ``scores`` (class probabilities) and ``y_true``: matrix-level metrics read the
    probabilistic confusion matrix instead of a count matrix (``cen`` gives rpCEN or pCEN).
    """
    names = _metric_names(metrics)
    infos = [metric(name) for name in names]
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
        unsupported = [i.id for i in infos if i.level == "class" and average not in i.averages]
        if unsupported:
            raise InputError("average", f"{unsupported[0]} does not support {average!r} averaging")
    results: dict[str, object] = {}
    on_scores = [(name, info) for name, info in zip(names, infos) if info.level in SCORE_LEVELS]
    if on_scores or scores is not None:
        results.update(_evaluate_scores(on_scores, y_true, scores, labels, multilabel, average, weights, pos_label, zero_division))
        if len(on_scores) == len(names):
            score_labels = labels if labels is not None else _sorted_labels(y_true)
            return _labelled(names, infos, results, average, score_labels, len(score_labels))
    if probabilistic is not None:
        on_matrix = [(name, info) for name, info in zip(names, infos) if info.level == "matrix"]
        results.update(probabilistic_matrices.evaluate_matrix_metrics(
            on_matrix, y_true, scores, probabilistic, labels, params, zero_division))
        if len(results) == len(set(names)):
            return {name: results[name] for name in names}
    the_matrix, the_counts, class_labels = _inputs(y_true, y_pred, labels, matrix, counts, multilabel, orientation)
    instance_counts = _instance_counts(infos, average, y_true, y_pred, multilabel)
    n_classes = the_counts.true_positives.shape[-1]
    phi = _relevance(relevance, relevance_order, params, infos, the_counts, class_labels)
    if phi is not None:
        params["relevance"] = phi
    for name, info in zip(names, infos):
        if name in results:  # score-level, or read off a probabilistic matrix
            continue
        kwargs = {p.name: params[p.name] for p in info.params if p.name in params}
        kwargs["zero_division"] = zero_division
        if info.level == "matrix":
            if the_matrix is None:
                raise InputError("input", f"{info.id} needs a confusion matrix; per-class counts (multi-label data) are not enough")
            results[name] = info.function(the_matrix, **kwargs)
            continue
        if info.level == "class":
            kwargs["average"] = average or info.default_average
            kwargs["weights"] = weights
            if kwargs["average"] == "binary" and pos_label is None:
                _binary_needs_pos_label(info, average, n_classes)
            kwargs["pos_label"] = _pos_index(pos_label, class_labels, n_classes)
        per_instance = info.per_instance or kwargs.get("average") == "samples"
        results[name] = info.function(*(instance_counts if per_instance else the_counts), **kwargs)
    return _labelled(names, infos, results, average, class_labels, n_classes)


def _labelled(names, infos, results, average, class_labels, n_classes) -> dict:
    """The results in request order; per-class values (``average="none"``) carry their class
    labels as :class:`~metricc.runtime.per_class.ClassValues` (class indices without labels)."""
    out = {}
    for name, info in zip(names, infos):
        value = results[name]
        if info.level in ("class", *SCORE_LEVELS) and (average or info.default_average) == "none":
            value = per_class.with_labels(value, class_labels, n_classes)
        out[name] = value
    return out


SCORE_LEVELS = ("curve", "score")


def _evaluate_scores(requested, y_true, scores, labels, multilabel, average, weights, pos_label, zero_division) -> dict:
    """Curve- and score-level metrics: true labels and a score matrix in."""
    if scores is None:
        raise InputError("scores", f"{requested[0][1].id} needs scores (rows = samples, columns = classes) and y_true")
    if y_true is None:
        raise InputError("y_true", "scores need y_true")
    if multilabel:
        raise InputError("multilabel", "scores are single-label: one true class per sample")
    results = {}
    for name, info in requested:
        kwargs = {"labels": labels, "zero_division": zero_division}
        if info.level == "curve":
            kwargs["average"] = average or info.default_average
            kwargs["weights"] = weights
            named = pos_label is not None and not isinstance(pos_label, (int, np.integer))
            class_labels = _sorted_labels(y_true) if labels is None and named else labels
            if kwargs["average"] == "binary" and pos_label is None:
                _binary_needs_pos_label(info, average, np.shape(scores)[-1] if np.ndim(scores) == 2 else 2)
            kwargs["pos_label"] = _pos_index(pos_label, class_labels, 2)
        check_score_memory(info.id, info.simplified, scores)
        results[name] = info.function(y_true, scores, **kwargs)
    return results


def _sorted_labels(y_true) -> list:
    """The distinct true labels in order: the classes a named ``pos_label`` is looked up in."""
    try:
        return sorted(set(confusion.label_array(y_true, "y_true", max_ndim=1).tolist()))
    except TypeError:
        raise InputError("y_true", "labels of mixed types cannot be ordered; give labels=") from None
