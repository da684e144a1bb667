"""Whether a multi-label formula is what its single-label label names.

A formula over the instances of multi-label data (``\\frac{1}{n}\\sum_i 1(\\hat{y}_i = y_i)``,
``\\frac{1}{n}\\sum_i \\frac{|Y_i \\cap Z_i|}{|Y_i \\cup Z_i|}``) is compared on multi-label data
only, where it is exact_match_ratio or jaccard [samples], never accuracy; yet a paper that labels
it "accuracy" is right: the formula generalises accuracy, and on single-label data (one true and
one predicted label per instance) the two are the same number. So before a label is called
wrong, the label's metric (at the averaging it names, else the catalog's default) is evaluated
on single-label data and each match on the same data written as multi-label indicator rows;
equal on every data set, the label agrees. Computed by the runtime on random data, never read
from a table of pairs.
"""

from __future__ import annotations

import random
import warnings

import numpy as np

__all__ = ["agrees_on_single_label"]

_DATA_SETS = ((12, 3), (20, 4), (9, 5), (30, 3), (16, 6))  # (instances, classes): 3 classes at least, not binary


def _data_sets(seed: int = 29) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """Single-label data: every class present in the truth, about half the predictions right."""
    rng = random.Random(seed)
    out = []
    for instances, classes in _DATA_SETS:
        y_true = [i % classes for i in range(instances)]
        rng.shuffle(y_true)
        y_pred = [t if rng.random() < 0.5 else rng.randrange(classes) for t in y_true]
        out.append((np.array(y_true), np.array(y_pred), classes))
    return out


def _value(metric: str, average: str | None, **data) -> float | None:
    import metricc.api as mc

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            value = float(np.asarray(mc.evaluate(metric, average=average, **data)[metric], dtype=float))
        except Exception:  # noqa: BLE001 - a metric that cannot take this data says nothing here
            return None
    return value if value == value else None


def agrees_on_single_label(label_names: tuple[str, str | None], matches) -> bool:
    """Whether some match equals the labelled metric on every single-label data set."""
    metric, mode = label_names
    for match in matches:
        equal = True
        for y_true, y_pred, classes in _data_sets():
            rows = np.eye(classes, dtype=np.int64)
            labelled = _value(metric, mode, y_true=y_true, y_pred=y_pred)
            matched = _value(match.metric, match.average, y_true=rows[y_true], y_pred=rows[y_pred], multilabel=True)
            if labelled is None or matched is None or abs(labelled - matched) > 1e-12 * max(1.0, abs(labelled)):
                equal = False
                break
        if equal:
            return True
    return False
