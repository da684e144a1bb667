"""Each value with its confidence interval: which method applies to which metric, and how.

``evaluate(..., interval=METHOD)`` lands here with the values already computed:

- ``"delta"``: the delta-method standard error under a multinomial model of the confusion
  matrix (:mod:`metricc.runtime.gradient`, from the gradient the compiler derived), and the
  normal interval on a scale where the metric's range is the whole line (logit, Fisher z,
  log: :func:`scale_for`), mapped back; ``"wald"``: the normal interval ``value -+ z se`` on
  the metric's own scale (PyCM's), which can leave the range and collapses at its ends. Per-class values (``average="none"``) need only each
  class's counts; averaged, aggregate and matrix-level values need the matrix.
- ``"wilson"``, ``"agresti_coull"``, ``"clopper_pearson"`` (:mod:`metricc.api.intervals`):
  metrics the compiler found to be a proportion ``successes / trials`` of counts, per class,
  for one class (``binary``), pooled (``micro``, when the trials leave out TN: pooled over
  classes, TP + FP and TP + FN count each instance once), or of the matrix (accuracy). The
  standard error is the binomial one, ``sqrt(p (1 - p) / trials)``.
- ``"bootstrap"`` and ``"bootstrap_bca"`` (:mod:`metricc.api.bootstrap`): any metric, by
  resampling the matrix (single-label data) or the instances (multi-label data, scores).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import NamedTuple

import numpy as np

from metricc.api import bootstrap
from metricc.runtime import gradient
from metricc.runtime.confusion import ClassCounts, StackTotals
from metricc.core.errors import InputError
from metricc.api.intervals import (
    METHODS, PROPORTION_METHODS, Interval, agresti_coull, clopper_pearson, normal_interval, two_sided_quantile, wilson,
)
from metricc.runtime.terms import MatrixTerms, matrix_counts
from metricc.runtime.per_class import with_labels
from metricc.runtime.registry import MetricInfo
from metricc.runtime import averaging

__all__ = ["methods_for", "inapplicable", "check_method", "scale_for", "delta_interval", "proportion_interval", "bootstrap_intervals", "labelled"]

_PROPORTION = {"wilson": wilson, "agresti_coull": agresti_coull, "clopper_pearson": clopper_pearson}
_PROPORTION_SCALES = {"wilson": "score", "agresti_coull": "identity", "clopper_pearson": "exact"}
_BOOTSTRAP = ("bootstrap", "bootstrap_bca")


def _proportion_applies(info: MetricInfo, mode: str | None) -> bool:
    if not info.proportion:
        return False
    if info.takes == "matrix":
        return True
    row = averaging.MODES.get(mode)  # one class's value, or the counts pooled over classes without TN
    return row is not None and (row.per_class or row.positive_class or row.pools and "tn" not in info.proportion[1])


def methods_for(info: MetricInfo, mode: str | None) -> tuple[str, ...]:
    """The interval methods that apply to ``info`` under averaging ``mode``."""
    if info.needs_scores:
        return _BOOTSTRAP
    delta = ("delta", "wald") if info.gradient is not None and not averaging.per_instance(mode) else ()
    proportions = PROPORTION_METHODS if _proportion_applies(info, mode) else ()
    return (*delta, *proportions, *_BOOTSTRAP)


def inapplicable(method, info: MetricInfo, mode: str | None, key: str) -> str:
    """Why ``method`` does not apply to ``key`` (with the methods that do), or ``""``."""
    if not isinstance(method, str) or method not in METHODS:
        raise InputError("interval", f"expected one of {', '.join(METHODS)}, got {method!r}")
    applies = methods_for(info, mode)
    if method in applies:
        return ""
    if method in PROPORTION_METHODS:
        why = "not a proportion of counts" if not info.proportion else "a proportion per class, binary or micro only"
    elif averaging.per_instance(mode):
        why = "averaged over instances, not a function of one matrix"
    else:
        why = info.no_delta or "no gradient"
    return f"{method} does not apply to {key}: {why}; methods for it: {', '.join(applies)}"


def check_method(method, info: MetricInfo, mode: str | None, key: str) -> None:
    why = inapplicable(method, info, mode, key)
    if why:
        raise InputError("interval", why)


def _cells(counts: ClassCounts) -> np.ndarray:
    return np.stack([np.asarray(c, dtype=float) for c in counts], axis=-1)


class _Scale(NamedTuple):
    """A transform ``g`` of a bounded metric onto the whole line, its slope and its inverse."""

    name: str
    forward: Callable
    slope: Callable
    inverse: Callable
    at_end: Callable  # where the value sits on an end of the range (g infinite there)


def _logistic(y):
    return 0.5 * (1 + np.tanh(y / 2))  # 1 / (1 + exp(-y)) without overflow


def scale_for(value_range) -> _Scale:
    """The scale of the delta interval for a metric of ``value_range``: the logit of the
    value's share of a finite range (``"fisher_z"`` for [-1, 1], where it is ``2 atanh``),
    the logarithm of the distance to the one finite end, else the identity. On it the
    interval cannot leave the range and is skewed away from the end the value is near."""
    low, high = (float(b) for b in value_range)
    if math.isfinite(low) and math.isfinite(high):
        width = high - low

        def share(v):
            return np.clip((np.asarray(v, dtype=float) - low) / width, 0, 1)

        name = "fisher_z" if (low, high) == (-1.0, 1.0) else "logit"
        return _Scale(name, lambda v: np.log(share(v)) - np.log1p(-share(v)),
                      lambda v: 1 / (width * share(v) * (1 - share(v))),
                      lambda y: low + width * _logistic(y), lambda v: (share(v) == 0) | (share(v) == 1))
    if math.isfinite(low):
        return _Scale("log", lambda v: np.log(np.maximum(v - low, 0)), lambda v: 1 / (v - low),
                      lambda y: low + np.exp(y), lambda v: np.asarray(v) <= low)
    if math.isfinite(high):
        return _Scale("log", lambda v: np.log(np.maximum(high - v, 0)), lambda v: -1 / (high - v),
                      lambda y: high - np.exp(y), lambda v: np.asarray(v) >= high)
    return _Scale("identity", lambda v: v, lambda v: np.ones_like(v), lambda y: y, lambda v: np.zeros(np.shape(v), bool))


def _delta_se(info: MetricInfo, mode: str | None, value, *, matrix, counts: ClassCounts, kwargs: Mapping, key: str):
    """The delta-method standard error of ``value`` on the metric's own scale."""
    if info.per_class_counts and averaging.MODES[mode].per_class:
        partials = info.gradient(*counts, **kwargs)
        return np.sqrt(gradient.delta_variance(partials, _cells(counts), axes=1))
    if matrix is None:
        raise InputError("interval", f"the delta method for {key} needs a confusion matrix (single-label y_true/y_pred "
                                     "or matrix=); per-class counts give it per class only (average='none'); "
                                     "interval='bootstrap' resamples instances")
    # at an empty cell the gradient may be infinite or NaN (log 0, 0 log 0 off the diagonal):
    # that cell has probability 0 and no weight in the variance, so numpy need not warn there
    with np.errstate(divide="ignore", invalid="ignore"):
        if info.takes == "matrix" and info.per_class:  # one value per class: averaged as the values are
            cells = info.gradient(matrix, **kwargs)
            if averaging.MODES[mode].per_class:  # one gradient per class, (..., C, C, C), each over the same matrix
                matrix = np.asarray(matrix, dtype=float)[..., None, :, :]
        elif info.takes == "matrix":
            cells = info.gradient(matrix, **{k: v for k, v in kwargs.items() if k != "zero_division"})
        else:
            cells = gradient.cell_gradient(info.gradient(*counts, **kwargs))
    # an undefined value (NaN: a term's zero_division) has no standard error, whatever the cells
    return np.where(np.isnan(np.asarray(value, dtype=float)), np.nan, np.sqrt(gradient.delta_variance(cells, matrix)))


def _smoothed(info: MetricInfo, mode: str | None, *, matrix, counts: ClassCounts, kwargs: Mapping, key: str):
    """``(value, se)`` with half a count added to every cell (every count, given per-class
    counts alone): the Haldane-Anscombe correction, which moves a value off the end of its
    range (48/48) so that its transformed scale and standard error are finite. Metrics that
    count whole pairs of samples refuse halves and get a whole count."""
    for extra in (0.5, 1.0):
        try:
            if matrix is not None:
                matrix_s = np.asarray(matrix, dtype=float) + extra
                counts_s = matrix_counts(matrix_s)
            else:
                matrix_s, counts_s = None, ClassCounts(*(np.asarray(c, dtype=float) + extra for c in counts))
            with np.errstate(divide="ignore", invalid="ignore"):
                if info.takes == "matrix":
                    value = info.function(matrix_s, **kwargs)
                else:
                    value = info.function(*counts_s, **kwargs)
            value = np.asarray(value, dtype=float)
            return value, _delta_se(info, mode, value, matrix=matrix_s, counts=counts_s, kwargs=kwargs, key=key)
        except InputError:
            continue
    raise InputError("interval", f"the delta method for {key}: the value sits on an end of its range and the "
                                 "metric refuses smoothed counts; use interval='wald' or a bootstrap")


def delta_interval(info: MetricInfo, mode: str | None, value, *, matrix, counts: ClassCounts, kwargs: Mapping,
                   confidence: float, key: str, transformed: bool = True) -> Interval:
    """The delta-method interval; ``kwargs`` are the arguments the value was computed with.

    ``transformed`` (``interval="delta"``): formed on the scale of :func:`scale_for` and
    mapped back, so it stays inside the metric's range; where the value sits on an end of the
    range (or its standard error is 0), from the smoothed counts of :func:`_smoothed`,
    widened to hold the value itself. Otherwise (``interval="wald"``): ``value -+ z se`` on
    the metric's own scale, as PyCM and most papers give it."""
    se = _delta_se(info, mode, value, matrix=matrix, counts=counts, kwargs=kwargs, key=key)
    chosen = scale_for(info.range)
    if not transformed or chosen.name == "identity":
        return Interval(value, *normal_interval(value, se, confidence), se, "identity")
    value_f = np.asarray(value, dtype=float)
    stuck = np.isfinite(value_f) & (chosen.at_end(value_f) | (se == 0))
    centre, spread = value_f, se
    if np.any(stuck):
        smooth_value, smooth_se = _smoothed(info, mode, matrix=matrix, counts=counts, kwargs=kwargs, key=key)
        centre, spread = np.where(stuck, smooth_value, value_f), np.where(stuck, smooth_se, se)
    z = two_sided_quantile(confidence)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        middle, half = chosen.forward(centre), z * np.abs(chosen.slope(centre)) * spread
        ends = chosen.inverse(middle - half), chosen.inverse(middle + half)
    lower, upper = np.minimum(*ends), np.maximum(*ends)
    lower, upper = np.minimum(lower, value_f), np.maximum(upper, value_f)  # hold the estimate, smoothed or not
    return Interval(value, lower, upper, spread, chosen.name)


def _successes_and_trials(info: MetricInfo, mode: str | None, matrix, counts: ClassCounts, pos_index: int):
    if info.takes == "matrix":
        matrix = np.asarray(matrix, dtype=float)
        n = matrix.sum(axis=(-2, -1))
        diagonal = np.trace(matrix, axis1=-2, axis2=-1)
        return (diagonal if info.proportion[0] == ("diagonal",) else n - diagonal), n
    named = dict(zip(("tp", "fp", "fn", "tn"), (np.asarray(c, dtype=float) for c in counts)))
    successes = sum(named[name] for name in info.proportion[0])
    trials = sum(named[name] for name in info.proportion[1])
    if averaging.MODES[mode].pools:
        return successes.sum(axis=-1), trials.sum(axis=-1)
    if averaging.MODES[mode].positive_class:
        index = pos_index % successes.shape[-1]
        return successes[..., index], trials[..., index]
    return successes, trials


def proportion_interval(info: MetricInfo, mode: str | None, value, method: str, *, matrix, counts: ClassCounts,
                        pos_index: int, confidence: float, key: str) -> Interval:
    """Wilson, Agresti-Coull or Clopper-Pearson for a metric the compiler marked a proportion."""
    if info.takes == "matrix" and matrix is None:
        raise InputError("interval", f"{method} for {key} needs a confusion matrix (single-label data or matrix=)")
    successes, trials = _successes_and_trials(info, mode, matrix, counts, pos_index)
    lower, upper = _PROPORTION[method](successes, trials, confidence, argument="interval")
    with np.errstate(invalid="ignore", divide="ignore"):
        share = successes / np.where(trials == 0, np.nan, trials)
        se = np.sqrt(share * (1 - share) / trials)
    return Interval(value, lower, upper, se, _PROPORTION_SCALES[method])


def bootstrap_intervals(keys: list[str], method: str, again: Callable[..., dict], *, matrix, instances,
                        confidence: float, n_resamples: int, random_state,
                        values: Mapping | None = None) -> dict[str, Interval]:
    """Bootstrap every requested value at once: ``again(**inputs)`` evaluates the same request
    on other input; ``matrix`` (single-label data) is resampled as a multinomial, else
    ``instances`` (a mapping of per-instance arrays: labels, indicators, scores) by index.
    ``values``: the request's values at ``matrix``, computed already (not again)."""
    n_resamples = bootstrap.check_resamples(n_resamples)
    bca = method == "bootstrap_bca"
    common = {"confidence": confidence, "n_resamples": n_resamples, "random_state": random_state, "bca": bca}
    if matrix is not None:
        def on_matrices(batch):
            given = _resampled_terms(batch) if batch.dtype == np.int64 else batch
            return {k: np.asarray(v, dtype=float) for k, v in again(matrix=given).items()}

        at_matrix = None if values is None else {k: np.asarray(values[k], dtype=float) for k in keys}
        return bootstrap.bootstrap_matrix(on_matrices, matrix, **common, values=at_matrix)
    if not instances:
        raise InputError("interval", "the bootstrap resamples a confusion matrix or instances: per-class counts "
                                     "alone cannot be resampled; give y_true/y_pred or matrix=")
    arrays = {name: np.asarray(values) for name, values in instances.items()}
    n_instances = len(next(iter(arrays.values())))

    def on_instances(index):
        return {k: np.asarray(v, dtype=float) for k, v in again(**{name: a[index] for name, a in arrays.items()}).items()}

    return bootstrap.bootstrap_instances(on_instances, n_instances, **common)


def _resampled_terms(batch: np.ndarray) -> MatrixTerms:
    """The terms of the int64 matrices the bootstrap evaluates (the checked matrix, its resamples,
    its jackknife): valid by construction, so read as checked, totalled as a large stack is (exact int64 sums by einsum,
    several times faster than ``sum`` over an axis of C entries, stored as float64)."""
    rows, columns = np.einsum("...ij->...i", batch), np.einsum("...ij->...j", batch)
    totals = StackTotals(rows.astype(np.float64), columns.astype(np.float64),
                         np.einsum("...i->...", rows).astype(np.float64),
                         np.diagonal(batch, axis1=-2, axis2=-1).astype(np.float64))
    return MatrixTerms(batch, rows, totals)


def labelled(interval: Interval, labels, n_classes: int, per_class: bool) -> Interval:
    """Per-class intervals as :class:`~metricc.runtime.per_class.ClassValues`; scalars as floats."""
    if per_class:
        parts = (with_labels(np.asarray(part, dtype=float), labels, n_classes) for part in interval[:4])
    else:
        parts = (_plain(part) for part in interval[:4])
    return Interval(*parts, interval.scale, interval.note)


def _plain(values):
    values = np.asarray(values, dtype=float)
    return float(values) if values.ndim == 0 else values
