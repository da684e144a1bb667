"""Confidence intervals for proportions, and the quantiles they need, in numpy alone.

Wilson (score) and Agresti-Coull intervals, and Clopper-Pearson's exact interval: its beta
quantiles have whole parameters, so they are binomial tails (:mod:`.binomial`, within 1e-12
at any count up to 2**53) inverted by bisection (scipy and statsmodels are test-only). The normal quantile is Acklam's rational approximation
polished by Newton steps on ``math.erfc``.

>>> low, high = wilson(8, 10, 0.95)
>>> round(float(low), 6), round(float(high), 6)
(0.490162, 0.943318)
>>> low, high = clopper_pearson(8, 10, 0.95)
>>> round(float(low), 6), round(float(high), 6)
(0.443905, 0.974789)
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from metricc.core.binomial import binomial_tail
from metricc.core.errors import InputError

__all__ = ["Interval", "PROPORTION_METHODS", "METHODS", "normal_quantile",
           "two_sided_quantile", "wilson", "agresti_coull", "clopper_pearson", "normal_interval",
           "check_confidence"]


class Interval(NamedTuple):
    """A value with its confidence interval and standard error (arrays for per-class values).

    ``scale``: the scale the bounds were formed on: ``"logit"``, ``"fisher_z"``, ``"log"`` or
    ``"identity"`` for the delta method, ``"score"`` (Wilson), ``"exact"`` (Clopper-Pearson),
    ``"percentile"`` or ``"bca"`` (bootstrap). ``note``: why the method does not apply, where
    a request of several metrics left this one without bounds (NaN)."""

    value: object
    lower: object
    upper: object
    se: object
    scale: str = "identity"
    note: str = ""


PROPORTION_METHODS = ("wilson", "agresti_coull", "clopper_pearson")
METHODS = ("delta", "wald", *PROPORTION_METHODS, "bootstrap", "bootstrap_bca")


def check_confidence(confidence) -> float:
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float, np.integer, np.floating)) \
            or not 0 < float(confidence) < 1:
        raise InputError("confidence", f"expected a level strictly between 0 and 1 (e.g. 0.95), got {confidence!r}")
    return float(confidence)


_A = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02,
      -3.066479806614716e+01, 2.506628277459239e+00)
_B = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01,
      -1.328068155288572e+01)
_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549671010429140e+00,
      4.374664141464968e+00, 2.938163982698783e+00)
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00)


def _acklam(p: float) -> float:
    if p < 0.02425:
        q = math.sqrt(-2 * math.log(p))
        return (((((_C[0] * q + _C[1]) * q + _C[2]) * q + _C[3]) * q + _C[4]) * q + _C[5]) / \
            ((((_D[0] * q + _D[1]) * q + _D[2]) * q + _D[3]) * q + 1)
    if p > 1 - 0.02425:
        return -_acklam(1 - p)
    q = p - 0.5
    r = q * q
    return (((((_A[0] * r + _A[1]) * r + _A[2]) * r + _A[3]) * r + _A[4]) * r + _A[5]) * q / \
        (((((_B[0] * r + _B[1]) * r + _B[2]) * r + _B[3]) * r + _B[4]) * r + 1)


def normal_quantile(p: float) -> float:
    """The standard normal quantile, to within a few ulps for ``1e-300 < p < 1 - 1e-16`` (the upper half by symmetry).

    >>> round(normal_quantile(0.975), 12)
    1.95996398454
    """
    if not 0 < p < 1:
        raise InputError("confidence", f"a normal quantile needs 0 < p < 1, got {p}")
    if p > 0.5:  # 1 - p is exact here; the lower tail keeps its relative precision
        return -normal_quantile(1.0 - p)
    x = _acklam(p)
    for _ in range(3):  # Newton on Phi(x) - p, Phi from erfc (accurate in both tails)
        cdf = 0.5 * math.erfc(-x / math.sqrt(2))
        x -= (cdf - p) / (math.exp(-x * x / 2) / math.sqrt(2 * math.pi))
    return x


def two_sided_quantile(confidence: float) -> float:
    """``z`` with ``P(|Z| <= z) = confidence``, from the lower tail ``(1 - confidence) / 2``,
    which float64 holds exactly (``0.5 + confidence / 2`` rounds away 1e-11 of z at 0.999999)."""
    return -normal_quantile((1 - confidence) / 2)


def _tail_root(successes, trials, target):
    """``p`` with ``P(X >= successes) = target``, ``X ~ Binomial(trials, p)``. The tail rises
    with ``p``; the bisection runs over the bit patterns of the floats in [0, 1] (ordered as
    integers), so 63 halvings reach the neighbouring float at any magnitude: a bound of 1e-14
    keeps its 16 digits, not just 1e-20 absolute."""
    low = np.zeros(np.shape(successes), dtype=np.int64)
    high = np.full(np.shape(successes), np.float64(1.0).view(np.int64))
    for _ in range(63):
        middle = low + (high - low) // 2
        below = binomial_tail(successes, trials, middle.view(np.float64)) < target
        low, high = np.where(below, middle, low), np.where(below, high, middle)
    return high.view(np.float64)


MAX_TRIALS = 2.0 ** 53  # the largest count float64 holds exactly, and the binomial tail's tested range


def _counts(successes, trials, method: str, argument: str | None, whole: bool = False):
    """``successes`` and ``trials`` as float arrays, checked: 0 <= successes <= trials <= 2**53,
    whole numbers where the interval is exact (``whole``). NaN passes (no interval there).

    ``argument``: the user's argument the counts came from (``interval`` when ``evaluate``
    derived them from a matrix); None names ``successes`` and ``trials`` themselves.
    """
    x, n = np.broadcast_arrays(np.asarray(successes, dtype=float), np.asarray(trials, dtype=float))
    known = ~np.isnan(x) & ~np.isnan(n)
    whole_rule = f"{method} counts whole successes of whole trials"
    problems = (
        ("successes", known & ~((x >= 0) & (x <= n)), "successes must lie between 0 and the trials"),
        ("trials", known & ~(n <= MAX_TRIALS), f"trials must be at most 2**53 = {MAX_TRIALS:.0f} (exact in float64)"),
        ("successes", known & whole & (x != np.floor(x)), whole_rule),
        ("trials", known & whole & (n != np.floor(n)), whole_rule),
    )
    for name, bad, rule in problems:
        if bad.any():
            at = np.flatnonzero(bad.ravel())[0]
            got = f"got {x.ravel()[at]:g} successes of {n.ravel()[at]:g} trials"
            if argument is None:
                raise InputError(name, f"{rule}, {got}")
            hint = " (a weighted matrix): use wilson or agresti_coull" if rule is whole_rule else ""
            raise InputError(argument, f"{'' if rule is whole_rule else method + ': '}{rule}, {got}{hint}")
    return x, n


def wilson(successes, trials, confidence: float, *, argument: str | None = None):
    """Wilson's score interval; NaN where there are no trials.

    The lower bound ``(x + z**2/2 - z r) / (n + z**2)``, ``r = sqrt(x (n - x) / n + z**2/4)``,
    is written without its difference: ``x**2 / (n (x + z**2/2 + z r))`` (multiply by the
    conjugate), so it is exactly 0 at ``x = 0`` and keeps its digits near 0; the upper bound is
    ``1 -`` the lower bound of the failures, exactly 1 at ``x = n``. The bounds hold the
    estimate ``x / n`` mathematically; the last clamp keeps that against a rounding of the last
    unit (issue 27: the centre -+ half form gave 0.9999999999999998 at 1000/1000).
    """
    x, n = _counts(successes, trials, "wilson", argument)
    z = two_sided_quantile(confidence)
    safe = np.where(n == 0, 1.0, n)
    root = np.sqrt(x * (safe - x) / safe + z * z / 4)

    def low(successes):
        return successes * successes / (safe * (successes + z * z / 2 + z * root))

    share = x / safe
    lower = np.clip(np.minimum(low(x), share), 0, 1)
    upper = np.clip(np.maximum(1 - low(safe - x), share), 0, 1)
    return _finished(lower, upper, x, n)


def agresti_coull(successes, trials, confidence: float, *, argument: str | None = None):
    """Agresti and Coull's interval: the Wald interval at ``x + z**2/2`` of ``n + z**2`` (clipped to [0, 1])."""
    x, n = _counts(successes, trials, "agresti_coull", argument)
    z = two_sided_quantile(confidence)
    total = n + z * z
    share = (x + z * z / 2) / total
    half = z * np.sqrt(share * (1 - share) / total)
    return _finished(np.clip(share - half, 0, 1), np.clip(share + half, 0, 1), x, n)


def clopper_pearson(successes, trials, confidence: float, *, argument: str | None = None):
    """Clopper and Pearson's exact interval (0 and 1 at the ends): the ``p`` whose binomial
    tails ``P(X >= x)`` and ``P(X <= x)`` are each ``alpha / 2``, the beta quantiles
    ``B(alpha/2; x, n - x + 1)`` and ``B(1 - alpha/2; x + 1, n - x)`` in binomial terms."""
    x, n = _counts(successes, trials, "clopper_pearson", argument, whole=True)
    alpha = 1 - confidence
    counted = n > 0
    x_in, n_in = np.where(counted, x, 0.0), np.where(counted, n, 1.0)
    lower = np.where(x_in > 0, _tail_root(np.maximum(x_in, 1), n_in, alpha / 2), 0.0)
    upper = np.where(x_in < n_in, _tail_root(np.minimum(x_in + 1, n_in), n_in, 1 - alpha / 2), 1.0)
    return _finished(lower, upper, x, n)


def normal_interval(value, se, confidence: float):
    """``value -+ z se``."""
    z = two_sided_quantile(confidence)
    value, se = np.asarray(value, dtype=float), np.asarray(se, dtype=float)
    return value - z * se, value + z * se


def _finished(lower, upper, successes, trials):
    empty = (trials == 0) | np.isnan(successes) | np.isnan(trials)
    return _plain(np.where(empty, np.nan, lower)), _plain(np.where(empty, np.nan, upper))


def _plain(values):
    values = np.asarray(values, dtype=float)
    return values[()] if values.ndim == 0 else values
