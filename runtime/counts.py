"""Per-class counts (TP, FP, FN, TN), the raw material of every class-level metric: checked,
or counted from indicator matrices.

Per-class counts keep the class on the last axis; leading axes are batch axes. Bad input
raises :class:`~metricc.core.errors.InputError` naming the argument; numbers are never guessed.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from metricc.core.errors import InputError

__all__ = [
    "MAX_COUNT",
    "ClassCounts",
    "as_array",
    "check_class_vector",
    "check_counts",
    "check_size",
    "exact_total",
    "float_counts",
    "multilabel_counts",
    "object_numbers",
    "samplewise_counts",
]

# The largest count (and total) taken: float64 holds every integer up to 2**53 exactly, so the
# kernels' float arithmetic starts from exact counts and their integer arithmetic from exact
# int64 values; a larger count would be rounded before any formula sees it.
MAX_COUNT = 2 ** 53


class ClassCounts(NamedTuple):
    """Per-class (or per-instance) counts, each of shape ``(..., C)``."""

    true_positives: np.ndarray
    false_positives: np.ndarray
    false_negatives: np.ndarray
    true_negatives: np.ndarray



def as_array(values, argument: str) -> np.ndarray:
    try:
        return np.asarray(values)
    except (ValueError, TypeError) as exc:
        raise InputError(argument, f"cannot be read as an array ({exc}); "
                                   "pass a rectangular sequence") from None


def exact_total(arrays, axis) -> np.ndarray:
    """The sum of ``arrays`` over ``axis``, exact for integers: float64 rounds a total near 2**53
    down to it, so an integer total that may be that large is added again in int64 (which
    cannot overflow below 2**62)."""
    approximate = sum(np.sum(a, axis=axis, dtype=np.float64) for a in arrays)
    if all(a.dtype.kind in "iu" for a in arrays) and (approximate <= 2 ** 62).all():
        return sum(np.sum(a, axis=axis, dtype=np.int64) for a in arrays)
    return approximate


def check_size(a: np.ndarray, argument: str, what: str = "a count") -> None:
    """Refuse counts (or totals of counts) above :data:`MAX_COUNT`."""
    if a.dtype.kind == "f" and float(np.finfo(a.dtype).max) < MAX_COUNT:
        return  # float16 cannot hold such a count, and 2**53 would overflow casting to it
    if (a > MAX_COUNT).any():
        raise InputError(argument, f"{what} exceeds 2**53 = {MAX_COUNT}, the largest integer float64 holds "
                                   "exactly; metricc refuses it rather than round it (scale the counts down)")


def object_numbers(a: np.ndarray, argument: str) -> np.ndarray:
    """An object array (Python integers beyond int64, mixed numbers) as float64; other arrays unchanged."""
    if a.dtype.kind != "O":
        return a
    try:
        return a.astype(np.float64)
    except OverflowError:
        raise InputError(argument, f"a count exceeds 2**53 = {MAX_COUNT}, the largest integer float64 "
                                   "holds exactly; metricc refuses it rather than round it") from None
    except (TypeError, ValueError):
        raise InputError(argument, "expected numbers, got non-numeric entries") from None



# ---------------------------------------------------------------- multi-label

def _indicator_pair(y_true, y_pred) -> tuple[np.ndarray, np.ndarray]:
    out = []
    for name, values in (("y_true", y_true), ("y_pred", y_pred)):
        a = as_array(values, name)
        if a.ndim < 2:
            raise InputError(name, f"expected an indicator matrix (..., N, C), got shape {a.shape}")
        if a.size == 0:
            raise InputError(name, f"is empty (shape {a.shape}); need samples and classes")
        if a.dtype.kind != "b":
            if a.dtype.kind not in "iuf" or not ((a == 0) | (a == 1)).all():
                raise InputError(name, "expected 0/1 (or bool) indicators; threshold "
                                       "scores before counting")
        out.append(a.astype(bool))
    if out[0].shape != out[1].shape:
        raise InputError("y_pred", f"expected shape {out[0].shape} like y_true, got {out[1].shape}")
    return out[0], out[1]


def _indicator_counts(y_true, y_pred, axis: int) -> ClassCounts:
    t, p = _indicator_pair(y_true, y_pred)
    tp = np.count_nonzero(t & p, axis=axis)
    fp = np.count_nonzero(~t & p, axis=axis)
    fn = np.count_nonzero(t & ~p, axis=axis)
    tn = np.count_nonzero(~t & ~p, axis=axis)
    return ClassCounts(*(np.asarray(x, dtype=np.int64) for x in (tp, fp, fn, tn)))


def multilabel_counts(y_true, y_pred) -> ClassCounts:
    """Per-class counts ``(..., C)`` of indicator matrices ``(..., N, C)``, summed over samples.

    >>> multilabel_counts([[1, 0], [1, 1]], [[1, 1], [0, 1]]).false_positives
    array([0, 1])
    """
    return _indicator_counts(y_true, y_pred, axis=-2)


def samplewise_counts(y_true, y_pred) -> ClassCounts:
    """Per-instance counts ``(..., N)`` of indicator matrices ``(..., N, C)``, summed over classes.

    >>> samplewise_counts([[1, 0], [1, 1]], [[1, 1], [0, 1]]).true_positives
    array([1, 1])
    """
    return _indicator_counts(y_true, y_pred, axis=-1)



def check_class_vector(values, n_classes: int, *, argument: str) -> np.ndarray:
    """Validate a per-class parameter ``(C,)`` or ``(..., C)``; returns float64.

    >>> check_class_vector([1, 2, 1], 3, argument="class_weight")
    array([1., 2., 1.])
    """
    if isinstance(n_classes, bool) or not isinstance(n_classes, (int, np.integer)) or n_classes < 1:
        raise ValueError(f"n_classes must be a positive int, got {n_classes!r}")
    v = as_array(values, argument)
    if v.dtype.kind not in "biuf":
        raise InputError(argument, f"expected numbers, got dtype {v.dtype}")
    if v.ndim == 0 or v.shape[-1] != n_classes:
        got = "a scalar" if v.ndim == 0 else f"{v.shape[-1]} (shape {v.shape})"
        raise InputError(argument, f"expected one value per class (C={n_classes}), got {got}")
    v = v.astype(np.float64)
    if not np.isfinite(v).all():
        raise InputError(argument, "contains NaN or infinity; give finite values")
    return v


def float_counts(a) -> np.ndarray:
    """``a`` as float64 (not copied when it is already)."""
    return np.asarray(a, dtype=np.float64)


def check_counts(counts, *, argument: str = "counts", integer: bool | None = None, context=None) -> ClassCounts:
    """Validate per-class counts (TP, FP, FN, TN), each ``(..., C)`` of one shape.

    ``integer`` as for :func:`check_matrix`: by default int64 when every count is a whole
    number, else float64 for all four (weighted counts). ``context``: the call's
    :class:`~metricc.runtime.context.CallContext`; counts that are its own were checked by
    the caller and come back as they are.

    >>> check_counts(([1, 2], [0, 1], [1, 0], [3, 2])).true_negatives
    array([3, 2])
    """
    if context is not None and context.holds(counts):
        return context.real if integer is False else context.counts
    if (isinstance(counts, (str, bytes)) or not hasattr(counts, "__len__")
            or (isinstance(counts, np.ndarray) and counts.ndim == 0) or len(counts) != 4):
        raise InputError(argument, "expected four arrays (true_positives, false_positives, "
                                   "false_negatives, true_negatives)")
    arrays, shape = [], None
    for field, values in zip(ClassCounts._fields, counts):
        name = f"{argument}.{field}"
        a = object_numbers(as_array(values, name), name)
        if a.dtype.kind not in "iuf":
            raise InputError(name, f"expected numeric counts, got dtype {a.dtype}")
        if a.ndim == 0 or a.size == 0:
            raise InputError(name, f"expected shape (..., C) with C >= 1, got {a.shape}")
        if shape is not None and a.shape != shape:
            raise InputError(name, f"expected shape {shape} like true_positives, got {a.shape}")
        shape = a.shape
        if not np.isfinite(a).all():
            raise InputError(name, "contains NaN or infinity; counts must be finite")
        if (a < 0).any():
            raise InputError(name, "contains negative entries; counts must be >= 0")
        check_size(a, name)
        if integer and a.dtype.kind == "f" and (a != np.round(a)).any():
            raise InputError(name, "contains non-integer counts; round them or pass integer=False")
        arrays.append(a)
    whole = all(a.dtype.kind != "f" or bool((a == np.round(a)).all()) for a in arrays)
    arrays = [a.astype(np.int64 if integer or (integer is None and whole) else np.float64) for a in arrays]
    check_size(exact_total(arrays, ()), argument, "a class's total TP + FP + FN + TN")
    return ClassCounts(*arrays)
