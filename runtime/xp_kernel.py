"""The helpers the namespace-generic modules of ``generated/arrays/`` import: the kernel of
:mod:`.kernel` written against the Array API standard's functions only.

A generated array module computes a metric from counts of any Array API library (PyTorch,
JAX, CuPy, array-api-strict, numpy) in that library and on the counts' device: nothing goes to
the host. Each helper takes ``xp``, a :class:`Space` (the counts' namespace, device and dtypes)
that the generated code reads as it reads a namespace (``xp.sqrt``); the helpers mirror
:mod:`.kernel`'s (same names, the namespace first); the averaging is :mod:`.averaging`'s
table itself, whose combine functions take the namespace.

dtypes (:mod:`.namespace`): values in float64 where the device holds it, else float32 (about 7
significant digits: JAX without x64). Exact parts (differences of products of counts) are
integer arithmetic in the count dtype where their bound fits it, which reads one number from
the device (the largest count); beyond it they are floats, as precise as the value dtype.
A module whose formula needs what the standard lacks calls the numpy module on the host through
:func:`on_host`, which says so with a :class:`HostFallbackWarning`.

>>> import numpy as np
>>> counts = np.array([[5, 4], [2, 1], [1, 2], [4, 5]])  # TP, FP, FN, TN of two classes
>>> kernel = lambda xp, tp, fp, fn, tn: (tp / nonzero(xp, tp + fp), tp + fp == 0)
>>> round(float(average_class_metric(kernel, counts, average="macro", averages=("macro",), params={})), 4)
0.7571
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping

import numpy as np

from metricc.core.errors import InputError
from metricc.runtime import averaging, namespace
from metricc.runtime.division import zero_division_value
from metricc.runtime import kernel as host_kernel
from metricc.runtime.counts import check_class_vector
from metricc.runtime.kernel import scalar_param
from metricc.runtime.scaling import unit_factors

__all__ = ["HostFallbackWarning", "PreparedTerms", "Space", "align", "arange", "average_class_metric", "average_class_values",
           "class_counts",
           "class_param", "diagonal", "equal", "exact", "extended_log", "eye", "finish", "heaviside",
           "log_ratio", "matrix_param", "matrix_terms", "nonzero", "on_host", "prepared_terms", "quiet", "real",
           "rescaled_counts", "rescaled_matrix",
           "scalar_param", "shape", "space", "sum_last_axis", "transpose", "xlogy", "xlogy_ratio"]


class HostFallbackWarning(UserWarning):
    """A metric was evaluated by numpy on the host: its formula needs what the standard lacks."""


# The standard's functions printed kernels call on arrays or on Python numbers.
_ELEMENTWISE = frozenset({"abs", "broadcast_to", "exp", "floor", "log", "maximum", "minimum", "sqrt"})


class Space:
    """An array namespace on one device with its dtypes; other attributes are the namespace's."""

    def __init__(self, xp, where) -> None:
        self.xp, self.device = xp, where
        self.values = namespace.value_dtype(xp, where)
        self.counts = namespace.count_dtype(xp, where)

    def __getattr__(self, name: str):
        found = getattr(self.xp, name)
        if name not in _ELEMENTWISE:
            return found

        def on_numbers(*args):  # printed code applies these to Python numbers too: log(C - 1)
            return found(*(self.asarray(a) if isinstance(a, (int, float)) else a for a in args))

        return on_numbers

    def asarray(self, value, dtype=None):
        """``value`` on this device, in the value dtype unless told."""
        return self.xp.asarray(value, dtype=dtype or self.values, device=self.device)


_SPACES: dict[tuple, Space] = {}


def space(array) -> Space:
    """The :class:`Space` of ``array``, one per namespace and device (devices told apart by
    :func:`~metricc.runtime.namespace.device_key`: CuPy's cannot be hashed)."""
    xp = namespace.array_namespace(array)
    where = namespace.device(array)
    key = (xp, namespace.device_key(where))
    if key not in _SPACES:
        _SPACES[key] = Space(xp, where)
    return _SPACES[key]


def _array(xp: Space, value):
    if namespace.is_array(value):
        return value
    return xp.asarray(value, dtype=xp.bool if isinstance(value, (bool, np.bool_)) else None)


# --- index algebra and safe arithmetic, as runtime.kernel's -------------------------------------


def nonzero(xp: Space, denominator):
    """The denominator with zeros replaced by 1; the caller masks those entries as undefined."""
    denominator = _array(xp, denominator)
    return xp.where(denominator == 0, xp.ones_like(denominator), denominator)


def align(xp: Space, values, source: str, target: str):
    """Insert length-1 axes so trailing class axes named ``source`` line up with ``target``."""
    values = _array(xp, values)
    lead = values.ndim - len(source)
    for position, name in enumerate(target):
        if name not in source:
            values = xp.expand_dims(values, axis=lead + position)
    return values


def diagonal(xp: Space, matrix):
    """The diagonal ``(..., C)``: every ``C + 1``-th entry of the flattened matrices."""
    n_classes = matrix.shape[-1]
    return xp.reshape(matrix, (*matrix.shape[:-2], n_classes * n_classes))[..., ::n_classes + 1]


def transpose(xp: Space, matrix):
    return xp.matrix_transpose(matrix)


def eye(xp: Space, n_classes: int):
    return xp.eye(n_classes, dtype=xp.values, device=xp.device)


def arange(xp: Space, n_classes: int):
    return xp.arange(n_classes, dtype=xp.values, device=xp.device)


def shape(xp: Space, values) -> tuple:
    """numpy's ``shape``, of an array or a Python number."""
    return tuple(values.shape) if namespace.is_array(values) else ()


def sum_last_axis(xp: Space, values):
    values = _array(xp, values)
    return xp.sum(xp.astype(values, xp.values) if values.dtype == xp.bool else values, axis=-1)


def real(xp: Space, values):
    """An exact integer result rounded once to the value dtype."""
    return xp.astype(_array(xp, values), xp.values)


class PreparedTerms:
    """A matrix's terms as the numpy kernel prepares them once per call (printed code reads
    ``terms.diagonal`` and hands ``terms`` to :func:`exact`); here only the diagonal."""

    def __init__(self, xp: Space, matrix):
        self.diagonal = diagonal(xp, matrix)


def prepared_terms(xp: Space, matrix) -> PreparedTerms:
    return PreparedTerms(xp, matrix)


def exact(xp: Space, bound: Callable[[int], int], *counts, terms: PreparedTerms | None = None):
    """Copies of the float ``counts`` for the parts of a kernel where floats would cancel: the
    counts themselves while ``bound(B)`` (every intermediate, no count above ``B``) stays below
    the float's exact integers, integer copies while it fits the count dtype, else the floats.
    Reads the largest count, and whether every count is whole, from the device. ``terms`` is
    the numpy kernel's source of integer twins; on the device the counts are copied as given."""
    arrays = [_array(xp, c) for c in counts]
    if not arrays:
        return arrays
    flat = xp.concat([xp.reshape(a, (-1,)) for a in arrays])
    summary = namespace.to_host(xp.stack([xp.max(xp.abs(flat)), xp.astype(xp.all(flat == xp.floor(flat)), flat.dtype)]))
    largest, integral = summary.tolist()
    limit = bound(int(largest)) if math.isfinite(largest) else math.inf
    if limit < 2 / xp.finfo(xp.values).eps or not integral:
        return arrays
    if limit < xp.iinfo(xp.counts).max:
        return [xp.astype(a, xp.counts) for a in arrays]
    return arrays


def equal(xp: Space, a, b):
    """The Iverson bracket [a = b] as floats, NaN where a side is NaN; sides of two dtypes are
    compared as values (the standard promotes no integer with a floating dtype)."""
    a, b = _array(xp, a), _array(xp, b)
    if a.dtype != b.dtype:
        a, b = xp.astype(a, xp.values), xp.astype(b, xp.values)
    same = xp.astype(a == b, xp.values)
    unknown = (a != a) | (b != b)
    return xp.where(unknown, xp.asarray(math.nan), same)


def extended_log(xp: Space, values):
    """The natural logarithm with log(0) = -inf."""
    return xp.log(_array(xp, values))


def heaviside(xp: Space, values, at_zero: float):
    """0 below 0, 1 above, ``at_zero`` at 0 (numpy's ``heaviside``, which the standard lacks)."""
    values = _array(xp, values)
    one, zero = xp.ones_like(values), xp.zeros_like(values)
    return xp.where(values > 0, one, xp.where(values < 0, zero, xp.where(values == 0, one * at_zero, values)))


def _floats(xp: Space, *values):
    return xp.broadcast_arrays(*(xp.astype(_array(xp, v), xp.values) for v in values))


def xlogy(xp: Space, x, y):
    """``x * log(y)``, 0 wherever ``x = 0`` (0 log 0 = 0)."""
    x, y = _floats(xp, x, y)
    empty = x == 0
    return xp.where(empty, xp.zeros_like(x), x * xp.log(xp.where(empty, xp.ones_like(y), y)))


def log_ratio(xp: Space, numerator, denominator, difference):
    """``log(numerator / denominator)`` near 1 as ``log1p(difference / denominator)``."""
    numerator, denominator, difference = _floats(xp, numerator, denominator, difference)
    one = xp.ones_like(numerator)
    near = xp.abs(difference) <= 0.5 * denominator
    safe = xp.where(denominator == 0, one, denominator)
    quotient = xp.where(near | (numerator == 0), one, numerator / safe)
    return xp.where(near, xp.log1p(xp.where(near, difference / safe, 0 * one)), xp.log(quotient))


def xlogy_ratio(xp: Space, x, numerator, denominator):
    """``x * log(numerator / denominator)``, 0 wherever ``x = 0``."""
    x, numerator, denominator = _floats(xp, x, numerator, denominator)
    one = xp.ones_like(x)
    empty = x == 0
    zero = ~empty & (numerator == 0)
    numerator, denominator = xp.where(empty, one, numerator), xp.where(empty, one, denominator)
    log = x * log_ratio(xp, numerator, denominator, numerator - denominator)
    return xp.where(empty, 0 * one, xp.where(zero, xp.copysign(math.inf * one, -x), log))


# --- zero division and averaging, as runtime.division and runtime.averaging ---------------------


def finish(xp: Space, value, undefined, zero_division):
    """Undefined entries replaced by the zero-division value, in the value dtype (+0.0 for -0.0)."""
    value = xp.astype(_array(xp, value), xp.values)
    zero = zero_division_value(zero_division)
    return xp.where(_array(xp, undefined), xp.asarray(zero), value) + 0.0


def _broadcast(xp: Space, value, undefined, shape):
    value, undefined = xp.astype(_array(xp, value), xp.values), xp.astype(_array(xp, undefined), xp.bool)
    return xp.broadcast_to(value, shape), xp.broadcast_to(undefined, shape)


def _combine(xp: Space, mode: averaging.Mode, values, undefined, support, *, weights, pos_label, zero_division):
    """The average ``mode`` of per-class values (undefined entries already ``zero_division``):
    the row of :mod:`.averaging`, whose combine functions take the namespace."""
    per_class = averaging.PerClass(values, undefined, lambda: xp.astype(support, xp.values), weights, pos_label,
                                   zero_division)
    return mode.combine(xp, per_class)


def class_counts(matrix):
    """TP, FP, FN, TN ``(4, ..., C)`` of confusion matrices ``(..., C, C)`` (rows the true class), where they are."""
    xp = space(matrix)
    tp = diagonal(xp, matrix)
    fp = xp.sum(matrix, axis=-2) - tp
    fn = xp.sum(matrix, axis=-1) - tp
    tn = xp.sum(matrix, axis=(-2, -1))[..., None] - tp - fp - fn
    return xp.stack([tp, fp, fn, tn])


def average_class_metric(kernel: Callable, counts, *, average: str, averages: tuple[str, ...],
                         params: Mapping[str, object], reads: tuple[str, ...] = ("tp", "fp", "fn", "tn"), weights=None,
                         pos_label: int = 1, zero_division=math.nan):
    """A per-class kernel ``(xp, tp, fp, fn, tn) -> (values, undefined)`` applied to counts
    ``(4, ..., C)`` and averaged over classes as :func:`metricc.runtime.kernel.average_class_metric`
    does, in the counts' namespace: a mode that pools applies it to the counts summed over classes."""
    xp = space(counts)
    mode = averaging.mode(average, averages)
    zero = zero_division_value(zero_division)
    if counts.shape[-1] == 0:
        raise InputError("counts", "need at least one class")
    if weights is not None and not mode.takes_weights:
        raise InputError("weights", "only used with a weighted average")
    with quiet():
        if mode.pools:
            vectors = [name for name, value in params.items() if getattr(value, "ndim", 0) > 0]
            if vectors:
                raise InputError(vectors[0], "is a per-class vector; micro averaging pools the classes, so it cannot apply")
            pooled = xp.astype(xp.sum(counts, axis=-1, keepdims=True), xp.values)
            pooled = [pooled[i, ...] if name in reads else pooled[i, ...] * math.nan for i, name in enumerate(("tp", "fp", "fn", "tn"))]
            value, undefined = _broadcast(xp, *kernel(xp, *pooled, **params), pooled[0].shape)
            return finish(xp, value, undefined, zero)[..., 0]
        floats = xp.astype(counts, xp.values)
        value, undefined = _broadcast(xp, *kernel(xp, *(floats[i, ...] for i in range(4)), **params), floats.shape[1:])
        values = xp.where(undefined, xp.asarray(zero), value) + 0.0
        return _combine(xp, mode, values, undefined, counts[0, ...] + counts[2, ...], weights=weights,
                        pos_label=pos_label, zero_division=zero_division)


def average_class_values(values, undefined, support, *, average: str, averages: tuple[str, ...], weights=None,
                         pos_label: int = 1, zero_division=math.nan):
    """Per-class values ``(..., C)`` of a matrix formula with their undefined mask, averaged as
    :func:`metricc.runtime.kernel.average_class_values` does (``weighted``: by ``support``)."""
    xp = space(support)
    mode = averaging.mode(average, averages)
    if mode.combine is None:
        raise InputError("average", f"{mode.name!r} pools the counts over classes; it cannot average given per-class values")
    if weights is not None and not mode.takes_weights:
        raise InputError("weights", "only used with a weighted average")
    value, undefined = _broadcast(xp, values, undefined, support.shape)
    values = xp.where(undefined, xp.asarray(zero_division_value(zero_division)), value) + 0.0
    return _combine(xp, mode, values, undefined, support, weights=weights, pos_label=pos_label,
                    zero_division=zero_division)


def quiet():
    """numpy's errstate for the namespaces backed by numpy: a log of 0 or a root of a negative
    number is a value (-inf, NaN) the undefined mask already accounts for, not a warning."""
    return np.errstate(divide="ignore", invalid="ignore", over="ignore")


def matrix_terms(matrix):
    """``M, C, t, p, n`` of confusion matrices ``(..., C, C)`` in the value dtype, and their :class:`Space`."""
    xp = space(matrix)
    if matrix.ndim < 2 or matrix.shape[-1] != matrix.shape[-2] or matrix.shape[-1] == 0:
        raise InputError("matrix", f"expected square confusion matrices (..., C, C), got shape {tuple(matrix.shape)}")
    M = xp.astype(matrix, xp.values)
    t = xp.sum(M, axis=-1)
    return M, M.shape[-1], t, xp.sum(M, axis=-2), xp.sum(t, axis=-1), xp


def rescaled_matrix(matrix):
    """Real-valued confusion matrices ``(..., C, C)`` whose total is tiny (subnormal weights),
    each scaled by a power of two as :func:`metricc.runtime.terms.rescaled` scales them, on
    their device: for a formula the compiler proved of degree 0 in the counts. Others as given."""
    xp = space(matrix)
    if matrix.ndim < 2 or not xp.isdtype(matrix.dtype, "real floating"):
        return matrix
    first, second = unit_factors(xp, xp.sum(matrix, axis=(-2, -1)))
    return matrix * first[..., None, None] * second[..., None, None]


def rescaled_counts(counts):
    """Real-valued counts ``(4, ..., C)`` whose largest class total is tiny, scaled per row of
    classes by one power of two as :func:`metricc.runtime.terms.rescaled_counts` scales them."""
    xp = space(counts)
    if counts.ndim < 2 or not xp.isdtype(counts.dtype, "real floating"):
        return counts
    first, second = unit_factors(xp, xp.max(xp.sum(counts, axis=0), axis=-1))
    return counts * first[None, ..., None] * second[None, ..., None]


def class_param(name: str, value, counts, default: Callable, check: Callable | None, domain: str):
    """A per-class parameter ``(C,)``: the caller's vector checked on the host (it is the caller's
    own, C numbers) and put on the counts' device, or its default computed there from the counts."""
    xp = space(counts)
    if value is None:
        floats = xp.astype(counts, xp.values)
        return xp.broadcast_to(_array(xp, default(xp, *(floats[i, ...] for i in range(4)))), floats.shape[1:])
    vector = check_class_vector(namespace.to_host(value) if namespace.is_array(value) else value, counts.shape[-1],
                                argument=name)
    if check is not None and not np.all(check(vector)):
        raise InputError(name, f"every entry must satisfy {domain}, got {vector.tolist()!r}")
    return xp.asarray(vector)


def matrix_param(xp: Space, name: str, value, n_classes: int, default: Callable, check: Callable | None, domain: str):
    """A class_matrix parameter ``(C, C)``: the caller's checked on the host and put on the device, or its default."""
    if value is None:
        return xp.broadcast_to(_array(xp, default(xp, n_classes)), (n_classes, n_classes))
    host = host_kernel.matrix_param(name, namespace.to_host(value) if namespace.is_array(value) else value, n_classes,
                                    None, check, domain)
    return xp.asarray(host)


def on_host(function: Callable, metric_id: str, note: str, data, *, matrix: bool, **options):
    """``function`` (a numpy module's) on a host copy of ``data`` (a matrix, or counts
    ``(4, ..., C)``), its value returned in ``data``'s namespace and device; warns once per metric."""
    warnings.warn(f"{metric_id}: {note}", HostFallbackWarning, stacklevel=3)
    xp = space(data)
    host = namespace.to_host(data)
    value = function(host, **options) if matrix else function(*host, **options)
    return xp.asarray(np.asarray(value, dtype=np.float64))
