"""The numeric side of ``identify`` for formulas over samples' class probabilities.

Wang et al.'s AUC(j, k), AUNU, AUNP, AU1U, AU1P (Eq. 13-17), MAE and MSE (Eq. 18-19) are
written over ``f(s,j)`` (1 if sample s is of class j) and ``p(s,j)`` (its probability for
class j). They are compared with the catalog's score- and curve-level metrics on fixed
random data sets: probabilities that are ratios of small integers, so that tied scores
occur (Eq. 13 counts a tie 1/2). The counts a formula may also use (``n_j``, ``P(j)``) are
those of the arg-max prediction; ``r_j`` (every class but j) reads the complement: f(s, r_j)
= 1 - f(s, j), p(s, r_j) = 1 - p(s, j), and class j's TN, FN as the rest's TP, FP.
"""

from __future__ import annotations

import functools
import random
import warnings

import numpy as np
import sympy

from metricc.audit.identify_cache import cached_table
from metricc.audit.identify_evaluate import TooLarge, Undefined, evaluate
from metricc.audit.notation import CLASS_COUNTS
from metricc.compiler.language import symbols
from metricc.runtime.averaging import MODES

__all__ = ["is_score_formula", "score_values", "score_table"]

_REST_COUNTS = {"TP": "TN", "FP": "FN", "FN": "FP", "TN": "TP"}  # class j's counts seen from the rest


def is_score_formula(expr) -> bool:
    return any(node.base in (symbols.SCORE, symbols.TRUTH) for node in expr.atoms(sympy.Indexed))


@functools.lru_cache(maxsize=1)
def _data() -> tuple:
    """(true labels, probabilities) of three data sets: 3, 4 and 3 classes, every class present."""
    rng = random.Random(13)
    out = []
    for samples, classes in ((9, 3), (10, 4), (8, 3)):
        labels = [s % classes for s in range(samples)]
        rng.shuffle(labels)
        weights = np.array([[rng.randint(1, 4) for _ in range(classes)] for _ in range(samples)], dtype=float)
        out.append((np.array(labels), weights / weights.sum(axis=1, keepdims=True)))
    return tuple(out)


def _counts(labels, scores) -> dict:
    classes = scores.shape[1]
    matrix = np.zeros((classes, classes))
    np.add.at(matrix, (labels, scores.argmax(axis=1)), 1)
    tp = np.diag(matrix)
    fp, fn = matrix.sum(axis=0) - tp, matrix.sum(axis=1) - tp
    return {"TP": tp, "FP": fp, "FN": fn, "TN": len(labels) - tp - fp - fn, "matrix": matrix}


def _value(expr, labels, scores) -> float | None:
    samples, classes = scores.shape
    truth = (labels[:, None] == np.arange(classes)[None, :]).astype(float)
    counts = _counts(labels, scores)
    names = {v: k for k, v in CLASS_COUNTS.items()}

    def cell(base, index):
        if base in (symbols.TRUTH, symbols.SCORE) and len(index) == 2 and 0 <= index[0] < samples:
            table = truth if base == symbols.TRUTH else scores
            s, j = index
            if 0 <= j < classes:
                return float(table[s, j])
            return 1.0 - float(table[s, -1 - j]) if 0 <= -1 - j < classes else None  # r_j
        if base in names and len(index) == 1:
            j = index[0]
            if 0 <= j < classes:
                return float(counts[names[base]][j])
            return float(counts[_REST_COUNTS[names[base]]][-1 - j]) if 0 <= -1 - j < classes else None
        if base == symbols.M and len(index) == 2 and all(0 <= i < classes for i in index):
            return float(counts["matrix"][index])
        return None

    values = {symbols.N_TOTAL: float(samples), symbols.N_CLASSES: float(classes)}
    try:
        return evaluate(expr, values, cell)
    except TooLarge:
        raise
    except Undefined:
        return None


def score_values(expr) -> tuple:
    """The formula on each data set (None where it is undefined; everywhere, once too large)."""
    out = []
    for labels, scores in _data():
        try:
            out.append(_value(expr, labels, scores))
        except TooLarge:
            return (None,) * len(_data())
    return tuple(out)


@functools.lru_cache(maxsize=1)
def score_table() -> dict:
    """(metric id, mode, level, ()) -> its value on each data set, for every score- and
    curve-level variant of the catalog."""
    return cached_table("scores", _compute_score_table)


def _compute_score_table() -> dict:
    import metricc.api as mc

    table = {}
    for info in mc.catalog().values():
        if not info.needs_scores or info.params:
            continue
        for mode in [m for m in info.averages if MODES[m].over_classes] or [None]:
            table[(info.id, mode, info.level, ())] = tuple(_catalog(info.id, mode, *data) for data in _data())
    return table


def _catalog(metric, mode, labels, scores) -> float | None:
    import metricc.api as mc

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return float(np.asarray(mc.evaluate(metric, y_true=labels, scores=scores, average=mode)[metric], dtype=float))
        except Exception:  # noqa: BLE001 - a variant that cannot take these scores is no candidate
            return None
