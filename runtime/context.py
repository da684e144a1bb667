"""The per-call context: counts checked once, and what every metric of the call derives alike
from them (:class:`CallContext`); the count curves the curve metrics of a call on scores share
(:class:`ScoreContext`).

``evaluate`` (and ``report``, ``sweep``, the audit's batches) check the counts of a call once
and hand this object to each generated function as ``context=``, with the same four arrays
as its positional counts. The function takes them without checking them again, and the
float64 copies, pooled counts (micro) and supports (weighted) that several metrics need are
made by the first that asks and kept here, for this call only: nothing outlives the context.
A function called without a context (``mc.metric("f1").function(tp, fp, fn, tn)``), or with
other arrays than the context's, checks its counts as always.

>>> import numpy as np
>>> context = CallContext(ClassCounts(*(np.array([1, 2]) for _ in range(4))))
>>> context.holds(tuple(context.counts)), context.holds((np.array([1, 2]),) * 4)
(True, False)
>>> context.real.true_positives.dtype.name
'float64'
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from metricc.runtime.counts import ClassCounts

__all__ = ["CallContext", "ScoreContext"]


class CallContext:
    """Per-class counts ``(..., C)`` a caller checked (or built valid by construction), made
    read-only, with what the metrics of one call share: their float64 copy and values derived
    from them once (:meth:`shared`). Iterating gives the four arrays, to pass positionally."""

    __slots__ = ("counts", "_real", "_shared", "_latest")

    def __init__(self, counts: ClassCounts) -> None:
        for a in counts:
            a.flags.writeable = False
        self.counts = ClassCounts(*counts)
        self._real = None
        self._shared: dict = {}
        self._latest: tuple | None = None

    def __iter__(self):
        return iter(self.counts)

    def holds(self, counts) -> bool:
        """Whether ``counts`` (the four arrays a function was given) are this context's own."""
        own = self.counts
        return (len(counts) == 4 and counts[0] is own[0] and counts[1] is own[1] and counts[2] is own[2]
                and counts[3] is own[3])

    @property
    def real(self) -> ClassCounts:
        """The counts as float64 (kernels multiply counts: int64 products wrap around), one copy per call."""
        if self._real is None:
            if all(a.dtype == np.float64 for a in self.counts):
                self._real = self.counts
            else:
                self._real = ClassCounts(*(a.astype(np.float64) for a in self.counts))
                for a in self._real:
                    a.flags.writeable = False
        return self._real

    def shared(self, what, make: Callable[[], object], *, latest_only: bool = False):
        """``make()``, once per ``what`` in this call. ``latest_only``: keep only the latest such
        value (a metric's per-class values serve its averages asked for one after the other;
        keeping every metric's would hold a (B, C) array per metric until the call ends)."""
        if latest_only:
            if self._latest is None or self._latest[0] != what:
                self._latest = (what, make())
            return self._latest[1]
        if what not in self._shared:
            self._shared[what] = make()
        return self._shared[what]


class ScoreContext:
    """The inputs of one call on scores (``y_true``, the score array, ``labels``) and the count
    curves its curve metrics read: each score column is sorted once per call, not once per
    metric. ``evaluate`` passes it as ``context=`` with the same three objects; a function given
    other inputs than the context's (by identity) builds its own curves.

    >>> context = ScoreContext([0, 1], np.array([0.2, 0.7]), None)
    >>> made = context.curves(False, lambda: "the curves")
    >>> context.curves(False, lambda: "again") == made, context.holds([0, 1], context.inputs[1], None)
    (True, False)
    """

    __slots__ = ("inputs", "_curves")

    def __init__(self, y_true, scores, labels) -> None:
        self.inputs = (y_true, scores, labels)
        self._curves: dict[bool, object] = {}

    def holds(self, y_true, scores, labels) -> bool:
        """Whether a function was given this context's own inputs (the same objects)."""
        own = self.inputs
        return y_true is own[0] and scores is own[1] and labels is own[2]

    def curves(self, multilabel: bool, make: Callable[[], object]):
        """``make()`` once per reading of the truth (``multilabel`` or not) in this call."""
        if multilabel not in self._curves:
            self._curves[multilabel] = make()
        return self._curves[multilabel]
