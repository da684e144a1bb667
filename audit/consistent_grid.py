"""Exact searches of ``metricc consistent``: every integer confusion matrix, in batches.

Two classes: the whole (TP, TN) grid of the class totals (``binary_batches``), or of every
split of ``--samples`` into totals. More classes: every matrix with the given row totals,
each row a composition of its total (``matrix_batches``), or every matrix of N samples.
Batches are matrices ``(B, C, C)`` (rows = true class) of at most ``CHUNK`` cells, so memory
stays bounded whatever the grid; the scores are the generated functions applied to a batch.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator

import numpy as np

from metricc.api import trusted_batch

__all__ = ["CHUNK", "Batch", "binary_batches", "binary_trace_batches", "binary_samples_size", "matrix_batches",
           "matrix_search_size", "compositions"]

CHUNK = 1 << 16  # matrices per batch: arrays of CHUNK x C x C int64 stay in the cache


class Batch:
    """Confusion matrices ``(B, C, C)`` with their totals and per-class counts computed once, on demand.

    Stored batch-last (``(C, C, B)``) and handed out as views: numpy reduces the short class
    axes of the generated code several times faster over contiguous batch rows. The matrices
    are valid by construction, so the generated functions get them through
    :mod:`metricc.api.trusted_batch`, which skips their per-call input checks.
    """

    def __init__(self, cells_last: np.ndarray) -> None:
        self.cells_last = cells_last
        self._terms = None
        self._counts = None

    def __len__(self) -> int:
        return self.cells_last.shape[-1]

    @property
    def matrix(self) -> np.ndarray:
        return np.moveaxis(self.cells_last, -1, 0)

    @property
    def terms(self):
        """What a matrix-level function reads (pass it as its ``matrix``), checked once by construction."""
        if self._terms is None:
            self._terms = trusted_batch.matrix_terms(self.matrix)
        return self._terms

    @property
    def counts(self):
        """(TP, FP, FN, TN), each ``(B, C)``, in the context the generated functions take without a check."""
        if self._counts is None:
            self._counts = trusted_batch.counts_of_cells(self.cells_last)
        return self._counts

    def class_counts(self, index: int):
        """(TP, FP, FN, TN) of one class, each ``(B, 1)``: a binary score needs no other class."""
        return trusted_batch.counts_of_cells(self.cells_last, index)

    def take(self, index: np.ndarray) -> Batch:
        return Batch(self.cells_last[..., index])

    @classmethod
    def of_matrices(cls, matrices: np.ndarray) -> Batch:
        return cls(np.ascontiguousarray(np.moveaxis(matrices, 0, -1)))


def binary_batches(negatives: int, positives: int) -> Iterator[Batch]:
    """Every matrix ``[[TN, N0 - TN], [N1 - TP, TP]]``: TP from 0 to N1, TN from 0 to N0."""
    width = negatives + 1
    rows = max(1, CHUNK // width)
    tn_row = np.arange(width, dtype=np.int64)
    for start in range(0, positives + 1, rows):
        tp = np.repeat(np.arange(start, min(start + rows, positives + 1), dtype=np.int64), width)
        tn = np.tile(tn_row, len(tp) // width)
        cells = np.empty((2, 2, len(tp)), dtype=np.int64)
        cells[0, 0], cells[0, 1] = tn, negatives - tn
        cells[1, 0], cells[1, 1] = positives - tp, tp
        yield Batch(cells)


def binary_trace_batches(negatives: int, positives: int, traces: np.ndarray) -> Iterator[Batch]:
    """The cells of :func:`binary_batches` whose trace TP + TN is one of ``traces``: a score of
    the trace alone (accuracy, micro averages) cuts the grid down to a few diagonals."""
    pending_tp, pending_tn, size = [], [], 0
    for trace in np.asarray(traces, dtype=np.int64):
        tp = np.arange(max(0, trace - negatives), min(positives, trace) + 1, dtype=np.int64)
        pending_tp.append(tp)
        pending_tn.append(trace - tp)
        size += len(tp)
        if size >= CHUNK or trace == traces[-1]:
            tp, tn = np.concatenate(pending_tp), np.concatenate(pending_tn)
            pending_tp, pending_tn, size = [], [], 0
            for start in range(0, len(tp), CHUNK):
                part_tp, part_tn = tp[start:start + CHUNK], tn[start:start + CHUNK]
                cells = np.empty((2, 2, len(part_tp)), dtype=np.int64)
                cells[0, 0], cells[0, 1] = part_tn, negatives - part_tn
                cells[1, 0], cells[1, 1] = positives - part_tp, part_tp
                yield Batch(cells)


def binary_samples_size(samples: int) -> int:
    """Cells of every (TP, TN) grid over every split of ``samples`` into two class totals:
    the sum of (p + 1)(n - p + 1) over p, in closed form (no loop over a billion splits)."""
    return math.comb(samples + 3, 3)


def compositions(total: int, parts: int) -> np.ndarray:
    """Every way to write ``total`` as ``parts`` non-negative integers, ``(K, parts)``, K =
    binomial(total + parts - 1, parts - 1) (stars and bars)."""
    count = math.comb(total + parts - 1, parts - 1)
    flat = itertools.chain.from_iterable(itertools.combinations(range(total + parts - 1), parts - 1))
    bars = np.fromiter(flat, dtype=np.int64, count=count * (parts - 1)).reshape(count, parts - 1)
    edges = np.concatenate([np.full((len(bars), 1), -1), bars, np.full((len(bars), 1), total + parts - 1)], axis=1)
    return np.diff(edges, axis=1) - 1


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def matrix_search_size(class_totals: list[int] | None, samples: int, classes: int, limit: int | None = None) -> int:
    """How many matrices :func:`matrix_batches` would enumerate; with ``limit``, any number
    over it once the count is known to exceed it (estimated from logarithms first, so 10^5
    classes or 10^9 samples cost no huge binomial)."""
    if class_totals is not None:
        terms = [(t + classes - 1, classes - 1) for t in class_totals]
    else:
        terms = [(samples + classes * classes - 1, classes * classes - 1)]
    if limit is not None and sum(_log_comb(n, k) for n, k in terms) > math.log(max(limit, 1)) + 1.0:
        return limit + 1
    return math.prod(math.comb(n, k) for n, k in terms)


def matrix_batches(class_totals: list[int] | None, samples: int, classes: int) -> Iterator[Batch]:
    """Every matrix with these row totals (each row one composition of its total), or every
    ``classes x classes`` matrix of ``samples`` samples."""
    if class_totals is None:
        cells = compositions(samples, classes * classes)
        for start in range(0, len(cells), CHUNK):
            yield Batch.of_matrices(cells[start:start + CHUNK].reshape(-1, classes, classes))
        return
    rows = [compositions(t, classes) for t in class_totals]
    sizes = [len(r) for r in rows]
    total = math.prod(sizes)
    for start in range(0, total, CHUNK):
        flat = np.arange(start, min(start + CHUNK, total), dtype=np.int64)
        picks = np.unravel_index(flat, sizes)
        yield Batch(np.stack([rows[i][picks[i]].T for i in range(classes)]))
