"""The bootstrap over counts: percentile and BCa intervals for any metric, in numpy alone.

Drawing ``n`` instances with replacement from single-label data is drawing the confusion
matrix from the multinomial with cell probabilities ``M / n``; so labels and matrices are
resampled alike, ``n_resamples`` matrices at once as one ``(R, ..., C, C)`` batch that the
generated metric functions evaluate in one call. Other inputs (indicator matrices of
multi-label data, scores) are resampled by instance, one resample per call.

BCa (Efron 1987) corrects the percentiles for bias (``z0``, from the share of resamples
below the estimate) and skew (the acceleration ``a``, from the jackknife). Leaving out one
instance of a matrix gives one of at most ``C**2`` matrices (one less in cell ``ij``), each
standing for ``M_ij`` instances: the jackknife is one more batch, weighted by the counts.

Resamples whose value is undefined (NaN) are left out of the quantiles and the standard
error, as they would be by a user repeating the experiment.

>>> import numpy as np
>>> accuracy = lambda m: {"accuracy": np.trace(m, axis1=-2, axis2=-1) / m.sum(axis=(-2, -1))}
>>> result = bootstrap_matrix(accuracy, np.array([[40, 10], [5, 45]]), confidence=0.95, n_resamples=2000, random_state=0)
>>> [round(float(v), 3) for v in result["accuracy"][:4]], result["accuracy"].scale
([0.85, 0.77, 0.91, 0.036], 'percentile')
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from metricc.core.errors import InputError
from metricc.api.intervals import Interval, normal_quantile
from metricc.api.progress import progress

__all__ = ["bootstrap_matrix", "bootstrap_instances", "resampled_matrices", "check_resamples", "generator"]

# Cells of resampled matrices per batch (8 MiB of int64): every resample of a small matrix in
# one call of the metrics, while a large one (C = 100: 104 resamples a call) stays bounded.
CHUNK_CELLS = 1 << 20
# Beyond a million resamples the Monte Carlo error of a 95% percentile (about 0.003 of the
# statistic's standard error) is far below the sampling error the interval states: more is only time.
MAX_RESAMPLES = 1_000_000


def check_resamples(n_resamples) -> int:
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 100:
        raise InputError("n_resamples", f"expected a whole number of resamples, at least 100 (e.g. 2000), got {n_resamples!r}")
    if n_resamples > MAX_RESAMPLES:
        raise InputError("n_resamples", f"at most {MAX_RESAMPLES:,} resamples (their Monte Carlo error is then far "
                                        f"below the interval's own), got {int(n_resamples):,}")
    return int(n_resamples)


def generator(random_state) -> np.random.Generator:
    """``random_state`` (None, a seed or a Generator) as a numpy Generator."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or (isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool)
                                and random_state >= 0):
        return np.random.default_rng(random_state)
    raise InputError("random_state", f"expected None, a non-negative integer seed or a numpy Generator, got {random_state!r}")


def resampled_matrices(matrix, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` multinomial draws of each matrix ``(..., C, C)``: shape ``(size, ..., C, C)``."""
    matrix = np.asarray(matrix)
    cells = matrix.reshape(*matrix.shape[:-2], -1).astype(np.float64)
    total = cells.sum(axis=-1)
    shares = cells / np.where(total == 0, 1.0, total)[..., None]
    draws = rng.multinomial(total.astype(np.int64), shares, size=(size, *total.shape))
    return draws.reshape(size, *matrix.shape)


def _jackknife_matrices(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ``C**2`` leave-one-out matrices (first axis; cell ``ij`` one less) and their weights ``M_ij``."""
    n_classes = matrix.shape[-1]
    eye = np.eye(n_classes * n_classes, dtype=matrix.dtype).reshape(-1, n_classes, n_classes)
    eye = eye.reshape(eye.shape[0], *(1,) * (matrix.ndim - 2), n_classes, n_classes)
    left_out = matrix[None] - eye
    weights = np.moveaxis(matrix.reshape(*matrix.shape[:-2], -1), -1, 0)
    return np.maximum(left_out, 0), weights


def _acceleration(jackknife: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``a = sum w d**3 / (6 (sum w d**2)**1.5)`` with ``d`` the jackknife mean minus each value."""
    weights = np.broadcast_to(weights.reshape(weights.shape + (1,) * (jackknife.ndim - weights.ndim)), jackknife.shape)
    weights = np.where(np.isnan(jackknife), 0.0, weights)
    values = np.where(np.isnan(jackknife), 0.0, jackknife)
    total = np.sum(weights, axis=0)
    mean = np.sum(weights * values, axis=0) / np.where(total == 0, 1.0, total)
    d = mean - values
    spread = np.sum(weights * d ** 2, axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(spread > 0, np.sum(weights * d ** 3, axis=0) / (6 * spread ** 1.5), 0.0)


def _normal_cdf(x):
    return 0.5 * np.vectorize(math.erfc, otypes=[float])(-np.asarray(x, dtype=float) / math.sqrt(2))


def _normal_ppf(p):
    inside = (p > 0) & (p < 1)
    values = np.vectorize(normal_quantile, otypes=[float])(np.where(inside, p, 0.5))
    return np.where(p <= 0, -np.inf, np.where(p >= 1, np.inf, values))


def _quantiles(ordered: np.ndarray, valid: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Per-entry quantiles of the sorted draws ``ordered`` ``(R, ...)`` (NaN last, ``valid`` not
    NaN per entry) at per-entry ``levels`` ``(2, ...)``."""
    last = np.maximum(valid - 1, 0)
    position = np.clip(levels, 0, 1) * last
    below = np.floor(position).astype(int)
    above = np.minimum(below + 1, last)
    low = np.take_along_axis(ordered, below.reshape(2, *ordered.shape[1:]), axis=0)
    high = np.take_along_axis(ordered, above.reshape(2, *ordered.shape[1:]), axis=0)
    return np.where(valid == 0, np.nan, low + (high - low) * (position - below))


def _defined_sum(values: np.ndarray) -> np.ndarray:
    """``np.nansum`` over the first axis, which copies the array to replace NaN: a plain sum
    where no entry is NaN (the usual case: the same additions, the same result)."""
    total = np.sum(values, axis=0)
    return np.nansum(values, axis=0) if np.isnan(total).any() else total


def interval_from_draws(value, draws: np.ndarray, confidence: float, acceleration=None) -> Interval:
    """Percentile interval of the resampled values ``draws`` ``(R, ...)``, BCa when
    ``acceleration`` is given; the standard error is their standard deviation."""
    value = np.asarray(value, dtype=float)
    count = np.sum(~np.isnan(draws), axis=0)
    alpha = (1 - confidence) / 2
    levels = np.array([alpha, 1 - alpha]).reshape(2, *(1,) * value.ndim) * np.ones((2, *value.shape))
    if acceleration is not None:
        below = np.sum(draws < value, axis=0) + 0.5 * np.sum(draws == value, axis=0)
        z0 = _normal_ppf(below / np.where(count == 0, 1, count))
        z = np.array([normal_quantile(alpha), normal_quantile(1 - alpha)]).reshape(levels.shape[:1] + (1,) * value.ndim)
        with np.errstate(invalid="ignore", divide="ignore"):
            levels = _normal_cdf(z0 + (z0 + z) / (1 - acceleration * (z0 + z)))
        levels = np.where(np.isfinite(z0), levels, np.nan)
        bounds = _quantiles(np.sort(draws, axis=0), count, np.nan_to_num(levels, nan=0.5))
        bounds = np.where(np.isnan(levels), np.nan, bounds)
    else:
        bounds = _quantiles(np.sort(draws, axis=0), count, levels)
    mean = _defined_sum(draws) / np.maximum(count, 1)  # not nanmean: an all-undefined column is expected, not a warning
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.where(count > 1, np.sqrt(_defined_sum((draws - mean) ** 2) / (count - 1)), np.nan)
    return Interval(_plain(value), _plain(bounds[0]), _plain(bounds[1]), _plain(se), "percentile" if acceleration is None else "bca")


def _stacked(chunks: list[dict]) -> dict:
    return {key: np.concatenate([np.asarray(c[key], dtype=float) for c in chunks], axis=0) for key in chunks[0]}


def bootstrap_matrix(statistic: Callable[[np.ndarray], dict], matrix, *, confidence: float, n_resamples: int,
                     random_state=None, bca: bool = False, values: dict | None = None) -> dict[str, Interval]:
    """Bootstrap ``statistic`` (matrices ``(..., C, C)`` -> ``{key: values}``) at the integer
    ``matrix``; one :class:`Interval` per key. ``values``: ``statistic(matrix)``, when the
    caller computed it already (``evaluate`` did)."""
    matrix = np.asarray(matrix)
    rng = generator(random_state)
    values = statistic(matrix) if values is None else values
    chunk = max(1, CHUNK_CELLS // matrix.size)  # a multinomial stream drawn in parts is the same stream
    chunks = []
    with progress(n_resamples, "bootstrap") as bar:
        for start in range(0, n_resamples, chunk):
            size = min(chunk, n_resamples - start)
            chunks.append(statistic(resampled_matrices(matrix, size, rng)))
            bar.update(size)
    draws = _stacked(chunks)
    left_out, weights = _jackknife_matrices(matrix) if bca else (None, None)
    jackknife = statistic(left_out) if bca else None
    return {key: interval_from_draws(values[key], draws[key], confidence,
                                     _acceleration(np.asarray(jackknife[key], dtype=float), weights) if bca else None)
            for key in values}


def bootstrap_instances(statistic: Callable[[np.ndarray], dict], n_instances: int, *, confidence: float,
                        n_resamples: int, random_state=None, bca: bool = False) -> dict[str, Interval]:
    """Bootstrap ``statistic`` (instance indices ``(N,)`` -> ``{key: values}``) by resampling
    instances, one resample per call; BCa's jackknife leaves out each instance in turn."""
    rng = generator(random_state)
    values = statistic(np.arange(n_instances))
    draws = []
    with progress(n_resamples, "bootstrap") as bar:
        for _ in range(n_resamples):
            draws.append({k: np.asarray(v, dtype=float)[None] for k, v in statistic(rng.integers(0, n_instances, n_instances)).items()})
            bar.update()
    draws = _stacked(draws)
    jackknife = None
    if bca:
        everyone = np.arange(n_instances)
        left_out = []
        with progress(n_instances, "jackknife") as bar:
            for i in range(n_instances):
                left_out.append({k: np.asarray(v, dtype=float)[None] for k, v in statistic(np.delete(everyone, i)).items()})
                bar.update()
        jackknife = _stacked(left_out)
    return {key: interval_from_draws(values[key], draws[key], confidence,
                                     _acceleration(jackknife[key], np.ones(n_instances)) if bca else None)
            for key in values}


def _plain(values):
    values = np.asarray(values, dtype=float)
    return values[()] if values.ndim == 0 else values
