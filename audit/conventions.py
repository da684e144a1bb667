"""Which convention reproduces a printed number that the stated one does not?

Papers and their code disagree on conventions more often than on arithmetic. For a claim
that differs, :func:`explain` recomputes it under the usual alternatives and returns every
one that gives the printed value, the simplest first:

- the other positive class (``pos_label``), another ``average``, the transposed matrix
  (``orientation``), mean of per-class F1 vs F1 of the means (a change of ``metric``), a zero-division
  policy (``zero_division``), a percent printed as a fraction or back (``scale``), a close
  relative in the catalog (``metric``: code computing one metric under another's name: the
  weighted kappas for kappa, the mean of per-class MCC for MCC, Youden's J for balanced
  accuracy), the chance-adjusted value ``(x - 1/C) / (1 - 1/C)`` (``adjusted``: scikit-learn's
  ``balanced_accuracy_score(adjusted=True)``);
- and every pair of these of different kinds; a pair counts only if neither half explains
  the number alone.

:func:`coincidences` lists any other catalog metric (each averaging of a per-class one) that
gives the printed value on that data, ranked by how close a relative it is (:func:`closeness`):
a name in common, then the same range and direction. With three printed digits and some 150
metrics a coincidence is likely, so these are reported beside the explanations, never as one.

Each explanation is the dict of changed arguments (``{"orientation": "pred-rows"}``,
``{"average": "weighted"}``, ``{"metric": "f1_of_macro_averages"}``, ``{"pos_label": 0}``).
"""

from __future__ import annotations

import itertools

import numpy as np

from metricc.runtime import confusion
from metricc.runtime import averaging
from metricc.runtime.averaging import MODES, POSITIVE_CLASS
from metricc.core.errors import InputError
from metricc.api.evaluate import catalog, evaluate, metric


__all__ = ["ADJUSTABLE", "RELATIVES", "closeness", "coincidences", "explain", "describe"]

# Metrics that papers (or their code) put under each other's names; a group is symmetric.
RELATIVES = (
    ("f1", "f1_of_macro_averages", "f1_of_sample_averages", "f_beta_of_micro_averages", "jaccard"),
    ("accuracy", "class_accuracy", "balanced_accuracy", "weighted_accuracy", "precision", "recall"),
    ("precision", "recall", "specificity", "npv"),
    ("error_rate", "class_error_rate"),
    ("fpr", "fnr", "fdr", "false_omission_rate"),
    ("mcc", "mcc_per_class", "cohen_kappa"),
    ("cohen_kappa", "weighted_kappa", "quadratic_weighted_kappa"),
    ("g_mean", "adjusted_g_mean", "balanced_accuracy"),
    ("balanced_accuracy", "youden_j"),
)
# Metrics whose chance-adjusted form (x - 1/C) / (1 - 1/C) papers print under the same name.
ADJUSTABLE = ("balanced_accuracy",)
# Order among equally simple explanations: choices of the computation that papers leave
# implicit first, then a different reading of the data (transposed), then the catalog
# relatives, zero division and the printed scale.
_KINDS = ("pos_label", "average", "orientation", "metric", "adjusted", "zero_division", "scale")
_SCALES = {"percent": 100.0, "fraction": 0.01}


def _relatives(metric_id: str) -> list[str]:
    related = {m for group in RELATIVES if metric_id in group for m in group}
    return sorted(related - {metric_id})


def _class_labels(inputs: dict) -> list:
    """The positive-class choices: label values when labels were given, else class indices."""
    if inputs.get("labels") is not None:
        return list(np.asarray(inputs["labels"]).tolist())
    if inputs.get("y_true") is not None and inputs.get("y_pred") is not None and not inputs.get("multilabel"):
        return confusion.class_labels(inputs["y_true"], inputs["y_pred"]).tolist()
    if inputs.get("matrix") is not None:
        return list(range(np.shape(inputs["matrix"])[-1]))
    if inputs.get("counts") is not None:
        return list(range(np.shape(inputs["counts"][0])[-1]))
    return []


def _singles(metric_id: str, inputs: dict) -> list[dict]:
    """Every one-argument change of the claim's convention, in the order of ``_KINDS``."""
    info = metric(metric_id)
    changes = []
    if info.per_class_counts:
        labels = _class_labels(inputs)
        average = inputs.get("average") or info.default_average
        if averaging.positive_class(average):
            current = inputs.get("pos_label", labels[1] if len(labels) > 1 else None)
            changes += [{"pos_label": label} for label in labels if label != current]
        # binary of an averaged claim is one class's value, proposed below with its class
        changes += [{"average": a} for a in info.averages
                    if a != average and MODES[a].one_number and (not MODES[a].positive_class or not labels)]
        if not averaging.positive_class(average) and POSITIVE_CLASS in info.averages:  # one class's own value, class 1 included
            changes += [{"average": POSITIVE_CLASS, "pos_label": label} for label in labels]
    if inputs.get("matrix") is not None:
        flipped = "pred-rows" if inputs.get("orientation", "true-rows") == "true-rows" else "true-rows"
        changes.append({"orientation": flipped})
    for other in _relatives(metric_id):
        # a per-class relative of a one-per-matrix metric (mcc_per_class for mcc) is its mean
        macro = not info.per_class_counts and metric(other).per_class_counts
        changes.append({"metric": other, "average": "macro"} if macro else {"metric": other})
    if metric_id in ADJUSTABLE:
        changes.append({"adjusted": True})
    changes += [{"zero_division": z} for z in (0.0, 1.0)]
    if info.per_class_counts:
        changes.append({"zero_division": "skip"})
    changes += [{"scale": s} for s in _SCALES]
    return changes


def _value(metric_id: str, inputs: dict, change: dict):
    """The claim recomputed under ``change``; None when that convention does not apply."""
    arguments = {**inputs, **{k: v for k, v in change.items() if k not in ("metric", "scale", "adjusted")}}
    name = change.get("metric", metric_id)
    info = metric(name)
    if not info.per_class_counts:
        for key in ("average", "pos_label", "weights"):
            arguments.pop(key, None)
    elif arguments.get("average") not in (None, *info.averages):
        arguments.pop("average")
    try:
        with np.errstate(all="ignore"):
            value = np.asarray(evaluate(name, **arguments)[name], dtype=float)
    except (InputError, ValueError, TypeError):
        return None
    if change.get("adjusted"):
        classes = len(_class_labels(inputs))
        if classes < 2:
            return None
        value = (value - 1.0 / classes) / (1.0 - 1.0 / classes)
    return value * _SCALES.get(change.get("scale"), 1.0)


def _reproduces(value, expected, tolerance: float) -> bool:
    return (value is not None and value.shape == np.shape(expected)
            and bool(np.all(np.abs(value - np.asarray(expected, dtype=float)) <= tolerance + 1e-12)))


def explain(metric_id: str, inputs: dict, expected, tolerance: float) -> list[dict]:
    """The conventions (changed arguments) under which the claim gives ``expected``, simplest
    first: single changes, then pairs of changes of different kinds."""
    singles = _singles(metric_id, inputs)
    found = [c for c in singles if _reproduces(_value(metric_id, inputs, c), expected, tolerance)]
    alone = {tuple(c.items()) for c in found}
    for first, second in itertools.combinations(singles, 2):
        if set(first) & set(second) or tuple(first.items()) in alone or tuple(second.items()) in alone:
            continue
        pair = {key: {**first, **second}[key] for key in _KINDS if key in first or key in second}
        if _reproduces(_value(metric_id, inputs, pair), expected, tolerance):
            found.append(pair)
    return found


def coincidences(metric_id: str, inputs: dict, expected, tolerance: float) -> list[dict]:
    """Every other catalog metric (each averaging of a per-class one, at its default
    parameters) that gives ``expected`` on the claim's data, closest relative first
    (:func:`closeness`), the named relatives of :data:`RELATIVES` left out (:func:`explain`
    tries them). A hint, not an explanation: with three printed digits and some 150 metrics a
    coincidence is likely."""
    named = set(_relatives(metric_id))
    return [c for c in _catalog_matches(metric_id, inputs, expected, tolerance) if c["metric"] not in named]


def _catalog_matches(metric_id: str, inputs: dict, expected, tolerance: float) -> list[dict]:
    """Every other catalog metric (each averaging of a per-class one, at its default
    parameters) that gives ``expected`` on the claim's data, closest relative first."""
    hits = []
    for other in sorted(catalog()):
        info = metric(other)
        if other == metric_id or info.needs_scores or info.per_instance:
            continue
        if any(p.default is None for p in info.params):
            continue
        averages = [a for a in info.averages if MODES[a].one_number] if info.per_class_counts else [None]
        for average in averages:
            change = {"metric": other, "average": average} if average else {"metric": other}
            value = _value(metric_id, inputs, change)
            if _reproduces(value, expected, tolerance):
                distance = float(np.max(np.abs(value - np.asarray(expected, dtype=float))))
                hits.append((closeness(metric_id, other), distance, other, average or "", change))
    hits.sort(key=lambda hit: hit[:4])
    return [hit[-1] for hit in hits]


def _words(metric_id: str) -> set[str]:
    info = metric(metric_id)
    text = " ".join((info.id, info.name, *info.aliases)).lower().replace("_", " ").replace("-", " ")
    return {w for w in text.split() if len(w) > 2 and w not in ("the", "and", "of", "rate", "index", "score")}


def closeness(metric_id: str, other: str) -> int:
    """How close a relative ``other`` is to ``metric_id``, 0 closest: a name in common and the
    same range and direction (0), a name in common (1), the same range and direction (2), else 3."""
    a, b = metric(metric_id), metric(other)
    shared = bool(_words(metric_id) & _words(other))
    alike = tuple(a.range) == tuple(b.range) and a.higher_is_better == b.higher_is_better
    return (0 if alike else 1) if shared else (2 if alike else 3)


def describe(change: dict) -> str:
    """A sentence part for a reviewer: ``with the transposed matrix (pred-rows) and pos_label 0``."""
    words = {
        "orientation": lambda v: f"with the transposed matrix ({v})",
        "pos_label": lambda v: f"with class {v!r} as the positive class",
        "average": lambda v: f"with {v} averaging",
        "metric": lambda v: f"as {v}",
        "adjusted": lambda v: "adjusted for chance ((x - 1/C) / (1 - 1/C), scikit-learn's adjusted=True)",
        "zero_division": lambda v: "leaving undefined classes out" if v == "skip" else f"with undefined values set to {v:g}",
        "scale": lambda v: "printed in percent" if v == "percent" else "printed with a percent sign but as a fraction",
    }
    return " and ".join(words[key](value) for key, value in change.items())

