"""Confusion matrices: checked, totalled in one pass, oriented, and turned into per-class counts.

``M[..., i, j]`` counts samples of true class ``i`` predicted as class ``j`` (rows are true
classes); leading axes are batch axes and every function is vectorised over them.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from metricc.core.errors import InputError
from metricc.runtime.counts import MAX_COUNT, ClassCounts, as_array, check_size, exact_total, object_numbers

__all__ = [
    "ORIENTATIONS",
    "StackTotals",
    "check_matrix",
    "checked_matrix",
    "checked_matrix_totals",
    "column_totals",
    "counts_from_matrix",
    "orient",
    "row_totals",
]

ORIENTATIONS = ("true-rows", "pred-rows")


def check_matrix(matrix, *, argument: str = "matrix", integer: bool | None = None) -> np.ndarray:
    """Validate a confusion matrix ``(..., C, C)``; returns int64 (or float64 if not ``integer``).

    ``integer=None`` takes whole numbers as int64 (exact arithmetic) and real-valued matrices
    (weighted, normalised) as float64; ``True`` refuses non-integers.

    >>> check_matrix([[3, 1], [0, 2]]).dtype
    dtype('int64')
    >>> check_matrix([[0.5, 1.5], [0.0, 2.0]]).dtype
    dtype('float64')
    >>> check_matrix([[0.5, 0.5], [0.0, 1.0]], integer=False).tolist()
    [[0.5, 0.5], [0.0, 1.0]]
    """
    m, _ = checked_matrix(matrix, argument=argument)
    if integer is False:
        return m.astype(np.float64, copy=False)
    if m.dtype.kind == "f" and (m != np.round(m)).any():
        if integer is None:
            return m.astype(np.float64, copy=False)
        raise InputError(argument, "contains non-integer counts; round them, or use "
                                   "integer=False for a probabilistic confusion matrix")
    return m.astype(np.int64, copy=False)


def checked_matrix(matrix, *, argument: str = "matrix") -> tuple[np.ndarray, np.ndarray]:
    """-> (the matrix ``(..., C, C)`` as given, int64 or float64; its row totals ``(..., C)``)."""
    m, rows, _ = checked_matrix_totals(matrix, argument=argument)
    return m, rows


def checked_matrix_totals(matrix, *, argument: str = "matrix") -> tuple[np.ndarray, np.ndarray, StackTotals | None]:
    """-> (the matrix ``(..., C, C)`` as given, int64 or float64; its row totals ``(..., C)``;
    for a large stack, its column totals and float64 diagonal read in the same pass, else None).

    One pass checks every entry: read as unsigned 64-bit integers, a negative entry (sign bit
    set), NaN or infinity is larger than the bits of 2**53, and every count in 0..2**53 is not
    (float64 bits of non-negative numbers are ordered as the numbers); only a matrix failing
    it is read again for a message saying what is wrong. The row totals, which the kernels
    need anyway, bound every column and grand total. Integer totals are exact int64 sums (no
    entry exceeds 2**53 by then, so they overflow only for C >= 1024, where the sums are taken
    in float64 and checked first).
    """
    m = object_numbers(as_array(matrix, argument), argument)
    if m.dtype.kind not in "iuf":
        raise InputError(argument, f"expected numeric counts, got dtype {m.dtype}")
    if m.ndim < 2 or m.shape[-1] != m.shape[-2]:
        raise InputError(argument, f"expected a square matrix (C, C) or a batch (..., C, C), "
                                   f"got shape {m.shape}")
    if m.size == 0:
        raise InputError(argument, f"is empty (shape {m.shape}); need at least one class")
    if m.dtype.kind in "iu" and m.dtype != np.int64 and m.dtype.itemsize < 8:
        m = m.astype(np.int64)
    stack = _stack_totals(m)
    if stack is not None:
        return m, stack.rows, stack
    if not _counts_in_range(m):
        _range_error(m, argument)
        m = m.astype(np.float64 if m.dtype.kind == "f" else np.int64, copy=False)  # -0.0 entries, uint64 counts
    if m.dtype.kind == "f" or m.shape[-1] < 1024:
        m = m.astype(np.float64 if m.dtype.kind == "f" else np.int64, copy=False)
        t = row_totals(m)  # C * 2**53 < 2**63: an int64 row total cannot overflow
        if m.dtype.kind != "f":  # nor, once each is at most 2**53, the grand total
            check_size(t, argument, "the total of the matrix")
        check_size(t.sum(axis=-1), argument, "the total of the matrix")
        return m, t, None
    m = m.astype(np.int64, copy=False)
    t = exact_total([m], -1)
    check_size(t, argument, "the total of the matrix")
    check_size(exact_total([t], -1), argument, "the total of the matrix")
    return m, t, None


class StackTotals(NamedTuple):
    """Row totals, column totals ``(..., C)``, grand totals ``(...)`` and diagonal of a stack,
    all float64: exact, since every total was checked to be at most 2**53."""

    rows: np.ndarray
    columns: np.ndarray
    total: np.ndarray
    diagonal: np.ndarray


# A stack is checked and totalled chunk by chunk: a chunk of this many bytes stays in the L2
# cache while its range check, row and column totals and diagonal read it, so the stack is
# read from memory once where four separate passes read it four times.
_STACK_CHUNK_BYTES = 1 << 19


def _stack_totals(m: np.ndarray) -> StackTotals | None:
    """The float64 totals of a large contiguous int64 or float64 stack (C < 1024) whose
    entries and grand totals are all counts in 0..2**53, read in one pass; None for anything
    else (read by separate passes, which also say what is wrong). Per chunk the totals are
    taken in the stack's own dtype (exact int64 sums) and only then stored as float64."""
    c = m.shape[-1]
    if (m.ndim < 3 or m.nbytes < 4 * _STACK_CHUNK_BYTES or c >= 1024 or m.dtype not in (np.int64, np.float64)
            or not m.flags.c_contiguous):
        return None
    flat = m.reshape(-1, c, c)
    bits, largest = flat.view(np.uint64), _LARGEST_BITS[m.dtype]
    rows, columns, diagonal = (np.empty(flat.shape[:2]) for _ in range(3))
    total = np.empty(flat.shape[0])
    step = max(1, _STACK_CHUNK_BYTES // (c * c * 8))
    for start in range(0, flat.shape[0], step):
        stop = start + step
        if int(bits[start:stop].max()) > largest:
            return None
        chunk = flat[start:stop]
        chunk_rows = np.einsum("bij->bi", chunk)
        chunk_total = np.einsum("bi->b", chunk_rows)
        if (chunk_total > MAX_COUNT).any():  # entries are not negative: nor is any total larger
            return None
        rows[start:stop], total[start:stop] = chunk_rows, chunk_total
        np.einsum("bij->bj", chunk, out=columns[start:stop], dtype=np.float64, casting="unsafe")
        np.copyto(diagonal[start:stop], np.diagonal(chunk, axis1=-2, axis2=-1))
    batch = m.shape[:-1]
    return StackTotals(rows.reshape(batch), columns.reshape(batch), total.reshape(batch[:-1]), diagonal.reshape(batch))


_LARGEST_BITS = {np.dtype(np.int64): MAX_COUNT, np.dtype(np.uint64): MAX_COUNT,
                 np.dtype(np.float64): int(np.float64(MAX_COUNT).view(np.uint64))}


def _counts_in_range(m: np.ndarray) -> bool:
    """Every entry of an int64, uint64 or float64 array is a count in 0..2**53 (one max pass)."""
    largest = _LARGEST_BITS.get(m.dtype)
    return largest is not None and int(m.view(np.uint64).max()) <= largest


def _range_error(m: np.ndarray, argument: str) -> None:
    """Name what is wrong with entries the one-pass check refused (min and max are read again);
    -0.0, and float16 or float32 entries, may be fine."""
    low, high = m.min(), m.max()
    if m.dtype.kind == "f" and not (np.isfinite(low) and np.isfinite(high)):
        raise InputError(argument, "contains NaN or infinity; counts must be finite")
    if low < 0:
        raise InputError(argument, "contains negative entries; counts must be >= 0")
    check_size(np.asarray(high), argument)


def row_totals(m: np.ndarray) -> np.ndarray:
    """``m.sum(axis=-1)``; einsum adds short rows several times faster than ``sum`` does."""
    return np.einsum("...ij->...i", m)


def column_totals(m: np.ndarray) -> np.ndarray:
    """``m.sum(axis=-2)``, as einsum adds them."""
    return np.einsum("...ij->...j", m)


def orient(matrix, orientation: str = "true-rows") -> np.ndarray:
    """Return ``matrix`` with true classes in rows; ``"pred-rows"`` input is transposed.

    >>> orient([[5, 1], [2, 7]], "pred-rows").tolist()
    [[5, 2], [1, 7]]
    """
    if not isinstance(orientation, str) or orientation not in ORIENTATIONS:
        raise InputError("orientation", f"{orientation!r} is not one of "
                                        f"{list(ORIENTATIONS)}; say which axis holds true classes")
    m = as_array(matrix, "matrix")
    if m.ndim < 2:
        raise InputError("matrix", f"expected shape (..., C, C), got {m.shape}")
    return m if orientation == "true-rows" else np.swapaxes(m, -1, -2)


def counts_from_matrix(matrix) -> ClassCounts:
    """Per-class TP, FP, FN, TN ``(..., C)`` from a matrix ``(..., C, C)`` with true rows.

    Integer matrices give int64 counts, float (probabilistic) matrices float64 counts.

    >>> counts_from_matrix([[5, 1], [2, 7]])
    ClassCounts(true_positives=array([5, 7]), false_positives=array([2, 1]), \
false_negatives=array([1, 2]), true_negatives=array([7, 5]))
    """
    raw = as_array(matrix, "matrix")
    m = check_matrix(raw, integer=raw.dtype.kind in "iu")
    tp = np.diagonal(m, axis1=-2, axis2=-1).copy()
    fp = m.sum(axis=-2) - tp
    fn = m.sum(axis=-1) - tp
    tn = m.sum(axis=(-2, -1))[..., None] - tp - fp - fn
    return ClassCounts(tp, fp, fn, tn)
