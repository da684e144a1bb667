"""Counts that are added up chunk by chunk: every metric of data that does not fit in memory.

Confusion counts are sums over samples, so the counts of a data set are the sums of the
counts of its chunks, in any order and on any machine. An accumulator takes chunks
(``update``), merges with the accumulator of another worker (``merge``) and computes any
metric of the catalog from what it holds (``compute``), with the same result as
:func:`~metricc.api.evaluate.evaluate` on all the data at once: the counts are integers,
added exactly, and the class order is the sorted union of the labels seen, whatever the order
of the chunks.

>>> acc = ConfusionAccumulator()
>>> acc.update(["a", "b"], ["a", "a"]).update(["c"], ["b"]).classes.tolist()
['a', 'b', 'c']
>>> acc.matrix.tolist()
[[1, 0, 0], [1, 0, 0], [0, 1, 0]]
>>> print(f"{acc.compute('accuracy')['accuracy']:.4f}")
0.3333
"""

from __future__ import annotations

import math

import numpy as np

from metricc.runtime import confusion
from metricc.runtime import labels as labels_of
from metricc.core.errors import InputError
from metricc.api.evaluate import evaluate, metric
from metricc.runtime import averaging

__all__ = ["ConfusionAccumulator", "MultilabelAccumulator"]


def _union(known: np.ndarray | None, seen: np.ndarray) -> np.ndarray:
    """The sorted union of two label sets, ordered as :func:`~.confusion.class_labels` orders them."""
    if known is None:
        return seen
    numeric = set("biuf")
    same = known.dtype.kind == seen.dtype.kind or {known.dtype.kind, seen.dtype.kind} <= numeric
    both = np.concatenate([known, seen]) if same and "O" not in known.dtype.kind + seen.dtype.kind \
        else np.concatenate([known.astype(object), seen.astype(object)])
    return confusion.class_labels(both, both)


def _positions(classes: np.ndarray, within: np.ndarray) -> np.ndarray:
    """Index in ``within`` of each of ``classes`` (all present)."""
    index = {v: k for k, v in enumerate(within.tolist())}
    return np.array([index[v] for v in classes.tolist()], dtype=np.int64)


def _embed(matrix: np.ndarray, classes: np.ndarray, into: np.ndarray) -> np.ndarray:
    """``matrix`` over ``classes`` as a matrix over the larger class set ``into`` (zeros elsewhere)."""
    out = np.zeros((len(into), len(into)), dtype=matrix.dtype)
    at = _positions(classes, into)
    out[np.ix_(at, at)] = matrix
    return out


class ConfusionAccumulator:
    """A confusion matrix added up over chunks of single-label data.

    ``labels`` fixes the class set and order up front: a label outside it is an error naming
    it. Without ``labels`` the class set grows: a chunk with new classes re-embeds the matrix
    in the sorted union, so the result equals the matrix of all the data in one call.
    Chunks may also be confusion matrices (``update(matrix=...)``), named by ``labels=``
    or, when the accumulator has no labels at all, by position.
    """

    def __init__(self, labels=None) -> None:
        self.fixed = labels is not None
        self.classes = None if labels is None else confusion.check_labels(labels)
        self.matrix = None if labels is None else np.zeros((len(self.classes),) * 2, dtype=np.int64)
        self.known = None if labels is None else labels_of.KnownClasses(self.classes)  # prepared once for every chunk
        self.positional = False  # classes known only by index (matrices without labels)

    def _grow(self, classes: np.ndarray, argument: str) -> None:
        if self.positional:
            raise InputError(argument, "this accumulator holds matrices without labels (classes by position); "
                                       "give every chunk as a matrix, or labels= from the start")
        if self.fixed:
            missing = [v for v in classes.tolist() if v not in set(self.classes.tolist())]
            if missing:
                raise InputError(argument, f"label {missing[0]!r} is not one of the labels {self.classes.tolist()!r} "
                                           "fixed up front; add it there or drop those samples")
            return
        union = _union(self.classes, classes)
        if self.matrix is not None and len(union) != len(self.classes):
            self.matrix = _embed(self.matrix, self.classes, union)
        self.classes = union
        self.known = labels_of.KnownClasses(union)

    def _add(self, matrix: np.ndarray, classes: np.ndarray | None) -> None:
        if classes is not None:
            matrix = _embed(matrix, classes, self.classes)
        if self.matrix is None:
            self.matrix = matrix.copy()
            return
        if matrix.dtype.kind == "f" or self.matrix.dtype.kind == "f":
            self.matrix = self.matrix.astype(np.float64) + matrix
        else:
            self.matrix += matrix

    def update(self, y_true=None, y_pred=None, *, matrix=None, labels=None, sample_weight=None,
               orientation: str = "true-rows") -> ConfusionAccumulator:
        """Add one chunk: labels ``y_true``/``y_pred`` (``(N,)``), or a confusion ``matrix``
        ``(C, C)`` whose classes are ``labels``; returns the accumulator."""
        if (matrix is None) == (y_true is None):
            raise InputError("input", "give one chunk: y_true and y_pred, or matrix=")
        if matrix is None:
            if y_pred is None:
                raise InputError("y_pred", "y_true needs y_pred")
            if labels is not None:
                raise InputError("labels", "fix the class set when creating the accumulator: ConfusionAccumulator(labels=...)")
            t, p = labels_of.check_pair(y_true, y_pred)
            if t.ndim != 1:
                raise InputError("y_true", f"expected one chunk of labels (N,), got shape {t.shape}")
            weights = None if sample_weight is None else labels_of.check_weights(sample_weight, t.shape)
            if self.known is not None:  # the classes so far, prepared once: most chunks bring no new one
                try:
                    self._add(labels_of.counted(t, p, self.known, weights)[1], None)
                    return self
                except InputError:
                    if self.fixed:
                        self._grow(labels_of.counted(t, p, None)[0], "y_true")  # names the label outside them
                        raise
            seen, chunk = labels_of.counted(t, p, None, weights)
            self._grow(seen, "y_true")
            self._add(chunk, seen)
            return self
        if y_pred is not None:
            raise InputError("y_pred", "give labels or a matrix, not both")
        if sample_weight is not None:
            raise InputError("sample_weight", "weights apply to labels; weigh the matrix before passing it")
        raw = np.asarray(confusion.orient(matrix, orientation))
        chunk = confusion.check_matrix(raw, integer=raw.dtype.kind in "iuO")
        if chunk.ndim != 2:
            raise InputError("matrix", f"expected one matrix (C, C) per update, got shape {chunk.shape}")
        if labels is None:
            return self._add_positional(chunk)
        names = confusion.check_labels(labels)
        if len(names) != chunk.shape[0]:
            raise InputError("labels", f"expected one label per class of the matrix ({chunk.shape[0]}), got {len(names)}")
        self._grow(names, "labels")
        self._add(chunk, names)
        return self

    def _add_positional(self, chunk: np.ndarray) -> ConfusionAccumulator:
        if self.classes is not None:
            if len(self.classes) != chunk.shape[0]:
                raise InputError("matrix", f"expected {len(self.classes)} classes like the accumulator "
                                           f"({self.classes.tolist()!r}), got {chunk.shape[0]}; give labels=")
            self._add(chunk, None)
            return self
        if self.matrix is not None and self.matrix.shape != chunk.shape:
            raise InputError("matrix", f"expected shape {self.matrix.shape} like the earlier chunks, got {chunk.shape}")
        self.positional = True
        self._add(chunk, None)
        return self

    def merge(self, other: ConfusionAccumulator) -> ConfusionAccumulator:
        """Add the counts of ``other`` (another worker's accumulator) to this one; returns self."""
        if not isinstance(other, ConfusionAccumulator):
            raise InputError("other", f"expected a ConfusionAccumulator, got {type(other).__name__}")
        if other.matrix is None:
            return self
        if other.positional or self.positional:
            if self.classes is not None or other.classes is not None:
                raise InputError("other", "one accumulator names its classes and the other does not; give both labels")
            return self._add_positional(other.matrix)
        self._grow(other.classes, "other")
        self._add(other.matrix, other.classes)
        return self

    def reset(self) -> ConfusionAccumulator:
        """Forget the counts; a class set fixed up front stays."""
        self.__init__(self.classes if self.fixed else None)
        return self

    @property
    def counts(self) -> confusion.ClassCounts:
        """Per-class TP, FP, FN, TN of the matrix so far."""
        return confusion.counts_from_matrix(self._checked())

    def _checked(self) -> np.ndarray:
        if self.matrix is None:
            raise InputError("update", "no data yet: call update() with at least one chunk first")
        return self.matrix

    def compute(self, metrics, **options) -> dict[str, object]:
        """Metrics of the counts so far, as :func:`~metricc.api.evaluate.evaluate` computes
        them from the whole matrix (``options``: ``average``, ``params``, ``zero_division`` ...)."""
        return evaluate(metrics, matrix=self._checked(), labels=self.classes, **options)

    def __repr__(self) -> str:
        n = 0 if self.matrix is None else self.matrix.sum()
        return f"ConfusionAccumulator(classes={None if self.classes is None else self.classes.tolist()!r}, samples={n})"


class MultilabelAccumulator:
    """Per-class and per-instance counts of multi-label indicator data, added up over chunks.

    Per-class counts ``(C,)`` are sums. Per-instance counts (TP, FP, FN, TN of one sample
    over its ``C`` labels) are kept as a histogram of distinct count tuples, at most
    ``(C + 1)**3`` of them however many samples arrive: a mean over instances (``samples``
    averaging, ``f1_of_sample_averages``) only depends on how often each tuple occurs, and the
    tuples are expanded in sorted order when computing, so no chunk order changes a digit.
    """

    def __init__(self) -> None:
        self.class_counts = None
        self.instances: dict[tuple[int, int, int, int], int] = {}

    def update(self, y_true, y_pred) -> MultilabelAccumulator:
        """Add indicator matrices ``(N, C)`` of one chunk; returns the accumulator."""
        if np.ndim(y_true) != 2:
            raise InputError("y_true", f"expected one chunk of indicators (N, C), got shape {np.shape(y_true)}")
        per_class = np.stack(confusion.multilabel_counts(y_true, y_pred))
        if self.class_counts is not None and self.class_counts.shape != per_class.shape:
            raise InputError("y_true", f"expected {self.class_counts.shape[1]} labels (columns) like the "
                                       f"earlier chunks, got {per_class.shape[1]}")
        rows, times = np.unique(np.stack(confusion.samplewise_counts(y_true, y_pred), axis=-1), axis=0, return_counts=True)
        self._add(per_class, zip(map(tuple, rows.tolist()), times.tolist()))
        return self

    def _add(self, per_class: np.ndarray, instances) -> None:
        self.class_counts = per_class.copy() if self.class_counts is None else self.class_counts + per_class
        for row, times in instances:
            self.instances[row] = self.instances.get(row, 0) + times

    def merge(self, other: MultilabelAccumulator) -> MultilabelAccumulator:
        """Add the counts of ``other``; returns self."""
        if not isinstance(other, MultilabelAccumulator):
            raise InputError("other", f"expected a MultilabelAccumulator, got {type(other).__name__}")
        if other.class_counts is None:
            return self
        if self.class_counts is not None and self.class_counts.shape != other.class_counts.shape:
            raise InputError("other", f"holds {other.class_counts.shape[1]} labels, this one {self.class_counts.shape[1]}")
        self._add(other.class_counts, other.instances.items())
        return self

    def reset(self) -> MultilabelAccumulator:
        self.__init__()
        return self

    @property
    def counts(self) -> confusion.ClassCounts:
        """Per-class TP, FP, FN, TN ``(C,)`` so far."""
        if self.class_counts is None:
            raise InputError("update", "no data yet: call update() with at least one chunk first")
        return confusion.ClassCounts(*self.class_counts)

    @property
    def instance_counts(self) -> confusion.ClassCounts:
        """Per-instance TP, FP, FN, TN ``(N,)``, in sorted order of the count tuples."""
        if not self.instances:
            raise InputError("update", "no data yet: call update() with at least one chunk first")
        rows = sorted(self.instances)
        expanded = np.repeat(np.array(rows, dtype=np.int64), [self.instances[r] for r in rows], axis=0)
        return confusion.ClassCounts(*expanded.T)

    def compute(self, metrics, *, average=None, params=None, zero_division=math.nan, **options) -> dict[str, object]:
        """Metrics of the counts so far, equal to ``evaluate(..., multilabel=True)`` on all chunks."""
        names = [metrics] if isinstance(metrics, str) else list(metrics)
        by_instance = [n for n in names if metric(n).per_instance
                       or (metric(n).per_class_counts and averaging.per_instance(average or metric(n).default_average))]
        results = {}
        others = [n for n in names if n not in by_instance]
        if others:
            results.update(evaluate(others, counts=self.counts, average=average, params=params,
                                    zero_division=zero_division, **options))
        for name in by_instance:
            info = metric(name)
            kwargs = {p.name: (params or {})[p.name] for p in info.params if p.name in (params or {})}
            if info.per_class_counts:
                kwargs.update(average="samples", **options)
            results[name] = info.function(*self.instance_counts, zero_division=zero_division, **kwargs)
        return {name: results[name] for name in names}

    def __repr__(self) -> str:
        labels = None if self.class_counts is None else self.class_counts.shape[1]
        return f"MultilabelAccumulator(labels={labels}, samples={sum(self.instances.values())})"
