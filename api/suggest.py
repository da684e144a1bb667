"""``suggest``: which metrics fit a classification task, by the rule of Puertolas Molina (2022).

The thesis decides from three facts (Sec. 3.3, Fig. 3.5): binary or multi-class, balanced or
imbalanced (``isBalanced``, Appendix A.1.1: imbalanced when the minority class has fewer
than ``thresh = 0.70`` times the instances of the majority class), and, for multi-class,
ordinal or not. The metric lists are data (``suggest_rules.json``, Sec. 3.1.6), read here
with the standard library only.

>>> [s.metric for s in suggest(class_counts=[415, 107]) if s.rule == "binary, imbalanced"][:3]
['g_mean', 'adjusted_g_mean', 'balanced_accuracy']
>>> is_imbalanced([1669, 1527])
False
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np

from metricc.core.errors import InputError

__all__ = ["Suggestion", "suggest", "is_imbalanced", "rules"]


@dataclass(frozen=True)
class Suggestion:
    metric: str  # a catalog id
    average: str | None  # the averaging mode to evaluate it with; None: the metric's own
    reason: str
    rule: str  # which case of the rule table applies: "binary", "multiclass, ordinal"...


@lru_cache(maxsize=1)
def rules() -> dict:
    """The rule table (package data)."""
    return json.loads(resources.files("metricc.api").joinpath("suggest_rules.json").read_text("utf-8"))


def _threshold(threshold) -> float:
    value = rules()["threshold"] if threshold is None else threshold
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise InputError("threshold", f"expected a number in (0, 1], got {value!r}")
    return float(value)


def is_imbalanced(class_counts, threshold: float | None = None) -> bool:
    """``isBalanced`` of the thesis (Appendix A.1.1), named for what it returns: True when the
    minority class has fewer than ``threshold`` (default 0.70) times the majority's instances."""
    counts = _counts(class_counts)
    return bool(counts.min() < _threshold(threshold) * counts.max())


def _counts(class_counts) -> np.ndarray:
    try:
        counts = np.asarray(class_counts, dtype=float)
    except (TypeError, ValueError):
        raise InputError("class_counts", f"expected numbers, one per class, got {class_counts!r}") from None
    if counts.ndim != 1 or counts.size < 2:
        raise InputError("class_counts", f"expected one count per class, at least two classes, got {np.asarray(class_counts).tolist()!r}")
    if not np.all(np.isfinite(counts)) or np.any(counts <= 0):
        raise InputError("class_counts", f"every class needs a positive count, got {counts.tolist()!r}")
    return counts


def _facts(classes, class_counts, y_true, imbalance_ratio, threshold) -> tuple[int, bool]:
    given = [name for name, value in (("class_counts", class_counts), ("y_true", y_true), ("imbalance_ratio", imbalance_ratio)) if value is not None]
    if len(given) != 1:
        raise InputError("class_counts", "give exactly one of class_counts, y_true (labels) or imbalance_ratio")
    if y_true is not None:
        labels = np.asarray(y_true, dtype=object).ravel().tolist()
        if not labels:
            raise InputError("y_true", "no labels")
        class_counts = list(Counter(labels).values())
        if len(class_counts) < 2:
            raise InputError("y_true", "only one class occurs; a classification task needs two or more")
    if class_counts is not None:
        counts = _counts(class_counts)
        if classes is not None and classes != counts.size:
            raise InputError("classes", f"{classes} classes, but {counts.size} class counts")
        return counts.size, is_imbalanced(counts, threshold)
    if classes is None:
        raise InputError("classes", "the number of classes is needed with imbalance_ratio")
    if isinstance(imbalance_ratio, bool) or not isinstance(imbalance_ratio, (int, float)) or not math.isfinite(imbalance_ratio) or imbalance_ratio < 1:
        raise InputError("imbalance_ratio", f"expected majority / minority class size, a number >= 1, got {imbalance_ratio!r}")
    return classes, 1 / imbalance_ratio < _threshold(threshold)


def suggest(*, classes: int | None = None, class_counts=None, y_true=None, imbalance_ratio: float | None = None,
            ordinal: bool = False, threshold: float | None = None) -> list[Suggestion]:
    """The metrics the thesis' rule selects, in rule-table order, each with a one-line reason.

    Give the class balance one way: ``class_counts`` (one count per class), ``y_true`` (the
    true labels, counted) or ``imbalance_ratio`` (majority / minority class size) with
    ``classes``. ``ordinal``: the classes are ordered (multi-class only, Sec. 3.1.4).
    """
    if classes is not None and (isinstance(classes, bool) or not isinstance(classes, (int, np.integer)) or classes < 2):
        raise InputError("classes", f"expected a whole number >= 2, got {classes!r}")
    n_classes, imbalanced = _facts(classes, class_counts, y_true, imbalance_ratio, threshold)
    facts = {"task": "binary" if n_classes == 2 else "multiclass", "imbalanced": imbalanced, "ordinal": bool(ordinal)}
    out = []
    for rule in rules()["rules"]:
        condition = rule["when"]
        if all(facts[key] == wanted for key, wanted in condition.items()):
            name = ", ".join([condition["task"]] + [key for key in ("imbalanced", "ordinal") if condition.get(key)])
            out.extend(Suggestion(m["id"], m.get("average"), m["reason"], name) for m in rule["metrics"])
    return out
