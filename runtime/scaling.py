"""Powers of two that bring counts or gains near 1 for a value of degree 0 in them.

Scaling a float64 by a power of two changes only its exponent: exact, unless the result
leaves the range of float64. A value that the scale of its inputs does not change (a ratio of
counts, ndcg in each sample's gains; the compiler proves which) is then computed from inputs
near 1, where its products and sums neither underflow (subnormal weights) nor overflow (gains
of 1e308).

>>> rescaled_rows(np.array([[1e308, 1e308, 0.0], [3.0, 1.0, 0.0]])).tolist()[1]
[3.0, 1.0, 0.0]
>>> float(rescaled_rows(np.array([[1e308, 1e308, 0.0]])).sum()) < 2
True
"""

from __future__ import annotations

import numpy as np

__all__ = ["TINY", "HUGE", "rescaled_rows", "unit_exponents", "unit_factors"]

# Totals below TINY are scaled: a product of four nears float64's smallest normal numbers
# (2**-1022), where digits and then the whole value (0 / 0) are lost. Gains above HUGE are:
# a sum of many nears float64's largest (2**1024).
TINY = 2.0 ** -64
HUGE = 2.0 ** 64


def unit_exponents(sizes: np.ndarray, *, huge: float = np.inf) -> np.ndarray | None:
    """Per size, the power of two that brings a positive one below ``TINY`` or above ``huge``
    into [0.5, 1) (0 for the others); None when none is so."""
    far = (sizes > 0) & ((sizes < TINY) | (sizes > huge))
    if not far.any():
        return None
    return np.where(far, -np.frexp(sizes)[1], 0)


def rescaled_rows(gains: np.ndarray) -> np.ndarray:
    """Graded relevances ``(n, C)`` (finite, >= 0), each row whose largest gain is huge or tiny
    multiplied by the power of two that brings that gain into [0.5, 1); the array as given when
    no row is so. For a value of degree 0 in each sample's gains (ndcg)."""
    exponents = unit_exponents(np.max(gains, axis=-1, initial=0.0), huge=HUGE)
    return gains if exponents is None else np.ldexp(gains, exponents[..., None])


def unit_factors(xp, totals):
    """The Array API form of :func:`unit_exponents` for totals below ``TINY``, computed on the
    totals' device: two powers of two per total whose product brings it near 1 (1 and 1 for the
    others). Two, because the one power for a subnormal total (2**1060) exceeds the largest
    float; multiplying by each in turn is exact. ``log2`` may be off by one: any power of two is
    exact, and the total lands in [0.25, 2)."""
    far = (totals > 0) & (totals < TINY)
    one = xp.ones_like(totals)
    exponent = xp.where(far, -xp.floor(xp.log2(xp.where(far, totals, one))), 0 * one)
    half = xp.floor(exponent / 2)
    return xp.pow(2 * one, half), xp.pow(2 * one, exponent - half)
