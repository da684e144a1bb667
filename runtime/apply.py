"""Applying a per-class kernel to counts and averaging its values: what class and curve metrics call.

A per-class kernel is a generated function of TP, FP, FN, TN (each ``(..., C)``) that returns
its values and undefined mask. The counts are read as floats, pooled over classes for a mode
that pools, and shared within one call; what each mode does is a row of :mod:`.averaging`.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Mapping

import numpy as np

from metricc.core.errors import InputError
from metricc.runtime import averaging
from metricc.runtime.confusion import MAX_COUNT, ClassCounts, TrustedCounts, float_counts
from metricc.runtime.curves import Curves, ScoreCurves
from metricc.runtime.division import finish, zero_division_value

__all__ = ["COUNT_NAMES", "Kernel", "apply_kernel", "average_class_metric", "average_class_values", "average_curve_metric",
           "float_class_counts", "per_class_values", "pooled", "shared", "support"]

Kernel = Callable[..., tuple[np.ndarray, np.ndarray]]


def float_class_counts(counts) -> ClassCounts:
    """Counts as float64 for the kernels: products of int64 counts overflow silently.

    Degree-2 kernels (Youden's J, G-mean, per-class MCC) multiply counts; with int64 counts
    of a few billion (pixels of a segmentation data set) the products wrap around and give
    wrong numbers without a warning. float64 is exact for integers up to 2**53 and loses
    only relative precision beyond.
    """
    if type(counts) is TrustedCounts:
        return counts
    return ClassCounts(*(float_counts(c) for c in counts))


COUNT_NAMES = ("tp", "fp", "fn", "tn")


def pooled(counts: ClassCounts, reads: tuple[str, ...] = COUNT_NAMES) -> ClassCounts:
    """Counts summed over classes ``(..., 1)``, exactly: integer counts are added as integers.

    ``reads``: the counts the kernel reads. One it does not read (TN, of F1) is not checked
    against 2**53 and is handed on as NaN: pooled TN is about (C - 1) n, and refusing f1:micro
    there while accuracy, the same number, is returned would be wrong (issue 27)."""
    pooled = []
    for field, name, c in zip(ClassCounts._fields, COUNT_NAMES, counts):
        c = np.asarray(c)
        if name not in reads:
            pooled.append(np.full(c.shape[:-1] + (1,), np.nan))
            continue
        if c.dtype.kind in "iu" and (np.sum(c, axis=-1, dtype=np.float64) <= 2 ** 62).all():
            c = c.astype(np.int64)
        total = np.sum(c, axis=-1, keepdims=True)
        if (total > MAX_COUNT).any():
            raise InputError("average", f"micro averaging pools {field} beyond 2**53 = {MAX_COUNT}, the largest "
                                        "integer float64 holds exactly; use another averaging or scale the counts down")
        pooled.append(total)
    if len(reads) == len(COUNT_NAMES) and (sum(pooled) > MAX_COUNT).any():  # each <= 2**53: no int64 overflow
        raise InputError("average", f"micro averaging pools a total TP + FP + FN + TN beyond 2**53 = {MAX_COUNT}, "
                                    "as check_counts refuses for one class; use another averaging or scale the counts down")
    return ClassCounts(*pooled)


# What every class-level metric of one evaluate call derives alike from the same trusted
# counts (pooled counts for micro, supports for weighted), keyed by the ids of the four
# arrays and gone with the first of them: computed by the first metric that needs it. A
# metric's per-class values are kept in one slot of their own, for its next averages only.
_SHARED: dict[tuple, tuple] = {}
_LATEST = "latest per-class values"


def shared(counts: ClassCounts, what, make: Callable[[ClassCounts], object], *, latest_only: bool = False):
    """``make(counts)``, computed once per trusted counts. ``latest_only``: keep only the latest
    such value (a metric's per-class values serve its averages asked for one after the other;
    keeping every metric's would hold a (B, C) array per metric until the call ends)."""
    if type(counts) is not TrustedCounts:
        return make(counts)
    key = (what, *map(id, counts))
    entry = _SHARED.get(_LATEST if latest_only else key)
    if entry is not None and entry[0] == key and all(ref() is c for ref, c in zip(entry[1], counts)):
        return entry[2]
    value = make(counts)
    slot = _LATEST if latest_only else key
    forget = lambda _, slot=slot, key=key: _SHARED.pop(slot, None) if _SHARED.get(slot, (None,))[0] == key else None  # noqa: E731
    _SHARED[slot] = (key, tuple(weakref.ref(c, forget) for c in counts), value)
    return value


def support(counts: ClassCounts) -> np.ndarray:
    """TP + FN as float64: the class weights of weighted averaging."""
    return float_counts(counts.true_positives) + float_counts(counts.false_negatives)


def apply_kernel(kernel: Kernel, counts, params: Mapping) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's values and undefined mask, one per class (a constant formula gives a scalar)."""
    value, undefined = kernel(*counts, **params)
    shape = np.shape(counts[0])
    if np.shape(value) == shape and np.shape(undefined) == shape:
        return value, undefined
    shape = np.broadcast_shapes(np.shape(value), np.shape(undefined), shape)
    return np.broadcast_to(value, shape), np.broadcast_to(undefined, shape)


def per_class_values(kernel: Kernel, counts, params: Mapping, zero_division: float):
    """Per-class values with undefined entries replaced (a pass only where some are), and the undefined mask."""
    value, undefined = apply_kernel(kernel, counts, params)
    return (np.where(undefined, zero_division, value) if undefined.any() else value), undefined


def average_class_metric(
    kernel: Kernel,
    counts: ClassCounts,
    *,
    average: str,
    averages: tuple[str, ...],
    params: Mapping[str, object],
    class_params: tuple[str, ...] = (),
    reads: tuple[str, ...] = COUNT_NAMES,
    weights=None,
    pos_label: int = 1,
    zero_division=math.nan,
):
    """Apply a per-class kernel to counts ``(..., C)`` and average it over classes as the row
    of ``average`` in :data:`~metricc.runtime.averaging.MODES` says: a mode that pools applies
    the kernel to the counts summed over classes, the others combine its per-class values.

    ``samples``: the counts are per-instance counts ``(..., N)`` of multi-label data (TP, FP,
    FN, TN over the labels of each sample, :func:`~metricc.runtime.confusion.samplewise_counts`);
    the kernel is applied per instance, then the mean is taken over instances. Arithmetically
    a macro average, over another axis: which axis the counts have is the caller's contract.
    """
    mode = averaging.mode(average, averages)
    zero = zero_division_value(zero_division)
    n_classes = counts.true_positives.shape[-1]
    if n_classes == 0:
        raise InputError("counts", "need at least one class")
    if weights is not None and not mode.takes_weights:
        raise InputError("weights", f"only used with average={', '.join(repr(m.name) for m in averaging.MODES.values() if m.takes_weights)}")
    if mode.pools:
        per_class = [p for p in class_params if np.ndim(params[p]) > 0]
        if per_class:
            raise InputError(per_class[0], "is a per-class vector; micro averaging pools the classes, so it cannot apply")
        pooled_counts = shared(counts, ("pooled", reads), lambda c: float_class_counts(pooled(c, reads)))
        return finish(*apply_kernel(kernel, pooled_counts, params), zero)[..., 0][()]
    if params or average == "none":  # values handed back (none) are the caller's own array
        counts = float_class_counts(counts)
        values, undefined = per_class_values(kernel, counts, params, zero)
    else:  # the metric's per-class values, shared by its averages in one evaluate call
        values, undefined = shared(counts, (kernel, "nan" if math.isnan(zero) else zero),
                                    lambda c: per_class_values(kernel, float_class_counts(c), params, zero), latest_only=True)
    return _average(mode, values, undefined, lambda: shared(counts, "support", support), weights=weights,
                    pos_label=pos_label, zero_division=zero_division)


def average_class_values(values, undefined, support, *, average: str, averages: tuple[str, ...], weights=None,
                         pos_label: int = 1, zero_division=math.nan):
    """Average per-class values ``(..., C)`` computed by the caller, with their undefined mask:
    the per-class values of a matrix formula (``per_class: j``), which need the whole matrix,
    not one class's TP, FP, FN, TN. The modes are those of :func:`average_class_metric` except
    the ones that apply a formula of the counts (``micro``, ``samples``); ``weighted`` weighs
    by ``support`` (the row totals) unless ``weights`` are given."""
    mode = averaging.mode(average, averages)
    if weights is not None and not mode.takes_weights:
        raise InputError("weights", f"only used with average={', '.join(repr(m.name) for m in averaging.MODES.values() if m.takes_weights)}")
    zero = zero_division_value(zero_division)
    values, undefined = np.broadcast_arrays(np.asarray(values, dtype=float), np.asarray(undefined, dtype=bool))
    values = (np.where(undefined, zero, values) if undefined.any() else values) + 0.0  # -0.0 (an empty sum) prints as 0
    return _average(mode, values, undefined, lambda: float_counts(support), weights=weights,
                    pos_label=pos_label, zero_division=zero_division)


def _average(mode: averaging.Mode, values, undefined, support: Callable[[], np.ndarray], *, weights, pos_label, zero_division):
    """The mean of per-class values ``(..., C)`` (undefined entries already ``zero_division``) for ``mode``."""
    if mode.combine is None:
        raise InputError("average", f"{mode.name!r} pools the counts over classes; it cannot average given per-class values")
    return mode.combine(averaging.PerClass(np.asarray(values, dtype=float), undefined, support, weights, pos_label, zero_division))


def average_curve_metric(kernel, curves: ScoreCurves | tuple[Curves, Curves], *, average: str, averages: tuple[str, ...],
                         params: Mapping | None = None, weights=None, pos_label: int = 1, zero_division=math.nan):
    """Apply a per-curve kernel and average over classes, as class-level metrics are averaged.

    ``curves``: the per-class and pooled curves of :func:`~metricc.runtime.curves.score_curves`.
    ``micro`` applies the kernel to the pooled curve of every (sample, class) pair; ``weighted``
    weighs each class by its positives (support) unless ``weights`` are given. ``params``:
    the kernel's scalar parameters, checked by the caller.
    """
    mode = averaging.mode(average, averages)
    # A ScoreCurves builds its pooled curve on demand; merged threshold counts come as a pair.
    per_class = curves[0] if isinstance(curves, tuple) else curves.per_class
    zero = zero_division_value(zero_division)
    if mode.pools:  # the only mode that reads the pooled curve: built here, on demand
        pooled = curves[1] if isinstance(curves, tuple) else curves.pooled
        return finish(*_apply_to_curves(kernel, pooled, params or {}), zero)[0][()]
    value, undefined = _apply_to_curves(kernel, per_class, params or {})
    values = np.where(undefined, zero, value).astype(float)
    # The per-class values are final here: averaging them reuses the class-level rules, with
    # the positives of each class as its support (TP + FN).
    positives, negatives = per_class.positives, per_class.negatives
    support = ClassCounts(positives, np.zeros_like(positives), np.zeros_like(positives), negatives)
    return average_class_metric(lambda *_: (values, np.zeros(values.shape, dtype=bool)), support,
                                average=average, averages=averages, params={}, weights=weights,
                                pos_label=pos_label, zero_division=zero)


def _apply_to_curves(kernel, curves: Curves, params: Mapping):
    """The kernel on counts at each threshold (``[..., 1:]``) and at the one before (``[..., :-1]``)."""
    counts = (curves.tp, curves.fp, curves.fn, curves.tn)
    return kernel(*(c[..., 1:] for c in counts), *(c[..., :-1] for c in counts),
                  curves.positives, curves.negatives, curves.valid, **params)
