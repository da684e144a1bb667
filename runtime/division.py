"""Zero division: where a formula is undefined, and the value it takes there.

A kernel returns its values and a mask of where its denominator vanished; :func:`nonzero`
keeps the division quiet there and :func:`finish` puts the caller's ``zero_division`` in.
``"skip"`` is no value but a rule of the means over classes (:mod:`.averaging`).

>>> import numpy as np
>>> value = np.array([1.0, 0.5]); undefined = np.array([False, True])
>>> float(finish(value, undefined, 0.0)[1])
0.0
"""

from __future__ import annotations

import math

import numpy as np

from metricc.core.errors import InputError

__all__ = ["finish", "nonzero", "skips", "zero_division_value"]


def nonzero(denominator):
    """The denominator with zeros replaced by 1; the caller masks those entries as undefined.
    Without zeros (the usual case) it comes back as it is, after one read-only pass."""
    if isinstance(denominator, (float, np.floating)):  # one matrix: no array round trip
        return denominator if denominator != 0 else 1.0
    if bool(denominator.all() if isinstance(denominator, np.ndarray) else np.all(denominator)):
        return denominator
    return np.where(denominator == 0, 1, denominator)


def skips(zero_division) -> bool:
    """True for ``zero_division="skip"``: means over classes leave undefined classes out."""
    return isinstance(zero_division, str) and zero_division.lower() == "skip"


def zero_division_value(zero_division) -> float:
    """The value for undefined cases: a finite number or NaN (``"nan"`` accepted).

    ``"skip"`` is NaN here: it changes which classes a mean takes (see
    :func:`average_class_metric`); a value that is not a mean over classes stays undefined.
    """
    if type(zero_division) is float and not math.isinf(zero_division):  # the usual case, checked before
        return zero_division
    if isinstance(zero_division, str) and zero_division.lower() in ("nan", "skip"):
        return math.nan
    if isinstance(zero_division, bool) or not isinstance(zero_division, (int, float, np.integer, np.floating)):
        raise InputError("zero_division", f"expected a number, NaN or 'skip', got {zero_division!r}")
    value = float(zero_division)
    if math.isinf(value):
        raise InputError("zero_division", "must be finite or NaN")
    return value


def _scalar(x) -> bool:
    ndim = getattr(x, "ndim", None)  # arrays and numpy scalars have it; np.ndim costs microseconds
    return (np.ndim(x) if ndim is None else ndim) == 0


def finish(value, undefined, zero_division):
    """Replace undefined entries by the zero-division value; scalars come back as floats.

    A zero comes back as +0.0: a negated empty sum (CEN of a single class) is -0.0, which
    equals 0 but prints as ``-0.0``.

    >>> float(finish(-np.sum(np.zeros(0)), False, math.nan))
    0.0
    """
    zero = zero_division_value(zero_division)
    if _scalar(value) and _scalar(undefined):  # one matrix: no array round trip
        return np.float64(zero if undefined else value) + 0.0
    result = np.where(undefined, zero, value).astype(float) + 0.0
    return result[()] if result.ndim == 0 else result
