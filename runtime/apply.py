"""Applying a per-class kernel to counts and averaging its values: what class and curve metrics call.

A per-class kernel is a generated function of TP, FP, FN, TN (each ``(..., C)``) that returns
its values and undefined mask. The counts are read as floats, pooled over classes for a mode
that pools, and shared within one call; what each mode does is a row of :mod:`.averaging`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import NamedTuple

import numpy as np

from metricc.core.errors import InputError
from metricc.runtime import averaging
from metricc.runtime.confusion import MAX_COUNT, ClassCounts, float_counts
from metricc.runtime.context import CallContext
from metricc.runtime.curves import Curves, ScoreCurves
from metricc.runtime.division import finish, zero_division_value

__all__ = ["COUNT_NAMES", "Kernel", "apply_kernel", "average_class_metric", "average_class_values", "average_curve_metric",
           "float_class_counts", "per_class_values", "pooled", "pooled_totals", "support"]

Kernel = Callable[..., tuple[np.ndarray, np.ndarray]]


def float_class_counts(counts) -> ClassCounts:
    """Counts as float64 for the kernels: products of int64 counts overflow silently.

    Degree-2 kernels (Youden's J, G-mean, per-class MCC) multiply counts; with int64 counts
    of a few billion (pixels of a segmentation data set) the products wrap around and give
    wrong numbers without a warning. float64 is exact for integers up to 2**53 and loses
    only relative precision beyond.
    """
    return ClassCounts(*(float_counts(c) for c in counts))


COUNT_NAMES = ("tp", "fp", "fn", "tn")


class Totals(NamedTuple):
    """Each count summed over classes ``(..., 1)``, exactly (integer counts added as integers),
    which of them exceed 2**53, and whether all four together do: read once per call."""

    totals: ClassCounts
    beyond: tuple[bool, ...]
    all_beyond: bool


def pooled_totals(counts: ClassCounts) -> Totals:
    stacked = np.array(counts)  # (4, ..., C): one sum and one check for the four
    if stacked.dtype.kind in "iu" and (np.sum(stacked, axis=-1, dtype=np.float64) <= 2 ** 62).all():
        stacked = stacked.astype(np.int64)
    totals = np.add.reduce(stacked, axis=-1, keepdims=True)
    if 4 * float(totals.max(initial=0)) <= MAX_COUNT:  # the usual case: one reduction says none is beyond
        return Totals(ClassCounts(*totals), (False,) * 4, False)
    beyond = tuple((totals > MAX_COUNT).reshape(4, -1).any(axis=1).tolist())
    # each <= 2**53 when it matters: no int64 overflow
    return Totals(ClassCounts(*totals), beyond, not any(beyond) and bool((totals.sum(axis=0) > MAX_COUNT).any()))


def pooled(counts: ClassCounts, reads: tuple[str, ...] = COUNT_NAMES, totals: Totals | None = None) -> ClassCounts:
    """Counts summed over classes ``(..., 1)``, exactly: integer counts are added as integers
    (``totals``: :func:`pooled_totals` of ``counts``, when a call has them already).

    ``reads``: the counts the kernel reads. One it does not read (TN, of F1) is not checked
    against 2**53 and is handed on as NaN: pooled TN is about (C - 1) n, and refusing f1:micro
    there while accuracy, the same number, is returned would be wrong (issue 27)."""
    totals = pooled_totals(counts) if totals is None else totals
    pooled = []
    for field, name, total, beyond in zip(ClassCounts._fields, COUNT_NAMES, totals.totals, totals.beyond):
        if name not in reads:
            pooled.append(np.full(total.shape, np.nan))
            continue
        if beyond:
            raise InputError("average", f"micro averaging pools {field} beyond 2**53 = {MAX_COUNT}, the largest "
                                        "integer float64 holds exactly; use another averaging or scale the counts down")
        pooled.append(total)
    if len(reads) == len(COUNT_NAMES) and totals.all_beyond:
        raise InputError("average", f"micro averaging pools a total TP + FP + FN + TN beyond 2**53 = {MAX_COUNT}, "
                                    "as check_counts refuses for one class; use another averaging or scale the counts down")
    return ClassCounts(*pooled)


def support(counts: ClassCounts) -> np.ndarray:
    """TP + FN as float64: the class weights of weighted averaging."""
    return float_counts(counts.true_positives) + float_counts(counts.false_negatives)


def apply_kernel(kernel: Kernel, counts, params: Mapping) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's values and undefined mask, one per class (a constant formula gives a scalar)."""
    value, undefined = kernel(*counts, **params)
    shape = getattr(counts[0], "shape", None)
    shape = np.shape(counts[0]) if shape is None else shape
    if getattr(value, "shape", None) == shape and getattr(undefined, "shape", None) == shape:
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
    context: CallContext | None = None,
):
    """Apply a per-class kernel to counts ``(..., C)`` and average it over classes as the row
    of ``average`` in :data:`~metricc.runtime.averaging.MODES` says: a mode that pools applies
    the kernel to the counts summed over classes, the others combine its per-class values.
    ``context``: the call's :class:`~metricc.runtime.context.CallContext`, when ``counts`` are
    its own; the float64 copy, pooled counts, supports and this metric's per-class values
    are then made once for every metric of the call.

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
    if context is not None and context.counts is not counts:
        context = None  # the caller's own counts, not the context's
    if mode.pools:
        per_class = [p for p in class_params if np.ndim(params[p]) > 0]
        if per_class:
            raise InputError(per_class[0], f"is a per-class vector; {mode.name} averaging pools the classes, so it cannot apply")
        pooled_counts = float_class_counts(pooled(counts, reads)) if context is None else _shared_pooled(context, reads)
        return finish(*apply_kernel(kernel, pooled_counts, params), zero)[..., 0][()]
    if context is not None and not params and not mode.per_class and mode.combine is not None:
        return mode.combine(np, _shared_per_class(context, kernel, zero, weights, pos_label, zero_division))
    real = float_class_counts(counts) if context is None else context.real
    values, undefined = per_class_values(kernel, real, params, zero)  # values handed back (none) are the caller's own
    return _average(mode, values, undefined, lambda: support(real), weights=weights, pos_label=pos_label,
                    zero_division=zero_division)


def _shared_pooled(context: CallContext, reads: tuple[str, ...]) -> ClassCounts:
    """The context's counts summed over classes, once for every micro average of the call: one
    set for every kernel when no total exceeds 2**53 (a kernel reads only its ``reads``), else
    one per ``reads`` (:func:`pooled` refuses only the totals a kernel reads)."""
    counts = context.counts
    totals = context.shared("pooled", lambda: pooled_totals(counts))
    if not (totals.all_beyond or any(totals.beyond)):
        reads = COUNT_NAMES
    return context.shared(("pooled", reads), lambda: float_class_counts(pooled(counts, reads, totals)))


def _shared_per_class(context: CallContext, kernel: Kernel, zero: float, weights, pos_label, zero_division):
    """A metric's per-class values with what its averages read (:class:`~.averaging.PerClass`),
    made once for the averages of the metric asked for one after the other in the call."""
    def make():
        real = context.real
        values, undefined = per_class_values(kernel, real, {}, zero)
        return averaging.PerClass(values, undefined, lambda: context.shared("support", lambda: support(real)),
                                  weights, pos_label, zero_division)

    shared = context.shared((kernel, "nan" if math.isnan(zero) else zero), make, latest_only=True)
    if shared.weights is weights and shared.pos_label is pos_label and shared.zero_division is zero_division:
        return shared
    return averaging.PerClass(shared.values, shared.undefined, shared.support, weights, pos_label, zero_division)


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
    return mode.combine(np, averaging.PerClass(np.asarray(values, dtype=float), undefined, support, weights, pos_label,
                                               zero_division))


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
