"""The numeric side of ``identify``: fixed random data and every catalog variant's values on it.

Three kinds of points: per-class counts of multi-label data (no single-label identities),
confusion matrices of 3 to 5 classes, and 2 x 2 matrices (class 1 positive); formulas over
samples' probabilities have their own data (:mod:`.identify_scores`). The catalog
side is computed by the runtime; the formula side by :mod:`.identify_evaluate` (floats). Scalar
parameters printed in the formula (beta, alpha) take one fixed value on both sides; a per-class
weight (``kappa_i``, ``\\phi(i)``) takes a fixed random vector per point, passed to the catalog
metrics that have a class-vector parameter (relevance, kappa).
"""

from __future__ import annotations

import functools
import random
import warnings
import zlib

import numpy as np
import sympy

from metricc.audit.identify_cache import cached_table
from metricc.audit.identify_evaluate import Undefined, evaluate
from metricc.audit.identify_scores import is_score_formula, score_table, score_values
from metricc.audit.notation import CLASS_COUNTS, CLASS_VECTOR, INSTANCE_COUNTS, SCALARS
from metricc.compiler.language import symbols
from metricc.runtime.averaging import MODES, POSITIVE_CLASS, per_class, positive_class

__all__ = ["numeric_matches", "distance", "variants", "parameters", "confirmed", "instance_formula"]

_COUNTS = ("TP", "FP", "FN", "TN")
_SCALAR_VALUES = {"beta": 0.7, "alpha": 0.3}
_VECTOR = "class vector"  # the variant's params entry that takes the point's vector


@functools.lru_cache(maxsize=1)
def _data():
    """Fixed random points: multi-label counts, confusion matrices (3, 4 classes), 2 x 2."""
    rng = random.Random(7)
    multilabel = []
    for c in (3, 4, 3):
        tp, fp, fn = ([rng.randint(1, 20) for _ in range(c)] for _ in range(3))
        n = max(a + b + d for a, b, d in zip(tp, fp, fn)) + rng.randint(1, 15)
        multilabel.append((np.array(tp), np.array(fp), np.array(fn), np.array([n - a - b - d for a, b, d in zip(tp, fp, fn)]), n))
    matrices = [np.array([[rng.randint(1, 25) for _ in range(c)] for _ in range(c)]) for c in (3, 4, 3, 5)]
    binary = [np.array([[rng.randint(1, 30) for _ in range(2)] for _ in range(2)]) for _ in range(4)]
    return tuple(multilabel), tuple(matrices), tuple(binary)


@functools.lru_cache(maxsize=8)
def _label_sets(seed: int = 11, shapes=((9, 4), (12, 5), (10, 3))) -> tuple:
    """Multi-label data sets (true, predicted indicator matrices, instances x labels): every
    instance has a true and a predicted label, some are predicted exactly, some not at all."""
    rng = random.Random(seed)
    out = []
    for instances, labels in shapes:
        y_true = np.array([[rng.random() < 0.5 for _ in range(labels)] for _ in range(instances)], dtype=np.int64)
        y_pred = y_true.copy()
        for row in range(instances):
            y_true[row, rng.randrange(labels)] = 1
            if row % 3:  # two of three instances predicted wrongly somewhere
                y_pred[row, rng.randrange(labels)] ^= 1
            y_pred[row, rng.randrange(labels)] |= row % 3 != 1
            if not y_pred[row].any():
                y_pred[row, 0] = 1
        out.append((y_true, y_pred))
    return tuple(out)


def _instance_counts(y_true, y_pred):
    """Per-instance (TP, FP, FN, TN), n instances and C labels."""
    tp = (y_true & y_pred).sum(axis=1)
    fp, fn = (y_pred & ~y_true.astype(bool)).sum(axis=1), (y_true & ~y_pred.astype(bool)).sum(axis=1)
    return tp, fp, fn, y_true.shape[1] - tp - fp - fn, y_true.shape[0]


def _vector(classes: int, point: int) -> np.ndarray:
    """The per-class weight vector at one point: fixed, distinct, in (0, 1)."""
    rng = random.Random(1000 * classes + point)
    return np.array([rng.randint(1, 99) / 100 for _ in range(classes)])


def parameters(expr) -> tuple[tuple[str, ...], bool]:
    """The scalar parameters the formula prints and whether it has a per-class weight."""
    names = tuple(sorted(s.name for s in expr.free_symbols if s in SCALARS.values()))
    return names, any(node.base == CLASS_VECTOR for node in expr.atoms(sympy.Indexed))


def _counts_of(matrix):
    tp = np.diag(matrix)
    fp, fn = matrix.sum(axis=0) - tp, matrix.sum(axis=1) - tp
    n = int(matrix.sum())
    return tp, fp, fn, n - tp - fp - fn, n


def _user_value(expr, counts, matrix=None, per_class: int | None = None, vector=None, instances=None) -> float | None:
    """The formula at one point; ``per_class``: the plain counts are those of that class;
    ``instances``: (TP, FP, FN, TN, n, C) of the instances of multi-label data."""
    tp, fp, fn, tn, n = counts if instances is None else instances[:5]
    arrays = dict(zip(_COUNTS, (tp, fp, fn, tn)))
    classes = len(tp) if instances is None else instances[5]
    values = {symbols.N_CLASSES: float(classes), symbols.N_TOTAL: float(n),
              **{s: _SCALAR_VALUES[name] for name, s in SCALARS.items()}}
    if per_class is not None:
        values.update({s: float(arrays[k][per_class]) for k, s in zip(_COUNTS, symbols.COUNTS)})
    names = {v: k for k, v in (INSTANCE_COUNTS if instances is not None else CLASS_COUNTS).items()}

    def cell(base, index):
        if base == symbols.M:
            ok = matrix is not None and len(index) == 2 and all(0 <= i < len(matrix) for i in index)
            return float(matrix[index]) if ok else None
        if len(index) != 1 or not 0 <= index[0] < len(tp):
            return None
        if base == CLASS_VECTOR:
            return None if vector is None else float(vector[index[0]])
        return float(arrays[names[base]][index[0]]) if base in names else None

    try:
        return evaluate(expr, values, cell)
    except Undefined:
        return None


@functools.lru_cache(maxsize=8)
def instance_variants(scalars: tuple[str, ...] = ()) -> tuple:
    """(metric id, mode, "instances", params) of every variant the runtime computes from
    multi-label data: every averaging of the class-level metrics (samples too) and the
    aggregates; a scalar parameter the formula prints takes its fixed value (F-beta's beta)."""
    import metricc.api as mc

    out = []
    for info in mc.catalog().values():
        if info.per_class_counts:
            params = tuple((p.name, _SCALAR_VALUES[p.name]) for p in info.params if p.name in scalars)
            out.extend((info.id, mode, "instances", params) for mode in info.averages if MODES[mode].over_classes)
        elif info.takes == "counts" and not info.params:  # an aggregate
            out.append((info.id, None, "instances", ()))
    return tuple(out)


def _instance_value(variant, y_true, y_pred):
    import metricc.api as mc

    metric, mode = variant[:2]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            params = dict(variant[3]) if len(variant) > 3 else {}
            value = mc.evaluate(metric, y_true=y_true, y_pred=y_pred, multilabel=True, average=mode,
                                params=params or None)[metric]
            return float(np.asarray(value, dtype=float))
        except Exception:  # noqa: BLE001 - a variant that cannot take multi-label data is no candidate
            return None


@functools.lru_cache(maxsize=8)
def variants(params: tuple[tuple[str, ...], bool]) -> tuple:
    """(metric id, mode, level, params) of every variant the runtime computes from counts;
    ``params`` as :func:`parameters` gives them for the formula."""
    import metricc.api as mc

    scalars, vector = params
    out = []
    for info in mc.catalog().values():
        if info.needs_scores or info.per_instance:
            continue
        params = {p.name: _SCALAR_VALUES[p.name] for p in info.params if p.name in scalars}
        if vector:
            params.update({p.name: _VECTOR for p in info.params if p.kind == "class_vector"})
        if info.per_class_counts:
            modes = [m for m in info.averages if not MODES[m].per_instance]
        else:  # a matrix metric with one value per class (per_class: j) is compared averaged
            modes = [m for m in info.averages if not MODES[m].per_class] or [None]
        out.extend((info.id, mode, info.level, tuple(params.items())) for mode in modes)
    return tuple(out)


def _catalog_value(variant, matrix=None, counts=None, class_index=None, vector=None):
    import metricc.api as mc

    metric, mode, _, params = variant
    params = tuple((name, vector if value == _VECTOR else value) for name, value in params)
    if any(value is None for _, value in params):
        return None
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            if counts is not None:
                info = mc.metric(metric)
                if info.takes == "matrix":
                    return None
                function = info.function
                kwargs = dict(params)
                if info.per_class_counts:
                    kwargs["average"] = "none" if class_index is not None else mode
                value = function(*counts[:4], **kwargs)
                value = np.asarray(value, dtype=float)
                return float(value[class_index]) if class_index is not None else float(value)
            value = mc.evaluate(metric, matrix=matrix, average=mode, params=dict(params) or None)[metric]
            return float(np.asarray(value, dtype=float))
        except Exception:  # noqa: BLE001 - a variant that cannot take this input is no candidate
            return None


@functools.lru_cache(maxsize=16)
def _catalog_table(params: tuple[tuple[str, ...], bool], kind: str) -> dict:
    """Every variant's values at the points of ``kind`` (tuple of floats or None), from the
    disk cache of this catalog when there is one (:mod:`.identify_cache`)."""
    name = "-".join((kind, *params[0], "vector" if params[1] else "plain"))
    return cached_table(name, lambda: _compute_table(params, kind))


def _compute_table(params: tuple[tuple[str, ...], bool], kind: str) -> dict:
    multilabel, matrices, binary = _data()
    if kind == "scores":
        return score_table()
    if kind == "instances":
        return {v: tuple(_instance_value(v, *data) for data in _label_sets()) for v in instance_variants(params[0])}
    table = {}
    for variant in variants(params):
        if kind == "per-class":
            values = [_catalog_value(variant, counts=c, class_index=k) for c in multilabel for k in range(len(c[0]))]
        elif kind == "all":
            values = [_catalog_value(variant, counts=c, vector=_vector(len(c[0]), p)) for p, c in enumerate(multilabel)]
        elif kind == "single-label":
            values = [_catalog_value(variant, matrix=m, vector=_vector(len(m), p)) for p, m in enumerate(matrices)]
        else:
            values = [_catalog_value(variant, matrix=m, vector=_vector(2, p)) for p, m in enumerate(binary)]
        table[variant] = tuple(values)
    return table


@functools.lru_cache(maxsize=256)
def _user_values(expr, kind: str) -> tuple | None:
    multilabel, matrices, binary = _data()
    if kind == "scores":
        return score_values(expr)
    if kind == "instances":
        return tuple(_user_value(expr, None, instances=(*_instance_counts(*data), data[0].shape[1])) for data in _label_sets())
    if kind == "per-class":
        return tuple(_user_value(expr, c, per_class=k) for c in multilabel for k in range(len(c[0])))
    if kind == "all":
        return tuple(_user_value(expr, c, vector=_vector(len(c[0]), p)) for p, c in enumerate(multilabel))
    if kind == "single-label":
        return tuple(_user_value(expr, _counts_of(m), matrix=m, vector=_vector(len(m), p)) for p, m in enumerate(matrices))
    if _per_class(expr):  # a binary formula: class 1 is the positive class
        return tuple(_user_value(expr, _counts_of(m), matrix=m, per_class=1) for m in binary)
    return tuple(_user_value(expr, _counts_of(m), matrix=m, vector=_vector(2, p)) for p, m in enumerate(binary))


def _close(a: tuple, b: tuple) -> bool:
    return all(x is not None and y is not None and abs(x - y) <= 1e-9 * max(1.0, abs(x), abs(y))
               for x, y in zip(a, b)) and any(x is not None for x in a)


def _per_class(expr) -> bool:
    return not expr.atoms(sympy.Indexed) and bool(expr.free_symbols & set(symbols.COUNTS))


def _scopes(expr, setting: str) -> tuple[str, ...]:
    if is_score_formula(expr):
        return ("scores",) if setting in ("multiclass", "any") else ()
    if any(node.base in INSTANCE_COUNTS.values() for node in expr.atoms(sympy.Indexed)):
        return ("instances",) if setting in ("multilabel", "any") else ()
    if _per_class(expr):
        return ("per-class", "binary")
    return {"binary": ("binary",), "multiclass": ("single-label", "binary"),
            "multilabel": ("all",)}.get(setting, ("all", "single-label", "binary"))


def instance_formula(expr) -> bool:
    """Whether the formula is over the instances of multi-label data (compared there only)."""
    return _scopes(expr, "any") == ("instances",)


def numeric_matches(expr, setting: str) -> list[tuple[tuple, str]]:
    """(variant, holds) of every variant equal at every point of the widest scope."""
    params = parameters(expr)
    found, seen = [], set()
    for kind in _scopes(expr, setting):
        user = _user_values(expr, kind)
        if user is None or all(v is None for v in user):
            continue
        if len(user) > 1 and len({round(v, 12) for v in user if v is not None}) == 1:
            continue  # the same value at every point (TP/TP, sqrt of a ratio that cancels): it defines no metric
        for variant, values in _catalog_table(params, kind).items():
            key = variant[:2]
            if key in seen or not _close(user, values):
                continue
            if kind == "per-class" and (variant[1] is None or MODES[variant[1]].over_classes):
                continue
            if kind == "binary" and variant[1] is not None and not positive_class(variant[1]):
                continue  # two-class coincidences of averaged variants say little (as in prove)
            seen.add(key)
            holds = {"per-class": "all", "instances": "all", "scores": "single-label"}.get(kind, kind)
            found.append((variant, holds))
    # A per-class formula equals a metric class by class: report its binary mode, not none.
    keys = {(v[0], v[1]) for v, _ in found}
    return [(v, h) for v, h in found if not (per_class(v[1]) and (v[0], POSITIVE_CLASS) in keys)]


def distance(expr, variant_key, kind: str) -> float:
    user = _user_values(expr, kind)
    table = _catalog_table(parameters(expr), kind)
    values = next((vals for v, vals in table.items() if v[:2] == variant_key), None)
    if user is None or values is None:
        return float("inf")
    pairs = [(x, y) for x, y in zip(user, values) if x is not None and y is not None]
    if not pairs:
        return float("inf")
    return sum(abs(x - y) / max(1.0, abs(y)) for x, y in pairs) / len(pairs)


CONFIRM_POINTS = 40  # fresh random points an unproved match must agree on


def confirmed(expr, variant, holds: str) -> tuple[bool, str | None]:
    """Whether ``expr`` equals the catalog ``variant`` at :data:`CONFIRM_POINTS` fresh random
    points of its scope (``holds``): counts of one class (a per-class formula), multi-label
    counts (``all``), confusion matrices of 3 to 6 classes (``single-label``) or 2 x 2 ones
    (``binary``), counts from 0 (so that near-empty classes are drawn too); a formula over the
    instances of multi-label data, on eight fresh data sets of other shapes. A match that its
    proof could not show is kept only when it agrees at every point where both are defined,
    and both are defined at a quarter of them at least: equal at a dozen fixed points is not a
    match. -> (equal, where it differs: "TP = 0" when it differs only where that count is 0,
    the catalog's own value of an edge case; None otherwise)."""
    rng = random.Random(zlib.crc32(f"{expr}|{variant[:2]}".encode()))
    if _scopes(expr, "any") == ("scores",):
        return True, None  # compared on whole data sets with tied scores (identify_scores), not here
    if _scopes(expr, "any") == ("instances",):  # fresh multi-label data sets of other shapes
        shapes = tuple((rng.randint(4, 14), rng.randint(2, 6)) for _ in range(8))
        for y_true, y_pred in _label_sets(rng.randrange(10 ** 6), shapes):
            mine = _user_value(expr, None, instances=(*_instance_counts(y_true, y_pred), y_true.shape[1]))
            theirs = _instance_value(variant, y_true, y_pred)
            if mine is not None and theirs is not None and theirs == theirs and \
                    abs(mine - theirs) > 1e-9 * max(1.0, abs(mine), abs(theirs)):
                return False, None
        return True, None
    agreed, zeros = 0, None  # zeros: the counts that were 0 at every point where the two differ
    for point in range(CONFIRM_POINTS):
        high = rng.choice((3, 12, 60))
        if holds == "all" or _per_class(expr) and holds != "binary":
            classes = rng.randint(2, 5)
            tp, fp, fn = (np.array([rng.randint(0, high) for _ in range(classes)]) for _ in range(3))
            n = int((tp + fp + fn).max()) + rng.randint(0, high)
            counts = (tp, fp, fn, n - tp - fp - fn, n)
            vector = _vector(classes, 100 + point)
            if _per_class(expr):
                k = rng.randrange(classes)
                mine, theirs = _user_value(expr, counts, per_class=k), _catalog_value(variant, counts=counts, class_index=k)
                at = [c[k] for c in counts[:4]]
            else:
                mine, theirs = _user_value(expr, counts, vector=vector), _catalog_value(variant, counts=counts, vector=vector)
                at = [min(c) for c in counts[:4]]
        else:
            classes = 2 if holds == "binary" else rng.randint(3, 6)
            matrix = np.array([[rng.randint(0, high) for _ in range(classes)] for _ in range(classes)])
            vector = _vector(classes, 100 + point)
            per_class = 1 if _per_class(expr) else None
            mine = _user_value(expr, _counts_of(matrix), matrix=matrix, per_class=per_class, vector=vector)
            theirs = _catalog_value(variant, matrix=matrix, vector=vector)
            at = [c[1] for c in _counts_of(matrix)[:4]] if classes == 2 else [min(c) for c in _counts_of(matrix)[:4]]
        if mine is None or theirs is None or theirs != theirs:
            continue
        if abs(mine - theirs) > 1e-9 * max(1.0, abs(mine), abs(theirs)):
            zero = {name for name, value in zip(_COUNTS, at) if value == 0}
            zeros = zero if zeros is None else zeros & zero
            continue
        agreed += 1
    if zeros is not None:
        return False, (" or ".join(f"{name} = 0" for name in _COUNTS if name in zeros) or None)
    return agreed >= CONFIRM_POINTS // 4, None
