"""``evaluate`` on arrays of PyTorch, JAX, CuPy or array-api-strict: counted and computed where they live.

Labels (or indicator matrices, or a confusion matrix) of an Array API library other than numpy
are counted on their device (:mod:`metricc.runtime.xp_counts`) and every class-, aggregate-
and matrix-level metric is computed from those counts by its namespace-generic module
(``generated/arrays/``); the values are arrays of the input's namespace on its device
(float64 where the device holds it, else float32), until the caller asks for a Python number.
A metric whose formula needs what the standard lacks is computed by numpy on a host copy of the
counts, with a :class:`~metricc.runtime.xp_kernel.HostFallbackWarning` (its module's
``FALLBACK`` says why). Scores of such a library feed the score- and curve-level metrics the
same way (:func:`evaluate_scores`). Intervals, relevance estimates, probabilistic matrices and
pred-rows matrices are not read here: :func:`native` says when this path applies, and
``evaluate`` reads the others as it always did.

>>> import array_api_strict as xp
>>> import metricc as mc
>>> y_true, y_pred = xp.asarray([0, 1, 1, 2]), xp.asarray([0, 1, 2, 2])
>>> values = evaluate_arrays(["f1:macro", "mcc"], mc.metric, y_true=y_true, y_pred=y_pred)
>>> print(f"{float(values['f1:macro']):.4f} {float(values['mcc']):.4f}")
0.7778 0.7000
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

from metricc.api.evaluate_scores import score_kwargs
from metricc.api.request import EvaluationRequest
from metricc.core.errors import InputError
from metricc.runtime import averaging, namespace, xp_counts, xp_kernel
from metricc.runtime.registry import MetricInfo

__all__ = ["evaluate_arrays", "evaluate_scores", "native", "values_of_counts"]


def native(y_true, y_pred, matrix, *, counts, scores, orientation: str, interval, probabilistic, relevance,
           relevance_order) -> bool:
    """Whether ``evaluate`` computes on the arrays' device: labels, scores or a matrix of an
    Array API library other than numpy, and none of the options only the numpy path reads."""
    given = [x for x in (y_true, y_pred, matrix, scores) if x is not None]
    if not given or not all(map(_foreign, given)):
        return False
    unread = (counts, interval, probabilistic, relevance, relevance_order)
    return all(option is None for option in unread) and orientation == "true-rows"


def _foreign(x) -> bool:
    """An array of a library other than numpy; numpy arrays, lists and pandas objects are told
    by their type's module, so that evaluating them never imports array-api-compat."""
    if type(x).__module__.split(".")[0] in ("numpy", "builtins", "pandas"):
        return False
    return namespace.is_array(x) and not namespace.is_numpy(namespace.array_namespace(x))


def _functions() -> tuple[Mapping, Mapping]:
    from metricc.generated.arrays import FALLBACK, FUNCTIONS  # the catalog's array modules, imported on first use

    return FUNCTIONS, FALLBACK


def evaluate_arrays(metrics, lookup: Callable[[str], MetricInfo], *, y_true=None, y_pred=None, labels=None, matrix=None,
                    scores=None, multilabel: bool = False, average: str | None = None, params: Mapping | None = None,
                    weights=None, pos_label=None, zero_division=math.nan, validate: bool = True) -> dict[str, object]:
    """``evaluate``'s values of labels ``(N,)`` (or one column ``(N, 1)``), indicators ``(N, C)`` (``multilabel``) or a
    confusion matrix ``(..., C, C)`` of one Array API library, as arrays of it on its device.

    ``labels``: the classes (numbers), in order; without them the classes are the distinct
    labels seen (read from the device: their number fixes the shapes). ``validate``: a label
    outside ``labels`` is an error (one boolean read per call), as in ``TrainingMetric``.
    ``scores``: see :func:`evaluate_scores`.
    """
    if scores is not None:
        return evaluate_scores(metrics, lookup, y_true=y_true, scores=scores, y_pred=y_pred, labels=labels,
                               multilabel=multilabel, average=average, params=params, weights=weights,
                               pos_label=pos_label, zero_division=zero_division, validate=validate)
    if matrix is not None:
        if y_true is not None or y_pred is not None:
            raise InputError("matrix", "give labels or a confusion matrix, not both")
        return values_of_counts(metrics, lookup, matrix=_checked(matrix), labels=labels, average=average,
                                params=params, weights=weights, pos_label=pos_label, zero_division=zero_division)
    if y_true is None or y_pred is None:
        raise InputError("y_pred", "give y_true and y_pred, or a confusion matrix")
    xp = namespace.array_namespace(y_true, y_pred)
    where = namespace.device(y_true)
    if multilabel:
        counts = xp_counts.multilabel_counts(y_true, y_pred, validate=validate)
        instances = xp_counts.multilabel_counts(y_true, y_pred, axis=1, validate=False)
        return values_of_counts(metrics, lookup, counts=counts, instance_counts=instances, labels=labels,
                                average=average, params=params, weights=weights, pos_label=pos_label,
                                zero_division=zero_division)
    y_true, y_pred = (xp.reshape(y, (-1,)) if y.ndim == 2 and y.shape[1] == 1 else y for y in (y_true, y_pred))
    if labels is None:  # the distinct labels, read once: their number is the matrix's shape
        classes = xp.unique_values(xp.concat([xp.reshape(y_true, (-1,)), xp.reshape(y_pred, (-1,))]))
        labels = namespace.to_host(classes).tolist()
    else:
        labels = sorted(namespace.to_host(labels).tolist() if namespace.is_array(labels) else list(labels))
        classes = xp.asarray(labels, device=where)
    numbered = labels == list(range(len(labels)))  # labels 0 .. C - 1 are their own codes (no lookup)
    matrix = xp_counts.confusion_counts(y_true, y_pred, len(labels) if numbered else classes, validate=validate)
    return values_of_counts(metrics, lookup, matrix=matrix, labels=labels, average=average, params=params,
                            weights=weights, pos_label=pos_label, zero_division=zero_division)


def values_of_counts(metrics, lookup: Callable[[str], MetricInfo], *, matrix=None, counts=None, instance_counts=None,
                     labels=None, average: str | None = None, params: Mapping | None = None, weights=None,
                     pos_label=None, zero_division=math.nan) -> dict[str, object]:
    """The requested values of a confusion ``matrix`` ``(..., C, C)`` or of per-class ``counts``
    ``(4, ..., C)`` (TP, FP, FN, TN; per-instance ``instance_counts`` ``(4, N)`` for
    ``samples``), in their namespace and on their device; ``labels`` name the classes."""
    request = EvaluationRequest.build(metrics, lookup, y_true=None, y_pred=None, labels=labels, matrix=matrix,
                                      orientation="true-rows", counts=counts, scores=None,
                                      multilabel=counts is not None,
                                      average=average, params=params, weights=weights, pos_label=pos_label,
                                      zero_division=zero_division, relevance=None, relevance_order=None,
                                      probabilistic=None)
    functions, _ = _functions()
    class_counts = counts
    n_classes = (matrix if matrix is not None else counts).shape[-1]
    results = {}
    for r in request.requested:
        info = r.info
        function = functions.get(info.id)
        if function is None or info.needs_scores:
            raise InputError("metrics", f"{info.id} is a {info.level}-level metric: it reads scores, not counts; "
                                        "pass scores= (evaluate_scores)")
        kwargs = request.kwargs(info)
        if info.per_class:
            kwargs.update(request.averaging(r, n_classes, labels))
        if info.takes == "matrix":
            if matrix is None:
                raise InputError("input", f"{info.id} needs a confusion matrix; per-class counts (multi-label data) "
                                          "are not enough")
            results[r.key] = function(matrix, **kwargs)
            continue
        if info.per_instance or averaging.per_instance(kwargs.get("average")):
            if instance_counts is None:
                raise InputError("multilabel", f"{info.id} averages over instances (samples): pass indicator "
                                               "matrices y_true and y_pred with multilabel=True")
            results[r.key] = function(instance_counts, **kwargs)
            continue
        if class_counts is None:
            class_counts = xp_kernel.class_counts(matrix)
        results[r.key] = function(class_counts, **kwargs)
    return {r.key: results[r.key] for r in request.requested}


def _checked(matrix):
    """A caller's confusion matrix, refused where an entry is negative or not finite (one boolean read)."""
    xp = namespace.array_namespace(matrix)
    if matrix.ndim < 2 or matrix.shape[-1] != matrix.shape[-2]:
        raise InputError("matrix", f"expected square confusion matrices (..., C, C), got shape {tuple(matrix.shape)}")
    finite = xp.isfinite(matrix) if xp.isdtype(matrix.dtype, "real floating") else matrix == matrix
    if not bool(xp.all(finite & (matrix >= 0))):
        raise InputError("matrix", "counts must be finite and non-negative")
    return matrix


def evaluate_scores(metrics, lookup: Callable[[str], MetricInfo], *, y_true, scores, y_pred=None, labels=None,
                    multilabel: bool = False, average: str | None = None, params: Mapping | None = None, weights=None,
                    pos_label=None, zero_division=math.nan, validate: bool = True) -> dict[str, object]:
    """``evaluate``'s values of true labels (or with ``multilabel`` an indicator matrix) and scores
    ``(n, C)`` (or ``(n,)`` for two classes) of one Array API library, as arrays of it on its
    device: each score- and curve-level metric by its module of ``generated/arrays/``, checked
    as the numpy path checks them; the other metrics from ``y_pred`` (:func:`evaluate_arrays`)."""
    request = EvaluationRequest.build(metrics, lookup, y_true=None, y_pred=None, labels=labels, matrix=None,
                                      orientation="true-rows", counts=None, scores=None, multilabel=multilabel,
                                      average=average, params=params, weights=weights, pos_label=pos_label,
                                      zero_division=zero_division, relevance=None, relevance_order=None,
                                      probabilistic=None)
    scored = [r for r in request.requested if r.info.needs_scores]
    counted = [r for r in request.requested if not r.info.needs_scores]
    results = {}
    if counted:
        if y_pred is None:
            raise InputError("y_pred", f"{counted[0].info.id} is computed from labels: pass y_pred beside the scores")
        names = {p.name for r in counted for p in r.info.params}
        results.update(evaluate_arrays([r.key for r in counted], lookup, y_true=y_true, y_pred=y_pred, labels=labels,
                                       multilabel=multilabel, average=average, weights=weights, pos_label=pos_label,
                                       params={k: v for k, v in request.params.items() if k in names},
                                       zero_division=zero_division, validate=validate))
    if multilabel and scored and not any(r.info.indicator_truth or r.info.thresholds for r in scored):
        raise InputError("multilabel", f"{scored[0].info.id} is single-label: one true class per sample")
    functions, _ = _functions()
    n_scored = scores.shape[-1] if scores.ndim == 2 else 2
    distinct = []  # the sorted true labels, read from the device once where a guard needs them

    def class_labels():
        if labels is not None or multilabel:
            return labels
        if not distinct:
            distinct.append(namespace.to_host(namespace.array_namespace(y_true).unique_values(y_true)).tolist())
        return distinct[0]

    for r in scored:
        kwargs = score_kwargs(request, r, n_scored, class_labels)
        results[r.key] = functions[r.info.id](y_true, scores, **kwargs)
    return {r.key: results[r.key] for r in request.requested}
