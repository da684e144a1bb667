"""The binomial upper tail ``P(X >= x)``, ``X ~ Binomial(n, p)``, vectorized, numpy only.

The tail is the regularized incomplete beta function ``I_p(x, n - x + 1)`` (1 for ``x <= 0``,
0 for ``x > n``). It is taken from its continued fraction (modified Lentz; Numerical Recipes
6.4), on the side where that converges fast: ``I_p(a, b)`` directly when
``p < (a + 1) / (a + b + 2)``, else ``1 - I_{1-p}(b, a)``. The prefactor
``p^a (1 - p)^b / (a B(a, b))`` is the binomial probability ``P(X = x)`` times ``1 - p``,
computed by Loader's saddle-point form (Loader 2000, "Fast and accurate computation of
binomial probabilities", as in R's ``dbinom``): a Stirling remainder and a deviance
``bd0`` instead of ``lgamma`` differences, which lose ``log10(n)`` digits at large ``n``.
The result is within 1e-12 absolute of exact arithmetic for counts up to 2**53
(``tests/runtime/test_binomial.py`` against exact rational sums and across the domain).

The continued fraction needs few steps except where ``x`` is within about a standard
deviation of the mean ``n p``: there it takes up to about ``sqrt(n p (1 - p)) / 5`` steps,
which :data:`MAX_STEPS` allows up to ``n p (1 - p) = 1e13`` (every ``n`` up to 4e13, and
beyond where ``p`` or ``1 - p`` is small). Beyond that, at the mean, the tail is refused with
an :class:`~metricc.runtime.errors.InputError`, never returned unconverged.
"""

from __future__ import annotations

import math

import numpy as np

from metricc.runtime.errors import InputError

__all__ = ["binomial_tail", "binomial_probability", "MAX_STEPS", "SUMMED_SD"]

MAX_STEPS = 200_000  # continued-fraction steps: enough up to n p (1 - p) = 1e13 (see the tests)
SUMMED_SD = 2500.0  # standard deviations up to which the tail is summed term by term
_SUM_CELLS = 2_000_000  # terms summed at once (memory of one chunk)
_EPS = 1e-16
_TINY = 1e-300
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
# Stirling remainders log(k!) - (k + 1/2) log k + k - log sqrt(2 pi) for k = 1 .. 15 (the series is used above).
_STIRLING_SMALL = np.array([0.0] + [math.lgamma(k + 1) - (k + 0.5) * math.log(k) + k - _LOG_SQRT_2PI
                                    for k in range(1, 16)])


def _stirling_remainder(k):
    """``log(k!) - (k + 1/2) log k + k - log sqrt(2 pi)`` for whole ``k >= 1`` (Loader's ``stirlerr``)."""
    k = np.asarray(k, dtype=np.float64)
    small = k <= 15
    safe = np.where(small, 16.0, k)
    kk = safe * safe
    series = (1 / 12 - (1 / 360 - (1 / 1260 - (1 / 1680 - 1 / (1188 * kk)) / kk) / kk) / kk) / safe
    return np.where(small, _STIRLING_SMALL[np.clip(k, 0, 15).astype(np.int64)], series)


def _deviance(x, mean, difference):
    """``x log(x / mean) + mean - x`` without cancellation near ``x = mean`` (Loader's ``bd0``);
    ``x, mean > 0`` and ``difference = x - mean`` given accurately by the caller."""
    near = np.abs(difference) < 0.1 * (x + mean)
    v = np.where(near, difference / (x + mean), 0.0)
    total = difference * v
    term = 2 * x * v
    v2 = v * v
    for j in range(1, 12):  # |v| < 0.1: each term is 100 times smaller, 1e-22 after 11
        term = term * v2
        total = total + term / (2 * j + 1)
    far = x * np.log1p(np.where(near, 0.0, difference / mean)) - difference
    return np.where(near, total, far)


def _product(a, b):
    """``a * b`` as an unevaluated sum ``high + low`` of two floats (Dekker's exact product)."""
    high = a * b
    split = 134217729.0  # 2**27 + 1
    a_big, b_big = a * split, b * split
    a_high = a_big - (a_big - a)
    b_high = b_big - (b_big - b)
    a_low, b_low = a - a_high, b - b_high
    low = ((a_high * b_high - high) + a_high * b_low + a_low * b_high) + a_low * b_low
    return high, low


def binomial_probability(x, n, p):
    """``P(X = x)`` for ``X ~ Binomial(n, p)``; whole ``0 <= x <= n``, ``0 <= p <= 1`` (not checked here).

    ``1 - p`` is never rounded where it matters: the mean of failures ``n (1 - p)`` is taken
    from ``n - n p`` and its distance from ``n - x`` as ``n p - x`` (exact products), so a tiny
    ``p`` with a huge ``n`` keeps its digits.
    """
    x, n, p = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in (x, n, p)))
    inner = (x > 0) & (x < n) & (p > 0) & (p < 1)
    xs, ns, ys = (np.where(inner, v, 1.0) for v in (x, n, n - x))
    ps = np.where(inner, p, 0.5)
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        mean_high, mean_low = _product(ns, ps)
        above = (xs - mean_high) - mean_low  # x - n p
        mean = mean_high + mean_low
        log_value = (_stirling_remainder(ns) - _stirling_remainder(xs) - _stirling_remainder(ys)
                     - _deviance(xs, mean, above) - _deviance(ys, ns - mean, -above))
        inner_value = np.exp(log_value) * np.sqrt(ns / (2 * np.pi * xs * ys))
        all_fail = np.exp(n * np.log1p(-np.where(p < 1, p, 0.0)))  # (1 - p)**n
        all_succeed = np.exp(n * np.log(np.where(p > 0, p, 1.0)))  # p**n
    value = np.where(inner, inner_value, 0.0)
    value = np.where((x == 0) & (p < 1), all_fail, value)
    value = np.where((x == n) & (p > 0), all_succeed, value)
    value = np.where((x == 0) & (p == 1), np.where(n == 0, 1.0, 0.0), value)
    value = np.where((x == n) & (p == 0), np.where(n == 0, 1.0, 0.0), value)
    return value


def _continued_fraction(a, b, x):
    """The continued fraction of ``I_x(a, b) * a B(a, b) / (x^a (1 - x)^b)`` (modified Lentz), and
    whether every entry converged within :data:`MAX_STEPS`."""
    total = a + b
    c = np.ones_like(a)
    d = 1.0 - total * x / (a + 1.0)
    d = 1.0 / np.where(np.abs(d) < _TINY, _TINY, d)
    h = d.copy()
    active = np.ones(a.shape, dtype=bool)
    m = 0
    while active.any() and m < MAX_STEPS:
        m += 1
        index = np.flatnonzero(active)
        aa_, bb_, xx_, cc, dd = a.flat[index], b.flat[index], x.flat[index], c.flat[index], d.flat[index]
        even = m * (bb_ - m) * xx_ / ((aa_ + 2 * m - 1) * (aa_ + 2 * m))
        dd = 1.0 + even * dd
        dd = 1.0 / np.where(np.abs(dd) < _TINY, _TINY, dd)
        cc = 1.0 + even / cc
        cc = np.where(np.abs(cc) < _TINY, _TINY, cc)
        factor = dd * cc
        odd = -(aa_ + m) * (aa_ + bb_ + m) * xx_ / ((aa_ + 2 * m) * (aa_ + 2 * m + 1))
        dd = 1.0 + odd * dd
        dd = 1.0 / np.where(np.abs(dd) < _TINY, _TINY, dd)
        cc = 1.0 + odd / cc
        cc = np.where(np.abs(cc) < _TINY, _TINY, cc)
        delta = dd * cc
        h.flat[index] = h.flat[index] * factor * delta
        c.flat[index], d.flat[index] = cc, dd
        done = np.abs(delta - 1.0) < _EPS
        active.flat[index[done]] = False
    return h, ~active



def _incomplete_beta_tail(k, n, p):
    """``I_p(k, n - k + 1)`` for whole ``1 <= k <= n`` and ``0 < p < 1``, from the side that
    converges fast; and whether the continued fraction converged."""
    a, b = k, n - k + 1.0
    direct = p < (a + 1.0) / (n + 3.0)
    aa, bb, xx = np.where(direct, a, b), np.where(direct, b, a), np.where(direct, p, 1.0 - p)
    fraction, converged = _continued_fraction(aa, bb, xx)
    # x^a (1 - x)^b / (a B(a, b)) with a + b = n + 1 is P(Y = a) (1 - x), Y ~ Binomial(n, x);
    # on the complement side that is P(X = k - 1) p, which never rounds 1 - p
    front = np.where(direct, binomial_probability(k, n, p) * (1.0 - p), binomial_probability(k - 1, n, p) * p)
    part = front * fraction
    return np.where(direct, part, 1.0 - part), converged


def _summed_tail(k, n, p):
    """``P(X >= k)`` as the sum of the probabilities on the shorter side of ``k``, over the
    mean +- (40 sd + 40) at most (Bernstein's bound puts the rest below 1e-26)."""
    mean, sd = n * p, np.sqrt(n * p * (1.0 - p))
    reach = np.ceil(40 * sd + 40)
    upper = k > mean
    first = np.where(upper, k, np.maximum(0.0, np.floor(mean) - reach))
    last = np.where(upper, np.minimum(n, np.ceil(mean) + reach), k - 1)
    length = np.maximum(last - first + 1, 0).astype(np.int64)
    total = np.zeros(k.shape)
    rows = max(1, _SUM_CELLS // max(1, int(length.max(initial=1))))
    for start in range(0, k.size, rows):
        chunk = slice(start, start + rows)
        offsets = np.arange(int(length[chunk].max(initial=0)))
        j = first[chunk, None] + offsets
        terms = binomial_probability(np.minimum(j, n[chunk, None]), n[chunk, None], p[chunk, None])
        total[chunk] = np.sum(np.where(offsets < length[chunk, None], terms, 0.0), axis=-1)
    return np.where(upper, total, 1.0 - total)


def _whole(name: str, values, low: float) -> None:
    bad = np.isfinite(values) & ((values != np.floor(values)) | (values < low))
    if bad.any():
        raise InputError(f"binomial_tail {name}", f"must be a whole number >= {low:g}, got {values[bad].flat[0]!r}; "
                         "the binomial tail counts whole successes of whole trials")


def binomial_tail(successes, trials, probability):
    """``P(X >= successes)`` for ``X ~ Binomial(trials, probability)``, elementwise over broadcast arrays.

    1 for ``successes <= 0``, 0 for ``successes > trials``; ``probability`` 0 and 1 exactly.
    NaN in, NaN out (a generated kernel replaces undefined entries afterwards). A fractional or
    negative count, or a probability outside [0, 1], is an :class:`InputError`; a continued
    fraction that has not converged within :data:`MAX_STEPS` steps is one too, never a number.

    >>> round(float(binomial_tail(3, 10, 0.3)), 12), float(binomial_tail(0, 0, 0.5)), float(binomial_tail(11, 10, 0.3))
    (0.6172172136, 1.0, 0.0)
    """
    x, n, p = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in (successes, trials, probability)))
    _whole("successes", x, -np.inf)
    _whole("trials", n, 0)
    outside = np.isfinite(p) & ((p < 0) | (p > 1))
    if outside.any():
        raise InputError("binomial_tail probability", f"must be in [0, 1], got {p[outside].flat[0]!r}")
    known = np.isfinite(x) & np.isfinite(n) & np.isfinite(p)
    inner = known & (x >= 1) & (x <= n) & (p > 0) & (p < 1)
    value = np.full(x.shape, np.nan)
    value[known] = np.where(x[known] <= 0, 1.0, 0.0)  # at most no successes; more than the trials
    certain = known & (x >= 1) & (x <= n)
    value[certain & (p == 1)] = 1.0
    value[certain & (p == 0)] = 0.0
    if inner.any():
        k, trials, chance = x[inner], n[inner], p[inner]
        summed = trials * chance * (1 - chance) <= SUMMED_SD ** 2
        tail = np.empty(k.shape)
        tail[summed] = _summed_tail(k[summed], trials[summed], chance[summed])
        tail[~summed], converged = _incomplete_beta_tail(k[~summed], trials[~summed], chance[~summed])
        if not converged.all():
            where = np.flatnonzero(~converged)[0]
            args = (k[~summed][where], trials[~summed][where], chance[~summed][where])
            raise InputError("binomial_tail", "the continued fraction did not converge within {} steps at successes={:g}, "
                             "trials={:g}, probability={!r}: supported up to trials * probability * (1 - probability) "
                             "= 1e13 where the successes are within a standard deviation of the mean".format(MAX_STEPS, *args))
        value[inner] = np.clip(tail, 0.0, 1.0)
    return value if value.ndim else value[()]
