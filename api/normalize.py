"""Normalized values: a metric value as a percentage of its range, 0 worst, 100 best.

Branco et al. (2017, Section 2) report every metric this way so that metrics with different
ranges and directions compare at a glance: MCC 0.301 in [-1, 1] is 65.1%, CEN 0.022 (lower
is better, [0, 1]) is 97.8%. The range and direction come from each spec; a metric with an
infinite bound has no worst or best value, and asking for its normalized value is an error.

>>> print(f"{normalized('mcc', 0.301):.2f}")
65.05
"""

from __future__ import annotations

import math

import numpy as np

from metricc.core.errors import InputError
from metricc.runtime.registry import MetricInfo

__all__ = ["normalized"]


def normalized(metric: str | MetricInfo, value):
    """``value`` of ``metric`` (id, alias or :class:`MetricInfo`) in percent of its range.

    ``100 (value - worst) / (best - worst)``, with worst and best the range bounds in the
    metric's direction. NaN stays NaN; arrays work elementwise.
    """
    if isinstance(metric, MetricInfo):
        info = metric
    else:
        from metricc.api.evaluate import metric as lookup

        info = lookup(metric)
    low, high = info.range
    if math.isinf(low) or math.isinf(high):
        raise InputError("metric", f"{info.id} has the unbounded range [{low:g}, {high:g}]: it has no worst or best "
                                   "value, so no normalized value")
    if info.higher_is_better is None:
        raise InputError("metric", f"{info.id} has no better direction (higher_is_better: null): no worst or best "
                                   "value, so no normalized value")
    try:
        number = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InputError("value", f"expected a number or an array of numbers, got {value!r}") from None
    worst, best = (low, high) if info.higher_is_better else (high, low)
    result = 100.0 * (number - worst) / (best - worst)
    return result[()] if result.ndim == 0 else result
