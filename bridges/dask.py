"""Counts of Dask collections: confusion matrices (and multi-label or threshold counts) computed
chunk by chunk on the Dask workers and tree-reduced, then any metric of the catalog applied to
the merged counts unchanged. Needs ``pip install "metricc[dask]"``.

Each chunk becomes an accumulator of :mod:`metricc.api.accumulate` (a few ``C x C``
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
import pandas as pd

from metricc.runtime import inputs as containers
from metricc.api.accumulate import ConfusionAccumulator, MultilabelAccumulator
from metricc.api.accumulate_curves import ThresholdAccumulator
from metricc.core.errors import InputError

__all__ = ["accumulate"]


def accumulate(y_true, y_pred=None, *, scores=None, labels=None, multilabel: bool = False, bins=None,
               sample_weight=None, split_every: int = 8, scheduler=None):
    """The counts of Dask labels, as an accumulator whose ``compute(metrics, ...)`` evaluates them.

    ``y_true`` with ``y_pred``: single-label data (``dask.array`` of shape ``(N,)``, or a
    ``dask.dataframe`` Series) -> :class:`~metricc.api.accumulate.ConfusionAccumulator`
    (``labels`` fixes the classes, else they are the sorted union seen); with
    ``multilabel=True`` indicator matrices ``(N, C)`` (arrays or DataFrames) ->
    :class:`~metricc.api.accumulate.MultilabelAccumulator`. ``y_true`` with ``scores``
    (``(N, C)`` or ``(N,)``, columns in ``labels`` order, or a DataFrame whose columns name
    the classes and are matched by name; ``bins`` optional) ->
    :class:`~metricc.api.accumulate_curves.ThresholdAccumulator` for curve-level metrics.
    ``sample_weight`` (``(N,)``, an array or Series like the labels) weighs single-label
    samples: the accumulator then holds a real-valued (weighted) confusion matrix.
    ``y_pred``/``scores``/``sample_weight`` are re-chunked like ``y_true`` when their chunks differ.
    ``scheduler`` is passed to ``dask.compute`` (None: Dask's default or the active client).
    """
    if (y_pred is None) == (scores is None):
        raise InputError("y_pred", "give y_pred (predicted labels) or scores, not both and not neither")
    if isinstance(split_every, bool) or not isinstance(split_every, int) or split_every < 2:
        raise InputError("split_every", f"expected an integer >= 2 (accumulators merged per task), got {split_every!r}")
    if sample_weight is not None and (scores is not None or multilabel):
        raise InputError("sample_weight", "weights apply to single-label predictions (y_pred); "
                                          "threshold and multi-label counts are not weighted")
    if scores is not None:
        if multilabel:
            raise InputError("multilabel", "scores are single-label: one true class per sample")
        names = containers.column_names(scores)
        if names is not None:  # a DataFrame's columns are matched to the classes by name, never by position
            classes = containers.sorted_classes(names) if labels is None else list(labels)
            order = containers.in_class_order(np.arange(len(names)), names, classes)
            scores, labels = scores[[scores.columns[k] for k in order]], classes
        if labels is None:
            raise InputError("labels", "give the classes in score-column order: labels=[...] (or a DataFrame whose "
                                       "columns name them)")
        make, other = (ThresholdAccumulator, (labels,), {"bins": bins}), scores
    elif multilabel:
        make, other = (MultilabelAccumulator, (), {}), y_pred
    else:
        make, other = (ConfusionAccumulator, (labels,), {}), y_pred
    others = [(other, "scores" if scores is not None else "y_pred")]
    if sample_weight is not None:
        others.append((sample_weight, "sample_weight"))
    if all(isinstance(c, dd.Series) for c in (y_true, *(c for c, _ in others))):
        leaves = _series_leaves(make, [y_true, *(c for c, _ in others)])
    else:
        leaves = [dask.delayed(_leaf, pure=True)(make, k, *parts)
                  for k, parts in enumerate(zip(*_aligned_chunks(y_true, others)))]
    while len(leaves) > 1:
        leaves = [dask.delayed(_merge, pure=True)(*leaves[k:k + split_every]) for k in range(0, len(leaves), split_every)]
    (result,) = dask.compute(leaves[0], scheduler=scheduler)
    return result


def _leaf(make, index, y_true, other, weights=None):
    kind, args, kwargs = make
    weighted = {} if weights is None else {"sample_weight": _values(weights)}
    try:
        y_true = _values(y_true)
        other = _values(other)
        if kind is not MultilabelAccumulator:  # an (n, 1) chunk (a one-column frame) is one label per sample
            y_true = containers.one_label_per_sample(y_true, "y_true")
            other = other if kind is ThresholdAccumulator else containers.one_label_per_sample(other, "y_pred")
        return kind(*args, **kwargs).update(y_true, other, **weighted)
    except InputError as error:
        raise InputError(error.argument, f"{error.message} (in chunk {index})") from None


def _series_leaves(make, series: list) -> list:
    """One delayed accumulator per partition of Series read row by row together: one
    ``map_partitions`` pairs their partitions (Dask reads the columns of one file in one task),
    so a partition costs its reading and its count, no task or frame per column. Series
    partitioned otherwise are first aligned as one frame. The partitions of the result are
    accumulators, not frames: Dask does not check them against ``meta``."""
    if any(s.divisions != series[0].divisions for s in series):
        series = [series[0].to_frame("c0").assign(**{f"c{k}": s for k, s in enumerate(series[1:], 1)})]
    counted = dd.map_partitions(_partition_leaf, make, *series, meta=pd.Series(dtype=object), enforce_metadata=False)
    return list(counted.to_delayed())


def _partition_leaf(make, *parts, partition_info):
    if len(parts) == 1:  # the Series aligned as one frame: its columns
        parts = [parts[0].iloc[:, k] for k in range(parts[0].shape[1])]
    return _leaf(make, partition_info["number"], *parts)


def _merge(first, *others):
    for other in others:
        first.merge(other)
    return first


def _values(chunk) -> np.ndarray:
    """A chunk as numpy: pandas partitions through ``to_numpy`` (categories and strings as objects)."""
    return chunk.to_numpy() if hasattr(chunk, "to_numpy") else np.asarray(chunk)


def _is_frame(x) -> bool:
    return isinstance(x, (dd.DataFrame, dd.Series))


def _aligned_chunks(y_true, others: list[tuple[object, str]]) -> list[list]:
    """Lists of delayed chunks of equal lengths, ``y_true``'s then one per ``(collection, name)``
    of ``others``, a chunk of each per chunk of ``y_true``.

    Dask may combine partitions when it optimises a graph (small Parquet files), so arrays are
    re-chunked to the partition lengths of a frame (Series alone: :func:`_series_leaves`).
    """
    collections = [y_true, *(c for c, _ in others)]
    names = ["y_true", *(n for _, n in others)]
    frames = [c for c in collections if _is_frame(c)]
    arrays = [_as_array(c, name) for c, name in zip(collections, names)]
    if frames:
        if all(_is_frame(c) for c in collections):
            return [c.to_delayed() for c in collections]  # row counts are checked per chunk
        parts = frames[0].to_delayed()
        lengths = tuple(int(n) for n in dask.compute(*[dask.delayed(len)(p) for p in parts]))
    else:
        arrays[0] = arrays[0].rechunk({k: -1 for k in range(1, arrays[0].ndim)})  # whole rows per chunk
        lengths = arrays[0].chunks[0]
    chunks = []
    for c, a, name in zip(collections, arrays, names):
        if _is_frame(c):
            chunks.append(c.to_delayed())
            continue
        if a.shape[0] != sum(lengths):
            raise InputError(name, f"expected {sum(lengths)} rows like y_true, got {a.shape[0]}")
        chunks.append(list(a.rechunk((lengths,) + tuple((n,) for n in a.shape[1:])).to_delayed().ravel()))
    return chunks


def _as_array(x, name: str):
    """A dask array ``(N,)`` or ``(N, C)``; frames pass through (their partitions are the chunks)."""
    if _is_frame(x):
        return x
    if not isinstance(x, da.Array):
        raise InputError(name, f"expected a dask.array or dask.dataframe collection, got {type(x).__name__}; "
                               "for data in memory use metricc.api.evaluate")
    if x.ndim not in (1, 2) or any(np.isnan(n) for n in x.shape):
        raise InputError(name, f"expected shape (N,) or (N, C) with known chunk sizes, got {x.shape}")
    return x
