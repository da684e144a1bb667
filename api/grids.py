"""Grids of parameter vectors for :func:`~metricc.api.sweep.sweep`: the paper's product grids
(:func:`product_grid`, lazily as :class:`ProductGrid`) and any grid read and checked.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from metricc.core.errors import InputError

__all__ = ["MAX_GRID_ELEMENTS", "CheckedGrid", "ProductGrid", "extremes", "known_extremes", "product_grid", "read_grid",
           "within_unit_interval"]

MAX_GRID_ELEMENTS = 1 << 27  # grids and sweep results above 1 GiB of float64 are refused


class ProductGrid:
    """Every vector of ``n_classes`` entries taken from ``values``, described, never stored
    (made by ``product_grid(values, n_classes, lazy=True)``, which checks the values).

    ``shape`` is that of the grid it stands for, ``(V,) * C + (C,)``; :meth:`rows` gives the
    flat vectors ``[start, stop)`` in row-major order (the last class fastest).

    >>> grid = product_grid([0.0, 0.5, 1.0], 2, lazy=True)
    >>> grid.shape, grid.size
    ((3, 3, 2), 9)
    >>> grid.rows(3, 5).tolist()
    [[0.5, 0.0], [0.5, 0.5]]
    """

    def __init__(self, values: np.ndarray, n_classes: int) -> None:
        self.values, self.n_classes = values, n_classes
        self.shape = (values.size,) * n_classes + (n_classes,)
        self.size = values.size ** n_classes  # vectors

    def rows(self, start: int, stop: int) -> np.ndarray:
        index = np.arange(start, min(stop, self.size), dtype=np.int64)
        digits = np.empty((index.size, self.n_classes), dtype=np.int64)
        for k in range(self.n_classes - 1, -1, -1):
            index, digits[:, k] = np.divmod(index, self.values.size)
        return self.values[digits]

    def __repr__(self) -> str:
        return f"ProductGrid({self.values.tolist()!r}, {self.n_classes})"


def product_grid(values: Sequence[float], n_classes: int, *, flat: bool = False, lazy: bool = False):
    """Every vector of ``n_classes`` entries taken from ``values`` (the paper's grids).

    Shape ``(V,) * n_classes + (n_classes,)``: entry ``[i_1, ..., i_C]`` is the vector
    ``(values[i_1], ..., values[i_C])``. ``flat=True`` gives ``(V ** n_classes, n_classes)``
    in the same (row-major) order, the last class varying fastest. The array is read-only for
    good: :func:`sweep` knows its least and greatest values and does not read it to check them
    (a copy, which may be changed, is checked as any grid). ``lazy=True`` gives a
    :class:`ProductGrid` that :func:`sweep` reads without ever storing the grid (no size limit
    of its own: only the sweep's result must fit).

    >>> product_grid(np.linspace(0, 1, 11), 4, flat=True).shape   # Kozak, car data set
    (14641, 4)
    >>> product_grid([0.33, 0.66], 18).shape[-1]                    # krkopt, 2**18 vectors
    18
    """
    if isinstance(n_classes, bool) or not isinstance(n_classes, (int, np.integer)) or n_classes < 1:
        raise InputError("n_classes", f"expected a positive number of classes, got {n_classes!r}")
    try:
        axis = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise InputError("values", f"expected numbers, got {values!r}") from None
    if axis.ndim != 1 or axis.size == 0:
        raise InputError("values", f"expected a non-empty 1-d list of values, got shape {axis.shape}")
    if not np.isfinite(axis).all():
        raise InputError("values", "contains NaN or infinity")
    if lazy:
        return ProductGrid(axis, int(n_classes))
    size = float(axis.size) ** n_classes * n_classes
    if size > MAX_GRID_ELEMENTS:
        raise InputError("n_classes", f"{axis.size}**{n_classes} vectors of {n_classes} entries would take "
                                      f"{size * 8 / 2**30:.1f} GiB; use fewer values or sample the grid")
    grid = np.stack(np.meshgrid(*([axis] * n_classes), indexing="ij"), axis=-1)
    return _checked_grid(grid.reshape(-1, n_classes) if flat else grid, float(axis.min()), float(axis.max()))


class CheckedGrid(np.ndarray):
    """A grid :func:`product_grid` made: its least and greatest values (``extremes``) are those
    of the checked axis, so :func:`sweep` need not read the grid to check its domain (a pass as
    long as the product itself). Its memory is an immutable bytes object, so no one can make it
    writeable again; a view of it (a slice, a reshape) keeps the extremes, and anything else
    (a copy, arithmetic) is a plain array, read and checked as any grid.

    >>> grid = product_grid([0.25, 0.5], 2, flat=True)
    >>> known_extremes(grid), known_extremes(grid[1:]), known_extremes(grid.copy()), type(grid * 2).__name__
    ((0.25, 0.5), (0.25, 0.5), None, 'ndarray')
    """

    extremes: tuple[float, float] | None

    def __array_finalize__(self, obj) -> None:
        self.extremes = getattr(obj, "extremes", None)

    def __array_wrap__(self, array, context=None, return_scalar=False):
        """Results of arithmetic are plain arrays: their values are not the grid's."""
        array = array.view(np.ndarray)
        return array[()] if return_scalar else array


def _checked_grid(grid: np.ndarray, low: float, high: float) -> CheckedGrid:
    frozen = np.frombuffer(grid.tobytes(), dtype=grid.dtype).reshape(grid.shape).view(CheckedGrid)
    frozen.extremes = (low, high)
    return frozen


def known_extremes(grid) -> tuple[float, float] | None:
    """The least and greatest values of a grid product_grid made (or a view of it), which nobody could have changed since."""
    if not isinstance(grid, CheckedGrid) or grid.extremes is None or grid.flags.writeable:
        return None
    memory = grid
    while isinstance(memory, np.ndarray):
        memory = memory.base
    return grid.extremes if isinstance(memory, bytes) else None


_ONE_BITS = np.float64(1.0).view(np.uint64)


def within_unit_interval(block: np.ndarray) -> bool:
    """Every value in [0, 1], by one reduction instead of min and max: as unsigned bits, the
    floats 0 .. 1 are 0 .. the bits of 1.0, and negatives (-0.0 too), NaN and infinity larger."""
    if block.dtype != np.float64 or not block.flags.c_contiguous:
        return False
    return bool(block.view(np.uint64).max(initial=0) <= _ONE_BITS)


def extremes(array: np.ndarray) -> tuple[float, float]:
    """The least and greatest grid values, refusing NaN and infinity (min and max carry them)."""
    extremes = (float(array.min()), float(array.max())) if array.size else (0.0, 0.0)
    if not all(math.isfinite(e) for e in extremes):
        raise InputError("grid", "contains NaN or infinity")
    return extremes


def read_grid(grid, kind: str, n_classes: int) -> np.ndarray:
    """The grid as floats (not copied when it is already), its shape checked."""
    try:
        array = np.asarray(grid)
    except ValueError:
        raise InputError("grid", "ragged: every grid vector needs the same length") from None
    if array.dtype.kind not in "biuf":
        raise InputError("grid", f"expected numbers, got dtype {array.dtype}")
    array = array.astype(float, copy=False)
    if kind == "class_vector" and (array.ndim == 0 or array.shape[-1] != n_classes):
        got = "a scalar" if array.ndim == 0 else f"shape {array.shape}"
        raise InputError("grid", f"the last axis holds one value per class (C={n_classes}), got {got}")
    return array
