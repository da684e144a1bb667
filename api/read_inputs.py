"""The counted inputs of ``evaluate``, one function per kind: labels, indicator matrices
(multi-label data), a confusion matrix, per-class counts. Each gives a :class:`Counted`, the
matrix read once (:class:`~metricc.runtime.terms.MatrixTerms`, when there is one), the
per-class counts every class-level metric takes, checked once in a
:class:`~metricc.runtime.context.CallContext` that the metrics share, and the class labels.

A new input kind is one function here returning a :class:`Counted`, and one branch in
:func:`read`.
"""

from __future__ import annotations

from typing import NamedTuple

from metricc.core.errors import InputError
from metricc.runtime import confusion, per_class
from metricc.runtime.confusion import ClassCounts
from metricc.runtime.context import CallContext
from metricc.runtime.terms import MatrixTerms, read_matrix

__all__ = ["Counted", "read", "from_labels", "from_indicators", "from_matrix", "from_counts"]


class Counted(NamedTuple):
    """The matrix read once (None for multi-label data and counts), the checked per-class
    counts with what their metrics share, class labels or None."""

    terms: MatrixTerms | None
    context: CallContext
    class_labels: object

    @property
    def counts(self) -> ClassCounts:
        return self.context.counts

    @property
    def n_classes(self) -> int:
        return self.counts.true_positives.shape[-1]


def read(y_true, y_pred, labels, matrix, counts, multilabel: bool, orientation: str) -> Counted:
    """Exactly one of ``y_true``/``y_pred``, ``matrix`` or ``counts``, read by its kind."""
    given = [name for name, value in (("y_true", y_true), ("matrix", matrix), ("counts", counts)) if value is not None]
    if len(given) != 1:
        raise InputError("input", "give exactly one of y_true/y_pred, matrix or counts")
    if y_true is not None:
        if y_pred is None:
            raise InputError("y_pred", "y_true needs y_pred")
        return from_indicators(y_true, y_pred, labels) if multilabel else from_labels(y_true, y_pred, labels)
    if y_pred is not None:
        raise InputError("y_pred", "y_pred needs y_true")
    if matrix is not None:
        return from_matrix(matrix, orientation, labels)
    return from_counts(counts, labels)


def from_labels(y_true, y_pred, labels) -> Counted:
    """One label per sample: the confusion matrix counted once, nothing left to check."""
    labels = per_class.categorical_labels(y_true, y_pred) if labels is None else labels
    class_labels, matrix = confusion.classes_and_matrix(y_true, y_pred, labels=labels)
    terms = MatrixTerms(matrix, confusion.row_totals(matrix))
    return Counted(terms, terms.context, class_labels)


def from_indicators(y_true, y_pred, labels) -> Counted:
    """Indicator matrices ``(n, C)``: the columns are the classes, ``labels`` (if given) name them."""
    counts = confusion.multilabel_counts(y_true, y_pred)
    return Counted(None, CallContext(counts), _named(labels, counts.true_positives.shape[-1], "column of the multi-label data"))


def from_matrix(matrix, orientation: str, labels) -> Counted:
    """A confusion matrix ``(..., C, C)``, checked and totalled once (or already read: a report's
    sections share it)."""
    if isinstance(matrix, MatrixTerms) and orientation == "true-rows":
        terms = matrix
    else:
        terms = read_matrix(confusion.orient(matrix, orientation), integer=True)
    return Counted(terms, terms.context, _named(labels, terms.n_classes, "class of the matrix"))


def from_counts(counts, labels) -> Counted:
    """Per-class counts (TP, FP, FN, TN): class-level and aggregate metrics only."""
    counts = confusion.check_counts(counts)
    return Counted(None, CallContext(counts), _named(labels, counts.true_positives.shape[-1], "class of the counts"))


def _named(labels, n_classes: int, what: str) -> list | None:
    """``labels`` naming ``n_classes`` classes, checked."""
    labels = None if labels is None else confusion.check_labels(labels)
    if labels is not None and len(labels) != n_classes:
        raise InputError("labels", f"expected one label per {what} ({n_classes}), got {len(labels)}")
    return labels
