"""The helpers generated metric modules import: averaging, zero division, index algebra.

Generated code imports only names from ``__all__``. Averaging and the zero-division policy
live here, once, so every metric behaves the same way, class- and curve-level alike.
Dependencies point down: the kernel reads counts (:mod:`.confusion`), curves (:mod:`.curves`)
and metadata (:mod:`.registry`), and nothing below imports it; metric ids are resolved through
:func:`.registry.find_metric` (or arrive resolved, as ``evaluate`` passes them), never by
importing the generated catalog or ``evaluate``.

>>> import numpy as np
>>> value = np.array([1.0, 0.5]); undefined = np.array([False, True])
>>> float(finish(value, undefined, 0.0)[1])
0.0
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Mapping

import numpy as np

from metricc.runtime import registry
from metricc.core.binomial import binomial_tail
from metricc.runtime.confusion import (
    MAX_COUNT,
    ClassCounts,
    TrustedCounts,
    check_class_vector,
    check_counts,
    check_matrix,
    counts_from_matrix,
    float_counts,
)
from metricc.runtime.curves import Curves, ScoreCurves, check_scores, curve_pick, score_curves
from metricc.core.errors import InputError
from metricc.runtime.scores import check_score_memory, group_sum, rank_pairs, row_ranks, window_sum
from metricc.runtime.terms import derived, matrix_counts, matrix_terms, whole

__all__ = [
    "AVERAGES",
    "align",
    "arange",
    "average_class_metric",
    "average_class_values",
    "average_curve_metric",
    "binomial_tail",
    "check_counts",
    "check_matrix",
    "check_score_memory",
    "check_scores",
    "class_param",
    "counts_from_matrix",
    "curve_pick",
    "diagonal",
    "equal",
    "exact",
    "extended_log",
    "eye",
    "finish",
    "group_sum",
    "log_ratio",
    "matrix_counts",
    "matrix_param",
    "matrix_terms",
    "metric_param",
    "nonzero",
    "np",
    "rank_pairs",
    "real",
    "row_ranks",
    "window_sum",
    "scalar_param",
    "score_curves",
    "sum_last_axis",
    "transpose",
    "xlogy",
    "xlogy_ratio",
    "zero_division_value",
]

AVERAGES = ("none", "binary", "micro", "macro", "weighted", "geometric", "samples")

Kernel = Callable[..., tuple[np.ndarray, np.ndarray]]


def nonzero(denominator):
    """The denominator with zeros replaced by 1; the caller masks those entries as undefined.
    Without zeros (the usual case) it comes back as it is, after one read-only pass."""
    if isinstance(denominator, (float, np.floating)):  # one matrix: no array round trip
        return denominator if denominator != 0 else 1.0
    if bool(np.all(denominator)):
        return denominator
    return np.where(denominator == 0, 1, denominator)


def sum_last_axis(values):
    """The sum over the last axis, of classes: einsum adds rows of a few classes four to five
    times faster than ``np.sum``, which sets a reduction up per row. Booleans (counted) and
    Python integers (object arrays of the exact path) are added by ``np.sum``.

    >>> sum_last_axis(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).tolist()
    [6.0, 15.0]
    """
    values = np.asarray(values)
    if values.dtype.kind in "iuf":
        return np.einsum("...k->...", values)
    return np.sum(values, axis=-1)


def log_ratio(numerator, denominator, difference):
    """``log(numerator / denominator)`` of positive values, given their exact ``difference``:
    near 1 (within a factor 2) as ``log1p(difference / denominator)``, where the rounded quotient
    would keep only its absolute error. Zeros are undefined cases the caller masks: no warning.

    >>> float(log_ratio(10.0 ** 16 + 2, 10.0 ** 16, 2.0))  # log(1 + 2e-16); np.log(1.0000000000000002) = 2.2e-16
    1.9999999999999997e-16
    """
    numerator, denominator, difference = np.broadcast_arrays(
        *(np.asarray(a, dtype=float) for a in (numerator, denominator, difference)))
    near = np.abs(difference) <= 0.5 * denominator
    safe = np.where(denominator == 0, 1.0, denominator)
    quotient = np.where(near | (numerator == 0), 1.0, numerator / safe)
    return np.where(near, np.log1p(np.where(near, difference / safe, 0.0)), np.log(quotient))


def xlogy_ratio(x, numerator, denominator):
    """``x * log(numerator / denominator)`` for sums of counts (exact in float64, so is their
    difference), 0 wherever ``x = 0``: :func:`xlogy` of a share near 1 without losing its digits."""
    x, numerator, denominator = np.broadcast_arrays(
        *(np.asarray(a, dtype=float) for a in (x, numerator, denominator)))
    empty = x == 0
    zero = ~empty & (numerator == 0)  # x log 0: -inf times the sign of x, as x * np.log(0), without the warning
    numerator, denominator = np.where(empty, 1.0, numerator), np.where(empty, 1.0, denominator)
    log = x * log_ratio(numerator, denominator, numerator - denominator)
    return np.where(empty, 0.0, np.where(zero, np.copysign(np.inf, -x), log))


def exact(bound: Callable[[int], int], *counts):
    """Exact copies of float64 ``counts`` for the parts of a kernel where float64 would cancel.

    A difference such as ``TN*TP - FN*FP`` or ``n**2 - Sum(t[k]*p[k], k)`` loses all its digits
    in float64 once the products pass 2**53; the emitter computes such polynomials from these
    copies. ``bound(B)`` bounds every intermediate value of those polynomials when no count
    exceeds ``B``: below 2**53 the float64 counts themselves (whole numbers there are exact:
    no copy), then int64 where that fits, Python integers (object arrays, slower) where not.
    Counts that are not whole numbers (weighted matrices) come back unchanged: there is no
    exact integer form, and float64 is what the caller asked for.

    >>> [a.dtype.name for a in exact(lambda B: 2 * B ** 2, np.array([3.0]), np.array([2.0]))]
    ['float64', 'float64']
    >>> [a.dtype.name for a in exact(lambda B: 2 * B ** 2, np.array([2.0 ** 30]))]
    ['int64']
    >>> [a.dtype.name for a in exact(lambda B: 2 * B ** 2, np.array([2.0 ** 40]))]
    ['object']
    """
    arrays = [np.asarray(c, dtype=np.float64) for c in counts]
    if all(whole(c) for c in counts):  # counts of a checked integer matrix: whole, never negative
        largest = max((int(np.max(a, initial=0)) for a in arrays), default=0)
        if bound(largest) < 2 ** 53:
            return arrays
        integers = [derived(c) for c in counts]
    else:
        integers = [a.astype(np.int64) for a in arrays]  # counts are at most 2**53: no overflow
        if not all(np.array_equal(i, a) for i, a in zip(integers, arrays)):
            return arrays
        largest = max((int(np.max(np.abs(i), initial=0)) for i in integers), default=0)
        if bound(largest) < 2 ** 53:
            return arrays
    if bound(largest) < 2 ** 63:
        return integers
    return [i.astype(object) for i in integers]


def real(values):
    """``values`` as float64: an exact integer result (int64 or Python integers) rounded once.

    >>> real(np.array([2 ** 60 + 1], dtype=object)).tolist()
    [1.152921504606847e+18]
    """
    return np.asarray(values, dtype=np.float64)


def equal(a, b):
    """The Iverson bracket [a = b] as floats; NaN where a side is NaN, so an undefined term
    inside an indicator leaves the value undefined instead of turning it into 0.

    >>> equal(np.array([1.0, 2.0, np.nan]), 1.0).tolist()
    [1.0, 0.0, nan]
    """
    a, b = np.asarray(a), np.asarray(b)
    same = np.asarray(a == b, dtype=np.float64)
    unknown = [side != side for side in (a, b) if side.dtype.kind not in "biu"]  # NaN: the one value unequal to itself
    if any(side.any() for side in unknown):  # looked for in the operands, smaller than their broadcast
        same[np.broadcast_to(np.logical_or.reduce(np.broadcast_arrays(*unknown)), same.shape)] = np.nan
    return same


def extended_log(values):
    """The natural logarithm with log(0) = -inf and no divide warning: the terms of a class sum
    follow their own conventions (``analyze.log_zeros`` leaves them defined), so -inf is the value.

    >>> extended_log(np.array([0.0, 1.0])).tolist()
    [-inf, 0.0]
    """
    with np.errstate(divide="ignore"):
        return np.log(values)


def xlogy(x, y):
    """``x * log(y)``, and 0 wherever ``x = 0`` whatever ``y`` is (the entropy convention 0 log 0 = 0).

    >>> xlogy(np.array([0.0, 2.0]), np.array([0.0, 1.0])).tolist()
    [0.0, 0.0]
    """
    x, y = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    empty = x == 0
    with np.errstate(divide="ignore", invalid="ignore"):  # x log 0 = -inf * sign(x); log of a negative: NaN
        return np.where(empty, 0.0, x * np.log(np.where(empty, 1.0, y)))


def align(values, source: str, target: str):
    """Insert length-1 axes so trailing class axes named ``source`` line up with ``target``.

    >>> align(np.ones((2, 3)), "k", "jk").shape
    (2, 1, 3)
    """
    values = np.asarray(values)
    lead = values.ndim - len(source)
    for position, name in enumerate(target):
        if name not in source:
            values = np.expand_dims(values, lead + position)
    return values


def diagonal(matrix):
    """The diagonal ``(..., C)`` as float64: a matrix read by :func:`matrix_terms` may be int64,
    and float kernels must not multiply int64 counts (products wrap around silently)."""
    remembered = derived(matrix)
    if remembered is not None:
        return remembered
    return np.diagonal(matrix, axis1=-2, axis2=-1).astype(np.float64, copy=False)


def transpose(matrix):
    return np.swapaxes(matrix, -1, -2)


def eye(n_classes: int):
    return np.eye(n_classes)


def arange(n_classes: int):
    return np.arange(n_classes, dtype=float)


def skips(zero_division) -> bool:
    """True for ``zero_division="skip"``: means over classes leave undefined classes out."""
    return isinstance(zero_division, str) and zero_division.lower() == "skip"


def zero_division_value(zero_division) -> float:
    """The value for undefined cases: a finite number or NaN (``"nan"`` accepted).

    ``"skip"`` is NaN here: it changes which classes a mean takes (see
    :func:`average_class_metric`); a value that is not a mean over classes stays undefined.
    """
    if isinstance(zero_division, str) and zero_division.lower() in ("nan", "skip"):
        return math.nan
    if isinstance(zero_division, bool) or not isinstance(zero_division, (int, float, np.integer, np.floating)):
        raise InputError("zero_division", f"expected a number, NaN or 'skip', got {zero_division!r}")
    value = float(zero_division)
    if math.isinf(value):
        raise InputError("zero_division", "must be finite or NaN")
    return value


def finish(value, undefined, zero_division):
    """Replace undefined entries by the zero-division value; scalars come back as floats.

    A zero comes back as +0.0: a negated empty sum (CEN of a single class) is -0.0, which
    equals 0 but prints as ``-0.0``.

    >>> float(finish(-np.sum(np.zeros(0)), False, math.nan))
    0.0
    """
    zero = zero_division_value(zero_division)
    if np.ndim(value) == 0 and np.ndim(undefined) == 0:  # one matrix: no array round trip
        return np.float64(zero if undefined else value) + 0.0
    result = np.where(undefined, zero, value).astype(float) + 0.0
    return result[()] if result.ndim == 0 else result


# The largest magnitude a scalar parameter may have. Formulas raise parameters to powers and
# multiply them by counts (up to 2**53): with beta = 1e200, beta**2 overflows float64. Within
# 2**53 a product of a count and a parameter's fourth power still fits (2**265 < 2**1023), and
# a larger parameter changes no catalog value in float64 (F-beta is recall to 1e-32 already).
MAX_PARAMETER = 2.0 ** 53


def scalar_param(name: str, value, check: Callable | None, domain: str):
    """A scalar parameter: a finite real of magnitude at most :data:`MAX_PARAMETER` satisfying
    its declared domain."""
    beyond = f"beyond the largest parameter magnitude 2**53 = {MAX_PARAMETER:.6g}; larger values overflow float64 in the formula"
    try:
        number = float(value)
    except OverflowError:  # an integer of hundreds of digits
        raise InputError(name, f"an integer of {len(str(abs(int(value))))} digits is {beyond}") from None
    except (TypeError, ValueError):
        raise InputError(name, f"expected a number, got {value!r}") from None
    if not math.isfinite(number):
        raise InputError(name, f"expected a finite number, got {value!r}")
    if abs(number) > MAX_PARAMETER:
        raise InputError(name, f"{number:.6g} is {beyond}")
    if check is not None and not check(number):
        raise InputError(name, f"must satisfy {domain}, got {value!r}")
    return number


def class_param(name: str, value, counts: ClassCounts, default: Kernel | None, check: Callable | None, domain: str):
    """A per-class parameter vector, or its default computed from the counts."""
    n_classes = counts.true_positives.shape[-1]
    if value is None:  # a constant default comes back as a scalar: one value per class
        return np.broadcast_to(np.asarray(default(*_floats(counts)), dtype=float), np.shape(counts.true_positives))
    vector = check_class_vector(value, n_classes, argument=name)
    if check is not None and not np.all(check(vector)):
        raise InputError(name, f"every entry must satisfy {domain}, got {np.asarray(value).tolist()!r}")
    return vector


def matrix_param(name: str, value, n_classes: int, default: Callable, check: Callable | None, domain: str):
    """A class_matrix parameter: one value per pair of classes (true i, predicted j), ``(C, C)``
    or ``(..., C, C)``, or its default ``default(C)``.

    >>> matrix_param("distance", None, 3, lambda C: abs(np.arange(C)[:, None] - np.arange(C)), None, "")
    array([[0., 1., 2.],
           [1., 0., 1.],
           [2., 1., 0.]])
    """
    if value is None:
        return np.broadcast_to(np.asarray(default(n_classes), dtype=float), (n_classes, n_classes))
    try:
        matrix = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InputError(name, f"expected a ({n_classes}, {n_classes}) array of numbers, one per pair of classes") from None
    if matrix.ndim < 2 or matrix.shape[-2:] != (n_classes, n_classes):
        raise InputError(name, f"expected one value per pair of classes, shape ({n_classes}, {n_classes}) "
                               f"(rows: true class, columns: predicted class), got shape {matrix.shape}")
    if not np.isfinite(matrix).all():
        raise InputError(name, "contains NaN or infinity; give finite values")
    if check is not None and not np.all(check(matrix)):
        raise InputError(name, f"every entry must satisfy {domain}, got {matrix.tolist()!r}")
    return matrix


def metric_param(name: str, value) -> Kernel:
    """A metric parameter: a class-level metric id or alias (or its ``MetricInfo``), or ``(id, {parameter: value})``.

    Returns a per-class kernel ``(tp, fp, fn, tn) -> (values, undefined)`` evaluating the
    metric's generated function on whatever counts the caller's averaging applies it to.
    """
    if isinstance(value, (str, registry.MetricInfo)):
        metric_id, bound = value, {}
    elif (isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], (str, registry.MetricInfo))
          and isinstance(value[1], Mapping)):
        metric_id, bound = value[0], dict(value[1])
    else:
        raise InputError(name, f"expected a metric id, or (id, {{parameter: value}}), got {value!r}")
    try:
        info = metric_id if isinstance(metric_id, registry.MetricInfo) else registry.find_metric(metric_id)
    except InputError as error:
        raise InputError(name, error.message) from None
    if not info.per_class_counts or "none" not in info.averages:
        why = f"level {info.level}" if not info.per_class_counts else f"averages {', '.join(info.averages)}"
        raise InputError(name, f"'{info.id}' has no per-class values ({why}); '{name}' takes a class-level metric")
    unknown = sorted(set(bound) - {p.name for p in info.params})
    if unknown:
        raise InputError(name, f"'{info.id}' has no parameter '{unknown[0]}'")

    def per_class(tp, fp, fn, tn):
        try:
            values = np.asarray(info.function(tp, fp, fn, tn, average="none", zero_division=math.nan, **bound), dtype=float)
        except InputError as error:
            raise InputError(f"{name}: {error.argument}", error.message) from None
        return values, np.isnan(values)

    def partials(tp, fp, fn, tn):
        """The bound metric's own partials ``(..., 4)`` in its class's counts (the delta method)."""
        if info.gradient is None:
            raise InputError(name, f"'{info.id}' has no delta-method gradient ({info.no_delta}); "
                                   "interval='bootstrap' applies")
        counts = [np.asarray(c, dtype=float) for c in (tp, fp, fn, tn)]
        scalar = counts[0].ndim == 0  # micro: the pooled counts
        found = info.gradient(*(c[..., None] if scalar else c for c in counts), average="none",
                              zero_division=math.nan, **bound)
        return np.asarray(found, dtype=float)[..., 0, :] if scalar else np.asarray(found, dtype=float)

    per_class.partials = partials
    return per_class


def _floats(counts) -> ClassCounts:
    """Counts as float64 for the kernels: products of int64 counts overflow silently.

    Degree-2 kernels (Youden's J, G-mean, per-class MCC) multiply counts; with int64 counts
    of a few billion (pixels of a segmentation data set) the products wrap around and give
    wrong numbers without a warning. float64 is exact for integers up to 2**53 and loses
    only relative precision beyond.
    """
    if type(counts) is TrustedCounts:
        return counts
    return ClassCounts(*(float_counts(c) for c in counts))


_COUNT_NAMES = ("tp", "fp", "fn", "tn")


def _pooled(counts: ClassCounts, reads: tuple[str, ...] = _COUNT_NAMES) -> ClassCounts:
    """Counts summed over classes ``(..., 1)``, exactly: integer counts are added as integers.

    ``reads``: the counts the kernel reads. One it does not read (TN, of F1) is not checked
    against 2**53 and is handed on as NaN: pooled TN is about (C - 1) n, and refusing f1:micro
    there while accuracy, the same number, is returned would be wrong (issue 27)."""
    pooled = []
    for field, name, c in zip(ClassCounts._fields, _COUNT_NAMES, counts):
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
    if len(reads) == len(_COUNT_NAMES) and (sum(pooled) > MAX_COUNT).any():  # each <= 2**53: no int64 overflow
        raise InputError("average", f"micro averaging pools a total TP + FP + FN + TN beyond 2**53 = {MAX_COUNT}, "
                                    "as check_counts refuses for one class; use another averaging or scale the counts down")
    return ClassCounts(*pooled)


# What every class-level metric of one evaluate call derives alike from the same trusted
# counts (pooled counts for micro, supports for weighted), keyed by the ids of the four
# arrays and gone with the first of them: computed by the first metric that needs it. A
# metric's per-class values are kept in one slot of their own, for its next averages only.
_SHARED: dict[tuple, tuple] = {}
_LATEST = "latest per-class values"


def _shared(counts: ClassCounts, what, make: Callable[[ClassCounts], object], *, latest_only: bool = False):
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


def _support(counts: ClassCounts) -> np.ndarray:
    """TP + FN as float64: the class weights of weighted averaging."""
    return float_counts(counts.true_positives) + float_counts(counts.false_negatives)


def _apply(kernel: Kernel, counts, params: Mapping) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's values and undefined mask, one per class (a constant formula gives a scalar)."""
    value, undefined = kernel(*counts, **params)
    shape = np.shape(counts[0])
    if np.shape(value) == shape and np.shape(undefined) == shape:
        return value, undefined
    shape = np.broadcast_shapes(np.shape(value), np.shape(undefined), shape)
    return np.broadcast_to(value, shape), np.broadcast_to(undefined, shape)


def _per_class(kernel: Kernel, counts, params: Mapping, zero_division: float):
    """Per-class values with undefined entries replaced (a pass only where some are), and the undefined mask."""
    value, undefined = _apply(kernel, counts, params)
    return (np.where(undefined, zero_division, value) if undefined.any() else value), undefined


def average_class_metric(
    kernel: Kernel,
    counts: ClassCounts,
    *,
    average: str,
    averages: tuple[str, ...],
    params: Mapping[str, object],
    class_params: tuple[str, ...] = (),
    reads: tuple[str, ...] = _COUNT_NAMES,
    weights=None,
    pos_label: int = 1,
    zero_division=math.nan,
):
    """Apply a per-class kernel to counts ``(..., C)`` and average it over classes.

    ``none``: one value per class; ``binary``: the class at index ``pos_label``; ``micro``:
    pool the counts, then apply; ``macro``: mean of the per-class values; ``weighted``: mean
    weighted by support (``TP + FN``) or by ``weights``, classes of weight 0 taking no part;
    ``geometric``: geometric mean. Undefined per-class values become ``zero_division`` before
    averaging; with ``zero_division="skip"`` the means (macro, weighted, geometric, samples)
    leave the undefined classes out instead, and are undefined (NaN) only when no class is left
    (Branco et al. 2017, Section 4.3).

    ``samples``: the counts are per-instance counts ``(..., N)`` of multi-label data (TP, FP,
    FN, TN over the labels of each sample, :func:`~metricc.runtime.confusion.samplewise_counts`);
    the kernel is applied per instance, then the mean is taken over instances. Arithmetically
    a macro average, over another axis: which axis the counts have is the caller's contract.
    """
    if average not in averages:
        raise InputError("average", f"{average!r} is not supported here; choose one of {', '.join(averages)}")
    zero = zero_division_value(zero_division)
    n_classes = counts.true_positives.shape[-1]
    if n_classes == 0:
        raise InputError("counts", "need at least one class")
    if weights is not None and average != "weighted":
        raise InputError("weights", "only used with average='weighted'")
    if average == "micro":
        per_class = [p for p in class_params if np.ndim(params[p]) > 0]
        if per_class:
            raise InputError(per_class[0], "is a per-class vector; micro averaging pools the classes, so it cannot apply")
        pooled = _shared(counts, ("pooled", reads), lambda c: _floats(_pooled(c, reads)))
        return finish(*_apply(kernel, pooled, params), zero)[..., 0][()]
    if params or average == "none":  # values handed back (none) are the caller's own array
        counts = _floats(counts)
        values, undefined = _per_class(kernel, counts, params, zero)
    else:  # the metric's per-class values, shared by its averages in one evaluate call
        values, undefined = _shared(counts, (kernel, "nan" if math.isnan(zero) else zero),
                                    lambda c: _per_class(kernel, _floats(c), params, zero), latest_only=True)
    return _average(values, undefined, lambda: _shared(counts, "support", _support), average=average, weights=weights,
                    pos_label=pos_label, zero_division=zero_division)


def average_class_values(values, undefined, support, *, average: str, averages: tuple[str, ...], weights=None,
                         pos_label: int = 1, zero_division=math.nan):
    """Average per-class values ``(..., C)`` computed by the caller, with their undefined mask:
    the per-class values of a matrix formula (``per_class: j``), which need the whole matrix,
    not one class's TP, FP, FN, TN. The modes are those of :func:`average_class_metric` except
    the ones that apply a formula of the counts (``micro``, ``samples``); ``weighted`` weighs
    by ``support`` (the row totals) unless ``weights`` are given."""
    if average not in averages:
        raise InputError("average", f"{average!r} is not supported here; choose one of {', '.join(averages)}")
    if weights is not None and average != "weighted":
        raise InputError("weights", "only used with average='weighted'")
    zero = zero_division_value(zero_division)
    values, undefined = np.broadcast_arrays(np.asarray(values, dtype=float), np.asarray(undefined, dtype=bool))
    values = (np.where(undefined, zero, values) if undefined.any() else values) + 0.0  # -0.0 (an empty sum) prints as 0
    return _average(values, undefined, lambda: float_counts(support), average=average, weights=weights,
                    pos_label=pos_label, zero_division=zero_division)


def _average(values, undefined, support: Callable[[], np.ndarray], *, average: str, weights, pos_label, zero_division):
    """The mean of per-class values ``(..., C)`` (undefined entries already ``zero_division``) for ``average``."""
    zero = zero_division_value(zero_division)
    n_classes = np.shape(values)[-1]
    values = np.asarray(values, dtype=float)
    if skips(zero_division) and average in ("macro", "samples", "geometric"):
        # A mean over the defined classes only: the weighted mean with weights 1 or 0.
        kept = np.where(undefined, 0.0, 1.0)
        if average == "geometric":
            if np.any(np.where(undefined, 0.0, values) < 0):
                raise InputError("average", "geometric averaging needs non-negative per-class values")
            with np.errstate(divide="ignore"):
                logs = np.where(undefined, 0.0, np.log(np.where(undefined, 1.0, values)))
            total = np.sum(kept, axis=-1)
            return finish(np.exp(np.sum(logs, axis=-1) / nonzero(total)), total == 0, zero)
        total = np.sum(kept, axis=-1)
        return finish(np.sum(np.where(undefined, 0.0, values), axis=-1) / nonzero(total), total == 0, zero)
    if average == "none":
        return values
    if average == "binary":
        if isinstance(pos_label, bool) or not isinstance(pos_label, (int, np.integer)) or not -n_classes <= pos_label < n_classes:
            raise InputError("pos_label", f"expected a class index in 0..{n_classes - 1}, got {pos_label!r}")
        return values[..., pos_label][()]
    if average in ("macro", "samples"):
        return (sum_last_axis(values) / n_classes)[()]
    if average == "geometric":
        if np.any(values < 0):
            raise InputError("average", "geometric averaging needs non-negative per-class values")
        with np.errstate(divide="ignore"):
            return np.exp(np.mean(np.log(values), axis=-1))[()]
    if weights is None:
        weights = support()
    else:
        weights = check_class_vector(weights, n_classes, argument="weights")
        if np.any(weights < 0):
            raise InputError("weights", "weights must be non-negative")
    if skips(zero_division):
        weights = np.where(undefined, 0.0, weights)
    total = sum_last_axis(weights)
    # A class of weight 0 takes no part in the mean, even where its value is undefined
    # (0 * NaN would be NaN): otherwise weighted recall is NaN whenever a class is predicted
    # but never true, against the proved weighted(recall) = micro(recall).
    weighted = sum_last_axis(np.where(weights == 0, 0.0, values * weights)) / nonzero(total)
    return finish(weighted, total == 0, zero)


def average_curve_metric(kernel, curves: ScoreCurves | tuple[Curves, Curves], *, average: str, averages: tuple[str, ...],
                         params: Mapping | None = None, weights=None, pos_label: int = 1, zero_division=math.nan):
    """Apply a per-curve kernel and average over classes, as class-level metrics are averaged.

    ``curves``: the per-class and pooled curves of :func:`~metricc.runtime.curves.score_curves`.
    ``micro`` applies the kernel to the pooled curve of every (sample, class) pair; ``weighted``
    weighs each class by its positives (support) unless ``weights`` are given. ``params``:
    the kernel's scalar parameters, checked by the caller.
    """
    if average not in averages:
        raise InputError("average", f"{average!r} is not supported here; choose one of {', '.join(averages)}")
    # A ScoreCurves builds its pooled curve on demand; merged threshold counts come as a pair.
    per_class = curves[0] if isinstance(curves, tuple) else curves.per_class
    zero = zero_division_value(zero_division)
    if average == "micro":  # the only mode that reads the pooled curve: built here, on demand
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
