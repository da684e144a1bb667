"""How ``metricc eval`` prints its values: as ``key: value`` lines or as one JSON object.

The command turns what it computed into :class:`Values` (JSON-ready data); the two functions
here lay them out, and :data:`metricc.api.report_formats.FORMATS` lists them beside the
report's formats.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["Values", "values_json", "values_text"]


@dataclass(frozen=True)
class Values:
    """What ``metricc eval`` prints, as JSON-ready data (numbers, lists, ``{class label: number}``)
    by request key: the values, and where asked their percent of the range, interpretation bands
    (``{scale id: band, or {label: band}}``) or intervals (the fields of an ``Interval``)."""

    values: Mapping[str, object]
    normalized: Mapping[str, object] | None = None
    bands: Mapping[str, Mapping] | None = None
    scale_names: Mapping[str, str] = field(default_factory=dict)  # scale id -> its name, for text
    intervals: Mapping[str, Mapping[str, object]] | None = None
    confidence: float = 0.95


def _band_suffix(shown: Values, key: str, label=None) -> str:
    """`` (Moderate: Landis and Koch)`` for one value (``label``: its class, for per-class values)."""
    scales = (shown.bands or {}).get(key)
    if not scales:
        return ""
    parts = []
    for scale_id, labels in scales.items():
        band = labels[label] if label is not None else labels
        parts.append(f"{band if band is not None else 'no band'}: {shown.scale_names[scale_id]}")
    return " (" + "; ".join(parts) + ")"


def _percent(percent) -> str:
    if percent is None:
        return ""
    if isinstance(percent, list):
        return f" ({json.dumps(percent)} % of range)"
    return f" ({percent:.4g}% of range)"


def _interval_lines(key: str, interval: Mapping[str, object], confidence: float) -> list[str]:
    """``key: value (95% CI lower to upper, se s, logit scale)``, one line per class for
    per-class values; a metric the method does not apply to: its value and why."""
    value, lower, upper, se = (interval[name] for name in ("value", "lower", "upper", "se"))
    if interval["note"]:
        return [f"{key}: {json.dumps(value)} (no interval: {interval['note']})"]
    level = f"{100 * confidence:g}% CI"
    scale = f", {interval['scale']} scale" if interval["scale"] else ""
    if isinstance(value, dict):
        return [f"{key}[{label}]: {json.dumps(v)} ({level} {json.dumps(lower[label])} to "
                f"{json.dumps(upper[label])}, se {json.dumps(se[label])}{scale})" for label, v in value.items()]
    return [f"{key}: {json.dumps(value)} ({level} {json.dumps(lower)} to {json.dumps(upper)}, se {json.dumps(se)}{scale})"]


def values_text(shown: Values) -> str:
    """``key: value``, or one ``key[label]: value`` line per class; ``(P% of range)`` when
    normalized, ``(Band: Scale)`` when interpreted."""
    if shown.intervals is not None:
        return "\n".join(line for key, interval in shown.intervals.items()
                         for line in _interval_lines(key, interval, shown.confidence))
    lines = []
    for key, value in shown.values.items():
        percent = None if shown.normalized is None else shown.normalized[key]
        if isinstance(value, dict):
            lines += [f"{key}[{label}]: {json.dumps(v)}" + _percent(percent[label] if percent else None)
                      + _band_suffix(shown, key, label) for label, v in value.items()]
        else:
            lines.append(f"{key}: {json.dumps(value)}" + _percent(percent) + _band_suffix(shown, key))
    return "\n".join(lines)


def values_json(shown: Values) -> str:
    """One JSON object by key: the value, or with --normalized / --interpret an object of the
    value and those; with intervals, the interval's fields."""
    if shown.intervals is not None:
        return json.dumps(shown.intervals)
    if shown.normalized is None and shown.bands is None:
        return json.dumps(dict(shown.values))
    out = {}
    for key, value in shown.values.items():
        out[key] = {"value": value}
        if shown.normalized is not None:
            out[key]["normalized"] = shown.normalized[key]
        if shown.bands is not None:
            out[key]["interpretation"] = shown.bands.get(key, {})
    return json.dumps(out)
