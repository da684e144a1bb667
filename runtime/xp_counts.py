"""Confusion, multi-label and threshold counts in the input's namespace and on its device.

The counts every catalog metric is computed from, made where the arrays live (a CUDA tensor
is counted on its GPU, a JAX array by JAX) with the Array API standard's functions only, so
any conforming library works; nothing goes to the host except, with ``validate=True``, one
boolean per call that says whether every label is a class (or every indicator 0/1).

The standard has no ``bincount`` and (before 2024.12) no scatter, so labels are counted by
sorting: the code ``C * true + predicted`` of each sample is sorted and ``searchsorted``
finds where each of the ``C * C`` codes starts; the count of a code is the distance to the
next one. Measured on 2 CPU cores (1e7 labels, C = 10): sort + searchsorted 1.1 s in numpy
and 0.9 s in PyTorch; comparing every code with ``arange(C * C)`` in chunks (bounded memory)
4.7 s and 12 s, and it grows with C * C while sorting does not (O(n log n) whatever C, static
output shapes, exact integer counts); one-hot matrices multiplied in float32 were slower again
on CPU. numpy, PyTorch, CuPy and JAX have a ``bincount`` beyond the standard (35x faster than
sorting in numpy, a scatter-add on a GPU), so their arrays are counted with it; every other
library takes the standard path, and array-api-strict runs it on numpy arrays and checks it.

Counts are int64 where the device holds int64, else int32 (JAX without x64): see
:mod:`.namespace`. Predicted positive at a threshold means ``score >= threshold``.

>>> import numpy as np
>>> confusion_counts(np.array([0, 1, 1]), np.array([0, 1, 0]), np.arange(2)).tolist()
[[1, 0], [1, 1]]
"""

from __future__ import annotations

import numpy as np

from metricc.core.errors import InputError
from metricc.runtime.namespace import array_namespace, count_dtype, device, is_numpy, to_host, value_dtype

__all__ = ["check_weights", "code_counts", "confusion_counts", "encode", "multilabel_counts", "threshold_counts"]


def code_counts(codes, size: int, weights=None):
    """How many of the integer ``codes`` equal each of ``0 .. size - 1`` (others are ignored), ``(size,)``;
    with ``weights`` ``(N,)`` (floating, checked by the caller) the sum of their weights instead."""
    xp = array_namespace(codes)
    where = device(codes)
    dtype = count_dtype(xp, where) if weights is None else weights.dtype
    if is_numpy(xp):
        kept = (codes >= 0) & (codes < size)
        return np.bincount(codes[kept], None if weights is None else weights[kept], minlength=size)[:size].astype(dtype)
    counted = _library_bincount(codes, size, weights)
    if counted is not None:
        return xp.astype(counted, dtype)
    if weights is not None:
        return _weighted_code_counts(codes, size, weights, xp)
    ordered = xp.sort(codes)
    edges = xp.searchsorted(ordered, xp.arange(size + 1, dtype=codes.dtype, device=where))
    return xp.astype(edges[1:] - edges[:-1], dtype)


def _library_bincount(codes, size: int, weights=None):
    """The library's own ``bincount`` of ``codes`` in ``0 .. size`` (the code ``size`` marks a sample
    not counted), where it has one beyond the standard (PyTorch, CuPy, JAX: a scatter-add on the
    device, 10-60x faster than sorting); None for any other library, which sorts."""
    from array_api_compat import is_cupy_array, is_jax_array, is_torch_array  # loaded with the namespace

    if is_torch_array(codes):
        import torch  # the array is a tensor, so torch is imported already

        return torch.bincount(codes, weights, minlength=size + 1)[:size]
    if is_cupy_array(codes):
        import cupy

        return cupy.bincount(codes, weights, minlength=size + 1)[:size]
    if is_jax_array(codes):
        import jax.numpy as jnp

        return jnp.bincount(codes, weights, length=size + 1)[:size]
    return None


def _weighted_code_counts(codes, size: int, weights, xp, cells: int = 1 << 22):
    """Weighted counts with the standard's functions only: each chunk of samples compared with every
    code (``cells`` comparisons a chunk bound the memory), each cell summed in sample order. Prefix
    sums of sorted weights would be faster but lose the small cells' digits to the large totals."""
    where = device(codes)
    every = xp.arange(size, dtype=codes.dtype, device=where)
    zero = xp.zeros((), dtype=weights.dtype, device=where)
    total = xp.zeros((size,), dtype=weights.dtype, device=where)
    step = max(1, cells // max(size, 1))
    n = codes.shape[0]
    for start in range(0, n, step):
        stop = min(start + step, n)  # the standard leaves out-of-bounds slice ends unspecified
        chunk = codes[start:stop]
        total = total + xp.sum(xp.where(chunk[:, None] == every[None, :], weights[start:stop, None], zero), axis=0)
    return total


def check_weights(sample_weight, n: int, like):
    """``sample_weight`` ``(N,)`` as floating values (float64 where the device holds it) on the
    device of ``like``: finite and non-negative (one boolean read from the device)."""
    xp = array_namespace(like)
    where = device(like)
    if not hasattr(sample_weight, "shape"):
        sample_weight = xp.asarray(np.asarray(sample_weight, dtype=np.float64), device=where)
    elif array_namespace(sample_weight) is not xp:
        raise InputError("sample_weight", "expected weights of the labels' array library")
    if tuple(sample_weight.shape) != (n,):
        raise InputError("sample_weight", f"expected one weight per sample, shape ({n},), got {tuple(sample_weight.shape)}")
    weights = xp.astype(sample_weight, value_dtype(xp, where))
    _check(xp, [(xp.isfinite(weights) & (weights >= 0), "sample_weight",
                 "weights must be finite and non-negative")])
    return weights


def _numeric(y, xp):
    return xp.astype(y, xp.int32) if y.dtype == xp.bool else y


def encode(y, classes, argument: str = "y", *, validate: bool = True):
    """Index in the sorted ``classes`` of each label of ``y`` (``len(classes)`` for a label that is none).

    With ``validate`` a label outside ``classes`` is an :class:`InputError` naming it; this
    reads one boolean from the device.
    """
    xp = array_namespace(y, classes)
    codes = _codes(y, classes, xp)
    if validate:
        _check_known([(y, codes, argument)], classes, xp)
    return codes


def _codes(y, classes, xp):
    y, classes = _numeric(y, xp), _numeric(classes, xp)
    if xp.isdtype(y.dtype, "integral") and xp.isdtype(classes.dtype, "integral"):
        common = xp.result_type(y, classes)
    else:  # the standard defines no promotion between integers and floats: compare as floats
        common = y.dtype if xp.isdtype(y.dtype, "real floating") else classes.dtype
    y, classes = xp.astype(y, common), xp.astype(classes, common)
    n_classes = classes.shape[0]
    at = xp.searchsorted(classes, y)
    found = xp.take(classes, xp.clip(at, 0, n_classes - 1)) == y
    index = count_dtype(xp, device(y))
    return xp.where(found, xp.astype(at, index), xp.asarray(n_classes, dtype=index, device=device(y)))


def _check_known(coded, classes, xp) -> None:
    """One boolean read from the device for every ``(labels, codes, argument)``; the label is named on error."""
    n_classes = classes.shape[0]
    known = [xp.all(codes < n_classes) for _, codes, _ in coded]
    if bool(xp.all(xp.stack(known))):
        return
    for (y, codes, argument), ok in zip(coded, known):
        if not bool(ok):
            unknown = to_host(y)[to_host(codes) == n_classes][0].item()
            raise InputError(argument, f"label {unknown!r} is not one of the {n_classes} classes "
                                       f"{to_host(classes).tolist()!r}; name every class up front")


def _range_codes(y, n_classes: int, xp):
    """Codes of integer labels that are ``0 .. n_classes - 1`` themselves: one range test, no lookup."""
    index = count_dtype(xp, device(y))
    y = xp.astype(y, index)
    return xp.where((y >= 0) & (y < n_classes), y, xp.asarray(n_classes, dtype=index, device=device(y)))


def confusion_counts(y_true, y_pred, classes, *, validate: bool = True, sample_weight=None):
    """Confusion matrix ``(C, C)``, rows the true class, of labels ``(N,)`` over the sorted ``classes``.

    ``classes`` is an array of the same namespace and device, or the number ``C`` of classes
    when they are the labels ``0 .. C - 1`` (integer labels are then their own codes: no lookup).
    ``validate``: a label outside ``classes`` is an :class:`InputError` (one boolean read from the
    device per call); without it such a sample is not counted. ``sample_weight`` ``(N,)``: each
    sample counts its weight (a floating matrix).
    """
    xp = array_namespace(y_true, y_pred)
    if y_true.ndim != 1 or y_true.shape != y_pred.shape:
        raise InputError("y_pred", f"expected labels (N,) of equal length, got shapes {y_true.shape} and {y_pred.shape}")
    if isinstance(classes, int):
        n_classes = classes
        integral = all(xp.isdtype(_numeric(y, xp).dtype, "integral") for y in (y_true, y_pred))
        classes = xp.arange(n_classes, device=device(y_true))
        if integral:
            truth, predicted = _range_codes(_numeric(y_true, xp), n_classes, xp), _range_codes(
                _numeric(y_pred, xp), n_classes, xp)
        else:
            truth, predicted = _codes(y_true, classes, xp), _codes(y_pred, classes, xp)
    else:
        xp = array_namespace(y_true, y_pred, classes)
        n_classes = classes.shape[0]
        truth, predicted = _codes(y_true, classes, xp), _codes(y_pred, classes, xp)
    if validate:
        _check_known([(y_true, truth, "y_true"), (y_pred, predicted, "y_pred")], classes, xp)
    size = n_classes * n_classes
    if size >= xp.iinfo(truth.dtype).max:
        raise InputError("classes", f"{n_classes} classes make {size} cells, more than {truth.dtype} codes reach "
                                    "(JAX: enable jax_enable_x64)")
    codes = xp.where((truth < n_classes) & (predicted < n_classes), truth * n_classes + predicted,
                     xp.asarray(size, dtype=truth.dtype, device=device(truth)))
    weights = None if sample_weight is None else check_weights(sample_weight, y_true.shape[0], y_true)
    return xp.reshape(code_counts(codes, size, weights), (n_classes, n_classes))


def _check(xp, conditions) -> None:
    """One boolean read from the device for every ``(holds everywhere, argument, message)``."""
    oks = [xp.all(holds) for holds, _, _ in conditions]
    if bool(xp.all(xp.stack(oks))):
        return
    for ok, (_, argument, message) in zip(oks, conditions):
        if not bool(ok):
            raise InputError(argument, message)


_INDICATORS = "expected 0/1 indicators (or booleans); threshold scores first"


def _is_indicator(y):
    return (y == 0) | (y == 1)


def multilabel_counts(y_true, y_pred, *, axis: int = 0, validate: bool = True, sample_weight=None):
    """TP, FP, FN, TN of indicator matrices ``(N, C)`` stacked as ``(4, C)`` (per class, summed over
    ``axis=0``) or ``(4, N)`` (per sample, ``axis=1``); ``sample_weight`` ``(N,)`` weighs each row."""
    xp = array_namespace(y_true, y_pred)
    if y_true.ndim != 2 or y_true.shape != y_pred.shape:
        raise InputError("y_pred", f"expected indicators (N, C) of equal shape, got {y_true.shape} and {y_pred.shape}")
    if validate:
        _check(xp, [(_is_indicator(y_true), "y_true", _INDICATORS), (_is_indicator(y_pred), "y_pred", _INDICATORS)])
    truth, predicted = xp.astype(y_true, xp.bool), xp.astype(y_pred, xp.bool)
    if sample_weight is not None:
        weights = check_weights(sample_weight, y_true.shape[0], y_true)[:, None]
        zero = xp.zeros((), dtype=weights.dtype, device=device(truth))

        def count(mask):
            return xp.sum(xp.where(mask, weights, zero), axis=axis)
    else:
        dtype = count_dtype(xp, device(truth))

        def count(mask):
            return xp.sum(xp.astype(mask, dtype), axis=axis)

    return xp.stack([count(truth & predicted), count(~truth & predicted),
                     count(truth & ~predicted), count(~truth & ~predicted)])


def threshold_counts(truth, scores, thresholds, *, validate: bool = True):
    """TP, FP, FN, TN ``(4, K, T)`` of each column of scores ``(N, K)`` (positive: ``truth``
    ``(N, K)`` indicators) at each of the ``thresholds`` ``(T,)``; ``(N,)`` inputs give ``(4, T)``.

    Sorting, not one comparison per threshold: the positives' scores (the others set to
    ``-inf``) are sorted once per column and ``searchsorted`` counts those at or above each
    threshold, O((N + T) log N) for any number of thresholds.
    """
    xp = array_namespace(truth, scores, thresholds)
    single = scores.ndim == 1
    if single:
        truth, scores = truth[:, None], scores[:, None]
    if truth.shape != scores.shape or scores.ndim != 2:
        raise InputError("scores", f"expected truth and scores of equal shape (N,) or (N, K), "
                                   f"got {truth.shape} and {scores.shape}")
    if validate:
        _check(xp, [(_is_indicator(truth), "truth", _INDICATORS),
                    (~xp.isnan(scores), "scores", "NaN scores cannot be ranked; drop or replace them")])
    positive = xp.astype(truth, xp.bool)
    where = device(scores)
    dtype = count_dtype(xp, where)
    thresholds = xp.astype(thresholds, scores.dtype)
    lowest = xp.asarray(-xp.inf, dtype=scores.dtype, device=where)
    n = scores.shape[0]

    def at_or_above(mask):
        total = xp.sum(xp.astype(mask, dtype), axis=0)
        columns = [n - xp.astype(xp.searchsorted(xp.sort(xp.where(mask[:, k], scores[:, k], lowest)), thresholds), dtype)
                   for k in range(scores.shape[1])]  # one contiguous column at a time
        return xp.minimum(xp.stack(columns), total[:, None]), total[:, None]

    tp, positives = at_or_above(positive)
    fp, negatives = at_or_above(~positive)
    counts = xp.stack([tp, fp, positives - tp, negatives - fp])
    return counts[:, 0, :] if single else counts
