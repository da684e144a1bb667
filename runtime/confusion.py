"""Confusion matrices and per-class counts, the raw material of every metric: one import for
the three modules that read them.

Conventions: ``M[..., i, j]`` counts samples of true class ``i`` predicted as class ``j``
(rows are true classes); per-class counts keep the class on the last axis. Leading axes
are batch axes and every function is vectorised over them. Bad input raises
:class:`~metricc.core.errors.InputError` naming the argument; numbers are never guessed.
Labels are read and counted by :mod:`.labels`, matrices checked and totalled by
:mod:`.matrices`, per-class counts checked by :mod:`.counts`.
"""

from __future__ import annotations

from metricc.runtime.counts import (
    MAX_COUNT,
    ClassCounts,
    check_class_vector,
    check_counts,
    float_counts,
    multilabel_counts,
    samplewise_counts,
)
from metricc.runtime.labels import (
    MAX_MATRIX_CELLS,
    check_labels,
    class_codes,
    class_labels,
    classes_and_matrix,
    confusion_matrix,
    label_array,
)
from metricc.runtime.matrices import (
    ORIENTATIONS,
    StackTotals,
    check_matrix,
    checked_matrix,
    checked_matrix_totals,
    column_totals,
    counts_from_matrix,
    orient,
    row_totals,
)

__all__ = [
    "MAX_COUNT",
    "MAX_MATRIX_CELLS",
    "ORIENTATIONS",
    "ClassCounts",
    "StackTotals",
    "check_class_vector",
    "check_counts",
    "check_labels",
    "check_matrix",
    "checked_matrix",
    "checked_matrix_totals",
    "class_codes",
    "class_labels",
    "classes_and_matrix",
    "column_totals",
    "confusion_matrix",
    "counts_from_matrix",
    "float_counts",
    "label_array",
    "multilabel_counts",
    "orient",
    "row_totals",
    "samplewise_counts",
]
