"""Each value with its confidence interval: which method applies to which metric, and how.

``evaluate(..., interval=METHOD)`` lands here with the values already computed:

- ``"delta"``: the delta-method standard error under a multinomial model of the confusion
  matrix (:mod:`metricc.runtime.gradient`, from the gradient the compiler derived), and the
  normal interval ``value -+ z se``. Per-class values (``average="none"``) need only each
  class's counts; averaged, aggregate and matrix-level values need the matrix.
- ``"wilson"``, ``"agresti_coull"``, ``"clopper_pearson"`` (:mod:`metricc.runtime.intervals`):
  metrics the compiler found to be a proportion ``successes / trials`` of counts, per class,
  for one class (``binary``), pooled (``micro``, when the trials leave out TN: pooled over
  classes, TP + FP and TP + FN count each instance once), or of the matrix (accuracy). The
  standard error is the binomial one, ``sqrt(p (1 - p) / trials)``.
- ``"bootstrap"`` and ``"bootstrap_bca"`` (:mod:`metricc.runtime.bootstrap`): any metric, by
  resampling the matrix (single-label data) or the instances (multi-label data, scores).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from metricc.runtime import bootstrap, gradient
from metricc.runtime.confusion import ClassCounts
from metricc.runtime.errors import InputError
from metricc.runtime.intervals import (
    METHODS, PROPORTION_METHODS, Interval, agresti_coull, clopper_pearson, normal_interval, wilson,
)
from metricc.runtime.per_class import with_labels
from metricc.runtime.registry import MetricInfo

__all__ = ["methods_for", "check_method", "delta_interval", "proportion_interval", "bootstrap_intervals", "labelled"]

_PROPORTION = {"wilson": wilson, "agresti_coull": agresti_coull, "clopper_pearson": clopper_pearson}
_BOOTSTRAP = ("bootstrap", "bootstrap_bca")


def _proportion_applies(info: MetricInfo, mode: str | None) -> bool:
    if not info.proportion:
        return False
    if info.level == "matrix":
        return True
    return mode in ("none", "binary") or (mode == "micro" and "tn" not in info.proportion[1])


def methods_for(info: MetricInfo, mode: str | None) -> tuple[str, ...]:
    """The interval methods that apply to ``info`` under averaging ``mode``."""
    if info.level in ("curve", "score"):
        return _BOOTSTRAP
    delta = ("delta",) if info.gradient is not None and mode != "samples" else ()
    proportions = PROPORTION_METHODS if _proportion_applies(info, mode) else ()
    return (*delta, *proportions, *_BOOTSTRAP)


def check_method(method, info: MetricInfo, mode: str | None, key: str) -> None:
    if not isinstance(method, str) or method not in METHODS:
        raise InputError("interval", f"expected one of {', '.join(METHODS)}, got {method!r}")
    applies = methods_for(info, mode)
    if method not in applies:
        if method in PROPORTION_METHODS:
            why = "not a proportion of counts" if not info.proportion else "a proportion per class, binary or micro only"
        elif mode == "samples":
            why = "averaged over instances, not a function of one matrix"
        else:
            why = info.no_delta or "no gradient"
        raise InputError("interval", f"{method} does not apply to {key}: {why}; methods for it: {', '.join(applies)}")


def _cells(counts: ClassCounts) -> np.ndarray:
    return np.stack([np.asarray(c, dtype=float) for c in counts], axis=-1)


def delta_interval(info: MetricInfo, mode: str | None, value, *, matrix, counts: ClassCounts, kwargs: Mapping,
                   confidence: float, key: str) -> Interval:
    """The delta-method interval; ``kwargs`` are the arguments the value was computed with."""
    if info.level == "class" and mode == "none":
        partials = info.gradient(*counts, **kwargs)
        se = np.sqrt(gradient.delta_variance(partials, _cells(counts), axes=1))
        return Interval(value, *normal_interval(value, se, confidence), se)
    if matrix is None:
        raise InputError("interval", f"the delta method for {key} needs a confusion matrix (single-label y_true/y_pred "
                                     "or matrix=); per-class counts give it per class only (average='none'); "
                                     "interval='bootstrap' resamples instances")
    # at an empty cell the gradient may be infinite or NaN (log 0, 0 log 0 off the diagonal):
    # that cell has probability 0 and no weight in the variance, so numpy need not warn there
    with np.errstate(divide="ignore", invalid="ignore"):
        if info.level == "matrix" and info.averages:  # one value per class: averaged as the values are
            cells = info.gradient(matrix, **kwargs)
            if mode == "none":  # one gradient per class, (..., C, C, C), each over the same matrix
                matrix = np.asarray(matrix, dtype=float)[..., None, :, :]
        elif info.level == "matrix":
            cells = info.gradient(matrix, **{k: v for k, v in kwargs.items() if k != "zero_division"})
        else:
            cells = gradient.cell_gradient(info.gradient(*counts, **kwargs))
    # an undefined value (NaN: a term's zero_division) has no standard error, whatever the cells
    se = np.where(np.isnan(np.asarray(value, dtype=float)), np.nan, np.sqrt(gradient.delta_variance(cells, matrix)))
    return Interval(value, *normal_interval(value, se, confidence), se)


def _successes_and_trials(info: MetricInfo, mode: str | None, matrix, counts: ClassCounts, pos_index: int):
    if info.level == "matrix":
        matrix = np.asarray(matrix, dtype=float)
        n = matrix.sum(axis=(-2, -1))
        diagonal = np.trace(matrix, axis1=-2, axis2=-1)
        return (diagonal if info.proportion[0] == ("diagonal",) else n - diagonal), n
    named = dict(zip(("tp", "fp", "fn", "tn"), (np.asarray(c, dtype=float) for c in counts)))
    successes = sum(named[name] for name in info.proportion[0])
    trials = sum(named[name] for name in info.proportion[1])
    if mode == "micro":
        return successes.sum(axis=-1), trials.sum(axis=-1)
    if mode == "binary":
        index = pos_index % successes.shape[-1]
        return successes[..., index], trials[..., index]
    return successes, trials


def proportion_interval(info: MetricInfo, mode: str | None, value, method: str, *, matrix, counts: ClassCounts,
                        pos_index: int, confidence: float, key: str) -> Interval:
    """Wilson, Agresti-Coull or Clopper-Pearson for a metric the compiler marked a proportion."""
    if info.level == "matrix" and matrix is None:
        raise InputError("interval", f"{method} for {key} needs a confusion matrix (single-label data or matrix=)")
    successes, trials = _successes_and_trials(info, mode, matrix, counts, pos_index)
    lower, upper = _PROPORTION[method](successes, trials, confidence)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = successes / np.where(trials == 0, np.nan, trials)
        se = np.sqrt(share * (1 - share) / trials)
    return Interval(value, lower, upper, se)


def bootstrap_intervals(keys: list[str], method: str, again: Callable[..., dict], *, matrix, instances,
                        confidence: float, n_resamples: int, random_state) -> dict[str, Interval]:
    """Bootstrap every requested value at once: ``again(**inputs)`` evaluates the same request
    on other input; ``matrix`` (single-label data) is resampled as a multinomial, else
    ``instances`` (a mapping of per-instance arrays: labels, indicators, scores) by index."""
    n_resamples = bootstrap.check_resamples(n_resamples)
    bca = method == "bootstrap_bca"
    common = {"confidence": confidence, "n_resamples": n_resamples, "random_state": random_state, "bca": bca}
    if matrix is not None:
        def on_matrices(batch):
            return {k: np.asarray(v, dtype=float) for k, v in again(matrix=batch).items()}

        return bootstrap.bootstrap_matrix(on_matrices, matrix, **common)
    if not instances:
        raise InputError("interval", "the bootstrap resamples a confusion matrix or instances: per-class counts "
                                     "alone cannot be resampled; give y_true/y_pred or matrix=")
    arrays = {name: np.asarray(values) for name, values in instances.items()}
    n_instances = len(next(iter(arrays.values())))

    def on_instances(index):
        return {k: np.asarray(v, dtype=float) for k, v in again(**{name: a[index] for name, a in arrays.items()}).items()}

    return bootstrap.bootstrap_instances(on_instances, n_instances, **common)


def labelled(interval: Interval, labels, n_classes: int, per_class: bool) -> Interval:
    """Per-class intervals as :class:`~metricc.runtime.per_class.ClassValues`; scalars as floats."""
    if per_class:
        return Interval(*(with_labels(np.asarray(part, dtype=float), labels, n_classes) for part in interval))
    return Interval(*(_plain(part) for part in interval))


def _plain(values):
    values = np.asarray(values, dtype=float)
    return float(values) if values.ndim == 0 else values
