"""Delta-method gradients at run time: what generated ``gradient`` functions call, and the variance.

The compiler derives each metric's partial derivatives
(:mod:`metricc.compiler.analysis.delta`); the averaging over classes is the runtime's, so its
derivative is too: each mode's is its row of :data:`~metricc.runtime.averaging.MODES`. A
class-level or aggregate gradient is an array ``(..., C, 4)``: the partials of the value in
``TP_k``, ``FP_k``, ``FN_k``, ``TN_k`` of each class ``k``. :func:`cell_gradient` turns it into
the gradient in the cells of the confusion matrix, ``(..., C, C)`` (``TP_k = M[k, k]``,
``FP_k`` the rest of column ``k``, ``FN_k`` the rest of row ``k``, ``TN_k`` everything else),
and :func:`delta_variance` into ``Var = sum_ij M_ij (G_ij - Gbar)**2`` with ``Gbar = sum_ij
M_ij G_ij / n``: the multinomial delta method, ``n (sum p G**2 - (sum p G)**2)`` at ``p = M /
n``, in the two-pass form that does not cancel. These two and :func:`combine_gradients` take
the arrays' namespace (``xp=``, numpy's unless told) as the modes' gradients do.

>>> import numpy as np
>>> partials = np.array([[0.0, 0, 0, 0], [1 / 16, 0, -3 / 16, 0]])  # recall at TP=3, FN=1: FN/(TP+FN)^2, -TP/(TP+FN)^2
>>> float(delta_variance(partials[1], np.array([3.0, 1, 1, 5]), axes=1))  # (3/4)(1/4)/4
0.046875
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from metricc.core.errors import InputError
from metricc.runtime import averaging, namespace
from metricc.runtime.apply import apply_kernel, average_class_metric, float_class_counts, pooled
from metricc.runtime.kernel import align

__all__ = ["average_class_gradient", "combine_gradients", "cell_values", "class_cell_values", "average_class_cells",
           "cell_gradient", "delta_variance"]


def _stacked(kernel, counts) -> np.ndarray:
    """A kernel's four partials ``(..., C, 4)``, NaN where it is undefined."""
    *parts, undefined = kernel(*counts)
    shape = np.shape(counts[0])
    stacked = np.stack([np.broadcast_to(np.asarray(p, dtype=float), shape) for p in parts], axis=-1)
    return np.where(np.broadcast_to(undefined, shape)[..., None], np.nan, stacked)


def _partials(gradient, counts, params: Mapping, defaults: Mapping) -> np.ndarray:
    """The kernel's four partials per class ``(..., C, 4)``, NaN where it is undefined.

    A kernel with metric parameters (iba's ``base``) gives one more partial per such
    parameter, ``df/dB``: the chain rule adds ``df/dB`` times the bound metric's own partials.
    Then one per parameter whose default is computed from the counts (``defaults``, in that
    order): its partials kernel where the parameter was left at its default, None where the
    user gave it (a constant, whose partial does not enter)."""
    *parts, undefined = gradient(*counts, **params)
    shape = np.shape(counts[0])
    parts = [np.broadcast_to(np.asarray(p, dtype=float), shape) for p in parts]
    chained = [kernel.partials for kernel in params.values() if hasattr(kernel, "partials")]
    chained += [None if kernel is None else (lambda *c, k=kernel: _stacked(k, c)) for kernel in defaults.values()]
    stacked = np.stack(parts[:4], axis=-1)
    for inner, outer in zip(chained, parts[4:], strict=True):
        if inner is not None:
            stacked = stacked + outer[..., None] * inner(*counts)
    return np.where(np.broadcast_to(undefined, shape)[..., None], np.nan, stacked)


def average_class_gradient(kernel, gradient, counts, *, average: str, averages: tuple[str, ...], params: Mapping,
                           class_params: tuple[str, ...] = (), defaults: Mapping | None = None, weights=None,
                           pos_label: int = 1, zero_division=math.nan) -> np.ndarray:
    """Partials ``(..., C, 4)`` of ``average_class_metric(kernel, counts, ...)`` in each class's
    counts; for ``average="none"`` row ``k`` holds the partials of class ``k``'s own value.
    ``defaults``: see :func:`_partials`.

    A class whose value is undefined and replaced by the number ``zero_division`` is a constant
    there: its partials are 0. ``"skip"`` leaves it out of the mean as the value does.
    """
    mode = averaging.mode(average, averages)
    value = average_class_metric(kernel, counts, average=average, averages=averages, params=params,
                                 class_params=class_params, weights=weights, pos_label=pos_label,
                                 zero_division=zero_division)
    if mode.pools:
        pooled_counts = float_class_counts(pooled(counts))
        return np.broadcast_to(_partials(gradient, pooled_counts, params, defaults or {}), (*np.shape(counts[0]), 4)).copy()
    if mode.gradient is None:
        raise InputError("average", f"{average!r} has no delta-method gradient")
    counts = float_class_counts(counts)
    values, undefined = apply_kernel(kernel, counts, params)
    return mode.gradient(np, averaging.PerClassPartials(
        _partials(gradient, counts, params, defaults or {}), value, values, undefined,
        counts.true_positives + counts.false_negatives, weights, pos_label, zero_division))


def combine_gradients(outer, inner, undefined, xp=np):
    """The chain rule of an aggregate: ``sum_j dF/dT_j * dT_j/dcounts``, NaN where ``F``'s
    partials are undefined; arrays of ``xp`` (numpy's unless told, as generated code calls it)."""
    if xp is np:
        outer, inner, undefined = [np.asarray(o, dtype=float) for o in outer], [np.asarray(i) for i in inner], np.asarray(undefined)
    total = sum(o[..., None, None] * i for o, i in zip(outer, inner))
    return xp.where(undefined[..., None, None], math.nan, total)


def cell_values(values, source: str, shape, undefined) -> np.ndarray:
    """A matrix gradient printed over the class indices ``source`` (``r`` the row, ``c`` the
    column; either may be absent) as a full ``(..., C, C)`` array, NaN where it is undefined."""
    full = np.broadcast_to(align(np.asarray(values, dtype=float), source, "rc"), shape)
    undefined = np.asarray(undefined)
    return np.where(undefined.reshape(undefined.shape + (1,) * (len(shape) - undefined.ndim)), np.nan, full)


def cell_gradient(partials, xp=np):
    """Class partials ``(..., C, 4)`` -> the gradient in the matrix cells ``(..., C, C)``:
    ``G_ij = [i = j](a_i + d_i) + [i != j](b_j + c_i) + sum_k d_k - d_i - d_j``; in ``xp``."""
    partials = np.asarray(partials, dtype=float) if xp is np else partials
    a, b, c, d = (partials[..., k] for k in range(4))
    n_classes = partials.shape[-2]
    eye = namespace.asarray_like(xp, np.eye(n_classes, dtype=bool), partials, dtype=xp.bool)
    off = xp.where(eye, 0.0, b[..., None, :] + c[..., :, None])
    ones = namespace.asarray_like(xp, np.ones(n_classes), partials)
    diagonal = xp.where(eye, (a + d)[..., :, None] * ones, 0.0)
    return off + diagonal + xp.sum(d, axis=-1)[..., None, None] - d[..., :, None] - d[..., None, :]


def delta_variance(gradient, cells, axes: int = 2, xp=np):
    """``sum M (G - Gbar)**2`` over the last ``axes`` axes: 2 for a matrix ``(..., C, C)``,
    1 for the four cells TP, FP, FN, TN of one class ``(..., 4)``. An empty cell has
    probability 0 and takes no part, even where its gradient is undefined. In ``xp``, the
    cells in the gradient's dtype."""
    if xp is np:
        gradient, cells = np.asarray(gradient, dtype=float), np.asarray(cells, dtype=float)
    else:
        cells = xp.astype(cells, gradient.dtype)
    gradient, cells = xp.broadcast_arrays(gradient, cells)
    over = tuple(range(-axes, 0))
    gradient = xp.where(cells > 0, gradient, 0.0)
    total = xp.sum(cells, axis=over, keepdims=True)
    mean = xp.sum(cells * gradient, axis=over, keepdims=True) / xp.where(total == 0, 1.0, total)
    variance = xp.sum(cells * (gradient - mean) ** 2, axis=over)
    return xp.where(xp.sum(cells, axis=over) == 0, math.nan, variance)


def class_cell_values(values, source: str, shape, undefined) -> np.ndarray:
    """A per-class matrix gradient ``G[j, a, b]`` printed over ``source`` (``r`` the row ``a``,
    ``c`` the column ``b``, ``s`` the class ``j``) as a full ``(..., C, C, C)`` array with the
    class first, NaN where class ``j``'s gradient is undefined (``undefined`` is over ``j``)."""
    shape = tuple(shape)
    full = np.broadcast_to(align(np.asarray(values, dtype=float), source, "rcs"), (*shape, shape[-1]))
    full = np.moveaxis(full, -1, -3)
    undefined = np.broadcast_to(np.asarray(undefined), shape[:-1])
    return np.where(undefined[..., None, None], np.nan, full)


def average_class_cells(cells, values, support, *, average: str, averages: tuple[str, ...], weights=None,
                        pos_label: int = 1, zero_division=math.nan) -> np.ndarray:
    """The gradient ``(..., C, C)`` of ``average_class_values(values, ...)`` from the per-class
    gradients ``cells`` ``(..., C, C, C)`` (class ``j`` first); ``(..., C, C, C)`` itself for
    ``average="none"``. ``values`` are the per-class values, NaN where undefined.

    A class whose value is defined reads only the cells its formula does: a NaN of its row
    elsewhere is a vanishing Kronecker factor times an infinite one (``[a = j] log(M[a, b] /
    e_a)`` with ``e_a = 0`` where ``a != j``), so it is 0. An undefined class replaced by the
    number ``zero_division`` is a constant (gradient 0); ``"skip"`` leaves it out of the mean.
    ``weighted`` by support ``t_j``: ``sum_j t_j f_j / T`` also moves with ``t_a`` (row ``a``).
    """
    mode = averaging.mode(average, averages)
    if mode.cell_gradient is None:
        raise InputError("average", f"{average!r} has no gradient over the cells of per-class values")
    values = np.asarray(values, dtype=float)
    return mode.cell_gradient(np, averaging.PerClassPartials(np.asarray(cells, dtype=float), None, values, np.isnan(values),
                                                         support, weights, pos_label, zero_division))
