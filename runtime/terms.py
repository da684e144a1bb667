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

from collections.abc import Callable

import numpy as np

from metricc.core.errors import InputError
from metricc.runtime.confusion import (
    ClassCounts,
    StackTotals,
    check_matrix,
    checked_matrix_totals,
    column_totals,
    counts_from_matrix,
)
from metricc.runtime.context import CallContext
from metricc.runtime.scaling import unit_exponents

__all__ = ["MatrixTerms", "matrix_counts", "matrix_terms", "read_matrix", "rescaled", "rescaled_counts"]


class MatrixTerms:
    """A checked matrix ``(..., C, C)`` (int64, or float64 for weighted or probabilistic
    matrices) and its totals as float64: exact, since every total is at most 2**53.

    Per (B, C) array it keeps what the hand-written numpy of a metric set keeps: row and
    column totals (the integer ones only as exact twins), their float64 copies and the float64
    ``diagonal``; integer twins of the float64 arrays are made only when a formula asks
    (:meth:`integer`). Generated matrix-level code reads the diagonal and the twins from this
    object, so a stack is gathered and converted once per call, whatever the metrics.
    """

    __slots__ = ("matrix", "diagonal", "t", "p", "n", "_real", "_twins", "_context", "_largest", "_rescaled")

    def __init__(self, matrix: np.ndarray, rows: np.ndarray, stack: StackTotals | None = None):
        self.matrix = matrix
        self._real = self._context = self._largest = self._rescaled = None
        if stack is None:
            columns = column_totals(matrix)
            self.t = rows.astype(np.float64, copy=False)
            self.p = columns.astype(np.float64, copy=False)
            self.n = np.asarray(self.t.sum(axis=-1))
            self.diagonal = np.diagonal(matrix, axis1=-2, axis2=-1).astype(np.float64)
            twins = [rows, columns, None, None]
        else:  # read in one pass: float64 totals, integer twins only for formulas that ask
            self.t, self.p, self.n, self.diagonal = stack.rows, stack.columns, stack.total, stack.diagonal
            twins = [None] * 4
        self.diagonal.flags.writeable = False
        # Integer twins of t, p, n and the diagonal (None: made on first use); none for a real-valued matrix.
        self._twins = twins if matrix.dtype.kind in "iu" else None

    @property
    def n_classes(self) -> int:
        return self.matrix.shape[-1]

    def real_matrix(self) -> np.ndarray:
        """The matrix as float64, converted on first use only."""
        if self._real is None:
            self._real = self.matrix.astype(np.float64)
        return self._real

    def _slot(self, array) -> int | None:
        for slot, own in enumerate((self.t, self.p, self.n, self.diagonal)):
            if array is own:
                return slot
        return None

    def whole(self, array) -> bool:
        """True for the float64 totals and diagonal of an integer matrix: whole numbers, never negative."""
        return self._twins is not None and self._slot(array) is not None

    @property
    def largest(self) -> int:
        """The largest grand total: no total or diagonal entry of the matrix exceeds it."""
        if self._largest is None:
            self._largest = int(self.n.max(initial=0))
        return self._largest

    def integer(self, array) -> np.ndarray:
        """The exact int64 twin of a total or the diagonal of an integer matrix (:meth:`whole`)."""
        slot = self._slot(array)
        if self._twins[slot] is None:
            self._twins[slot] = array.astype(np.int64)
        return self._twins[slot]

    @property
    def context(self) -> CallContext:
        """Per-class TP, FP, FN, TN ``(..., C)`` as float64 (exact: whole numbers up to 2**53),
        from the diagonal and the totals, in a :class:`~metricc.runtime.context.CallContext`:
        made once, and taken by every metric of the call without a check or a conversion."""
        if self._context is None:
            tp = self.diagonal
            fp = self.p - tp
            fn = self.t - tp
            tn = np.subtract(np.asarray(self.n)[..., None], self.t)
            tn -= fp  # n - t - p + tp: every intermediate is a whole number between 0 and n
            self._context = CallContext(ClassCounts(tp, fp, fn, tn))
        return self._context

    def counts(self) -> ClassCounts:
        """The per-class counts of :attr:`context`."""
        return self.context.counts


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


def rescaled(terms: MatrixTerms) -> MatrixTerms:
    """``terms`` of a real-valued matrix whose grand total is tiny (subnormal weights; see
    :mod:`.scaling`), each
    matrix of the stack multiplied by the power of two that brings its total near 1: exact (only
    exponents change), and for a formula homogeneous of degree 0 in the counts, which the
    compiler proves before it calls this, the value is that of the matrix as given. Made once
    per call and kept with ``terms``, which every such metric of the call shares.

    >>> float(rescaled(read_matrix([[3 * 2.0 ** -1070, 2.0 ** -1070], [0.0, 2.0 ** -1069]])).n)
    0.75
    """
    if terms.matrix.dtype.kind != "f":
        return terms
    if terms._rescaled is None:
        exponents = unit_exponents(np.asarray(terms.n))
        if exponents is None:
            terms._rescaled = terms
        else:
            matrix = np.ldexp(terms.matrix, exponents[..., None, None])
            terms._rescaled = MatrixTerms(matrix, np.ldexp(terms.t, exponents[..., None]))
    return terms._rescaled


def rescaled_counts(counts: ClassCounts, context: CallContext | None,
                    *metrics: Callable) -> tuple[ClassCounts, CallContext | None]:
    """Real-valued per-class counts ``(..., C)`` whose largest class total is tiny, scaled per
    row of classes by a power of two as :func:`rescaled` scales a matrix (one power for all the
    classes, so that supports keep their ratios), with a context of their own: (counts, context)
    for a class-level formula of degree 0 in the counts. Counts without a tiny total come back
    as given, and so do all counts where one of ``metrics`` (the formula's metric parameters, as
    :func:`~metricc.runtime.kernel.metric_param` binds them) is not ``scale_free``: the proof
    took each for a value of degree 0."""
    if counts.true_positives.dtype.kind != "f" or not all(getattr(m, "scale_free", False) for m in metrics):
        return counts, context
    def make():
        totals = np.max(counts.true_positives + counts.false_positives + counts.false_negatives
                        + counts.true_negatives, axis=-1)
        exponents = unit_exponents(totals)
        if exponents is None:
            return None
        return CallContext(ClassCounts(*(np.ldexp(a, exponents[..., None]) for a in counts)))
    scaled = make() if context is None or not context.holds(counts) else context.shared(rescaled_counts, make)
    return (counts, context) if scaled is None else (scaled.counts, scaled)


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
