"""The helpers generated metric modules import: averaging, zero division, index algebra.

Generated code imports only names from ``__all__``, all from here. Averaging lives in
:mod:`.averaging` (the modes) and :mod:`.apply` (applying a kernel and averaging it), the
zero-division policy in :mod:`.division`, once each, so every metric behaves the same way,
class- and curve-level alike; this module gathers them with the index algebra and the
parameter checks. Dependencies point down: the kernel reads counts (:mod:`.confusion`),
curves (:mod:`.curves`) and metadata (:mod:`.registry`), and nothing below imports it;
metric ids are resolved through :func:`.registry.find_metric` (or arrive resolved, as
``evaluate`` passes them), never by importing the generated catalog or ``evaluate``.

>>> import numpy as np
>>> value = np.array([1.0, 0.5]); undefined = np.array([False, True])
>>> float(finish(value, undefined, 0.0)[1])
0.0
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import numpy as np

from metricc.core.binomial import binomial_tail
from metricc.runtime import registry
from metricc.runtime.apply import Kernel, average_class_metric, average_class_values, average_curve_metric, float_class_counts
from metricc.runtime.averaging import AVERAGES, PER_CLASS, sum_last_axis
from metricc.runtime.confusion import ClassCounts, check_class_vector, check_counts, check_matrix, counts_from_matrix
from metricc.core.errors import InputError
from metricc.runtime.curves import check_scores, curve_pick, score_curves
from metricc.runtime.division import finish, nonzero, zero_division_value
from metricc.runtime.scores import check_score_memory, first_max_other, group_sum, rank_pairs, row_ranks, window_sum
from metricc.runtime.scaling import rescaled_rows
from metricc.runtime.terms import MatrixTerms, matrix_counts, matrix_terms, read_matrix, rescaled, rescaled_counts

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
    "first_max_other",
    "group_sum",
    "log_ratio",
    "matrix_counts",
    "matrix_param",
    "matrix_terms",
    "metric_param",
    "nonzero",
    "np",
    "rank_pairs",
    "read_matrix",
    "real",
    "rescaled",
    "rescaled_counts",
    "rescaled_rows",
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


def exact(bound: Callable[[int], int], *counts, terms: MatrixTerms | None = None):
    """Exact copies of float64 ``counts`` for the parts of a kernel where float64 would cancel.

    A difference such as ``TN*TP - FN*FP`` or ``n**2 - Sum(t[k]*p[k], k)`` loses all its digits
    in float64 once the products pass 2**53; the emitter computes such polynomials from these
    copies. ``bound(B)`` bounds every intermediate value of those polynomials when no count
    exceeds ``B``: below 2**53 the float64 counts themselves (whole numbers there are exact:
    no copy), then int64 where that fits, Python integers (object arrays, slower) where not.
    Counts that are not whole numbers (weighted matrices) come back unchanged: there is no
    exact integer form, and float64 is what the caller asked for. ``terms``: the
    :class:`~metricc.runtime.terms.MatrixTerms` the counts are totals of, which knows them
    whole and keeps their integer twins (no conversion to compare).

    >>> [a.dtype.name for a in exact(lambda B: 2 * B ** 2, np.array([3.0]), np.array([2.0]))]
    ['float64', 'float64']
    >>> [a.dtype.name for a in exact(lambda B: 2 * B ** 2, np.array([2.0 ** 30]))]
    ['int64']
    >>> [a.dtype.name for a in exact(lambda B: 2 * B ** 2, np.array([2.0 ** 40]))]
    ['object']
    """
    arrays = [np.asarray(c, dtype=np.float64) for c in counts]
    if terms is not None and all(terms.whole(c) for c in counts):  # of a checked integer matrix: whole, never negative
        if bound(terms.largest) < 2 ** 53:  # a bound for every count of the matrix, read once per call
            return arrays
        largest = max((int(np.max(a, initial=0)) for a in arrays), default=0)
        if bound(largest) < 2 ** 53:
            return arrays
        integers = [terms.integer(c) for c in counts]
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
    """The diagonal ``(..., C)`` as float64 (of a class-pair parameter; a matrix read by
    :func:`read_matrix` keeps its own): float kernels must not multiply int64 counts (products
    wrap around silently)."""
    return np.diagonal(matrix, axis1=-2, axis2=-1).astype(np.float64, copy=False)


def transpose(matrix):
    return np.swapaxes(matrix, -1, -2)


def eye(n_classes: int):
    return np.eye(n_classes)


def arange(n_classes: int):
    return np.arange(n_classes, dtype=float)


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
        return np.broadcast_to(np.asarray(default(*float_class_counts(counts)), dtype=float), np.shape(counts.true_positives))
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
    if not info.per_class_counts or PER_CLASS not in info.averages:
        why = f"level {info.level}" if not info.per_class_counts else f"averages {', '.join(info.averages)}"
        raise InputError(name, f"'{info.id}' has no per-class values ({why}); '{name}' takes a class-level metric")
    unknown = sorted(set(bound) - {p.name for p in info.params})
    if unknown:
        raise InputError(name, f"'{info.id}' has no parameter '{unknown[0]}'")

    def per_class(tp, fp, fn, tn):
        try:
            values = np.asarray(info.function(tp, fp, fn, tn, average=PER_CLASS, zero_division=math.nan, **bound), dtype=float)
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
        found = info.gradient(*(c[..., None] if scalar else c for c in counts), average=PER_CLASS,
                              zero_division=math.nan, **bound)
        return np.asarray(found, dtype=float)[..., 0, :] if scalar else np.asarray(found, dtype=float)

    per_class.partials = partials
    per_class.scale_free = info.scale_free and all(p.kind != "metric" for p in info.params)  # terms.rescaled_counts
    return per_class
