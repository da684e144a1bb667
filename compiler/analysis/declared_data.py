"""The data the declared-property checks draw, per level, deterministically (the caller's seed).

class: a grid of small counts, then random counts up to 10**6. matrix: confusion matrices of
2 to 4 classes. aggregate: per-class counts of such matrices and of multi-label indicator data
(which also gives the per-instance counts of ``samples``). curve: count curves from the origin,
each threshold adding a sample or more. score: score rows that are distributions (valid for
``scores: any`` too), one-hot truth. Each batch comes with its corrected twin (one error
undone), for the direction check.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterator, Mapping

import numpy as np

from metricc.compiler.language.levels import Level

__all__ = ["BATCHES", "Batch", "COUNTS", "TRUTH_BATCHES"]

COUNTS = ("TP", "FP", "FN", "TN")


@dataclasses.dataclass(frozen=True)
class Batch:
    """Data points of one shape, the batch on the last axis, and how to name one point.

    ``classes`` / ``instances``: per-class / per-instance counts ``(TP, FP, FN, TN)``, each
    of shape ``(rows, size)``, for the terms of aggregate and matrix formulas.
    """

    env: Mapping[str, object]
    size: int
    weight: np.ndarray  # what "smallest" means when naming a counterexample
    describe: Callable[[int], str]
    classes: tuple[np.ndarray, ...] = ()
    instances: tuple[np.ndarray, ...] = ()


def _class_batches(rng: np.random.Generator) -> Iterator[tuple[Batch, Batch | None]]:
    grid = np.array(list(itertools.product((0, 1, 2, 3, 7), repeat=4)), dtype=float).T
    scale = 10.0 ** rng.uniform(0, 6, size=(4, 1500))
    drawn = np.floor(scale * rng.random((4, 1500))) * (rng.random((4, 1500)) > 0.25)
    counts = np.concatenate([grid, drawn], axis=1)
    yield _counts_batch(counts), None
    for source, target in ((2, 0), (1, 3)):  # FN -> TP, FP -> TN
        movable = counts[:, counts[source] >= 1]
        moved = movable.copy()
        moved[source] -= 1
        moved[target] += 1
        yield _counts_batch(movable), _counts_batch(moved)


def _counts_batch(counts: np.ndarray) -> Batch:
    return Batch(dict(zip(COUNTS, counts)), counts.shape[1], counts.sum(axis=0),
                  lambda i: ", ".join(f"{name}={int(counts[k, i])}" for k, name in enumerate(COUNTS)))


def _pick(mask: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """One random marked cell of every batch column of ``mask`` ``(a, b, B)``: its ``(a, b, column)``."""
    flat = np.where(mask, rng.random(mask.shape), -1.0).reshape(-1, mask.shape[2]).argmax(axis=0)
    return flat // mask.shape[1], flat % mask.shape[1], np.arange(mask.shape[2])


def _matrix_batch(matrix: np.ndarray) -> Batch:
    # Sizes are numpy integers (here and below): 1 / (C - 2) at C = 2 is inf, not an exception.
    rows, columns, total = matrix.sum(axis=1), matrix.sum(axis=0), matrix.sum(axis=(0, 1))
    tp = np.einsum("kkb->kb", matrix)
    env = {"M": matrix, "t": rows, "p": columns, "n": total, "C": np.int64(matrix.shape[0])}
    return Batch(env, matrix.shape[2], total, lambda i: "M=" + str(matrix[:, :, i].astype(int).tolist()),
                  classes=(tp, columns - tp, rows - tp, total - rows - columns + tp))


def _matrix_batches(rng: np.random.Generator) -> Iterator[tuple[Batch, Batch | None]]:
    for classes in (2, 3, 4):
        high = 10 ** rng.integers(0, 4, size=300)
        matrix = rng.integers(0, high + 1, size=(classes, classes, 300)).astype(float)
        matrix *= rng.random(matrix.shape) > 0.3
        yield _matrix_batch(matrix), None
        wrong = ~np.eye(classes, dtype=bool)[:, :, None] & (matrix >= 1)
        matrix = matrix[:, :, wrong.any(axis=(0, 1))]
        row, column, index = _pick(wrong[:, :, wrong.any(axis=(0, 1))], rng)
        corrected = matrix.copy()  # one misclassified instance moved onto the diagonal
        corrected[row, column, index] -= 1
        corrected[row, row, index] += 1
        yield _matrix_batch(matrix), _matrix_batch(corrected)


def _indicator_batch(truth: np.ndarray, predicted: np.ndarray) -> Batch:
    """Multi-label data ``(n, C, B)`` as per-class and per-instance counts."""
    counts = [truth * predicted, (1 - truth) * predicted, truth * (1 - predicted), (1 - truth) * (1 - predicted)]
    return Batch({}, truth.shape[2], np.full(truth.shape[2], float(truth.shape[0])),
                  lambda i: f"Y={truth[:, :, i].astype(int).tolist()}, predicted {predicted[:, :, i].astype(int).tolist()}",
                  classes=tuple(c.sum(axis=0) for c in counts), instances=tuple(c.sum(axis=1) for c in counts))


def _aggregate_batches(rng: np.random.Generator) -> Iterator[tuple[Batch, Batch | None]]:
    for (batch, corrected) in _matrix_batches(rng):
        yield dataclasses.replace(batch, env={}), corrected and dataclasses.replace(corrected, env={})
    for classes in (2, 3, 5):
        truth = (rng.random((6, classes, 300)) < rng.random((1, 1, 300))).astype(float)
        predicted = np.where(rng.random(truth.shape) < 0.6, truth, 1 - truth)
        yield _indicator_batch(truth, predicted), None
        fixable = (truth != predicted).any(axis=(0, 1))
        truth, predicted = truth[:, :, fixable], predicted[:, :, fixable]
        cell = _pick(truth != predicted, rng)
        corrected = predicted.copy()  # one wrong indicator set right
        corrected[cell] = truth[cell]
        yield _indicator_batch(truth, predicted), _indicator_batch(truth, corrected)


def _curve_batch(tp: np.ndarray, fp: np.ndarray) -> Batch:
    # The origin (no sample predicted positive) goes last, where TP[i - 1] at i = 0 reads it.
    origin = np.zeros((1, tp.shape[1]))
    positives, negatives = tp[-1], fp[-1]
    tp, fp = np.concatenate([tp, origin]), np.concatenate([fp, origin])
    env = {"TP": tp, "FP": fp, "FN": positives - tp, "TN": negatives - fp, "P": positives, "N": negatives,
           "L": np.int64(tp.shape[0] - 1)}
    return Batch(env, tp.shape[1], positives + negatives,
                  lambda i: f"TP={tp[:-1, i].astype(int).tolist()}, FP={fp[:-1, i].astype(int).tolist()}")


def _curve_batches(rng: np.random.Generator) -> Iterator[tuple[Batch, Batch | None]]:
    for thresholds in (1, 3, 6):
        added = rng.integers(0, 4, size=(2, thresholds, 400)) * (rng.random((2, thresholds, 400)) > 0.3)
        added[0] += added.sum(axis=0) == 0  # every threshold adds at least one sample
        tp, fp = np.cumsum(added, axis=1).astype(float)
        yield _curve_batch(tp, fp), None
        # The top-ranked negative moved to the bottom threshold (the top one stays non-empty).
        movable = (added[1, 0] >= 1) & (added[:, 0].sum(axis=0) >= 2) & (thresholds > 1)
        moved = fp[:, movable].copy()
        moved[:-1] -= 1
        yield _curve_batch(tp[:, movable], fp[:, movable]), _curve_batch(tp[:, movable], moved)


def _score_batch(scores: np.ndarray, truth: np.ndarray) -> Batch:
    env = {"S": scores, "Y": truth, "n": np.int64(scores.shape[0]), "C": np.int64(scores.shape[1])}
    return Batch(env, scores.shape[2], np.zeros(scores.shape[2]),
                  lambda i: f"S={np.round(scores[:, :, i], 3).tolist()}, Y={_grades(truth[:, :, i])}")


def _grades(truth: np.ndarray) -> list:
    """A truth matrix as printed in a refusal: whole numbers as such (indicators, one-hot)."""
    return truth.astype(int).tolist() if (truth == np.round(truth)).all() else np.round(truth, 3).tolist()


def _score_batches(rng: np.random.Generator) -> Iterator[tuple[Batch, Batch | None]]:
    for samples, classes in ((4, 2), (6, 3)):
        labels = rng.integers(0, classes, size=(samples, 200))
        truth = (labels[:, None, :] == np.arange(classes)[None, :, None]).astype(float)
        scores = rng.gamma(rng.choice([0.2, 1.0, 5.0], size=(1, 1, 200)), size=(samples, classes, 200))
        scores /= scores.sum(axis=1, keepdims=True)
        yield _score_batch(scores, truth), None
        yield _score_batch(scores, truth), _score_batch(0.75 * scores + 0.25 * truth, truth)


def _indicator_score_batches(rng: np.random.Generator) -> Iterator[tuple[Batch, Batch | None]]:
    """Multi-label truth (``truth: indicator``): rows with any number of true labels, scores
    with ties (rounded to tenths), and the same scores a quarter of the way toward the truth."""
    for samples, classes in ((4, 3), (5, 4)):
        truth = (rng.random((samples, classes, 200)) < rng.random((1, 1, 200))).astype(float)
        scores = np.round(rng.random((samples, classes, 200)), 1)
        yield _score_batch(scores, truth), None
        yield _score_batch(scores, truth), _score_batch(0.75 * scores + 0.25 * truth, truth)


def _relevance_score_batches(rng: np.random.Generator) -> Iterator[tuple[Batch, Batch | None]]:
    """Graded truth (``truth: relevance``): relevances 0 to 3, scaled by a per-case factor
    (so they are not whole numbers), with ties, all-zero rows and rows of one grade; scores
    with ties; and the same scores moved a quarter of the way toward the relevances, which
    only ever puts a pair of labels in the order of their relevances."""
    for samples, classes in ((4, 3), (5, 4)):
        truth = rng.integers(0, 4, size=(samples, classes, 200)) * rng.choice([1.0, 0.37, 2.5], size=(1, 1, 200))
        truth[:, :, :20] *= rng.random((samples, 1, 20)) < 0.5  # all-zero rows
        truth[:, :, 20:30] = truth[:, :1, 20:30]  # every label of a row equally relevant
        scores = np.round(rng.random((samples, classes, 200)), 1)
        yield _score_batch(scores, truth), None
        yield _score_batch(scores, truth), _score_batch(0.75 * scores + 0.25 * truth, truth)


TRUTH_BATCHES = {"indicator": _indicator_score_batches, "relevance": _relevance_score_batches}


BATCHES = {Level.CLASS: _class_batches, Level.MATRIX: _matrix_batches, Level.AGGREGATE: _aggregate_batches,
            Level.CURVE: _curve_batches, Level.SCORE: _score_batches}
