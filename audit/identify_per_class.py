"""A formula with one free class index against the catalog's per-class matrix metrics.

Wang et al.'s CEN_j (Eq. 7) is the confusion entropy of class j: a value per class that reads
the class's whole row and column of the matrix. Such metrics are matrix specs with
``per_class: j`` (``class_cen``, ``class_mcen``), whose averaging ``none`` gives one value per
class. The formula, with its free index set to each class k in turn, is compared with the
metric's value of class k on the fixed confusion matrices of :mod:`.identify_numeric` (3 to 5
classes: ``single-label``; 2 x 2 only: ``binary``), then on a dozen fresh random matrices. The
equality is confirmed numerically, not
proved: the prover's normal forms are for sums over all classes, not for one class's row and
column.
"""

from __future__ import annotations

import functools
import random
import warnings
import zlib

import numpy as np
import sympy

from metricc.audit.identify_numeric import _close, _counts_of, _data, _user_value

__all__ = ["per_class_matches"]


@functools.lru_cache(maxsize=1)
def _per_class_metrics() -> tuple[str, ...]:
    """Ids of the matrix metrics with one value per class (averages on a matrix formula)."""
    import metricc.api as mc

    return tuple(info.id for info in mc.catalog().values() if info.takes == "matrix" and info.averages)


@functools.lru_cache(maxsize=8)
def _catalog_values(metric: str, kind: str) -> tuple:
    """The metric's per-class values on the matrices of ``kind``, flattened (None: undefined)."""
    import metricc.api as mc

    out = []
    for matrix in _matrices(kind):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            values = np.asarray(mc.metric(metric).function(matrix, average="none"), dtype=float)
        out.extend(None if np.isnan(v) else float(v) for v in values)
    return tuple(out)


def _matrices(kind: str) -> tuple:
    _, matrices, binary = _data()
    return matrices if kind == "single-label" else binary


def _user_values(expr: sympy.Expr, index: sympy.Symbol, kind: str) -> tuple:
    return tuple(_user_value(expr.xreplace({index: sympy.Integer(k)}), _counts_of(m), matrix=m)
                 for m in _matrices(kind) for k in range(len(m)))


def per_class_matches(expr: sympy.Expr, index: sympy.Symbol, setting: str) -> list[tuple[str, str]]:
    """(metric id, holds) of the per-class matrix metrics the formula equals, class by class."""
    kinds = {"binary": ("binary",), "multiclass": ("single-label",), "any": ("single-label", "binary")}.get(setting, ())
    found = []
    for metric in _per_class_metrics():
        for kind in kinds:
            if _close(_user_values(expr, index, kind), _catalog_values(metric, kind)) and _confirmed(expr, index, metric, kind):
                found.append((metric, kind))
                break
    return found


def _confirmed(expr: sympy.Expr, index: sympy.Symbol, metric: str, kind: str, points: int = 12) -> bool:
    """Equal class by class on fresh random matrices too (no proof applies here): a dozen
    matrices of 2 to 6 classes (2 for ``binary``), compared where both are defined."""
    import metricc.api as mc

    rng = random.Random(zlib.crc32(f"{expr}|{metric}".encode()))
    for _ in range(points):
        classes = 2 if kind == "binary" else rng.randint(3, 6)
        matrix = np.array([[rng.randint(1, rng.choice((4, 30))) for _ in range(classes)] for _ in range(classes)])
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            theirs = np.asarray(mc.metric(metric).function(matrix, average="none"), dtype=float)
        for k in range(classes):
            mine = _user_value(expr.xreplace({index: sympy.Integer(k)}), _counts_of(matrix), matrix=matrix)
            if mine is not None and not np.isnan(theirs[k]) and abs(mine - theirs[k]) > 1e-9 * max(1.0, abs(mine), abs(theirs[k])):
                return False
    return True
