"""Counts of Dask collections: confusion matrices (and multi-label or threshold counts) computed
chunk by chunk on the Dask workers and tree-reduced, then any metric of the catalog applied to
the merged counts unchanged. Needs ``pip install "metricc[dask]"``.

Each chunk becomes an accumulator of :mod:`metricc.runtime.accumulate` (a few ``C x C``
integers: the labels never leave their worker), and accumulators are merged ``split_every``
at a time up a tree, so the result is exactly the in-memory one, whatever the chunking.

>>> import dask.array as da
>>> y_true = da.from_array([0, 1, 2, 2, 1], chunks=2)
>>> y_pred = da.from_array([0, 2, 2, 2, 1], chunks=3)
>>> counts = accumulate(y_true, y_pred, scheduler="sync")
>>> counts.matrix.tolist()
[[1, 0, 0], [0, 1, 1], [0, 0, 2]]
>>> print(f"{counts.compute('f1', average='macro')['f1']:.4f}")
0.8222
"""

from __future__ import annotations

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np

from metricc.runtime.accumulate import ConfusionAccumulator, MultilabelAccumulator
from metricc.runtime.accumulate_curves import ThresholdAccumulator
from metricc.runtime.errors import InputError

__all__ = ["accumulate"]


def accumulate(y_true, y_pred=None, *, scores=None, labels=None, multilabel: bool = False, bins=None,
               split_every: int = 8, scheduler=None):
    """The counts of Dask labels, as an accumulator whose ``compute(metrics, ...)`` evaluates them.

    ``y_true`` with ``y_pred``: single-label data (``dask.array`` of shape ``(N,)``, or a
    ``dask.dataframe`` Series) -> :class:`~metricc.runtime.accumulate.ConfusionAccumulator`
    (``labels`` fixes the classes, else they are the sorted union seen); with
    ``multilabel=True`` indicator matrices ``(N, C)`` (arrays or DataFrames) ->
    :class:`~metricc.runtime.accumulate.MultilabelAccumulator`. ``y_true`` with ``scores``
    (``(N, C)`` or ``(N,)``, columns in ``labels`` order, ``bins`` optional) ->
    :class:`~metricc.runtime.accumulate_curves.ThresholdAccumulator` for curve-level metrics.
    ``y_pred``/``scores`` are re-chunked like ``y_true`` when their chunks differ.
    ``scheduler`` is passed to ``dask.compute`` (None: Dask's default or the active client).
    """
    if (y_pred is None) == (scores is None):
        raise InputError("y_pred", "give y_pred (predicted labels) or scores, not both and not neither")
    if isinstance(split_every, bool) or not isinstance(split_every, int) or split_every < 2:
        raise InputError("split_every", f"expected an integer >= 2 (accumulators merged per task), got {split_every!r}")
    if scores is not None:
        if multilabel:
            raise InputError("multilabel", "scores are single-label: one true class per sample")
        if labels is None:
            raise InputError("labels", "give the classes in score-column order: labels=[...]")
        make, other = (ThresholdAccumulator, (labels,), {"bins": bins}), scores
    elif multilabel:
        make, other = (MultilabelAccumulator, (), {}), y_pred
    else:
        make, other = (ConfusionAccumulator, (labels,), {}), y_pred
    pairs = list(zip(*_aligned_chunks(y_true, other, "scores" if scores is not None else "y_pred")))
    leaves = [dask.delayed(_leaf, pure=True)(make, k, t, p) for k, (t, p) in enumerate(pairs)]
    while len(leaves) > 1:
        leaves = [dask.delayed(_merge, pure=True)(*leaves[k:k + split_every]) for k in range(0, len(leaves), split_every)]
    (result,) = dask.compute(leaves[0], scheduler=scheduler)
    return result


def _leaf(make, index, y_true, other):
    kind, args, kwargs = make
    try:
        return kind(*args, **kwargs).update(_values(y_true), _values(other))
    except InputError as error:
        raise InputError(error.argument, f"{error.message} (in chunk {index})") from None


def _merge(first, *others):
    for other in others:
        first.merge(other)
    return first


def _values(chunk) -> np.ndarray:
    """A chunk as numpy: pandas partitions through ``to_numpy`` (categories and strings as objects)."""
    return chunk.to_numpy() if hasattr(chunk, "to_numpy") else np.asarray(chunk)


def _is_frame(x) -> bool:
    return isinstance(x, (dd.DataFrame, dd.Series))


def _aligned_chunks(y_true, other, name: str):
    """Two lists of delayed chunks of equal lengths, one pair per chunk of ``y_true``.

    Dask may combine partitions when it optimises a graph (small Parquet files), so two
    columns are paired as one frame, and an array is re-chunked to the partition lengths.
    """
    if _is_frame(y_true) and _is_frame(other):
        if isinstance(y_true, dd.Series) and isinstance(other, dd.Series):  # two Series: one frame
            pairs = y_true.to_frame("y_true").assign(other=other).to_delayed()
            return [dask.delayed(_column)(p, 0) for p in pairs], [dask.delayed(_column)(p, 1) for p in pairs]
        return y_true.to_delayed(), other.to_delayed()  # row counts are checked per chunk
    if _is_frame(other):
        other_parts, true_parts = _aligned_chunks(other, y_true, "y_true")
        return true_parts, other_parts
    t = _as_array(y_true, "y_true")
    if _is_frame(y_true):
        parts = y_true.to_delayed()
        lengths = tuple(int(n) for n in dask.compute(*[dask.delayed(len)(p) for p in parts]))
        o = _as_array(other, name)
        if sum(lengths) != o.shape[0]:
            raise InputError(name, f"expected {sum(lengths)} rows like y_true, got {o.shape[0]}")
        o = o.rechunk((lengths,) + tuple((n,) for n in o.shape[1:]))
        return parts, list(o.to_delayed().ravel())
    o = _as_array(other, name)
    if t.shape[0] != o.shape[0]:
        raise InputError(name, f"expected {t.shape[0]} rows like y_true, got {o.shape[0]}")
    t = t.rechunk({k: -1 for k in range(1, t.ndim)})  # whole rows per chunk
    o = o.rechunk((t.chunks[0],) + tuple((n,) for n in o.shape[1:]))
    return list(t.to_delayed().ravel()), list(o.to_delayed().ravel())


def _column(frame, k: int):
    return frame.iloc[:, k]


def _as_array(x, name: str):
    """A dask array ``(N,)`` or ``(N, C)``; frames pass through (their partitions are the chunks)."""
    if _is_frame(x):
        return x
    if not isinstance(x, da.Array):
        raise InputError(name, f"expected a dask.array or dask.dataframe collection, got {type(x).__name__}; "
                               "for data in memory use metricc.runtime.evaluate")
    if x.ndim not in (1, 2) or any(np.isnan(n) for n in x.shape):
        raise InputError(name, f"expected shape (N,) or (N, C) with known chunk sizes, got {x.shape}")
    return x
