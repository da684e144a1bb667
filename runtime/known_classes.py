"""Classes known up front (``labels=``), prepared once for counting labels against them.

Known classes need no sort of the labels: integer classes in 0..K-1 are counted on the K x K
grid of label values, as labels without ``labels=`` are, and the classes' rows and columns
taken in their order; other classes are looked up in their sorted order, one searchsorted a
chunk. Both count chunk by chunk, so memory does not grow with the number of labels. What
may be prepared from the classes alone (order, grid, which values are classes) is prepared
once: an accumulator with fixed labels prepares them once for all its chunks.
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["CHUNK", "GRID_CELLS", "KnownClasses"]

# Labels counted per chunk: a chunk, its cell numbers and its counts stay in cache (2 MiB of
# L2), so the labels are read from memory once where ``bincount(t * K + p)`` reads and writes
# three arrays of their size.
CHUNK = 1 << 17

# The most cells of a grid counted chunk by chunk: one per label of a chunk.
GRID_CELLS = CHUNK


class KnownClasses:
    """Checked classes (``check_labels``) and what counting against them needs."""

    def __init__(self, classes: np.ndarray) -> None:
        self.classes = classes
        c = len(classes)
        self.few = c * c <= GRID_CELLS and classes.dtype.kind != "O"  # objects are looked up by hash
        integer = classes.dtype.kind in "iu"
        self.values = integer and int(classes.min()) >= 0 and (int(classes.max()) + 1) ** 2 <= GRID_CELLS
        self.k = int(classes.max()) + 1 if self.values else c
        self.order = np.argsort(classes, kind="stable") if self.few else None
        self.ordered = classes[self.order] if self.few else None
        self.at = classes.astype(np.intp) if self.values else None
        self.identity = self.values and self.k == c and bool((self.at == np.arange(c)).all())
        self.unknown = None  # values on the grid that are no class, if any
        if self.values and self.k > c:
            self.unknown = np.ones(self.k, dtype=bool)
            self.unknown[self.at] = False

    def counts(self, t: np.ndarray, p: np.ndarray) -> np.ndarray | None:
        """Counts ``(1, C, C)`` of unweighted 1-d labels that numpy compares exactly with the
        classes; None when some label is not a class (the caller names it) or C x C is large."""
        if not self.few:
            return None
        values = self.values and t.dtype.kind in "iu" and p.dtype.kind in "iu"
        k = self.k if values else len(self.classes)
        total = None
        for start in range(0, t.size, CHUNK):
            labels = (t[start:start + CHUNK], p[start:start + CHUNK])
            if values:  # read as unsigned, a negative label is larger than any grid
                if max(int(a.view(_unsigned(a.dtype)).max()) for a in labels) >= k:
                    return None
                codes = labels
            else:
                codes = [self.order[np.minimum(np.searchsorted(self.ordered, a), k - 1)] for a in labels]
                if not all((self.classes[code] == a).all() for code, a in zip(codes, labels)):
                    return None
            cells = np.multiply(codes[0], k, dtype=np.intp)
            cells += codes[1]
            chunk = np.bincount(cells, minlength=k * k)
            total = chunk if total is None else total + chunk
        grid = total.astype(np.int64, copy=False).reshape(1, k, k)
        if not values or self.identity:
            return grid
        if self.unknown is not None and (grid[:, self.unknown].any() or grid[:, :, self.unknown].any()):
            return None
        return grid[:, self.at][:, :, self.at]


@functools.lru_cache(maxsize=64)
def _unsigned(dtype: np.dtype) -> np.dtype:
    """The unsigned twin of an integer dtype, byte order kept: a negative label reads as larger
    than any grid."""
    return np.dtype(dtype.str.replace("i", "u"))
