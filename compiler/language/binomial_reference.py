"""The binomial upper tail at any precision, in mpmath: the numeric meaning of
``symbols.binomial_tail`` where its exact rational sum is too long (``evalf``), so that the
exactness tests compare the runtime's float64 with a reference that never used float64.

Two routes, both at the working precision plus 100 bits, and neither the runtime's: where the
standard deviation ``sqrt(n p (1 - p))`` is at most 10**4 the probabilities are summed term
by term over the mean +- (60 sd + 60), on the side of ``x`` with fewer terms (Bernstein's
inequality puts what is left out below 1e-40); beyond, ``I_p(x, n - x + 1)`` is integrated
from the beta density by mpmath's quadrature, in pieces around the mode.
"""

from __future__ import annotations

import mpmath

__all__ = ["tail"]

_SUMMED_SD = 10 ** 4


def _probability(k: int, n: int, p, q):
    return mpmath.exp(mpmath.loggamma(n + 1) - mpmath.loggamma(k + 1) - mpmath.loggamma(n - k + 1)
                      + k * mpmath.log(p) + (n - k) * mpmath.log(q))


def _summed(x: int, n: int, p, q):
    mean, sd = n * p, mpmath.sqrt(n * p * q)
    reach = int(mpmath.ceil(60 * sd + 60))
    upper = x > mean
    first = x if upper else max(0, int(mpmath.floor(mean)) - reach)
    last = min(n, int(mpmath.ceil(mean)) + reach) if upper else x - 1
    total, term, ratio = mpmath.mpf(0), _probability(first, n, p, q) if first <= last else 0, p / q
    for j in range(first, last + 1):
        total += term
        term *= (n - j) * ratio / (j + 1)
    return total if upper else 1 - total


def _integral(x: int, n: int, p):
    """``I_p(x, n - x + 1)`` as the integral of the beta density, over the mode +- 60 sd cut
    at ``p`` (what lies beyond is below 1e-700), in pieces of 5 sd for the quadrature."""
    a, b = mpmath.mpf(x), mpmath.mpf(n - x + 1)
    log_beta = mpmath.loggamma(a) + mpmath.loggamma(b) - mpmath.loggamma(a + b)
    mode = (a - 1) / (a + b - 2)
    sd = mpmath.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
    low, high = max(mpmath.mpf(0), mode - 60 * sd), min(p, mode + 60 * sd)
    if high <= low:
        return mpmath.mpf(0) if p <= mode else mpmath.mpf(1)
    pieces = max(1, int(mpmath.ceil((high - low) / (5 * sd))))
    points = [low + (high - low) * i / pieces for i in range(pieces + 1)]
    return mpmath.quad(lambda t: mpmath.exp((a - 1) * mpmath.log(t) + (b - 1) * mpmath.log1p(-t) - log_beta), points)


def tail(x: int, n: int, numerator: int, denominator: int, prec: int) -> mpmath.mpf:
    """``P(X >= x)``, ``X ~ Binomial(n, numerator / denominator)``, to ``prec`` bits."""
    with mpmath.workprec(prec + 100):  # log-gamma of 2**53 takes 55 bits before the point
        if x <= 0:
            return mpmath.mpf(1)
        if x > n:
            return mpmath.mpf(0)
        p = mpmath.mpf(numerator) / denominator
        q = mpmath.mpf(denominator - numerator) / denominator
        if numerator == 0 or numerator == denominator:
            return mpmath.mpf(1 if numerator else 0)
        value = _summed(x, n, p, q) if n * p * q <= _SUMMED_SD ** 2 else _integral(x, n, p)
        return +value
