"""A confusion matrix read once: the checked stack and the totals every matrix-level kernel needs.

A generated matrix-level function reads the matrix ``M``, its row totals ``t``, column totals
``p`` and grand total ``n``. Reading them once per call, and once per :func:`evaluate` for all
the metrics it computes, is what keeps a batch ``(B, C, C)`` of matrices at the cost of
hand-written numpy: validation is fused into the passes that compute the totals, and the stack
is copied to float64 only for a formula that reads it entry by entry (and then once).

>>> M, C, t, p, n = matrix_terms([[5, 1], [2, 7]])
>>> M.dtype.name, C, t.tolist(), p.tolist(), float(n)
('int64', 2, [6.0, 9.0], [7.0, 8.0], 15.0)
>>> matrix_counts(read_matrix([[5, 1], [2, 7]])).false_positives.tolist()
[2.0, 1.0]
"""

from __future__ import annotations

import weakref

import numpy as np

from metricc.core.errors import InputError
from metricc.runtime.confusion import (
    ClassCounts,
    StackTotals,
    check_matrix,
    checked_matrix_totals,
    column_totals,
    counts_from_matrix,
    trusted_counts,
)

__all__ = ["MatrixTerms", "derived", "matrix_counts", "matrix_terms", "read_matrix", "whole"]


# Arrays a MatrixTerms derived, by id, with what the kernels would otherwise recompute from
# them: the float64 diagonal of its matrix (a strided gather over the whole stack), and the
# exact integer twin of each float64 total (which ``exact`` would convert and compare back).
# An entry goes when its array does (a weak reference's callback), so an id is never confused
# with a later array's.
_DERIVED: dict[int, tuple[weakref.ref, list]] = {}

# Remembered for float64 totals known to be whole numbers up to 2**53: their int64 twin, made
# on first use (a formula without an exact part never pays for it).
_WHOLE = object()


def _remember(array: np.ndarray, derived) -> None:
    if not isinstance(array, np.ndarray):  # a scalar total (one matrix): nothing worth remembering
        return
    key = id(array)
    _DERIVED[key] = (weakref.ref(array, lambda _, key=key: _DERIVED.pop(key, None)), [derived])


def derived(array) -> np.ndarray | None:
    """The diagonal of a matrix, or the integer twin of a total, remembered by :class:`MatrixTerms`; else None."""
    entry = _DERIVED.get(id(array))
    if entry is None or entry[0]() is not array:
        return None
    if entry[1][0] is _WHOLE:
        entry[1][0] = array.astype(np.int64)
    return entry[1][0]


def whole(array) -> bool:
    """True for float64 counts :class:`MatrixTerms` derived from an integer matrix (it remembers
    an integer twin for them, made or not yet): whole numbers, never negative."""
    entry = _DERIVED.get(id(array))
    if entry is None or entry[0]() is not array:
        return False
    twin = entry[1][0]
    return twin is _WHOLE or (twin.dtype.kind in "iu" and twin.shape == np.shape(array))


class MatrixTerms:
    """A checked matrix ``(..., C, C)`` (int64, or float64 for weighted or probabilistic
    matrices) and its totals as float64: exact, since every total is at most 2**53.

    Per (B, C) array it keeps what the hand-written numpy of a metric set keeps: row and
    column totals (the integer ones only as exact twins), their float64 copies and the float64
    diagonal; integer twins of the float64 arrays are made only when a formula asks.
    """

    __slots__ = ("matrix", "_diagonal", "t", "p", "n", "_real", "__weakref__")

    def __init__(self, matrix: np.ndarray, rows: np.ndarray, stack: StackTotals | None = None):
        # A view of its own: what is remembered about it is this object's, never a caller's array.
        self.matrix = matrix.view()
        self._real = None
        integer = matrix.dtype.kind in "iu"
        if stack is None:
            columns = column_totals(matrix)
            self.t = rows.astype(np.float64, copy=False)
            self.p = columns.astype(np.float64, copy=False)
            self.n = np.asarray(self.t.sum(axis=-1))  # an array for one matrix too: its twin is remembered
            self._diagonal = np.diagonal(matrix, axis1=-2, axis2=-1).astype(np.float64)
            twins = (rows, columns, _WHOLE)
        else:  # read in one pass: float64 totals, integer twins only for formulas that ask
            self.t, self.p, self.n, self._diagonal = stack.rows, stack.columns, stack.total, stack.diagonal
            twins = (_WHOLE,) * 3
        self._diagonal.flags.writeable = False
        _remember(self.matrix, self._diagonal)
        if integer:
            for real, twin in zip((self.t, self.p, self.n), twins):
                _remember(real, twin)
            _remember(self._diagonal, _WHOLE)  # from the contiguous copy: no second gather over the stack

    @property
    def n_classes(self) -> int:
        return self.matrix.shape[-1]

    def real_matrix(self) -> np.ndarray:
        """The matrix as float64, converted on first use only."""
        if self._real is None:
            self._real = self.matrix.astype(np.float64)
            _remember(self._real, derived(self.matrix))
        return self._real

    def counts(self) -> ClassCounts:
        """Per-class TP, FP, FN, TN ``(..., C)`` as float64 (exact: whole numbers up to 2**53),
        from the diagonal and the totals, read-only and trusted: the metrics they are passed to
        need neither check nor convert them."""
        tp = self._diagonal
        fp = self.p - tp
        fn = self.t - tp
        tn = np.subtract(np.asarray(self.n)[..., None], self.t)
        tn -= fp  # n - t - p + tp: every intermediate is a whole number between 0 and n
        return trusted_counts(ClassCounts(tp, fp, fn, tn))


def read_matrix(matrix, *, argument: str = "matrix", integer: bool = False) -> MatrixTerms:
    """Check a confusion matrix ``(..., C, C)`` (rows = true classes) and total it, once;
    ``integer``: float entries that are all whole numbers become int64 (exact arithmetic);
    real-valued (weighted, normalised) matrices stay float64."""
    if isinstance(matrix, MatrixTerms):
        return matrix
    m, rows, stack = checked_matrix_totals(matrix, argument=argument)
    if integer and m.dtype.kind == "f":
        m = check_matrix(m, argument=argument)  # whole numbers as int64, else float64
        rows = rows.astype(m.dtype)
        stack = None if stack is None else stack._replace(rows=rows, columns=stack.columns.astype(m.dtype))
    return MatrixTerms(m, rows, stack)


def matrix_terms(matrix, *, elementwise: bool = False, whole_counts: bool = False):
    """``(M, C, t, p, n)`` of a matrix or of :class:`MatrixTerms` already read.

    ``M`` is float64 when ``elementwise`` (the formula reads entries of ``M`` beyond its
    diagonal, and integer products of them could overflow); otherwise it is the checked
    matrix as given, whose diagonal :func:`~metricc.runtime.kernel.diagonal` reads as float64.
    ``whole_counts`` (a spec's ``counts: whole``): the formula counts pairs of samples or binomial trials, so a matrix
    with a fraction (probabilistic or weighted) is an :class:`InputError`, not a value out of range.
    """
    terms = read_matrix(matrix)
    if whole_counts:
        _require_whole(terms.matrix)
    M = terms.real_matrix() if elementwise else terms.matrix
    return M, terms.n_classes, terms.t, terms.p, terms.n


def _require_whole(matrix: np.ndarray) -> None:
    if matrix.dtype.kind != "f":
        return
    fractional = matrix != np.floor(matrix)
    if fractional.any():
        at = tuple(int(i) for i in np.argwhere(fractional)[0])
        raise InputError("matrix", f"entry {list(at)} = {float(matrix[at]):.6g} is not a whole count; this metric "
                                   "counts pairs of samples (n (n - 1) / 2) or binomial trials, which a probabilistic or weighted "
                                   "matrix does not have: pass counts")


def matrix_counts(matrix) -> ClassCounts:
    """Per-class counts of a matrix, or of :class:`MatrixTerms` without reading it again."""
    if isinstance(matrix, MatrixTerms):
        return matrix.counts()
    return counts_from_matrix(matrix)
