"""Score matrices on the device: the checks and row helpers of ``generated/arrays/``' score modules.

The namespace-generic twins of :mod:`metricc.runtime.scores` and :func:`~metricc.runtime.curves.check_scores`,
with the Array API standard's functions only: the truth and the scores stay where they are,
in the value dtype of their device (:mod:`.namespace`). The checks read one or two booleans
from the device; a check that fails is explained from a host copy, in the words of the numpy
checks. Where numpy's helpers use ``bincount``, ``reduceat`` or fancy assignment, these use
one stable sort, ``searchsorted`` and ``cumulative_sum``, or comparisons broadcast over a block
of rows (the row ranks: exact counts, O(C^2) per row, where C is a row's length).

>>> import array_api_strict as xp
>>> codes, S, space = check_scores(xp.asarray([0, 1, 1]), xp.asarray([[0.8, 0.2], [0.3, 0.7], [0.6, 0.4]]), codes=True)
>>> namespace.to_host(row_take(space, S, codes)).tolist()
[0.8, 0.7, 0.4]
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import numpy as np

from metricc.core.errors import InputError
from metricc.runtime import namespace
from metricc.runtime import scores as host_scores
from metricc.runtime.confusion import check_labels
from metricc.runtime.scores import PROBABILITY_TOLERANCE, check_score_memory
from metricc.runtime.xp_kernel import HostFallbackWarning, Space, space

__all__ = ["check_score_memory", "check_scores", "count_nonzero", "expand_dims", "first_max_other", "group_sum", "indices",
           "one_hot", "positions", "rank_pairs", "row_ranks", "row_take", "scores_on_host", "window_sum"]

_BLOCK = 1 << 22  # entries compared at once by row_ranks: its (rows, C, C) comparisons stay this small


def _flags(xp: Space, *conditions) -> list[bool]:
    """Several booleans of the device in one read."""
    return [bool(v) for v in namespace.to_host(xp.stack([xp.all(c) for c in conditions])).tolist()]


def check_scores(y_true, scores, labels=None, probabilities: bool = False, indicator: bool = False,
                 relevance: bool = False, codes: bool = False):
    """-> ``(truth, S, xp)``: the truth (one-hot ``Y``, or with ``codes`` the column of each row's
    class ``(n,)``; with ``indicator`` the matrix ``Y`` itself), the scores ``S`` ``(n, C)`` in the
    value dtype and their :class:`~metricc.runtime.xp_kernel.Space`, as
    :func:`metricc.runtime.curves.check_scores` reads them, on the scores' device."""
    if not namespace.is_array(scores):
        raise InputError("scores", "expected an array of an Array API library")
    xp = space(scores)
    if not xp.isdtype(scores.dtype, ("bool", "integral", "real floating")):
        raise InputError("scores", "expected real numbers (rows = samples, columns = classes)")
    y = y_true if namespace.is_array(y_true) else xp.xp.asarray(np.asarray(y_true), device=xp.device)
    S = xp.astype(scores, xp.values)
    if S.ndim == 1 and not indicator:
        S = xp.stack([1.0 - S, S], axis=-1)
    if S.ndim != 2 or S.shape[0] == 0 or S.shape[1] < 2:
        what = "n_labels" if indicator else "n_classes"
        raise InputError("scores", f"expected shape (n_samples, {what} >= 2){'' if indicator else ' or (n_samples,)'}, "
                                   f"got {tuple(scores.shape)}")
    finite = xp.isfinite(S)
    if probabilities:
        inside = (S >= 0) & (S <= 1) & (xp.abs(xp.sum(S, axis=-1) - 1) <= PROBABILITY_TOLERANCE)[:, None]
        finite_ok, inside_ok = _flags(xp, finite, inside)
    else:
        finite_ok, inside_ok = _flags(xp, finite)[0], True
    if not finite_ok:
        raise InputError("scores", "contains NaN or infinity")
    if not inside_ok:
        host_scores.check_probabilities(namespace.to_host(S))  # explains what is wrong, in numpy's words
    if indicator:
        return _indicator(xp, y, S, labels, relevance), S, xp
    if y.ndim != 1 or y.shape[0] != S.shape[0]:
        raise InputError("y_true", f"expected one label per score row ({S.shape[0]}), got shape {tuple(y.shape)}")
    columns = xp.astype(_columns(xp, y, S.shape[1], labels), xp.values)  # exact: fewer classes than 2**24
    return (columns if codes else one_hot(xp, columns, S)), S, xp


def _indicator(xp: Space, y, S, labels, graded: bool):
    """The multi-label truth ``Y`` (0/1, or graded relevances >= 0) as values, the shape of ``S``."""
    what = "relevance matrix of finite reals >= 0" if graded else "multi-label indicator matrix"
    if not xp.isdtype(y.dtype, ("bool", "integral", "real floating")):
        raise InputError("y_true", f"expected a {what}" + ("" if graded else " of 0 and 1"))
    if tuple(y.shape) != tuple(S.shape):
        raise InputError("y_true", f"expected a {what} of shape {tuple(S.shape)} (one column per score column), "
                                   f"got shape {tuple(y.shape)}")
    Y = xp.astype(y, xp.values)
    if not _flags(xp, (xp.isfinite(Y) & (Y >= 0)) if graded else ((Y == 0) | (Y == 1)))[0]:
        host_scores.indicator_truth(namespace.to_host(Y), namespace.to_host(S), graded=graded)  # raises its message
    if labels is not None and len(_labels(labels)) != S.shape[1]:
        raise InputError("labels", f"expected one label per score column ({S.shape[1]}), got {len(_labels(labels))}")
    return Y


def _labels(labels) -> np.ndarray:
    """The caller's class labels (a list, or an array of any library: C numbers, read to the host)."""
    return check_labels(namespace.to_host(labels) if namespace.is_array(labels) else labels)


def _columns(xp: Space, y, n_classes: int, labels):
    """Class labels -> score columns, as numpy's ``_column_index``: ``labels`` order, else labels
    that are already columns (integers in [0, C)), else the sorted distinct labels."""
    if not xp.isdtype(y.dtype, ("bool", "integral", "real floating")):
        raise InputError("y_true", "labels of an Array API library are numbers")
    if labels is not None:
        order = _labels(labels)
        if len(order) != n_classes:
            raise InputError("labels", f"expected one label per score column ({n_classes}), got {len(order)}")
        if order.dtype.kind not in "biuf":
            raise InputError("labels", f"labels of arrays on a device are numbers, got {order.tolist()!r}")
        keys = xp.asarray(order.astype(np.float64))
        rank = xp.argsort(keys, stable=True)
        ranked = xp.take(keys, rank)
        values = xp.astype(y, xp.values)
        at = xp.clip(xp.searchsorted(ranked, values), max=n_classes - 1)
        found = xp.take(ranked, at) == values
        if not _flags(xp, found)[0]:
            missing = namespace.to_host(y)[~namespace.to_host(found)][0]
            raise InputError("y_true", f"label {missing.item()!r} is not one of the labels {order.tolist()!r}")
        return xp.take(rank, at)
    if xp.isdtype(y.dtype, "integral") and _flags(xp, (y >= 0) & (y < n_classes))[0]:
        return y
    distinct = xp.unique_values(y)
    if distinct.shape[0] == n_classes:
        return xp.searchsorted(distinct, y)
    raise InputError("labels", f"y_true has {distinct.shape[0]} distinct labels for {n_classes} score columns: "
                               "give labels= (one per column, in column order)")


def indices(xp: Space, size: int):
    """``0 .. size - 1`` in the value dtype (numpy's ``arange`` where printed code compares
    classes: the class columns of the truth are values too, as the standard mixes no kinds)."""
    return xp.arange(size, dtype=xp.values, device=xp.device)


def positions(xp: Space, size: int):
    """``0 .. size - 1`` as integers: positions to ``take``."""
    return xp.arange(size, dtype=xp.counts, device=xp.device)


def count_nonzero(xp: Space, values, axis=None):
    """The standard's ``count_nonzero`` in the value dtype, so that printed code mixes it with numbers."""
    return xp.astype(xp.count_nonzero(values, axis=axis), xp.values)


def one_hot(xp: Space, columns, S):
    """The one-hot truth ``Y`` ``(n, C)`` of each row's class column, in the dtype of ``S``."""
    return xp.astype(columns[:, None] == indices(xp, S.shape[1])[None, :], S.dtype)


def row_take(xp: Space, values, columns):
    """``values[s, columns[s]]`` of every row ``s``: one ``take`` of the flattened matrix."""
    n, size = values.shape
    at = positions(xp, n) * size + xp.astype(columns, xp.counts)
    return xp.take(xp.reshape(values, (-1,)), at)


def expand_dims(xp: Space, values, axis: int):
    """numpy's ``expand_dims``, of an array or a Python number."""
    return xp.expand_dims(xp.asarray(values, dtype=xp.bool if isinstance(values, bool) else None)
                          if not namespace.is_array(values) else values, axis=axis)


def row_ranks(xp: Space, values, counts: tuple[str, ...] = host_scores.ROW_COUNTS, weights=None) -> tuple:
    """:func:`metricc.runtime.scores.row_ranks` in the namespace: the counts (or with ``weights``
    the weights) of the entries above, tied with and tied before each entry of its row, and the
    row's first maximum, as values the shape of ``values``. ``top`` alone is one ``argmax``; the
    others compare every pair of a row's entries, a block of rows at a time: exact whole
    numbers (the weights the compiler passes are 0/1 truth)."""
    size = values.shape[-1]
    if tuple(counts) == ("top",) and weights is None:  # argmax takes the first of tied maxima
        first = xp.argmax(values, axis=-1, keepdims=True)
        return (xp.astype(positions(xp, size) == first, xp.values),)
    rows = xp.reshape(values, (-1, size))
    weighed = None if weights is None else xp.reshape(xp.broadcast_to(xp.astype(weights, xp.values), values.shape),
                                                      (-1, size))
    before = indices(xp, size)[None, :] < indices(xp, size)[:, None]  # [l < k] at (k, l)
    block = max(1, _BLOCK // max(size * size, 1))
    parts = {name: [] for name in counts}
    for first in range(0, rows.shape[0], block):
        last = min(first + block, rows.shape[0])
        part = rows[first:last, :]
        other, own = part[:, None, :], part[:, :, None]  # (s, k, l): X[s, l] against X[s, k]
        weight = None if weighed is None else weighed[first:last, None, :]
        tests = {"above": lambda: other > own, "tied": lambda: other == own,
                 "tied_before": lambda: (other == own) & before}
        for name in counts:
            if name == "top":
                top = xp.argmax(part, axis=-1, keepdims=True)
                parts[name].append(xp.astype(positions(xp, size) == top, xp.values))
                continue
            hits = xp.astype(tests[name](), xp.values)
            parts[name].append(xp.sum(hits if weight is None else hits * weight, axis=-1))
    return tuple(xp.reshape(xp.concat(parts[name], axis=0), values.shape) for name in counts)


def first_max_other(xp: Space, values, excluded):
    """The column of each row's first maximum among the columns other than ``excluded[s]``."""
    masked = xp.where(indices(xp, values.shape[-1])[None, :] == excluded[:, None], xp.asarray(-math.inf), values)
    return xp.argmax(masked, axis=-1)


def group_sum(xp: Space, keys, values, lookup):
    """``G[s] = Sum([keys[u] = lookup[s]] * values[u], u)``, as :func:`metricc.runtime.scores.group_sum`.

    Whole-number keys in a span of at most 4096 (the bins of a floor) are summed per key, one
    masked sum each, in the namespace's own summation order; other keys by one stable sort and
    prefix sums, each group's sum a difference of two of them (O(n log n)). A NaN key makes
    every sum NaN, as numpy's does."""
    same = lookup is keys  # as printed: each sample looks up its own key
    keys = xp.astype(keys, xp.values)
    values = xp.broadcast_to(xp.astype(xp.asarray(values) if not namespace.is_array(values) else values, xp.values),
                             keys.shape)
    lookup = keys if same else xp.astype(lookup, xp.values)
    if keys.shape[0] == 0:
        return xp.zeros(lookup.shape, dtype=xp.values, device=xp.device)
    bounds = namespace.to_host(xp.stack([xp.min(keys), xp.max(keys)])).tolist()
    low, high = bounds
    if math.isnan(low) or math.isnan(high):
        return xp.full(lookup.shape, math.nan, dtype=xp.values, device=xp.device)
    whole = math.isfinite(low) and math.isfinite(high) and high - low <= 4096 and same
    if whole and _flags(xp, keys == xp.floor(keys))[0]:
        codes = xp.astype(keys - low, xp.counts)
        table = xp.stack([xp.sum(xp.where(codes == code, values, 0.0)) for code in range(int(high - low) + 1)])
        return xp.take(table, codes)
    order = xp.argsort(keys, stable=True)
    ranked = xp.take(keys, order)
    prefix = xp.concat([xp.zeros(1, dtype=xp.values, device=xp.device), xp.cumulative_sum(xp.take(values, order))])
    start = xp.searchsorted(ranked, lookup, side="left")
    end = xp.searchsorted(ranked, lookup, side="right")
    sums = xp.take(prefix, end) - xp.take(prefix, start)
    return xp.where(xp.isnan(lookup), xp.asarray(math.nan), sums)


def by_class(xp: Space, matrix):
    """The contiguous transpose ``(K, n)`` of an ``(n, K)`` matrix: a running sum or a sort along
    its rows, where one down the first axis is a strided scan, 75 times slower on a CUDA device
    (``torch.cumsum``, 1e7 x 2 on an H200: 1.39 s against 18.6 ms)."""
    n, width = matrix.shape
    return xp.reshape(xp.reshape(xp.matrix_transpose(matrix), (-1,)), (width, n))


def _running_down(xp: Space, matrix):
    """``cumulative_sum(matrix, axis=0)``, run along the rows of :func:`by_class`."""
    return xp.matrix_transpose(xp.cumulative_sum(by_class(xp, matrix), axis=1))


def rank_pairs(xp: Space, truth, scores):
    """``R[j, k] = Sum(Y[s, j] * Y[u, k] * step(S[s, j] - S[u, j]), (s, u))`` ``(C, C)``, as
    :func:`metricc.runtime.scores.rank_pairs`: per column one stable sort; the truth weights
    below each sample and tied with it are prefix sums read at ``searchsorted`` bounds."""
    n, size = scores.shape
    zero = xp.zeros((1, size), dtype=xp.values, device=xp.device)
    rows = []
    for j in range(size):
        column = scores[:, j]
        order = xp.argsort(column, stable=True)
        ranked = xp.take(column, order)
        groups = xp.take(truth, order, axis=0)
        prefix = xp.concat([zero, _running_down(xp, groups)], axis=0)
        below = xp.take(prefix, xp.searchsorted(ranked, ranked, side="left"), axis=0)
        tied = xp.take(prefix, xp.searchsorted(ranked, ranked, side="right"), axis=0) - below
        rows.append(xp.sum(groups[:, j:j + 1] * (below + 0.5 * tied), axis=0))
    return xp.stack(rows)


def window_sum(xp: Space, term: Callable, start, end, size: int):
    """``sum over whole m in [0, size) of [m >= start] [m < end] term(m)``, elementwise, as
    :func:`metricc.runtime.scores.window_sum`: the window's terms alone, added in ascending ``m``,
    in ``max(end - start)`` passes (one number read); a term that is a number for each whole
    ``m`` is tabled once and looked up with ``take``. NaN where a bound is not finite."""
    start, end = xp.broadcast_arrays(*(xp.astype(_value(xp, b), xp.values) for b in (start, end)))
    finite = xp.isfinite(start) & xp.isfinite(end)
    low, high = (xp.where(finite, xp.clip(xp.ceil(xp.where(finite, b, 0.0)), 0, size), 0.0) for b in (start, end))
    width = xp.where(high > low, high - low, 0.0)
    values = [term(m) for m in range(size)]
    if all(not namespace.is_array(v) or v.ndim == 0 for v in values):
        table = xp.stack([xp.astype(_value(xp, v), xp.values) for v in values])
        term = lambda m: xp.reshape(xp.take(table, xp.reshape(xp.astype(m, xp.counts), (-1,))), m.shape)  # noqa: E731
    total = xp.zeros_like(start)
    passes = int(namespace.to_host(xp.max(width))) if width.ndim and width.shape[0] else int(float(width))
    for offset in range(passes):
        inside = offset < width
        total = total + xp.where(inside, term(xp.where(inside, low + offset, 0.0)), 0.0)
    return xp.where(finite, total, xp.asarray(math.nan))


def _value(xp: Space, value):
    """An array of the namespace for a Python number (in the value dtype)."""
    return value if namespace.is_array(value) else xp.asarray(value)


def scores_on_host(function: Callable, metric_id: str, note: str, y_true, scores, **options):
    """``function`` (a numpy module's) on host copies of ``y_true`` and ``scores``, its value
    returned in the scores' namespace and on their device; warns, never silently."""
    warnings.warn(f"{metric_id}: {note}", HostFallbackWarning, stacklevel=3)
    xp = space(scores)
    host = namespace.to_host(y_true) if namespace.is_array(y_true) else y_true
    value = function(host, namespace.to_host(scores), **options)
    return xp.asarray(np.asarray(value, dtype=np.float64))
