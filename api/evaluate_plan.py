"""The fused steps of ``evaluate``'s plan on counts: class-level values averaged ``macro``,
``weighted`` or ``micro`` read straight off their metric's bare kernel
(:attr:`~metricc.runtime.registry.MetricInfo.class_kernel`), aggregates as their formula
(``term_kernel``) of terms so averaged, with what the averages of a call share made once for
all of them (:class:`FusedCall`).

A generated class-level function checks its counts, looks its context up, dispatches on the
averaging mode and builds the averaging's inputs on every call: about 10 µs of Python per value,
most of a small call's time. A fused step is made once per request signature
(:func:`fused_step`) and does only the numpy work, the same operations in the same order as
:func:`~metricc.runtime.apply.average_class_metric` and the mode's row of
:mod:`~metricc.runtime.averaging`, so the values are the generated function's to the bit
(``tests/api/test_evaluate_plan.py``). A call is fused only where that holds without a
check per value (:func:`fused_call`): whole counts (nothing to rescale), a float
``zero_division`` (not ``"skip"``) and no class weights; any other call, and every other
step, takes the generated function as before.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from metricc.api.read_inputs import Counted
from metricc.runtime.apply import COUNT_NAMES, apply_kernel, float_class_counts, pooled_totals, support
from metricc.runtime.averaging import sum_last_axis
from metricc.runtime.confusion import ClassCounts
from metricc.runtime.context import CallContext
from metricc.runtime.division import finish, nonzero

__all__ = ["FusedCall", "fused_call", "fused_step"]

_NO_PARAMS: dict = {}


class FusedCall:
    """What the fused steps of one call share: its checked counts (as float64), each kernel's
    per-class values (undefined entries already ``zero_division``), the class supports of the
    weighted means with their total, and the counts pooled over classes for every micro average."""

    __slots__ = ("context", "zero_division", "_values", "_weights", "_pooled")

    def __init__(self, context: CallContext, zero_division: float) -> None:
        self.context = context
        self.zero_division = zero_division
        self._values: dict = {}
        self._weights: tuple | None = None
        self._pooled: ClassCounts | None = None

    def values(self, kernel: Callable) -> np.ndarray:
        """The kernel's per-class values, once per call (a metric's macro and weighted averages
        share them), as :func:`~metricc.runtime.apply.per_class_values` makes them."""
        found = self._values.get(kernel)
        if found is None:
            real = self.context.real
            value, undefined = kernel(*real)
            shape = real.true_positives.shape
            if getattr(value, "shape", None) != shape or getattr(undefined, "shape", None) != shape:
                value, undefined = apply_kernel(kernel, real, _NO_PARAMS)  # a constant: broadcast to the classes
            found = self._values[kernel] = np.where(undefined, self.zero_division, value) if undefined.any() else value
        return found

    def weights(self) -> tuple:
        """``(supports, where a support is 0, nonzero total, where the total is 0)``: what every
        weighted mean of the call reads (:func:`~metricc.runtime.averaging._weighted_mean`)."""
        if self._weights is None:
            context = self.context
            supports = context.shared("support", lambda: support(context.real))
            total = sum_last_axis(supports)
            self._weights = (supports, supports == 0, nonzero(total), total == 0)
        return self._weights

    def pooled(self) -> ClassCounts | None:
        """The counts summed over classes as float64, one set for every micro average; None when
        a total exceeds 2**53 (the generated function then says which, or pools what its kernel reads)."""
        if self._pooled is None:
            context = self.context
            totals = context.shared("pooled", lambda: pooled_totals(context.counts))
            if totals.all_beyond or any(totals.beyond):
                return None
            # pooled(counts, COUNT_NAMES, totals) when no total is beyond: the totals themselves
            self._pooled = context.shared(("pooled", COUNT_NAMES), lambda: float_class_counts(totals.totals))
        return self._pooled


def fused_call(counted: Counted, zero_division, weights) -> FusedCall | None:
    """The shared values of a call whose fused steps give the generated functions' values
    without a check of their own, else None: whole counts of at least one class (integer
    counts or an integer matrix: never rescaled), a float ``zero_division`` and no class
    weights. (The fused modes read no ``pos_label``; the caller checks one given once.)"""
    if type(zero_division) is not float or math.isinf(zero_division) or weights is not None:
        return None
    terms, counts = counted.terms, counted.counts
    whole = counts.true_positives.dtype.kind in "iu" or (terms is not None and terms.matrix.dtype.kind in "iu")
    if not whole or counts.true_positives.shape[-1] == 0:
        return None
    return FusedCall(counted.context, zero_division)


def fused_step(info, mode: str | None) -> Callable[[FusedCall], object] | None:
    """The fused step of a class-level metric averaged by ``mode``, or of an aggregate whose
    terms are all so averaged (:attr:`~metricc.runtime.registry.MetricInfo.term_kernel`); None
    where the generated function must run: a metric with parameters, one whose kernel needs an
    errstate (its function carries one), or a mode without a fused form."""
    if info.params or hasattr(info.function, "__wrapped__"):
        return None
    if info.term_kernel is not None:
        return _aggregate(info.term_kernel, info.class_terms, info.function)
    kernel, make = info.class_kernel, _MODES.get(mode)
    if kernel is None or make is None:
        return None
    return make(kernel, lambda call: info.function(*call.context.counts, context=call.context, average="micro",
                                                   zero_division=call.zero_division))


class _Beyond(Exception):
    """A pooled total beyond 2**53: the aggregate's generated function runs instead."""


def _refused(call: FusedCall):
    raise _Beyond


def _aggregate(term_kernel, class_terms, function):
    terms = tuple(_MODES[mode](kernel, _refused) for kernel, mode in class_terms)

    def aggregate(call: FusedCall):
        try:
            values = [term(call) for term in terms]
        except _Beyond:
            context = call.context
            return function(*context.counts, context=context, zero_division=call.zero_division)
        return finish(*term_kernel(*values), call.zero_division)
    return aggregate


def _macro(kernel, beyond):
    def macro(call: FusedCall):
        values = call.values(kernel)
        return (sum_last_axis(values) / values.shape[-1])[()]
    return macro


def _weighted(kernel, beyond):
    def weighted(call: FusedCall):
        supports, empty, total, no_total = call.weights()
        mean = sum_last_axis(np.where(empty, 0.0, call.values(kernel) * supports)) / total
        return finish(mean, no_total, call.zero_division)
    return weighted


def _micro(kernel, beyond):
    """``beyond(call)``: the value where a pooled total exceeds 2**53."""
    def micro(call: FusedCall):
        counts = call.pooled()
        if counts is None:
            return beyond(call)
        value, undefined = apply_kernel(kernel, counts, _NO_PARAMS)
        # finish's array branch (the pooled counts keep a class axis of 1), then that axis dropped
        return (np.where(undefined, call.zero_division, value).astype(float) + 0.0)[..., 0][()]
    return micro


_MODES = {"macro": _macro, "weighted": _weighted, "micro": _micro}
