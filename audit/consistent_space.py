"""The exact searches of ``metricc consistent`` over an enumerated set of matrices.

A :class:`Space` is a way to list every candidate matrix in batches (the (TP, TN) grid of two
classes, every matrix with the totals of more). :func:`search` streams it once for one score
set; when the space is small (``MASK_LIMIT`` cells) :class:`Space` instead keeps, per score,
the packed bit mask of the matrices that give it, so the readings search
(:mod:`.consistent_readings`) decides each of its score sets by AND-ing masks, without
evaluating anything twice.

When no matrix gives every score, the *patterns* (which scores hold together on some matrix)
are rows of a boolean table, one column per score: any number of scores, no bit-mask width
limit. :func:`conflicts` reads the smallest sets of scores that no pattern holds together.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from collections.abc import Callable, Iterator

import numpy as np

from metricc.audit import consistent_grid as grid
from metricc.core.errors import InputError
from metricc.api.evaluate import metric
from metricc.api.progress import track
from metricc.runtime.averaging import POSITIVE_CLASS

__all__ = ["MASK_LIMIT", "MAX_MATRICES", "CONFLICT_BUDGET", "Space", "values", "matches", "search", "conflicts",
           "pattern_rows", "unpack"]

MASK_LIMIT = 2_000_000  # cells of a space whose per-score masks are kept (2.5e5 bytes each)
MAX_MATRICES = 10
CONFLICT_BUDGET = 200_000  # score subsets (times patterns / 64) examined for the smallest conflicts


def values(score, batch: grid.Batch) -> np.ndarray:
    """The score's metric on every matrix of ``batch`` (averaging and positive class as read)."""
    info = metric(score.metric)
    if info.takes == "matrix":
        return np.asarray(info.function(batch.terms), dtype=float)
    if not info.per_class_counts:  # an aggregate of counts
        return np.asarray(info.function(*batch.counts, context=batch.counts), dtype=float)
    if score.average == POSITIVE_CLASS:  # per-class kernels are elementwise: the positive class only
        positive = 1 if score.pos_label is None else score.pos_label
        counts = batch.class_counts(positive)
        return np.asarray(info.function(*counts, average=POSITIVE_CLASS, pos_label=0, context=counts), dtype=float)
    return np.asarray(info.function(*batch.counts, average=score.average, pos_label=1, context=batch.counts), dtype=float)


def matches(score, batch: grid.Batch) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.abs(values(score, batch) - score.value) <= score.tolerance + 1e-12


def pattern_rows(table: np.ndarray) -> set[bytes]:
    """The distinct rows of a boolean ``(B, S)`` table, each packed to bytes."""
    packed = np.ascontiguousarray(np.packbits(table, axis=1))
    if not packed.shape[1]:
        return {b""}
    rows = np.unique(packed.view(np.dtype((np.void, packed.shape[1]))).ravel())
    return {bytes(r) for r in rows}


def unpack(patterns: set[bytes], count: int) -> np.ndarray:
    """Packed pattern rows back to a boolean ``(P, count)`` table."""
    if not patterns:
        return np.zeros((0, count), dtype=bool)
    packed = np.frombuffer(b"".join(sorted(patterns)), dtype=np.uint8).reshape(len(patterns), -1)
    return np.unpackbits(packed, axis=1, count=count).astype(bool)


def conflicts(labels: list[str], patterns: np.ndarray) -> tuple[list[list[int]], bool]:
    """The smallest sets of scores (column indices) that no pattern (row) holds together, and
    whether the search of subsets stopped at ``CONFLICT_BUDGET`` (then the sets found so far)."""
    work = 0
    for size in range(1, len(labels) + 1):
        found = []
        for subset in itertools.combinations(range(len(labels)), size):
            work += 1 + len(patterns) // 64
            if work > CONFLICT_BUDGET:
                return found[:MAX_MATRICES], True
            if not np.any(np.all(patterns[:, list(subset)], axis=1)):
                found.append(list(subset))
        if found:
            return found[:MAX_MATRICES], False
    return [], False


def search(scores, batches: Callable[[], Iterator[grid.Batch]], candidates=None, progress: bool = True):
    """Stream the space once: (count, first matrices, patterns or None). ``candidates``: a subset
    of the batches that holds every feasible matrix, searched first."""
    count, found = 0, []
    for batch in track((candidates or batches)(), "consistency search", enabled=progress):
        for score in scores:
            batch = batch.take(np.flatnonzero(matches(score, batch)))
            if not len(batch):
                break
        count += len(batch)
        found.extend(batch.matrix[:MAX_MATRICES - len(found)].tolist())
    if count:
        return count, found, None
    seen: set[bytes] = set()
    for batch in track(batches(), "conflict search", enabled=progress):
        seen |= pattern_rows(np.stack([matches(s, batch) for s in scores], axis=1))
    return 0, [], unpack(seen, len(scores))


class Space:
    """An enumerated set of matrices of at most ``MASK_LIMIT`` cells, with each score's match
    mask (packed bits, concatenated over the batches) computed once."""

    def __init__(self, batches: Callable[[], Iterator[grid.Batch]], progress: bool = False) -> None:
        self.batches = batches
        self.progress = progress
        self._masks: dict = {}
        self.sizes = [len(b) for b in batches()]
        self.size = sum(self.sizes)

    def mask(self, score) -> np.ndarray:
        if score not in self._masks:
            batches = track(self.batches(), "consistency search", enabled=self.progress)
            bits = np.concatenate([matches(score, b) for b in batches]) if self.size else np.zeros(0, bool)
            self._masks[score] = np.packbits(bits)
        return self._masks[score]

    def feasible(self, scores) -> tuple[int, list]:
        """(count, first matrices) of the matrices that give every score."""
        both = np.bitwise_and.reduce([self.mask(s) for s in scores])
        bits = np.unpackbits(both, count=self.size).astype(bool)
        count = int(bits.sum())
        found, start = [], 0
        if count:
            for batch, size in zip(self.batches(), self.sizes):
                hits = np.flatnonzero(bits[start:start + size])[:MAX_MATRICES - len(found)]
                found.extend(batch.matrix[hits].tolist())
                start += size
                if len(found) >= MAX_MATRICES:
                    break
        return count, found

    def patterns(self, scores) -> np.ndarray:
        table = np.stack([np.unpackbits(self.mask(s), count=self.size).astype(bool) for s in scores], axis=1)
        return unpack(pattern_rows(table), len(scores))


def check_usable(scores, classes: int) -> None:
    """Refuse a score that cannot be evaluated on matrices of this size (a parameter without a
    default), probed on one small matrix (never a C x C array of a huge C)."""
    size = min(classes, 8)
    probe = grid.Batch.of_matrices(np.ones((1, size, size), dtype=np.int64))
    for score in scores:
        if score.pos_label is not None and score.pos_label >= size:  # the probe's last class stands in
            score = replace(score, pos_label=size - 1)
        try:
            values(score, probe)
        except InputError as error:
            raise InputError("score", f"{score.label}: {error.message}") from None
