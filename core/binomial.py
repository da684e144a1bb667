"""The binomial upper tail ``P(X >= x)``, ``X ~ Binomial(n, p)``, vectorized, numpy only.

The tail is the regularized incomplete beta function ``I_p(x, n - x + 1)`` (1 for ``x <= 0``,
0 for ``x > n``), computed in one of two ways, each accurate where the other is slow:

- ``sqrt(n p (1 - p)) <= SUMMED_SD``: the probabilities ``P(X = j)`` on the shorter side of
  ``x`` are summed, over the mean +- (40 sd + 40) at most (Bernstein's inequality puts the
  rest below 1e-26). Each probability comes from Loader's saddle-point form (Loader 2000,
  "Fast and accurate computation of binomial probabilities", as in R's ``dbinom``): Stirling
  remainders and a deviance ``bd0`` instead of ``lgamma`` differences, which lose
  ``log10(n)`` digits, and ``1 - p`` never rounded where a tiny ``p`` meets a huge ``n``.
- beyond: Temme's uniform asymptotic expansion (DiDonato and Morris 1992, ACM TOMS 708,
  ``BASYM``), ``erfc`` of the deviance plus terms in powers of ``1 / sqrt(min(a, b))``, which
  needs 3 to 5 terms there; the smaller tail is expanded and the other is 1 minus it.

A continued fraction (Numerical Recipes 6.4) was the first candidate: it needs about
``sqrt(n p (1 - p)) / 5`` steps at the mean (2**53 samples: 10**7 steps) and loses digits of a
tiny ``p`` in ``1 - p``, so it is not used. The result is within 1e-12 absolute of exact
arithmetic for every count up to 2**53 (``tests/core/test_binomial.py``: exact rational
sums, sums at 40 digits around the mean, and the seam between the two ways).
"""

from __future__ import annotations

import math

import numpy as np

from metricc.core.errors import InputError

__all__ = ["binomial_tail", "binomial_probability", "MAX_TERMS", "SUMMED_SD"]

MAX_TERMS = 20  # terms of the asymptotic expansion (even); 3 to 5 are used where n p (1 - p) > 1e6
SUMMED_SD = 1000.0  # standard deviation up to which the tail is summed term by term
_SUM_CELLS = 2_000_000  # terms summed at once (memory of one chunk)
_EPS = 1e-16
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


def _mean(n, p, mean):
    """``n p`` as ``high + low``: the exact product, or the caller's exact ``mean``."""
    return _product(n, p) if mean is None else (mean, np.zeros(np.shape(mean)))


def binomial_probability(x, n, p, mean=None):
    """``P(X = x)`` for ``X ~ Binomial(n, p)``; whole ``0 <= x <= n``, ``0 <= p <= 1`` (not checked here).

    ``1 - p`` is never rounded where it matters: the mean of failures ``n (1 - p)`` is taken
    from ``n - n p`` and its distance from ``n - x`` as ``n p - x`` (exact products), so a tiny
    ``p`` with a huge ``n`` keeps its digits. ``mean``: ``n p`` exactly, where the caller knows it
    (see :func:`binomial_tail`).
    """
    x, n, p, given = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in (x, n, p, 0 if mean is None else mean)))
    inner = (x > 0) & (x < n) & (p > 0) & (p < 1)
    xs, ns, ys = (np.where(inner, v, 1.0) for v in (x, n, n - x))
    ps = np.where(inner, p, 0.5)
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        mean_high, mean_low = _mean(ns, ps, None if mean is None else np.where(inner, given, 0.5))
        above = (xs - mean_high) - mean_low  # x - n p
        expected = mean_high + mean_low
        log_value = (_stirling_remainder(ns) - _stirling_remainder(xs) - _stirling_remainder(ys)
                     - _deviance(xs, expected, above) - _deviance(ys, ns - expected, -above))
        inner_value = np.exp(log_value) * np.sqrt(ns / (2 * np.pi * xs * ys))
        if mean is None:
            all_fail = np.exp(n * np.log1p(-np.where(p < 1, p, 0.0)))  # (1 - p)**n
            all_succeed = np.exp(n * np.log(np.where(p > 0, p, 1.0)))  # p**n
        else:  # n log p = -(bd0(n, n p) + n - n p): no rounded p, whose log n would multiply
            trials = np.where((given > 0) & (given < n), n, 2.0)
            successes = np.where((given > 0) & (given < n), given, 1.0)
            all_fail = np.exp(-_deviance(trials, trials - successes, successes) - successes)
            all_succeed = np.exp(-_deviance(trials, successes, trials - successes) - (trials - successes))
    value = np.where(inner, inner_value, 0.0)
    value = np.where((x == 0) & (p < 1), all_fail, value)
    value = np.where((x == n) & (p > 0), all_succeed, value)
    value = np.where((x == 0) & (p == 1), np.where(n == 0, 1.0, 0.0), value)
    value = np.where((x == n) & (p == 0), np.where(n == 0, 1.0, 0.0), value)
    return value


def _erfcx(z):
    """``exp(z**2) erfc(z)`` for ``0 <= z <= 25`` (the stdlib's ``erfc``, elementwise)."""
    return np.vectorize(lambda v: math.exp(v * v) * math.erfc(v), otypes=[float])(z)


def _asymptotic_tail(a, b, lam):
    """``I_x(a, b)`` for large ``a``, ``b`` near the mean, from ``lam = (a + b)(1 - x) - b >= 0``,
    and whether it converged within :data:`MAX_TERMS` terms: Temme's uniform expansion in
    ``erfc`` (DiDonato and Morris 1992, ACM TOMS 708, ``BASYM``), whose terms fall like powers
    of ``1 / sqrt(min(a, b))``. The exponent is Loader's deviance of ``a`` from ``a - lam`` and
    of ``b`` from ``b + lam``, so that ``lam`` of a few units at ``a`` near 2**53 keeps its
    digits. Where that exponent passes 600 the value is below 1e-260, 0 at 1e-12, and the
    expansion is not taken (it needs ``a, b >= 15``, which holds below 600 where ``n p (1 - p) > 10**6``)."""
    f = _deviance(a, a - lam, lam) + _deviance(b, b + lam, -lam)
    value, converged = np.zeros(a.shape), np.ones(a.shape, dtype=bool)
    near = f <= 600
    if near.any():
        value[near], converged[near] = _expansion(a[near], b[near], f[near])
    return value, converged


def _expansion(a, b, f):
    """The terms of :func:`_asymptotic_tail` given the exponent ``f``."""
    e0, e1 = 2 / math.sqrt(math.pi), 2 ** -1.5
    z0 = np.sqrt(f)
    z, z2 = z0 / e1 * 0.5, f + f
    a_small = a < b
    h = np.where(a_small, a / b, b / a)
    r0 = 1.0 / (h + 1.0)
    r1 = (b - a) / np.where(a_small, b, a)
    w0 = 1.0 / np.sqrt(np.where(a_small, a, b) * (h + 1.0))
    a0, b0, c, d = ([None] * (MAX_TERMS + 1) for _ in range(4))
    a0[0] = r1 * (2.0 / 3.0)
    c[0] = -0.5 * a0[0]
    d[0] = -c[0]
    j0, j1 = 0.5 / e0 * _erfcx(z0), e1
    total = j0 + d[0] * w0 * j1
    s, h2, hn, w, znm1, zn = 1.0, h * h, 1.0, w0, z, z2
    done = np.zeros(a.shape, dtype=bool)
    for n in range(2, MAX_TERMS + 1, 2):
        hn = h2 * hn
        a0[n - 1] = r0 * 2.0 * (h * hn + 1.0) / (n + 2.0)
        s = s + hn
        a0[n] = r1 * 2.0 * s / (n + 3.0)
        for i in (n, n + 1):
            r = -0.5 * (i + 1.0)
            b0[0] = r * a0[0]
            for m in range(2, i + 1):
                b0[m - 1] = r * a0[m - 1] + sum((j * r - (m - j)) * a0[j - 1] * b0[m - j - 1] for j in range(1, m)) / m
            c[i - 1] = b0[i - 1] / (i + 1.0)
            d[i - 1] = -(sum(d[i - j - 1] * c[j - 1] for j in range(1, i)) + c[i - 1])
        j0 = e1 * znm1 + (n - 1.0) * j0
        j1 = e1 * zn + n * j1
        znm1, zn = z2 * znm1, z2 * zn
        w = w0 * w
        t0 = d[n - 1] * w * j0
        w = w0 * w
        t1 = d[n] * w * j1
        total = np.where(done, total, total + t0 + t1)
        done |= np.abs(t0) + np.abs(t1) <= _EPS * np.abs(total)
    correction = _stirling_remainder(a) + _stirling_remainder(b) - _stirling_remainder(a + b)
    return e0 * np.exp(-f - correction) * total, done


def _large_tail(k, n, p, mean=None):
    """``P(X >= k)`` where ``n p (1 - p)`` is large: the expansion of the smaller of the two
    tails, chosen by the sign of ``lam = k - (n + 1) p`` (from an exact product)."""
    high, low = _mean(n, p, mean)
    lam = ((k - high) - low) - p  # not (n + 1) p: n + 1 rounds at 2**53
    upper = lam >= 0
    a, b = np.where(upper, k, n - k + 1.0), np.where(upper, n - k + 1.0, k)
    value, converged = _asymptotic_tail(a, b, np.abs(lam))
    return np.where(upper, value, 1.0 - value), converged


def _summed_tail(k, n, p, exact_mean=None):
    """``P(X >= k)`` as the sum of the probabilities on the shorter side of ``k``, over the
    mean +- (40 sd + 40) at most (Bernstein's bound puts the rest below 1e-26)."""
    mean = n * p if exact_mean is None else exact_mean
    sd = np.sqrt(mean * (1.0 - p))
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
        terms = binomial_probability(np.minimum(j, n[chunk, None]), n[chunk, None], p[chunk, None],
                                     None if exact_mean is None else exact_mean[chunk, None])
        total[chunk] = np.sum(np.where(offsets < length[chunk, None], terms, 0.0), axis=-1)
    return np.where(upper, total, 1.0 - total)


def _whole(name: str, values, low: float) -> None:
    bad = np.isfinite(values) & ((values != np.floor(values)) | (values < low))
    if bad.any():
        raise InputError(f"binomial_tail {name}", f"must be a whole number >= {low:g}, got {values[bad].flat[0]!r}; "
                         "the binomial tail counts whole successes of whole trials")


def binomial_tail(successes, trials, probability, mean=None):
    """``P(X >= successes)`` for ``X ~ Binomial(trials, probability)``, elementwise over broadcast arrays.

    1 for ``successes <= 0``, 0 for ``successes > trials``; ``probability`` 0 and 1 exactly.
    NaN in, NaN out (a generated kernel replaces undefined entries afterwards). A fractional or
    negative count, or a probability outside [0, 1], is an :class:`InputError`; an expansion that
    has not converged within :data:`MAX_TERMS` terms is one too, never a number.

    ``mean``: the expected successes ``trials * probability`` where the caller has them exactly
    (a probability that is a count over the trials: p_value's largest class over n). The tail
    near its middle moves by about ``sqrt(n) * 1e-16`` with the rounding of ``probability``;
    from the count it does not. It must agree with ``trials * probability`` (InputError else).

    >>> round(float(binomial_tail(3, 10, 0.3)), 12), float(binomial_tail(0, 0, 0.5)), float(binomial_tail(11, 10, 0.3))
    (0.6172172136, 1.0, 0.0)
    """
    x, n, p, given = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64)
                                           for a in (successes, trials, probability, np.nan if mean is None else mean)))
    _whole("successes", x, -np.inf)
    _whole("trials", n, 0)
    outside = np.isfinite(p) & ((p < 0) | (p > 1))
    if outside.any():
        raise InputError("binomial_tail probability", f"must be in [0, 1], got {p[outside].flat[0]!r}")
    if mean is not None:
        with np.errstate(invalid="ignore", over="ignore"):
            off = (n > 0) & np.isfinite(n * p) & ~(np.abs(given - n * p) <= 1e-12 * np.maximum(1.0, np.abs(given)))
        if off.any():
            raise InputError("binomial_tail mean", f"must be trials * probability, got {given[off].flat[0]!r} for "
                             f"{n[off].flat[0]:g} * {p[off].flat[0]!r}")
    known = np.isfinite(x) & np.isfinite(n) & np.isfinite(p)
    inner = known & (x >= 1) & (x <= n) & (p > 0) & (p < 1)
    value = np.full(x.shape, np.nan)
    value[known] = np.where(x[known] <= 0, 1.0, 0.0)  # at most no successes; more than the trials
    certain = known & (x >= 1) & (x <= n)
    value[certain & (p == 1)] = 1.0
    value[certain & (p == 0)] = 0.0
    if inner.any():
        k, trials, chance = x[inner], n[inner], p[inner]
        expected = None if mean is None else given[inner]
        summed = trials * chance * (1 - chance) <= SUMMED_SD ** 2
        tail = np.empty(k.shape)
        tail[summed] = _summed_tail(k[summed], trials[summed], chance[summed],
                                    None if expected is None else expected[summed])
        tail[~summed], converged = _large_tail(k[~summed], trials[~summed], chance[~summed],
                                               None if expected is None else expected[~summed])
        if not converged.all():
            where = np.flatnonzero(~converged)[0]
            args = (k[~summed][where], trials[~summed][where], chance[~summed][where])
            raise InputError("binomial_tail", "the asymptotic expansion did not converge within {} terms at successes={:g}, "
                             "trials={:g}, probability={!r}; please report it".format(MAX_TERMS, *args))
        value[inner] = np.clip(tail, 0.0, 1.0)
    return value if value.ndim else value[()]
