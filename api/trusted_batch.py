"""Counts and matrix terms of batches of confusion matrices built valid by construction.

An internal entry point for exhaustive searches (``metricc consistent`` evaluates every matrix
of a two-class grid, up to 10^8 of them): every generated function checks its input on each
call (shape, dtype, finiteness, sign, size), which on such batches costs more than the
formulas. Matrix terms made here are read as checked, and counts come in a
:class:`~metricc.runtime.context.CallContext`: passed as ``context=`` with its four arrays,
the generated functions take them as they take what :func:`~metricc.api.evaluate` derived itself.

Nothing is checked here: the caller guarantees non-negative int64 entries whose totals stay
below 2**53 (a grid of class totals that were checked once). Stacks may be batch-last
(``(C, C, B)``, handed out as ``(B, C, C)`` views): the generated code then reduces the short
class axes over contiguous batch rows, several times faster than over ``(B, C)`` rows.

>>> import numpy as np
>>> import metricc.api as mc
>>> cells = np.array([[[5, 1], [2, 7]], [[3, 3], [0, 9]]])        # two matrices, rows = true class
>>> terms = matrix_terms(cells)
>>> mc.metric("mcc").function(terms).round(4).tolist()
[0.6001, 0.6124]
>>> counts = counts_of(terms)
>>> mc.metric("f1").function(*counts, average="binary", context=counts).round(4).tolist()
[0.8235, 0.8571]
"""

from __future__ import annotations

import numpy as np

from metricc.runtime.confusion import ClassCounts
from metricc.runtime.context import CallContext
from metricc.runtime.terms import MatrixTerms

__all__ = ["matrix_terms", "counts_of", "counts_of_cells", "one_class"]


def matrix_terms(matrices: np.ndarray) -> MatrixTerms:
    """The terms every matrix-level function reads, of int64 matrices ``(..., C, C)`` (any
    strides), without checking them; pass the result where a generated function takes ``matrix``."""
    if matrices.dtype != np.int64:
        raise TypeError(f"expected int64 matrices built by the caller, got {matrices.dtype}")
    return MatrixTerms(matrices, matrices.sum(axis=-1))


def counts_of(terms: MatrixTerms) -> CallContext:
    """Per-class (TP, FP, FN, TN) ``(..., C)`` of :func:`matrix_terms` in their context: a
    class-level or aggregate function given them with it skips its input checks."""
    return terms.context


def counts_of_cells(cells: np.ndarray, index: int | None = None) -> CallContext:
    """Per-class (TP, FP, FN, TN) of batch-last int64 matrices ``(C, C, B)`` straight from the
    cells, as ``(B, C)`` views of contiguous ``(C, B)`` rows, in a context; ``index``: that
    class alone, ``(B, 1)`` (of a 2 x 2 grid: four cells, no arithmetic at all)."""
    if cells.dtype != np.int64:
        raise TypeError(f"expected int64 matrices built by the caller, got {cells.dtype}")
    if index is not None and cells.shape[0] == 2:
        other = 1 - index
        tp, fp, fn, tn = cells[index, index], cells[other, index], cells[index, other], cells[other, other]
        return CallContext(ClassCounts(*(a[:, None] for a in (tp, fp, fn, tn))))
    classes = np.arange(cells.shape[0])
    rows = cells.sum(axis=1)
    tp = cells[classes, classes]
    fp = cells.sum(axis=0) - tp
    fn = rows - tp
    tn = rows.sum(axis=0) - rows - fp
    counts = (tp, fp, fn, tn) if index is None else (a[index:index + 1] for a in (tp, fp, fn, tn))
    return CallContext(ClassCounts(*(a.T for a in counts)))


def one_class(counts: CallContext, index: int) -> CallContext:
    """The counts of class ``index`` alone, ``(..., 1)``, in a context of their own: a per-class
    value of one class (binary averaging) without computing the others."""
    return CallContext(ClassCounts(*(c[..., index:index + 1] for c in counts.counts)))
