"""Score matrices: the one check of numeric, finite scores and of class probabilities.

Curve and score metrics (:mod:`~metricc.runtime.curves`) and probabilistic confusion
matrices (:mod:`~metricc.runtime.probabilistic`) accept different shapes, but read the
numbers in a score matrix the same way: rows are samples, the last axis holds one score per
class, and where probabilities are needed each row lies in [0, 1] and sums to 1 within
``PROBABILITY_TOLERANCE``.

>>> check_probabilities(score_array([[0.25, 0.75], [0.5, 0.5]])).tolist()
[[0.25, 0.75], [0.5, 0.5]]
>>> check_probabilities(score_array([[0.5, 0.6]]))
Traceback (most recent call last):
...
metricc.core.errors.InputError: scores: each row must sum to 1 (within 1e-06); row 0 sums to 1.1
"""

from __future__ import annotations

import math

import numpy as np

from metricc.runtime.confusion import check_labels
from metricc.core.errors import InputError

__all__ = ["MAX_SCORE_ARRAY_BYTES", "PROBABILITY_TOLERANCE", "ROW_COUNTS", "check_probabilities", "check_score_memory",
           "group_sum", "indicator_truth", "plainly_probabilities", "rank_pairs", "row_ranks", "score_array", "window_sum"]

# Probabilities printed with six decimals, or summed in float32, miss 1 by up to ~1e-6.
PROBABILITY_TOLERANCE = 1e-6
# The largest array a score-level formula may need. Its generated code broadcasts over the
# indices of each subexpression at once; sums over a second sample that compare keys are
# grouped (``group_sum``) and pairwise rank sums ranked (``rank_pairs``), but a formula that
# pairs samples otherwise needs n * n floats (times C per class index).
MAX_SCORE_ARRAY_BYTES = 1 << 30


def check_score_memory(metric_id: str, n: int, n_classes: int, arrays) -> None:
    """Refuse, before anything large is allocated, a score-level metric whose arrays would
    exceed :data:`MAX_SCORE_ARRAY_BYTES`; ``arrays``: the ``(sample axes, class axes)`` of each
    array its generated code computes, as the emitter printed it.

    >>> check_score_memory("pairs", 20000, 3, ((1, 2), (2, 0)))
    Traceback (most recent call last):
    ...
    metricc.core.errors.InputError: scores: pairs on 20000 samples and 3 classes needs arrays of 3.0 GiB (n**2 floats), above the limit of 1 GiB; evaluate a sample of the data
    """
    sizes = {8 * n ** samples * n_classes ** classes: (samples, classes) for samples, classes in arrays}
    size = max(sizes, default=0)
    if size > MAX_SCORE_ARRAY_BYTES:
        samples, classes = sizes[size]
        shape = " * ".join([f"n**{samples}" if samples > 1 else "n"] + ([f"C**{classes}" if classes > 1 else "C"] if classes else []))
        raise InputError("scores", f"{metric_id} on {n} samples and {n_classes} classes needs arrays of "
                                   f"{size / 2**30:.1f} GiB ({shape} floats), above the limit of "
                                   f"{MAX_SCORE_ARRAY_BYTES / 2**30:.0f} GiB; evaluate a sample of the data")


def group_sum(keys: np.ndarray, values, lookup) -> np.ndarray:
    """``G[..., s] = Sum([keys[u] = lookup[s]] * values[..., u], u)``: per lookup key, the sum
    of the values of the samples with that key, in O(n log n) time and O(n) memory per class
    row where broadcasting over the pairs (s, u) takes O(n^2).

    One sort (``np.unique``) numbers the distinct keys, ``np.bincount`` adds each row of values
    per key in sample order, and each lookup key gathers its key's sum (0 for a key no sample
    has). Whole-number keys in a narrow span (the bins of a floor) need no sort: their offsets
    from the least key number them. As the bracket ``equal``, a NaN key makes the sums it meets NaN.

    >>> group_sum(np.array([0.0, 1.0, 0.0]), np.array([1.0, 2.0, 4.0]), np.array([0.0, 1.0, 2.0])).tolist()
    [5.0, 2.0, 0.0]
    """
    keys = np.asarray(keys, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    lookup = np.asarray(lookup, dtype=np.float64)
    rows = np.broadcast_to(values, values.shape[:-1] + keys.shape if values.ndim else keys.shape)
    known = ~np.isnan(keys)
    same = lookup is keys or lookup.shape == keys.shape and known.all() and np.array_equal(lookup, keys)
    flat = rows.reshape(-1, keys.size)
    whole = _whole_codes(keys) if same and known.all() else None
    if whole is not None:  # bins of whole-number keys (a floor): bincount numbers them, no sort; the same sums
        sums = np.stack([np.bincount(whole, weights=row) for row in flat])
        return sums[:, whole].reshape(rows.shape[:-1] + lookup.shape)
    distinct, inverse = np.unique(keys[known], return_inverse=True)
    sums = np.stack([np.bincount(inverse, weights=row[known], minlength=distinct.size) for row in flat])
    if same:
        gathered = sums[:, inverse]
    else:
        position = np.minimum(np.searchsorted(distinct, lookup), max(distinct.size - 1, 0))
        found = distinct[position] == lookup if distinct.size else np.zeros(lookup.shape, dtype=bool)
        gathered = np.where(found, sums[:, position] if distinct.size else 0.0, 0.0)
    gathered = np.where(np.isnan(lookup), np.nan, gathered)
    if not known.all():
        gathered = np.full_like(gathered, np.nan)
    return gathered.reshape(rows.shape[:-1] + lookup.shape)


def _whole_codes(keys: np.ndarray) -> np.ndarray | None:
    """``keys - min(keys)`` as indices where the finite keys are whole numbers spanning at most
    a few times their count (bins of a floor), else None: a bincount over them then takes
    the place of the sort that numbers the distinct keys, and adds in the same sample order."""
    if not keys.size:
        return None
    low, high = keys.min(), keys.max()
    if not (np.isfinite(low) and np.isfinite(high) and high - low <= max(4 * keys.size, 1 << 16)):
        return None
    codes = keys - low
    return codes.astype(np.intp) if np.array_equal(codes, np.floor(codes)) else None


def rank_pairs(truth: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """``R[j, k] = Sum(Y[s, j] * Y[u, k] * step(S[s, j] - S[u, j]), (s, u))`` ``(C, C)`` by ranking.

    For each score column j one sort groups the samples by score; a group's truth weights
    times the weights of every class strictly below it, plus half of those tied with it,
    summed over the groups, give row j: O(C n log n + n C^2) time and O(n C) memory, where
    broadcasting over the pairs (s, u) takes O(n^2 C^2). With one-hot truth every term is
    a whole number or a half, so the sums are exact up to 2**53 (n up to 9.4e7).

    >>> rank_pairs(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]), np.array([[0.9, 0.1], [0.5, 0.5], [0.5, 0.5]])).tolist()
    [[2.0, 1.5], [1.5, 0.5]]
    """
    n_classes = scores.shape[-1]
    pairs = np.empty((n_classes, n_classes))
    for j in range(n_classes):
        order = np.argsort(scores[:, j], kind="stable")
        ranked = scores[order, j]
        starts = np.flatnonzero(ranked[1:] != ranked[:-1]) + 1
        groups = truth[order]  # truth weight of each class per tie group (a sample where no ties)
        if starts.size + 1 < ranked.size:
            groups = np.add.reduceat(groups, np.r_[0, starts], axis=0)
        below = np.cumsum(groups, axis=0) - groups
        pairs[j] = groups[:, j] @ (below + 0.5 * groups)
    return pairs


ROW_COUNTS = ("above", "tied", "tied_before", "top")


def row_ranks(values: np.ndarray, counts: tuple[str, ...] = ROW_COUNTS, weights: np.ndarray | None = None
              ) -> tuple[np.ndarray, ...]:
    """Counts over the entries ``l`` of the row of each entry ``X[..., s, k]`` along the last
    axis, as float64 whole numbers the shape of ``values``, those named in ``counts`` in that
    order: ``above`` ``#{l: X[s, l] > X[s, k]}``, ``tied`` ``#{l: X[s, l] = X[s, k]}`` (``k``
    itself included), ``tied_before`` ``#{l < k: X[s, l] = X[s, k]}``, ``top`` 1 at the row's
    first maximum (``above = tied_before = 0``), else 0. One stable sort per row: O(C log C)
    where comparing every pair of entries takes O(C^2); ``top`` alone is one ``argmax``, O(C).
    With ``weights`` (the shape of ``values``) ``above``, ``tied`` and ``tied_before`` sum the
    weights ``w[s, l]`` of those entries instead of counting them: prefix sums in sorted order,
    exact where the weights are whole numbers (the compiler passes 0/1 truth only).

    In sorted order the entries equal to one another lie together; a tie group starts where
    an entry differs from its left neighbour, and a pass from the left carries each group's
    first position to its members (its end likewise, from the right). Entries above a group are
    those after its end; the stable sort keeps a group in class order, so an entry's offset
    in its group counts the tied classes before it. Each pass goes over one position of all
    rows of a block at once (vectorised over the rows), and the blocks of rows bound the
    sort's temporaries: beyond the counts returned, O(1) memory. Scores are checked finite: no NaN breaks the ties (as ``==``,
    -0.0 ties with 0.0).

    >>> [c.tolist() for c in row_ranks(np.array([[0.2, 0.5, 0.2, 0.1]]))]
    [[[1.0, 0.0, 1.0, 3.0]], [[2.0, 1.0, 2.0, 1.0]], [[0.0, 0.0, 1.0, 0.0]], [[0.0, 1.0, 0.0, 0.0]]]
    """
    values = np.asarray(values, dtype=np.float64)
    size = values.shape[-1]
    if tuple(counts) == ("top",) and weights is None:  # argmax takes the first of tied maxima, as above = tied_before = 0 does
        top = np.zeros(values.shape)
        if size:
            np.put_along_axis(top, np.argmax(values, axis=-1)[..., None], 1.0, axis=-1)
        return (top,)
    rows = values.reshape(math.prod(values.shape[:-1]), size)
    weighed = None if weights is None else np.broadcast_to(np.asarray(weights, dtype=np.float64), values.shape).reshape(rows.shape)
    results = tuple(np.empty(rows.shape) for _ in counts)
    block = max(1, _RANK_BLOCK // max(size, 1))  # rows sorted at once: the sort's copies stay small
    for first in range(0, rows.shape[0], block):
        _rank_block(rows[first:first + block], counts, [result[first:first + block] for result in results],
                    None if weighed is None else weighed[first:first + block])
    return tuple(result.reshape(values.shape) for result in results)


_RANK_BLOCK = 1 << 20  # entries per block of rows in row_ranks


def first_max_other(values: np.ndarray, excluded: np.ndarray) -> np.ndarray:
    """The class of each row's first maximum among the classes other than ``excluded[s]``
    (``values`` ``(n, C)`` finite, ``C >= 2``; ``excluded`` ``(n,)`` classes): the runner-up of
    the true class, hinge loss's best wrong class. The row with its excluded entry masked to
    -inf, one ``argmax`` (the first of tied maxima), block by block so the masked copy stays
    small: O(n C) with no sort.

    >>> first_max_other(np.array([[0.5, 0.2, 0.5], [0.1, 0.3, 0.3]]), np.array([0, 1])).tolist()
    [2, 2]
    """
    n, size = values.shape
    found = np.empty(n, dtype=np.intp)
    block = max(1, _RANK_BLOCK // 16 // max(size, 1))  # a masked block stays in cache
    for first in range(0, n, block):
        masked = values[first:first + block].copy()
        masked[np.arange(masked.shape[0]), excluded[first:first + block]] = -np.inf
        np.argmax(masked, axis=-1, out=found[first:first + block])
    return found


def window_sum(term, start, end, size: int):
    """``sum over whole m in [0, size) of [m >= start] [m < end] term(m)``, elementwise over the
    broadcast ``start`` and ``end``: the terms of the window alone, added in ascending ``m`` as
    a loop over every ``m`` adds them (its other terms are zeros), so the same float sum in
    ``max(end - start)`` passes instead of ``size``. ``term`` is called on each whole ``m`` in
    ``[0, size)`` as the loop calls it (numpy's array and scalar logarithms may differ in the last
    bit) and its values looked up; a term that gives arrays is called on arrays of ``m`` in the
    window. NaN where a bound is not finite.

    >>> float(window_sum(lambda m: 1 / (m + 1), 1, 3.5, 10))  # m = 1, 2, 3
    1.0833333333333333
    """
    start, end = np.broadcast_arrays(np.asarray(start, dtype=np.float64), np.asarray(end, dtype=np.float64))
    finite = np.isfinite(start) & np.isfinite(end)
    low = np.where(finite, np.clip(np.ceil(np.where(finite, start, 0.0)), 0, size), 0.0)  # [m >= start]: m >= ceil(start)
    high = np.where(finite, np.clip(np.ceil(np.where(finite, end, 0.0)), 0, size), 0.0)  # [m < end]: m <= ceil(end) - 1
    width = np.maximum(high - low, 0.0)
    values = [term(m) for m in range(size)]
    if all(np.ndim(v) == 0 for v in values):
        table = np.array(values, dtype=np.float64)
        term = lambda m: table[m.astype(np.intp)]  # noqa: E731 - the loop's values, by position
    total = np.zeros_like(start)  # the bounds' memory order, as the loop's sum has: np.sum adds it in that order
    for offset in range(int(np.max(width, initial=0.0))):
        inside = offset < width
        total = total + np.where(inside, term(np.where(inside, low + offset, 0.0)), 0.0)
    return np.where(finite, total, np.nan)


def _rank_block(rows: np.ndarray, counts: tuple[str, ...], results: list[np.ndarray], weights: np.ndarray | None) -> None:
    """:func:`row_ranks` of a block of rows ``(m, C)``, written into ``results``."""
    size = rows.shape[1]
    small = np.int16 if size < 2 ** 15 else np.int64  # positions: 2 bytes each where they fit
    order = np.argsort(rows, axis=-1, kind="stable").astype(small)
    ordered = np.sort(rows, axis=-1).T  # (position, row): equal values, as the stable order's
    start, end = np.zeros(ordered.shape, dtype=small), np.full(ordered.shape, size, dtype=small)
    for position in range(1, size):
        start[position] = np.where(ordered[position] != ordered[position - 1], position, start[position - 1])
    for position in range(size - 2, -1, -1):
        end[position] = np.where(ordered[position] != ordered[position + 1], position + 1, end[position + 1])
    at_position = {"above": lambda p: size - end[p], "tied": lambda p: end[p] - start[p],
                   "tied_before": lambda p: p - start[p], "top": lambda p: (end[p] == size) & (start[p] == p)}
    if weights is not None:  # prefix[q, r]: the weights of row r's first q entries in sorted order
        prefix = np.zeros((size + 1, rows.shape[0]))
        np.cumsum(np.take_along_axis(weights, order.astype(np.intp), axis=-1).T, axis=0, out=prefix[1:])
        columns = np.arange(rows.shape[0])
        at = lambda q: prefix[q, columns]  # noqa: E731 - the weight up to position q of each row
        at_position.update(above=lambda p: prefix[size] - at(end[p]),
                           tied=lambda p: at(end[p]) - at(start[p]), tied_before=lambda p: at(p) - at(start[p]))
    row_starts = np.arange(rows.shape[0]) * size
    for name, result in zip(counts, results):
        for position in range(size):  # one position of every row at a time: vectorised over the rows
            result.ravel()[row_starts + order[:, position]] = at_position[name](position)


def score_array(scores, *, argument: str = "scores", finite: bool = True) -> np.ndarray:
    """``scores`` as a float64 array with only finite entries; the caller checks the shape.
    ``finite=False``: the caller has another proof that they are finite (probabilities that
    :func:`plainly_probabilities` passed) or checks them itself."""
    try:
        values = np.asarray(scores)
        if values.dtype.kind not in "biufO":  # complex, strings, dates: not scores
            raise TypeError
        values = values.astype(np.float64, copy=False)  # no copy of float64 scores: evaluate reads them before the metric does
    except (TypeError, ValueError, OverflowError):
        raise InputError(argument, "expected real numbers (rows = samples, columns = classes)") from None
    if finite and not _all_finite(values):
        raise InputError(argument, "contains NaN or infinity")
    return values


def _all_finite(values: np.ndarray) -> bool:
    """Whether every entry is finite: their sum is (a NaN or an infinity makes it NaN or
    infinite), one pass with no temporary; only a sum past float64 looks entry by entry."""
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.add.reduce(values, axis=None)
    return bool(np.isfinite(total)) or bool(np.isfinite(values).all())


def indicator_truth(y_true, values: np.ndarray, labels=None, *, graded: bool = False) -> np.ndarray:
    """The multi-label truth ``Y`` ``(n, C)`` as floats: 0/1 entries, the shape of the scores
    ``values`` (no 1-D form: one column per label, as scikit-learn's ranking metrics take them).
    With ``graded`` (``truth: relevance``) the entries are graded relevances, any finite reals
    >= 0, as scikit-learn's ``dcg_score`` and ``ndcg_score`` take them.

    >>> indicator_truth([[1, 0, 1], [0, 1, 0]], np.zeros((2, 3))).tolist()
    [[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
    >>> indicator_truth([0, 1], np.zeros((2, 2)))
    Traceback (most recent call last):
    ...
    metricc.core.errors.InputError: y_true: expected a multi-label indicator matrix of shape (2, 2) (one column per score column), got shape (2,)
    >>> indicator_truth([[3, 0.5], [0, 0]], np.zeros((2, 2)), graded=True).tolist()
    [[3.0, 0.5], [0.0, 0.0]]
    >>> indicator_truth([[3, -1], [0, 0]], np.zeros((2, 2)), graded=True)
    Traceback (most recent call last):
    ...
    metricc.core.errors.InputError: y_true: relevance must be >= 0; row 0, column 1 holds -1
    """
    if values.ndim != 2 or values.shape[0] == 0 or values.shape[1] < 2:
        raise InputError("scores", f"expected shape (n_samples, n_labels >= 2), got {values.shape}")
    what = "relevance matrix of finite reals >= 0" if graded else "multi-label indicator matrix"
    try:
        given = np.asarray(y_true)
        if given.dtype.kind not in "biufO":  # complex or text: np.asarray(float) would warn or guess
            raise TypeError
        truth = given.astype(np.float64)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an integer past float64 in an object array
        raise InputError("y_true", f"expected a {what}" + ("" if graded else " of 0 and 1")) from None
    if truth.shape != values.shape:
        raise InputError("y_true", f"expected a {what} of shape {values.shape} "
                                   f"(one column per score column), got shape {truth.shape}")
    if graded:
        _check_relevance(truth)
    elif not np.isin(truth, (0.0, 1.0)).all():
        raise InputError("y_true", "a multi-label indicator matrix holds only 0 and 1")
    labels = None if labels is None else check_labels(labels)
    if labels is not None and len(labels) != values.shape[1]:
        raise InputError("labels", f"expected one label per score column ({values.shape[1]}), got {len(labels)}")
    return truth


def _check_relevance(truth: np.ndarray) -> None:
    """Graded relevances are gains: finite and not negative (a negative gain would reward
    ranking an irrelevant label last, and NaN would make every DCG NaN)."""
    bad = ~np.isfinite(truth) | (truth < 0)
    if bad.any():
        row, column = np.unravel_index(int(np.argmax(bad)), truth.shape)
        value = truth[row, column]
        why = "must be finite" if not np.isfinite(value) else "must be >= 0"
        raise InputError("y_true", f"relevance {why}; row {row}, column {column} holds {value:g}")


def check_probabilities(values: np.ndarray, tolerance: float = PROBABILITY_TOLERANCE, *,
                        argument: str = "scores") -> np.ndarray:
    """``values`` ``(..., N, C)`` unchanged if every row is in [0, 1] and sums to 1 within ``tolerance``.

    The common case passes on a minimum, a maximum and the row sums as a matrix-vector product
    (a few times faster than ``sum(axis=-1)`` over short rows), block by block so that each
    block is read from cache three times; the product's rounding differs from the sum's by far
    less than half the tolerance, so only data that comes that close to the limit is checked
    again exactly, and the errors are those of the exact check.
    """
    if plainly_probabilities(values, tolerance):
        return values
    outside = (values < 0) | (values > 1)
    if outside.any():
        where = np.unravel_index(int(np.argmax(outside)), values.shape)
        raise InputError(argument, f"probabilities must lie in [0, 1]; {_row(where[:-1])} holds "
                                   f"{values[where]:.6g}")
    sums = values.sum(axis=-1)
    off = np.abs(sums - 1)
    if (off > tolerance).any():
        where = np.unravel_index(int(np.argmax(off)), sums.shape)
        raise InputError(argument, f"each row must sum to 1 (within {tolerance:g}); {_row(where)} sums to "
                                   f"{sums[where]:.6g}")
    return values


def plainly_probabilities(values: np.ndarray, tolerance: float = PROBABILITY_TOLERANCE) -> bool:
    """Whether every row of the float64 ``values`` ``(..., C)`` lies in [0, 1] and sums to 1
    within half of ``tolerance``, checked fast (False on NaN or infinity, which it so
    excludes, and where it cannot tell: :func:`check_probabilities` then decides exactly).

    One pass over each block of rows reads it from memory: the row sums in one ``einsum``
    (faster than ``sum(axis=-1)`` or a product over short rows; its rounding is far below half
    the tolerance), then, the block still in cache, the range and finiteness in one unsigned
    maximum of the bits (a float64 in [+0, 1] is the uint64 in [0, bits of 1.0]: a set sign
    bit, infinity and NaN all lie above; -0.0 too, which the exact check then passes). Both
    are compute-bound in cache: the blocks only keep the second read out of main memory.

    >>> plainly_probabilities(np.array([[0.25, 0.75], [1.0, 0.0]])), plainly_probabilities(np.array([[0.5, -0.0]]))
    (True, False)
    """
    if not (values.ndim and values.size and values.dtype == np.float64 and values.flags.c_contiguous):
        return False
    rows, tolerance = values.reshape(-1, values.shape[-1]), tolerance / 2
    block = max(1, _CHECK_BLOCK // rows.shape[1])
    for first in range(0, rows.shape[0], block):
        part = rows[first:first + block]
        sums = np.einsum("ij->i", part)
        if part.view(np.uint64).max() > _ONE_BITS:
            return False
        sums -= 1
        if not np.abs(sums, out=sums).max() <= tolerance:
            return False
    return True


_ONE_BITS = np.float64(1.0).view(np.uint64)
_CHECK_BLOCK = 1 << 19  # entries per block of the probability check: 4 MiB, in the shared cache (fewer calls than L2-sized blocks)


def _row(index: tuple) -> str:
    """``row 3``, or ``row 3 of batch (1,)`` for a batch of score matrices."""
    row = f"row {int(index[-1])}"
    return row if len(index) == 1 else f"{row} of batch {tuple(int(i) for i in index[:-1])}"
