"""One-line notes at the call where ``metricc eval`` gives another number than scikit-learn's
function of the same name would on the same input (docs/differences.md lists them all).

A user who knows ``sklearn.metrics.hamming_loss`` reads ``hamming_loss: 0.1667`` as that
function's value; where it is not, the command says so on stderr, once per metric, with
what reproduces scikit-learn's number. Each rule is a condition on the request, the data and
the value, decided here from what ``eval`` already computed (scikit-learn is not imported).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

__all__ = ["RULES", "notes", "print_notes"]


class Rule(NamedTuple):
    """Metric ids, scikit-learn's function, when the numbers differ, and what to say."""

    ids: tuple[str, ...]
    function: str
    applies: Callable[[object, dict, int | None], bool]  # (value, data, classes) -> the numbers differ here
    says: str


def _single_label(value, data: dict, classes: int | None) -> bool:
    """One-hot rows of C > 2 classes: a wrong sample flips 2 of C labels (equal for C = 2, a proved equivalence)."""
    return not data.get("multilabel") and data.get("scores") is None and (classes or 0) > 2


def _undefined(value, data: dict, classes: int | None) -> bool:
    try:
        return bool(np.isnan(np.asarray(value, dtype=float)).any())
    except (TypeError, ValueError):
        return False


def _infinite(value, data: dict, classes: int | None) -> bool:
    try:
        return bool(np.isinf(np.asarray(value, dtype=float)).any())
    except (TypeError, ValueError):
        return False


_ZERO = "scikit-learn's {function} returns 0 (with a warning) where metricc gives NaN (undefined); --zero-division 0 gives its number"
RULES = (
    Rule(("hamming_loss",), "hamming_loss", _single_label,
         "scikit-learn's hamming_loss of single-label data is the error rate (metric error_rate); metricc's "
         "hamming_loss counts both indicator labels a wrong sample flips, 2 (n - trace) / (C n)"),
    Rule(("log_loss",), "log_loss", _infinite,
         "scikit-learn's log_loss clips probabilities to [eps, 1 - eps] and prints a finite number; metricc gives inf: "
         "a true class was given probability 0"),
    Rule(("precision", "recall", "f1", "f_beta", "jaccard"), "precision_score/recall_score/f1_score/fbeta_score/"
         "jaccard_score", _undefined, _ZERO),
    Rule(("mcc",), "matthews_corrcoef", _undefined,
         "scikit-learn's matthews_corrcoef returns 0.0 where metricc gives NaN (a row or column total equals n: "
         "undefined)"),
    Rule(("balanced_accuracy",), "balanced_accuracy_score", _undefined,
         "scikit-learn's balanced_accuracy_score leaves a class absent from y_true out of the mean (with a warning); "
         "metricc gives NaN (its recall is 0/0); --zero-division 0 counts it as 0"),
)


def notes(requests, values: dict, data: dict, zero_division, classes: int | None = None) -> list[str]:
    """The notes for ``eval``'s results (``requests`` as from :func:`.metrics.expand`; ``classes``: how many)."""
    out, seen = [], set()
    for request in requests:
        for rule in RULES:
            if request.id not in rule.ids or (request.id, rule.function) in seen:
                continue
            if rule.says == _ZERO and not (isinstance(zero_division, float) and math.isnan(zero_division)):
                continue
            if rule.applies(values[request.key], data, classes):
                seen.add((request.id, rule.function))
                function = rule.function.split("/")[rule.ids.index(request.id)] if "/" in rule.function else rule.function
                out.append(f"metricc: note: {request.key}: {rule.says.format(function=function)} (docs/differences.md)")
    return out


def print_notes(requests, values: dict, data: dict, zero_division, classes: int | None = None) -> None:
    for line in notes(requests, values, data, zero_division, classes):
        print(line, file=sys.stderr)
