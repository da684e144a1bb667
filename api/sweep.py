"""Evaluate a metric for a whole grid of parameter values in one call.

Kozak et al. 2022 rate each classifier for every preference vector with entries from a value
set: 11**4 = 14,641 vectors for 4 classes, 2**18 = 262,144 for 18. :func:`sweep` evaluates
one or many confusion matrices (or per-class counts) for such a grid at once and keeps the
grid's shape; :func:`product_grid` builds the paper's grids.

The generated functions already broadcast a class-vector parameter of shape ``(..., C)``
against counts ``(..., C)``, so the sweep gives the data one length-1 axis and hands the
grid over in chunks: memory stays at a few arrays of ``batch x chunk x C`` floats, and the
counts are never copied per grid vector.

**Matrix-product form.** Where the compiler proved the metric affine in the parameter
(``INFO.affine``, e.g. ``preference_driven`` in ``kappa``) and the average weights classes
independently of it (``binary``, ``macro``, ``weighted``), the value is ``f(0) + kappa @ c``
with ``c_k = f(e_k) - f(0)``: the metric is evaluated at the ``C + 1`` vectors ``0, e_1, ...,
e_C`` and the grid becomes one matrix product. Its values differ from the formula's by about
``(C + 2) * 2**-52`` times the largest ``|f|`` at those vectors at most: an absolute bound,
not a relative one for values near 0; ``affine=False`` evaluates the formula per vector.

**Product grids without the grid.** ``product_grid(values, C, lazy=True)`` describes the
``V**C`` vectors without storing them (:class:`ProductGrid`): its domain check reads the
``V`` values, the matrix-product form becomes a sum of ``C`` outer terms written straight into
the result, and any other metric receives the vectors in chunks. Only the result is stored,
so a grid larger than memory can be swept as long as its result fits the limit.

>>> import numpy as np
>>> grid = product_grid([0.0, 1.0], 3)                   # 2**3 vectors, shape (2, 2, 2, 3)
>>> values = sweep("preference_driven", matrix=[[40, 7, 3], [8, 10, 2], [9, 1, 20]], grid=grid)
>>> values.shape
(2, 2, 2)
>>> print(f"{values[1, 1, 1]:.4f} {values[0, 0, 0]:.4f}")  # kappa = 1: precision; 0: recall
0.6858 0.6556
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from metricc.runtime import confusion
from metricc.core.errors import InputError
from metricc.api.evaluate import metric as _metric
from metricc.runtime import averaging
from metricc.runtime.context import CallContext
from metricc.runtime.terms import MatrixTerms, read_matrix
from metricc.runtime.kernel import MAX_PARAMETER
from metricc.api.grids import (
    MAX_GRID_ELEMENTS,
    ProductGrid,
    extremes,
    known_extremes,
    product_grid,
    read_grid,
    within_unit_interval,
)
from metricc.api.progress import track

__all__ = ["ProductGrid", "product_grid", "sweep", "unsweepable"]

CHUNK_ELEMENTS = 1 << 21  # floats per intermediate array (16 MiB): batch x chunk x C


def _data(info, data, counts, matrix, orientation):
    """-> (matrix or None, counts) with batch axes ``B``; ``data`` is counts or a matrix."""
    given = [v is not None for v in (data, counts, matrix)]
    if sum(given) != 1:
        raise InputError("input", "give exactly one of data (positional), counts= or matrix=")
    if data is not None:
        counts, matrix = (data, None) if isinstance(data, confusion.ClassCounts) else (None, data)
    if matrix is not None:
        matrix = confusion.check_matrix(confusion.orient(matrix, orientation))
        return matrix, confusion.counts_from_matrix(matrix)
    if info.takes == "matrix":
        raise InputError("input", f"{info.id} needs a confusion matrix; per-class counts are not enough")
    return None, confusion.check_counts(counts)


def unsweepable(info) -> str:
    """Why ``info``'s metric cannot be swept, or '': a sweep grids a parameter over confusion
    matrices or counts, and curve and score metrics read scores."""
    if info.needs_scores:
        return f"{info.id} is a {info.level}-level metric, a function of scores, not of a confusion matrix"
    return ""


def sweep(
    metric: str,
    data=None,
    *,
    counts=None,
    matrix=None,
    grid,
    param: str | None = None,
    orientation: str = "true-rows",
    average: str | None = None,
    params: Mapping[str, object] | None = None,
    weights=None,
    pos_label: int = 1,
    zero_division=math.nan,
    affine: bool = True,
    progress: bool = True,
) -> np.ndarray:
    """``metric`` for every parameter value in ``grid``; shape ``batch + grid``.

    Data: a confusion ``matrix`` ``(B..., C, C)`` or per-class ``counts`` (four arrays
    ``(B..., C)``), or either as ``data`` (a :class:`~metricc.api.ClassCounts` is counts,
    anything else a matrix). ``param`` names the swept parameter (default: the metric's only
    class-vector parameter). For a class vector, ``grid`` has shape ``(G..., C)`` and the
    result ``(B..., G...)``: batch axes first, then grid axes; ``average="none"`` appends the
    class axis. For a scalar parameter ``grid`` has shape ``(G...)`` and each value is one
    call (vectorized over the batch). Other arguments are those of the generated function;
    ``params`` fixes the metric's other parameters. ``grid`` may be a lazy
    :class:`ProductGrid`; ``affine=False`` turns the matrix-product form off (module docstring).
    A long sweep shows a progress bar on stderr when it is a terminal; ``progress=False`` turns it off.
    """
    info = _metric(metric)
    if unsweepable(info):
        raise InputError("metric", f"{unsweepable(info)}; call it once per parameter value with "
                                   "evaluate(..., scores=, params=)")
    by_name = {p.name: p for p in info.params}
    vectors = [p.name for p in info.params if p.kind == "class_vector"]
    if param is None:
        if len(vectors) != 1:
            raise InputError("param", f"{info.id} has {len(vectors)} class-vector parameters; name the one to sweep")
        param = vectors[0]
    if param not in by_name:
        declared = ", ".join(by_name) or "none"
        raise InputError("param", f"{info.id} has no parameter '{param}' (its parameters: {declared})")
    kind = by_name[param].kind
    if kind == "class_matrix":
        raise InputError("param", f"'{param}' is a class_matrix parameter, which sweep does not grid; pass a stack "
                                  f"(B, C, C) of them in params to evaluate, one value per matrix")
    fixed = dict(params or {})
    if param in fixed:
        raise InputError("params", f"'{param}' is the swept parameter; give its values in grid")
    unknown = sorted(set(fixed) - set(by_name))
    if unknown:
        raise InputError("params", f"{info.id} has no parameter '{unknown[0]}'")
    the_matrix, the_counts = _data(info, data, counts, matrix, orientation)
    n_classes = the_counts.true_positives.shape[-1]
    values = _product(grid, kind, n_classes) if isinstance(grid, ProductGrid) else read_grid(grid, kind, n_classes)
    known = known_extremes(grid)  # of the grid as given: read_grid hands its memory on as a plain array
    kwargs = {**fixed, "zero_division": zero_division}
    if info.per_class:  # class metrics and per-class matrix formulas
        average = average or info.default_average
        if averaging.pools(average) and kind == "class_vector":
            raise InputError("average", f"{average} averaging pools the classes, so the per-class '{param}' cannot apply")
        kwargs.update(average=average, weights=weights, pos_label=pos_label)
    elif average is not None:
        raise InputError("average", f"{info.id} is a {info.level}-level metric: one value per matrix, no averaging")

    prepared = {}  # the matrix or counts read once, without and with an axis for the grid: no check per chunk

    def call(value, batch_axis: bool):
        if batch_axis not in prepared:
            if the_matrix is not None and info.takes == "matrix":
                prepared[batch_axis] = read_matrix(the_matrix[..., None, :, :] if batch_axis else the_matrix)
            else:
                prepared[batch_axis] = CallContext(confusion.ClassCounts(*(c[..., None, :] for c in the_counts))
                                                   if batch_axis else the_counts)
        data = prepared[batch_axis]
        if isinstance(data, MatrixTerms):
            return info.function(data, **{param: value}, **kwargs)
        return info.function(*data.counts, context=data, **{param: value}, **kwargs)

    batch = the_counts.true_positives.shape[:-1]
    _check_result_size(batch, values.shape[:-1] if kind == "class_vector" else values.shape,
                       n_classes if averaging.per_class(kwargs.get("average")) else 1)
    shown = {"label": f"sweep {info.id}", "enabled": progress}
    if kind == "scalar":
        extremes(values)
        return _scalar_sweep(call, values, param, info.params, batch, shown)
    if affine and param in getattr(info, "affine", ()) and kwargs.get("average") in _LINEAR_AVERAGES:
        swept = _affine_sweep(call, values, n_classes, batch, param, known)
        if swept is not None:
            return swept
    if not isinstance(values, ProductGrid) and known is None:
        extremes(values)
    return _vector_sweep(call, values, param, info.params, n_classes, batch, shown)


def _product(grid: ProductGrid, kind: str, n_classes: int) -> ProductGrid:
    if kind != "class_vector":
        raise InputError("grid", "a product grid holds class vectors; this parameter is a scalar: give its values")
    if grid.n_classes != n_classes:
        raise InputError("grid", f"the product grid has vectors of {grid.n_classes} classes, the data {n_classes}")
    return grid


# Averages whose class weights do not depend on the swept parameter: linear in the per-class values.
_LINEAR_AVERAGES = tuple(name for name, mode in averaging.MODES.items() if mode.linear)


# Grid vectors per step of the matrix-product form: a block of the grid (512 KiB for 18
# classes) is checked and multiplied while it is in cache, so the grid is read from memory once.
AFFINE_ROWS = 1 << 12


def _affine_sweep(call, grid, n_classes: int, batch: tuple, param: str,
                  known: tuple[float, float] | None) -> np.ndarray | None:
    """``f(0) + grid @ c``, or None where the form does not apply (0 or 1 outside the domain,
    or a grid value outside it: the direct path then names the offending vector). The domain
    is an interval (the compiler marks no other), so checking the grid's least and greatest
    values checks it all; they are ``known`` for a grid product_grid made, else taken block by
    block with the product, and the metric is called on them only when they lie outside
    [0, 1], which the basis vectors checked."""
    if math.prod(grid.shape[:-1]) == 0:
        return None
    basis = np.vstack([np.zeros(n_classes), np.eye(n_classes)])
    at = _domain_call(call, basis, param)
    if at is None:
        return None
    at = at.reshape(-1, n_classes + 1)
    offset = at[:, 0]
    # A NaN f(0) (an undefined class under zero_division=NaN) makes every value NaN, as it
    # should: where a class is undefined does not depend on the parameter.
    coefficients = at[:, 1:] - offset[:, None]
    if isinstance(grid, ProductGrid):
        low, high = float(grid.values.min()), float(grid.values.max())
        out = offset[:, None]
        for k in range(n_classes):  # sum of outer terms, the last class fastest
            out = (out[:, :, None] + coefficients[:, k, None, None] * grid.values[None, None, :]).reshape(offset.size, -1)
    elif known is not None:  # one product, which BLAS may spread over the cores
        low, high = known
        flat = grid.reshape(-1, n_classes)
        out = (flat @ coefficients[0])[None, :] if offset.size == 1 else coefficients @ flat.T
        out += offset[:, None]
    else:
        flat = grid.reshape(-1, n_classes)
        out = np.empty((offset.size, flat.shape[0]))
        low, high = 0.0, 1.0  # inside the basis vectors' [0, 1] until a block is not
        for start in range(0, flat.shape[0], AFFINE_ROWS):
            block = flat[start:start + AFFINE_ROWS]
            if not within_unit_interval(block):
                least, greatest = extremes(block)
                low, high = min(low, least), max(high, greatest)
            np.matmul(coefficients, block.T, out=out[:, start:start + block.shape[0]])
        out += offset[:, None]
    if (low < 0 or high > 1) and _domain_call(call, np.vstack([np.full(n_classes, low), np.full(n_classes, high)]),
                                              param) is None:
        return None
    return out.reshape(batch + grid.shape[:-1])


def _domain_call(call, vectors: np.ndarray, param: str) -> np.ndarray | None:
    """The metric at ``vectors`` (batch first), or None where the swept parameter's domain check refuses them."""
    try:
        return np.asarray(call(vectors, True), dtype=float)
    except InputError as error:
        if error.argument != param:
            raise
        return None


def _check_result_size(batch: tuple, grid_shape: tuple, per_entry: int) -> None:
    """Refuse a sweep whose result (batch x grid values x classes) would exceed
    :data:`MAX_GRID_ELEMENTS`, before any value is computed."""
    size = math.prod(batch) * math.prod(grid_shape) * per_entry
    if size > MAX_GRID_ELEMENTS:
        raise InputError("grid", f"{math.prod(grid_shape)} grid values x {math.prod(batch)} inputs"
                                 f"{f' x {per_entry} classes' if per_entry > 1 else ''} would take "
                                 f"{size * 8 / 2**30:.1f} GiB, above the limit of {MAX_GRID_ELEMENTS * 8 / 2**30:.0f} GiB; "
                                 "use fewer grid values or fewer inputs per call")


def _scalar_sweep(call, values, param, declared, batch, shown):
    """One call per value (scalar parameters are plain floats in the generated code)."""
    results = []
    for index, value in track(enumerate(values.reshape(-1)), total=values.size, **shown):
        try:
            results.append(np.asarray(call(value, False), dtype=float))
        except InputError as error:
            if error.argument != param:
                raise
            domain = next(p.domain for p in declared if p.name == param)
            where = f"grid[{', '.join(str(int(i)) for i in np.unravel_index(index, values.shape))}]" if values.ndim else "grid"
            if abs(value) > MAX_PARAMETER:
                raise InputError("grid", f"{where}: {error.message}") from None
            raise InputError("grid", f"{where} = {float(value):.6g} is outside the domain of '{param}' ({domain})") from None
    if not results:
        return np.empty(batch + values.shape)
    stacked = np.stack(results, axis=len(batch))  # batch + (G,) + per-class tail
    return stacked.reshape(batch + values.shape + stacked.shape[len(batch) + 1:])


def _vector_sweep(call, values, param, declared, n_classes, batch, shown):
    grid_shape = values.shape[:-1]
    if isinstance(values, ProductGrid):
        count, take = values.size, values.rows
    else:
        flat = values.reshape(-1, n_classes)
        count, take = flat.shape[0], lambda start, stop: flat[start:stop]
    rows = max(1, CHUNK_ELEMENTS // max(1, math.prod(batch) * n_classes))
    out = None
    for start in track(range(0, max(count, 1), rows), **shown):
        chunk = take(start, start + rows)
        try:
            part = np.asarray(call(chunk, True), dtype=float)
        except InputError as error:
            if error.argument != param:
                raise
            raise _outside(call, chunk, start, grid_shape, param, declared, error) from None
        if out is None:  # part: batch + (rows,) + (C,) under average="none"
            out = np.empty(batch + (count,) + part.shape[len(batch) + 1:])
        out[(slice(None),) * len(batch) + (slice(start, start + chunk.shape[0]),)] = part
    return out.reshape(batch + grid_shape + out.shape[len(batch) + 1:])


def _outside(call, chunk, start, grid_shape, param, declared, error) -> InputError:
    """The first grid vector the generated domain check rejects, found by bisection."""
    def fails(part):
        try:
            call(part, True)
        except InputError as again:
            return again.argument == param
        return False

    lo, hi = 0, chunk.shape[0]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if fails(chunk[lo:mid]) else (mid, hi)
    if not fails(chunk[lo:lo + 1]):
        return InputError("grid", error.message)
    domain = next(p.domain for p in declared if p.name == param)
    index = np.unravel_index(start + lo, grid_shape) if grid_shape else ()
    where = f"grid[{', '.join(str(int(i)) for i in index)}]" if index else "the grid vector"
    vector = "[" + ", ".join(f"{x:.6g}" for x in chunk[lo]) + "]"
    return InputError("grid", f"{where} = {vector} is outside the domain of '{param}' ({domain})")
