"""Interpretation bands: the label a published scale gives a metric's value.

The scales come from the specs' ``interpretation:`` key through each generated module's
``INFO.interpretation`` (the first is the metric's default). A value on a boundary belongs to
the one band whose closed end it is; the compiler checked that the bands do not overlap and
cover the metric's range unless the scale declares gaps.

>>> interpret("cohen_kappa", 0.61)
'Substantial'
>>> interpret("cohen_kappa", [0.61, 0.2], scale="fleiss")
['Intermediate to Good', 'Poor']
>>> interpret("cohen_kappa", 0.75, scale="all")["cicchetti"]
'Excellent'
>>> interpret("mcc", float("nan")) is None
True
"""

from __future__ import annotations

import numpy as np

from metricc.core.errors import InputError
from metricc.runtime.registry import MetricInfo, Scale, find_metric

__all__ = ["interpret", "scale_of"]


def interpret(metric: str | MetricInfo, value, scale: str | None = None):
    """The band label of ``value`` on ``scale`` (default: the metric's first scale).

    ``value`` is a number (label: ``str``; ``None`` where undefined, NaN, or in a gap of the
    scale) or array-like (nested lists of labels of the same shape; per-class values keep
    their order). ``scale="all"`` returns ``{scale id: labels}`` for every scale of the metric.
    A value outside the metric's range is an :class:`InputError`.
    """
    info = metric if isinstance(metric, MetricInfo) else find_metric(metric)
    if scale == "all":
        return {s.id: _labels(info, s, value) for s in info.interpretation}
    return _labels(info, scale_of(info, scale), value)


def scale_of(metric: str | MetricInfo, scale: str | None = None) -> Scale:
    """The scale ``scale`` of ``metric`` (its first when None); an InputError names the choices."""
    info = metric if isinstance(metric, MetricInfo) else find_metric(metric)
    if not info.interpretation:
        raise InputError("scale", f"'{info.id}' has no interpretation scale; `metricc explain` lists the metrics' scales")
    if scale is None:
        return info.interpretation[0]
    wanted = _normal(scale)
    for candidate in info.interpretation:
        if _normal(candidate.id) == wanted:
            return candidate
    known = ", ".join(s.id for s in info.interpretation)
    raise InputError("scale", f"'{info.id}' has no scale {scale!r}; its scales are {known}")


def _labels(info: MetricInfo, scale: Scale, value):
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InputError("value", f"expected a number or an array of numbers, got {value!r}") from None
    low, high = info.range
    outside = ~np.isnan(array) & ((array < low) | (array > high))
    if np.any(outside):
        shown = float(array[outside].flat[0])
        raise InputError("value", f"{shown!r} is outside the range [{low:g}, {high:g}] of '{info.id}'; "
                                  "interpret takes the metric's own values")
    labels = np.full(array.shape, None, dtype=object)  # NaN is in no band: compared with a bound it is false
    for band in scale.bands:
        labels[band.contains(array)] = band.label
    return labels.tolist()  # a 0-d array gives its one label


def _normal(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())
