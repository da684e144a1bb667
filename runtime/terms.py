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
[2, 1]
"""

from __future__ import annotations

import numpy as np

from metricc.runtime.confusion import ClassCounts, check_matrix, checked_matrix, counts_from_matrix, trusted_counts

__all__ = ["MatrixTerms", "matrix_counts", "matrix_terms", "read_matrix"]


class MatrixTerms:
    """A checked matrix ``(..., C, C)`` (int64, or float64 for weighted or probabilistic
    matrices) and its totals as float64: exact, since every total is at most 2**53."""

    __slots__ = ("matrix", "_rows", "_columns", "t", "p", "n", "_real")

    def __init__(self, matrix: np.ndarray, rows: np.ndarray):
        self.matrix, self._rows = matrix, rows
        self._columns = matrix.sum(axis=-2)
        self.t = rows.astype(np.float64, copy=False)
        self.p = self._columns.astype(np.float64, copy=False)
        self.n = self.t.sum(axis=-1)
        self._real = None

    @property
    def n_classes(self) -> int:
        return self.matrix.shape[-1]

    def real_matrix(self) -> np.ndarray:
        """The matrix as float64, converted on first use only."""
        if self._real is None:
            self._real = self.matrix.astype(np.float64, copy=False)
        return self._real

    def counts(self) -> ClassCounts:
        """Per-class TP, FP, FN, TN ``(..., C)`` from the diagonal and the totals (int64 for an
        integer matrix), read-only and trusted: the metrics they are passed to need not check them."""
        tp = np.diagonal(self.matrix, axis1=-2, axis2=-1).copy()
        fp = self._columns - tp
        fn = self._rows - tp
        tn = self._rows.sum(axis=-1)[..., None] - tp - fp - fn
        return trusted_counts(ClassCounts(tp, fp, fn, tn))


def read_matrix(matrix, *, argument: str = "matrix", integer: bool = False) -> MatrixTerms:
    """Check a confusion matrix ``(..., C, C)`` (rows = true classes) and total it, once;
    ``integer``: float entries must be whole numbers, and become int64."""
    if isinstance(matrix, MatrixTerms):
        return matrix
    m, rows = checked_matrix(matrix, argument=argument)
    if integer and m.dtype.kind == "f":
        m = check_matrix(m, argument=argument)  # whole numbers as int64, else the error
        rows = rows.astype(np.int64)
    return MatrixTerms(m, rows)


def matrix_terms(matrix, *, elementwise: bool = False):
    """``(M, C, t, p, n)`` of a matrix or of :class:`MatrixTerms` already read.

    ``M`` is float64 when ``elementwise`` (the formula reads entries of ``M`` beyond its
    diagonal, and integer products of them could overflow); otherwise it is the checked
    matrix as given, whose diagonal :func:`~metricc.runtime.kernel.diagonal` reads as float64.
    """
    terms = read_matrix(matrix)
    M = terms.real_matrix() if elementwise else terms.matrix
    return M, terms.n_classes, terms.t, terms.p, terms.n


def matrix_counts(matrix) -> ClassCounts:
    """Per-class counts of a matrix, or of :class:`MatrixTerms` without reading it again."""
    if isinstance(matrix, MatrixTerms):
        return matrix.counts()
    return counts_from_matrix(matrix)
