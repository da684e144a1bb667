"""How ``metricc eval`` prints its values: :class:`Values` is a document of
:mod:`metricc.api.formats`, so ``eval --format`` offers every format of that table.

The command turns what it computed into :class:`Values` (JSON-ready data). Its own text layout
is ``key: value`` lines (:func:`values_text`); JSON writes :meth:`Values.data`; the other
formats lay out its one table (:meth:`Values.blocks`): a row per value, or per class of a
per-class value, the numbers as JSON writes them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from metricc.api.formats import Note, Table

__all__ = ["SweepValues", "Values", "values_text"]


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

    title = "Metric values"  # a document of metricc.api.formats
    json_indent = None
    json_ascii = True

    def data(self) -> dict:
        """By key: the value, or with normalized values or bands an object of the value and
        those; with intervals, the interval's fields."""
        if self.intervals is not None:
            return dict(self.intervals)
        if self.normalized is None and self.bands is None:
            return dict(self.values)
        out = {}
        for key, value in self.values.items():
            out[key] = {"value": value}
            if self.normalized is not None:
                out[key]["normalized"] = self.normalized[key]
            if self.bands is not None:
                out[key]["interpretation"] = self.bands.get(key, {})
        return out

    def blocks(self, digits: int) -> list:
        return _interval_blocks(self) if self.intervals is not None else [_value_table(self)]

    def own_layouts(self) -> dict:
        return {"text": lambda digits: values_text(self)}


@dataclass(frozen=True)
class SweepValues:
    """What ``metricc eval --sweep`` prints: each metric's values (JSON-ready, by metric key)
    at each vector of the grid of parameter ``param``; its own text layout is tab-separated."""

    param: str
    grid: list
    values: Mapping[str, list]

    title = "Metric values over a parameter grid"  # a document of metricc.api.formats
    json_indent = None
    json_ascii = True

    def data(self) -> dict:
        return {"param": self.param, "grid": self.grid, "values": dict(self.values)}

    def blocks(self, digits: int) -> list:
        rows = tuple((json.dumps(row), *(json.dumps(self.values[m][i]) for m in self.values))
                     for i, row in enumerate(self.grid))
        return [Table((self.param, *self.values), rows, "Values")]

    def own_layouts(self) -> dict:
        return {"text": self._tab_separated}

    def _tab_separated(self, digits: int) -> str:
        table = self.blocks(digits)[0]
        return "\n".join("\t".join(row) for row in (table.header, *table.rows))


def _by_class(key: str, value, *columns) -> list[tuple]:
    """``(key, None, value, column...)``, or one ``(key[label], label, ...)`` row per class of a
    per-class value."""
    if isinstance(value, dict):
        return [(f"{key}[{label}]", label, v, *(c[label] if isinstance(c, dict) else c for c in columns))
                for label, v in value.items()]
    return [(key, None, value, *columns)]


def _value_table(shown: Values) -> Table:
    header = ["metric", "value"] + ["% of range"] * (shown.normalized is not None) + ["interpretation"] * bool(shown.bands)
    rows = []
    for key, value in shown.values.items():
        percent = [] if shown.normalized is None else [shown.normalized[key]]
        for name, label, v, *rest in _by_class(key, value, *percent):
            band = [_bands(shown, key, label)] if shown.bands else []
            rows.append((name, json.dumps(v), *(json.dumps(p) for p in rest), *band))
    return Table(tuple(header), tuple(rows), "Values")


def _interval_blocks(shown: Values) -> list:
    scaled = any(interval["scale"] for interval in shown.intervals.values())
    rows, notes = [], []
    for key, interval in shown.intervals.items():
        if interval["note"]:
            notes.append(Note(f"{key}: no interval: {interval['note']}"))
            rows.append((key, json.dumps(interval["value"]), "", "", "", *[""] * scaled))
            continue
        fields = (interval[name] for name in ("value", "lower", "upper", "se"))
        rows += [(name, *(json.dumps(f) for f in found), *[interval["scale"] or ""] * scaled)
                 for name, _, *found in _by_class(key, *fields)]
    header = ("metric", "value", "lower", "upper", "se", *["scale"] * scaled)
    return [Table(header, tuple(rows), "Values"), Note(f"[lower, upper]: {100 * shown.confidence:g}% confidence interval"), *notes]


def _bands(shown: Values, key: str, label=None) -> str:
    """``Moderate: Landis and Koch`` for one value (``label``: its class, for per-class values)."""
    parts = []
    for scale_id, labels in ((shown.bands or {}).get(key) or {}).items():
        band = labels[label] if label is not None else labels
        parts.append(f"{band if band is not None else 'no band'}: {shown.scale_names[scale_id]}")
    return "; ".join(parts)


def _band_suffix(shown: Values, key: str, label=None) -> str:
    """`` (Moderate: Landis and Koch)``, or nothing for a value without bands."""
    bands = _bands(shown, key, label)
    return f" ({bands})" if bands else ""


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
