"""Interpretation bands: the ``interpretation:`` key of a spec, checked and built into the IR.

A scale (Landis and Koch for kappa) is a list of labelled intervals written as a reader
writes them, ``"[0.2, 0.4)"``. The schema checks the interval's shape; this module checks
what a schema cannot: each interval is non-empty with open infinite ends, the bands run
upward without overlapping, lie inside the metric's declared ``range`` and cover it (a scale
whose publication leaves values unlabelled says ``gaps: true``), and labels are unique.
A value on a shared boundary belongs to exactly one band, so ``interpret`` never has to
choose.

>>> band = parse_interval("Fair", "[0.2, 0.4)")
>>> band.low, band.high, band.low_closed, band.high_closed
(0.2, 0.4, True, False)
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

from metricc.compiler.language.ir import Band, Scale

__all__ = ["parse_interval", "problems", "scales"]

_INTERVAL = re.compile(r"^([\[(]) *([-+0-9.a-z]+) *, *([-+0-9.a-z]+) *([\])])$")


def parse_interval(label: str, text: str) -> Band:
    """The band ``label`` on the interval ``text``; raises ValueError on a malformed interval."""
    match = _INTERVAL.match(text.strip())
    if not match:
        raise ValueError(f"{text!r} is not an interval like '[0.2, 0.4)'")
    opening, low, high, closing = match.groups()
    return Band(label, float(low), float(high), opening == "[", closing == "]")


def problems(data: dict) -> Iterator[tuple[tuple, str]]:
    """(key path, message) for every band rule the scales of spec ``data`` break."""
    entry = data.get("interpretation")
    if not isinstance(entry, dict):
        return
    low, high = _range(data.get("range"))
    for scale_id, scale in entry.items():
        bands = scale.get("bands") if isinstance(scale, dict) else None
        if not isinstance(bands, list) or not all(_well_formed(b) for b in bands):
            continue  # the schema reports it
        yield from _scale_problems(("interpretation", scale_id), scale, bands, low, high)


def scales(data: dict) -> tuple[Scale, ...]:
    """The spec's scales, in the order written (the first is the default)."""
    return tuple(
        Scale(scale_id, entry["name"], tuple(entry["references"]),
              tuple(parse_interval(b["label"], b["interval"]) for b in entry["bands"]),
              " ".join(entry.get("note", "").split()), bool(entry.get("gaps", False)))
        for scale_id, entry in data.get("interpretation", {}).items())


def _scale_problems(path: tuple, scale: dict, entries: list, low: float | None, high: float | None):
    bands = []
    for index, entry in enumerate(entries):
        where = path + ("bands", index, "interval")
        band = parse_interval(entry["label"], entry["interval"])
        problem = _interval_problem(band, low, high)
        if problem:
            yield where, problem
            return
        bands.append(band)
    gaps = scale.get("gaps") is True
    labels = [b.label for b in bands]
    for index, label in enumerate(labels):
        if label in labels[:index]:
            yield path + ("bands", index, "label"), f"label {label!r} is used twice in this scale; labels name one band each"
    overlaps = False
    for index in range(1, len(bands)):
        where = path + ("bands", index, "interval")
        before, band = bands[index - 1], bands[index]
        if band.low < before.high or (band.low == before.high and before.high_closed and band.low_closed):
            overlaps = True
            yield where, (f"{band.interval} overlaps {before.interval} of the band before; bands run upward "
                          f"and share a boundary as '..., b)' then '[b, ...' (or '..., b]' then '(b, ...')")
        elif not gaps and band.low > before.high:
            yield where, (f"values from {_show(before.high)} to {_show(band.low)}, between {before.interval} and "
                          f"{band.interval}, are in no band; close the gap, or say 'gaps: true' if the published scale has it")
        elif not gaps and not (before.high_closed or band.low_closed):
            yield where, (f"{_show(band.low)} is in neither {before.interval} nor {band.interval}; close one end, "
                          f"or say 'gaps: true' if the published scale leaves it out")
    if gaps or overlaps or low is None or high is None:
        return
    first, last = bands[0], bands[-1]
    hint = "; or say 'gaps: true' if the published scale leaves them out"
    if first.low > low or (first.low == low and not first.low_closed and math.isfinite(low)):
        start = f"[{_show(low)}" if math.isfinite(low) else "(-inf"
        yield path + ("bands", 0, "interval"), (f"{first.interval} leaves the lowest values of the range "
                                                f"[{_show(low)}, {_show(high)}] in no band: start the first band "
                                                f"with '{start}'{hint}")
    if last.high < high or (last.high == high and not last.high_closed and math.isfinite(high)):
        end = f"{_show(high)}]" if math.isfinite(high) else "inf)"
        yield path + ("bands", len(bands) - 1, "interval"), (f"{last.interval} leaves the highest values of the range "
                                                             f"[{_show(low)}, {_show(high)}] in no band: end the last "
                                                             f"band with '{end}'{hint}")


def _interval_problem(band: Band, low: float | None, high: float | None) -> str | None:
    if (math.isinf(band.low) and band.low_closed) or (math.isinf(band.high) and band.high_closed):
        return f"{band.interval}: an infinite end is open, e.g. '[10, inf)'"
    if band.low > band.high or (band.low == band.high and not (band.low_closed and band.high_closed)):
        return f"{band.interval} is empty; write the lower end first ('[a, a]' is the single value a)"
    if low is not None and band.low < low:
        return f"{band.interval} reaches below the metric's range [{_show(low)}, {_show(high)}]"
    if high is not None and band.high > high:
        return f"{band.interval} reaches above the metric's range [{_show(low)}, {_show(high)}]"
    return None


def _well_formed(entry: Any) -> bool:
    if not (isinstance(entry, dict) and isinstance(entry.get("label"), str) and isinstance(entry.get("interval"), str)):
        return False
    try:
        parse_interval(entry["label"], entry["interval"])
    except ValueError:
        return False
    return True


def _range(bounds: Any) -> tuple[float | None, float | None]:
    if not (isinstance(bounds, list) and len(bounds) == 2):
        return None, None
    values = []
    for bound in bounds:
        if bound in ("-inf", "inf"):
            values.append(float(bound))
        elif isinstance(bound, (int, float)) and not isinstance(bound, bool):
            values.append(float(bound))
        else:
            return None, None
    return values[0], values[1]


def _show(value: float) -> str:
    return ("-inf" if value < 0 else "inf") if math.isinf(value) else f"{value:g}"
