"""The averaging modes of the runtime, as one table: how per-class values become one value, and its derivative.

Each row of :data:`MODES` says what its mode does with the per-class values ``(..., C)`` of a
metric (``combine(xp, per_class)``, in the values' array namespace ``xp``: numpy's ``np`` or
another Array API library's, so one row serves numpy and the array modules), with their
partials in each class's counts (``gradient(xp, partials)``, for the delta method) and with
per-class gradients over the cells of a matrix (``cell_gradient(xp, partials)``, for
per-class matrix formulas), in the partials' namespace as ``combine`` is. A mode that
``pools`` (``micro``) applies the formula to the counts summed over classes instead, so it has
no ``combine``. :data:`AVERAGES` lists the modes in table order, :data:`READINGS` those a
printed score may mean without naming one (what ``metricc consistent`` tries, by each row's
``reading``); the compiler's table (:mod:`metricc.compiler.language.averaging`) lists the same
ones, which a test checks. A new mode is one row here and one there.

Undefined per-class values become ``zero_division`` before averaging; with
``zero_division="skip"`` the means (macro, samples, geometric, weighted) leave the undefined
classes out instead, and are undefined (NaN) only when no class is left (Branco et al. 2017,
Section 4.3).

>>> values = np.array([[0.5, 1.0]]); undefined = np.zeros((1, 2), dtype=bool)
>>> MODES["macro"].combine(np, PerClass(values, undefined, None, None, 1, math.nan)).tolist()
[0.75]
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from metricc.core.errors import InputError
from metricc.runtime import namespace
from metricc.runtime.confusion import check_class_vector
from metricc.runtime.division import finish, nonzero, skips, zero_division_value

__all__ = ["AVERAGES", "MODES", "PER_CLASS", "POSITIVE_CLASS", "READINGS", "Mode", "PerClass", "PerClassPartials", "mode", "per_class",
           "per_instance", "pools", "positive_class", "sum_last_axis"]


def sum_last_axis(values):
    """The sum over the last axis, of classes: einsum adds rows of a few classes four to five
    times faster than ``np.sum``, which sets a reduction up per row. Booleans (counted) and
    Python integers (object arrays of the exact path) are added by ``np.sum``.

    >>> sum_last_axis(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).tolist()
    [6.0, 15.0]
    """
    if not isinstance(values, np.ndarray):
        values = np.asarray(values)
    if values.dtype.kind in "iuf":
        return np.einsum("...k->...", values)
    return np.sum(values, axis=-1)


@dataclass(frozen=True)
class PerClass:
    """Per-class values ``(..., C)`` to average, arrays of one namespace (numpy's or another
    library's): undefined entries already ``zero_division`` (NaN under ``"skip"``), the mask of
    those entries, the class supports (a function, as only ``weighted`` reads them, in the
    values' dtype or numpy's counts), the caller's class weights, positive class and zero division."""

    values: object
    undefined: object
    support: Callable[[], object] | None
    weights: object
    pos_label: int
    zero_division: object


@dataclass(frozen=True)
class PerClassPartials:
    """The derivative's inputs, arrays of one namespace as :class:`PerClass`'s: ``partials``
    ``(..., C, K)`` of each class's value (K = 4 counts TP, FP, FN, TN, or the cells of a
    matrix), the ``value`` of the average, the per-class ``values`` with their ``undefined``
    mask, the supports (TP + FN, or row totals) and the caller's class weights."""

    partials: object
    value: object
    values: object
    undefined: object
    support: object
    weights: object
    pos_label: int
    zero_division: object

    @property
    def replaced(self) -> bool:
        """Undefined classes hold the number ``zero_division``: constants, of partial 0."""
        return not skips(self.zero_division) and not math.isnan(zero_division_value(self.zero_division))

    def kept(self, xp):
        """1 where a class takes part in a mean, 0 where ``"skip"`` leaves it out."""
        ones = xp.ones_like(self.undefined, dtype=self.partials.dtype)
        return xp.where(self.undefined, 0.0, ones) if skips(self.zero_division) else ones

    def constant_where_replaced(self, xp):
        """The partials, 0 for a class replaced by the number ``zero_division``."""
        extra = (None,) * (self.partials.ndim - self.undefined.ndim)
        return xp.where(self.undefined[(..., *extra)], 0.0, self.partials) if self.replaced else self.partials


# --- combine: per-class values -> one value, in the values' namespace ---------------------
# Written with the Array API standard's functions only, so that numpy (``xp`` is ``np``) and the
# array modules (``xp`` a :class:`metricc.runtime.xp_kernel.Space`) read this one table. The first
# four helpers keep numpy on its faster paths (:mod:`.division`'s, :func:`sum_last_axis`) and
# its scalar results, which the numpy modules return.


def _sum_classes(xp, values):
    return sum_last_axis(values) if xp is np else xp.sum(values, axis=-1)


def _nonzero(xp, denominator):
    return nonzero(denominator) if xp is np else xp.where(denominator == 0, 1.0, denominator)


def _finish(xp, value, undefined, zero_division):
    if xp is np:
        return finish(value, undefined, zero_division)
    return xp.where(undefined, zero_division_value(zero_division), value) + 0.0


def _scalar(xp, value):
    """numpy's 0-d results as numpy scalars, as numpy's functions return them; arrays of other
    libraries stay 0-d arrays."""
    return value[()] if xp is np else value


def _kept(xp, values, undefined):
    """1 where a class takes part in a mean, 0 where ``"skip"`` leaves it out."""
    return xp.where(undefined, xp.zeros_like(values), xp.ones_like(values))


def _as_is(xp, c: PerClass):
    return c.values


def _positive_class(xp, c: PerClass):
    n_classes = c.values.shape[-1]
    pos_label = c.pos_label
    if isinstance(pos_label, bool) or not isinstance(pos_label, (int, np.integer)) or not -n_classes <= pos_label < n_classes:
        raise InputError("pos_label", f"expected a class index in 0..{n_classes - 1}, got {pos_label!r}")
    return _scalar(xp, c.values[..., int(pos_label)])


def _mean(xp, c: PerClass):
    if skips(c.zero_division):  # a mean over the defined classes only: the weighted mean with weights 1 or 0
        total = xp.sum(_kept(xp, c.values, c.undefined), axis=-1)
        defined = xp.sum(xp.where(c.undefined, 0.0, c.values), axis=-1)
        return _finish(xp, defined / _nonzero(xp, total), total == 0, math.nan)
    return _scalar(xp, _sum_classes(xp, c.values) / c.values.shape[-1])


def _geometric_mean(xp, c: PerClass):
    if skips(c.zero_division):
        if bool(xp.any(xp.where(c.undefined, 0.0, c.values) < 0)):
            raise InputError("average", "geometric averaging needs non-negative per-class values")
        with np.errstate(divide="ignore"):  # numpy's warning for log 0; other libraries have none
            logs = xp.where(c.undefined, 0.0, xp.log(xp.where(c.undefined, 1.0, c.values)))
        total = xp.sum(_kept(xp, c.values, c.undefined), axis=-1)
        return _finish(xp, xp.exp(xp.sum(logs, axis=-1) / _nonzero(xp, total)), total == 0, math.nan)
    if bool(xp.any(c.values < 0)):
        raise InputError("average", "geometric averaging needs non-negative per-class values")
    with np.errstate(divide="ignore"):
        return _scalar(xp, xp.exp(xp.mean(xp.log(c.values), axis=-1)))


def _class_weights(xp, weights, n_classes: int):
    """The caller's class weights, checked on the host (C numbers of its own) and put beside the values."""
    if xp is not np and namespace.is_array(weights):
        weights = namespace.to_host(weights)
    host = check_class_vector(weights, n_classes, argument="weights")
    if np.any(host < 0):
        raise InputError("weights", "weights must be non-negative")
    return host if xp is np else xp.asarray(host)


def _weighted_mean(xp, c: PerClass):
    weights = c.support() if c.weights is None else _class_weights(xp, c.weights, c.values.shape[-1])
    if skips(c.zero_division):
        weights = xp.where(c.undefined, 0.0, weights)
    total = _sum_classes(xp, weights)
    # A class of weight 0 takes no part in the mean, even where its value is undefined
    # (0 * NaN would be NaN): otherwise weighted recall is NaN whenever a class is predicted
    # but never true, against the proved weighted(recall) = micro(recall).
    weighted = _sum_classes(xp, xp.where(weights == 0, 0.0, c.values * weights)) / _nonzero(xp, total)
    return _finish(xp, weighted, total == 0, zero_division_value(c.zero_division))


# --- gradient: partials (..., C, 4) of each class's value -> partials of the average -------
# In the partials' namespace ``xp``, with the Array API standard's functions, as combine is:
# numpy's arrays go through the same operations in the same order as before the namespace.


def _own_partials(xp, g: PerClassPartials):
    return g.partials


def _positive_class_partials(xp, g: PerClassPartials):
    n_classes = g.values.shape[-1]
    mask = namespace.asarray_like(xp, [k == g.pos_label % n_classes for k in range(n_classes)], g.partials, dtype=xp.bool)
    return xp.where(mask[:, None], g.constant_where_replaced(xp), 0.0)


def _mean_partials(xp, g: PerClassPartials):
    kept = g.kept(xp)
    return g.constant_where_replaced(xp) * (kept / xp.sum(kept, axis=-1, keepdims=True))[..., None]


def _average(xp, g: PerClassPartials):
    """The average's value with a class axis: numpy's scalars as 0-d arrays."""
    return (np.asarray(g.value) if xp is np else g.value)[..., None]


def _geometric_mean_partials(xp, g: PerClassPartials):
    kept = g.kept(xp)
    share = _average(xp, g) / (xp.sum(kept, axis=-1, keepdims=True) * g.values)
    return g.constant_where_replaced(xp) * xp.where(kept == 0, 0.0, share)[..., None]


def _weighted_mean_partials(xp, g: PerClassPartials):
    kept, partials = g.kept(xp), g.constant_where_replaced(xp)
    if g.weights is None:
        total = xp.sum(g.support * kept, axis=-1, keepdims=True)
        own = partials * (g.support * kept / total)[..., None]
        # the support TP + FN moves with TP and FN: d/dTP_k of sum_k t_k f_k / sum_k t_k
        shift = xp.where(kept == 1, (xp.where(g.undefined, 0.0, g.values) - _average(xp, g)) / total, 0.0)
        return own + shift[..., None] * namespace.asarray_like(xp, [1.0, 0.0, 1.0, 0.0], g.partials)
    weights = namespace.asarray_like(xp, g.weights, g.partials) * kept
    return partials * (weights / xp.sum(weights, axis=-1, keepdims=True))[..., None]


# --- cell gradient: per-class gradients (..., C, C, C), class j first -> (..., C, C) ------


def _defined_cells(xp, g: PerClassPartials):
    """A class whose value is defined reads only the cells its formula does: a NaN of its row
    elsewhere is a vanishing Kronecker factor times an infinite one, so it is 0."""
    undefined = g.undefined[..., None, None]
    cells = xp.where(undefined, g.partials, xp.where(xp.isnan(g.partials), 0.0, g.partials))
    return xp.where(undefined, 0.0, cells) if g.replaced else cells


def _positive_class_cells(xp, g: PerClassPartials):
    return _defined_cells(xp, g)[..., g.pos_label % g.values.shape[-1], :, :]


def _mean_cells(xp, g: PerClassPartials):
    kept = g.kept(xp)
    share = kept / xp.sum(kept, axis=-1, keepdims=True)
    return xp.sum(xp.where(share[..., None, None] == 0, 0.0, _defined_cells(xp, g) * share[..., None, None]), axis=-3)


def _weighted_mean_cells(xp, g: PerClassPartials):
    kept, cells = g.kept(xp), _defined_cells(xp, g)
    values = xp.where(g.undefined, zero_division_value(g.zero_division), g.values) if g.replaced else g.values
    weights = namespace.asarray_like(xp, g.support if g.weights is None else g.weights, g.partials) * kept
    total = xp.sum(weights, axis=-1, keepdims=True)
    share = weights / total
    own = xp.sum(xp.where(share[..., None, None] == 0, 0.0, cells * share[..., None, None]), axis=-3)
    if g.weights is not None:
        return own
    # the support t_j moves with row j: sum_j t_j f_j / T
    mean = xp.sum(xp.where(weights == 0, 0.0, values * weights), axis=-1, keepdims=True) / total
    shift = xp.where(kept == 1, (xp.where(g.undefined, 0.0, values) - mean) / total, 0.0)
    return own + shift[..., :, None]


@dataclass(frozen=True)
class Mode:
    """One averaging mode. ``combine``: ``(xp, per-class values)`` -> the average, with the Array
    API standard's functions of ``xp`` only (None for a mode that
    ``pools`` the counts over classes and applies the formula once); ``gradient``: ``(xp,
    partials)`` -> its partials in each class's counts; ``cell_gradient``: ``(xp, partials)`` ->
    its gradient over matrix cells from per-class ones (None where the mode has no derivative
    of that kind), both in ``xp``'s standard functions as ``combine``. ``takes_weights``: the caller
    may give class weights (``weights=``). ``linear``: one value, a combination of the
    per-class values with weights that no metric parameter moves (a sweep over a parameter of
    an affine metric then stays affine). ``per_instance``: it averages per-instance counts of
    multi-label data, so the counts are read per sample, not per class. ``suffix``: a metric
    name may end in the mode (``f1_macro``, ``"F1 Macro"``), as peers and papers spell one value
    over the classes. ``reported``: a row of the classification report under the classes, as
    scikit-learn's ``micro avg``, ``macro avg`` and ``weighted avg``. ``per_class``: it keeps
    one value per class (no average). ``positive_class``: the value of one class, the positive
    one (``pos_label``). ``reading``: the place of the mode among the readings of a printed
    score that does not name its averaging (``metricc consistent``), the most customary in
    papers first; None where a paper that means it says so. ``instances_of``: the mode over classes
    that this one is over the instances of multi-label data (samples: macro), so a paper's
    macro label of such data may mean it."""

    name: str
    combine: Callable[[object, PerClass], object] | None
    gradient: Callable[[object, PerClassPartials], object] | None
    cell_gradient: Callable[[object, PerClassPartials], object] | None = None
    pools: bool = False
    takes_weights: bool = False
    linear: bool = False
    per_instance: bool = False
    suffix: bool = False
    reported: bool = False
    per_class: bool = False
    positive_class: bool = False
    reading: int | None = None
    instances_of: str | None = None

    @property
    def over_classes(self) -> bool:
        """One value from every class: neither the per-class values (none) nor one class's (binary)."""
        return not (self.per_class or self.positive_class)

    @property
    def one_number(self) -> bool:
        """One number per confusion matrix: neither one per class (none) nor one over the
        instances of multi-label data (samples)."""
        return not (self.per_class or self.per_instance)

    def class_weights(self, supports, pos_label: int = 1) -> np.ndarray | None:
        """The weight of each class in the value of a ``linear`` mode whose class supports are
        known (``metricc consistent``'s class totals): its ``combine`` of the unit vectors, so a
        new linear mode brings its weights with it. None for a mode that is no such sum.

        >>> MODES["weighted"].class_weights([1, 3]).tolist(), MODES["binary"].class_weights([1, 3], 0).tolist()
        ([0.25, 0.75], [1.0, 0.0])
        """
        if not self.linear or self.combine is None:
            return None
        supports = np.asarray(supports, dtype=float)
        unit = np.eye(len(supports))
        with np.errstate(invalid="ignore", divide="ignore"):
            weights = self.combine(np, PerClass(unit, np.zeros(unit.shape, dtype=bool), lambda: supports, None, pos_label,
                                                math.nan))
        return np.asarray(weights, dtype=float)


MODES = MappingProxyType({m.name: m for m in (
    Mode("none", _as_is, _own_partials, _own_partials, per_class=True),
    Mode("binary", _positive_class, _positive_class_partials, _positive_class_cells, linear=True, positive_class=True,
         reading=0),
    Mode("micro", None, None, pools=True, suffix=True, reported=True, reading=2),
    Mode("macro", _mean, _mean_partials, _mean_cells, linear=True, suffix=True, reported=True, reading=1),
    Mode("weighted", _weighted_mean, _weighted_mean_partials, _weighted_mean_cells, takes_weights=True, linear=True,
         suffix=True, reported=True, reading=3),
    Mode("geometric", _geometric_mean, _geometric_mean_partials, suffix=True),
    # per-instance counts of multi-label data (..., N): a macro average over another axis
    Mode("samples", _mean, _mean_partials, per_instance=True, suffix=True, instances_of="macro"),
)})

AVERAGES = tuple(MODES)
# The averagings a printed score may have been given without naming it, the most customary first.
READINGS = tuple(sorted((m.name for m in MODES.values() if m.reading is not None), key=lambda name: MODES[name].reading))
POSITIVE_CLASS = next(m.name for m in MODES.values() if m.positive_class)  # binary: one class's value (pos_label)
PER_CLASS = next(m.name for m in MODES.values() if m.per_class)  # none: the per-class values themselves


# A caller's mode as a name, read by its row: None (no averaging), unknown names and values that
# are no name at all (a list, a number: refused later with the choices) have no field set.


def _row(mode) -> Mode | None:
    return MODES.get(mode) if isinstance(mode, str) else None


def per_instance(mode: str | None) -> bool:
    """Whether ``mode`` averages per-instance counts (``samples``)."""
    row = _row(mode)
    return row is not None and row.per_instance


def per_class(mode: str | None) -> bool:
    """Whether ``mode`` keeps one value per class (``none``)."""
    row = _row(mode)
    return row is not None and row.per_class


def positive_class(mode: str | None) -> bool:
    """Whether ``mode`` is the value of the positive class (``binary``, ``pos_label``)."""
    row = _row(mode)
    return row is not None and row.positive_class


def pools(mode: str | None) -> bool:
    """Whether ``mode`` pools the counts over classes (``micro``), so no per-class parameter applies."""
    row = _row(mode)
    return row is not None and row.pools


def mode(average: str, averages: tuple[str, ...]) -> Mode:
    """The row of ``average``, refused unless the metric offers it (``averages``)."""
    if average not in averages or average not in MODES:
        raise InputError("average", f"{average!r} is not supported here; choose one of {', '.join(averages)}")
    return MODES[average]
