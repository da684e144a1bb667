"""Sound necessary conditions for ``metricc consistent`` where no exact search fits.

Every condition is a set of possible traces T (the number of correct predictions, 0..n) of
the unknown matrix; the true matrix's trace lies in each set, so an empty intersection proves
the scores inconsistent, and a non-empty one proves nothing (the answer is then "no
condition fails"). Conditions, in the manner of mlscorecheck's interval checks:

- averages that pool the counts (micro) and matrix-level metrics of the trace alone (accuracy,
  error rate) are a function of T and n: exact, one value per T;
- linear averages of a per-class metric (macro, weighted, binary: a weighted sum over classes,
  whose weights :meth:`~metricc.runtime.averaging.Mode.class_weights` gives): the range of the per-class value
  over each class's own (TP, FP) grid, for each TP, combined over classes by a min/max
  convolution on the sum of the TPs (= T). It ignores only that the FPs must also add up to
  n - T, so it can only be looser than the truth.

Anything else (geometric means, kappa, MCC, F1 of macro averages...) is reported unchecked,
and so is a per-class score whose bounds would cost more than ``CLASSWISE_LIMIT`` evaluations
(the sum over classes of (total + 1)(n + 1)): the work and memory stay bounded.
"""

from __future__ import annotations

import numpy as np

from metricc.api.evaluate import metric
from metricc.runtime.averaging import MODES

__all__ = ["aggregate_of_class", "trace_conditions", "CLASSWISE_LIMIT"]

CLASSWISE_LIMIT = 30_000_000

_SLACK = 1e-9  # the runtime sums in another order: never reject a value on rounding


def aggregate_of_class(info) -> tuple[str, str] | None:
    """(class metric id, linear mode) of an aggregate that is one linear average of a class
    metric without parameters (``macro(recall)``); None for any other."""
    if info.averaged_class_metric is None:
        return None
    inner_id, mode = info.averaged_class_metric
    inner = metric(inner_id)
    return (inner.id, mode) if MODES[mode].linear and inner.per_class_counts and not inner.params else None


def _kind(score) -> tuple[str, str, str | None]:
    """(kind, class metric id, average): "trace", "classwise" or "unchecked"."""
    info = metric(score.metric)
    if info.takes == "matrix":
        return ("trace" if info.only_trace else "unchecked"), info.id, None
    if not info.per_class_counts:  # an aggregate of counts
        found = aggregate_of_class(info)
        return ("classwise", *found) if found else ("unchecked", info.id, None)
    average = score.average or info.default_average
    if info.params and any(p.default is None for p in info.params):
        return "unchecked", info.id, average
    if MODES[average].pools:
        return "trace", info.id, average
    if MODES[average].linear:
        return "classwise", info.id, average
    return "unchecked", info.id, average


def _per_class(metric_id: str, tp, fp, fn, tn) -> np.ndarray:
    """The per-class value of one class's counts (arrays of one shape), NaN where undefined."""
    counts = [np.asarray(c, dtype=np.int64).reshape(-1, 1) for c in (tp, fp, fn, tn)]
    return np.asarray(metric(metric_id).function(*counts, average="none"), dtype=float).reshape(np.shape(tp))


def _trace_values(metric_id: str, average: str | None, samples: int, classes: int) -> np.ndarray:
    trace = np.arange(samples + 1, dtype=np.int64)
    if average is not None:  # a mode that pools (micro): the pooled counts: TP = T, FP = FN = n - T, TN = (C - 2) n + T
        return _per_class(metric_id, trace, samples - trace, samples - trace, (classes - 2) * samples + trace)
    matrix = np.zeros((samples + 1, 2, 2), dtype=np.int64)
    matrix[:, 0, 0], matrix[:, 0, 1] = trace, samples - trace
    return np.asarray(metric(metric_id).function(matrix), dtype=float)


def _class_range(metric_id: str, total: int, samples: int) -> tuple[np.ndarray, np.ndarray]:
    """For each TP of a class of ``total`` samples: min and max of its value over FP."""
    lows, highs = np.full(total + 1, np.inf), np.full(total + 1, -np.inf)
    negatives = samples - total
    fp = np.arange(negatives + 1, dtype=np.int64)
    rows = max(1, (1 << 20) // (negatives + 1))
    for start in range(0, total + 1, rows):
        tp = np.arange(start, min(start + rows, total + 1), dtype=np.int64)[:, None]
        values = _per_class(metric_id, np.broadcast_to(tp, (len(tp), len(fp))), np.broadcast_to(fp, (len(tp), len(fp))),
                            np.broadcast_to(total - tp, (len(tp), len(fp))), np.broadcast_to(negatives - fp, (len(tp), len(fp))))
        defined = ~np.isnan(values)
        lows[tp[:, 0]] = np.where(defined, values, np.inf).min(axis=1)
        highs[tp[:, 0]] = np.where(defined, values, -np.inf).max(axis=1)
    return lows, highs


def _classwise_bounds(metric_id: str, weights: np.ndarray, class_totals: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Bounds of the averaged value for each trace T: a min/max convolution over classes."""
    samples = sum(class_totals)
    low, high = np.full(samples + 1, np.inf), np.full(samples + 1, -np.inf)
    low[0] = high[0] = 0.0
    for total, weight in zip(class_totals, weights):
        lows, highs = _class_range(metric_id, total, samples) if weight else (np.zeros(total + 1), np.zeros(total + 1))
        new_low, new_high = np.full(samples + 1, np.inf), np.full(samples + 1, -np.inf)
        for tp in range(total + 1):
            if lows[tp] > highs[tp]:
                continue  # undefined for every FP: no matrix has this TP
            np.minimum(new_low[tp:], low[:samples + 1 - tp] + weight * lows[tp], out=new_low[tp:])
            np.maximum(new_high[tp:], high[:samples + 1 - tp] + weight * highs[tp], out=new_high[tp:])
        low, high = new_low, new_high
    return low, high


def _affordable(class_totals: list[int]) -> bool:
    """Whether the min/max convolution stays within ``CLASSWISE_LIMIT`` evaluations."""
    return (sum(class_totals) + 1) * (sum(class_totals) + len(class_totals)) <= CLASSWISE_LIMIT


def trace_conditions(scores, class_totals: list[int] | None, samples: int, classes: int) -> list[np.ndarray | None]:
    """For each score, the traces T (boolean mask over 0..n) it allows, or None: unchecked."""
    masks = []
    for score in scores:
        kind, metric_id, average = _kind(score)
        margin = score.tolerance + 1e-12 + _SLACK * max(1.0, abs(score.value))
        if kind == "trace":
            values = _trace_values(metric_id, average, samples, classes)
            masks.append(np.abs(values - score.value) <= margin)
        elif kind == "classwise" and class_totals is not None and _affordable(class_totals):
            positive = 1 if getattr(score, "pos_label", None) is None else score.pos_label
            low, high = _classwise_bounds(metric_id, MODES[average].class_weights(class_totals, positive),
                                          class_totals)
            masks.append((low <= score.value + margin) & (high >= score.value - margin))
        else:
            masks.append(None)
    return masks
