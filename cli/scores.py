"""``metricc eval --scores FILE``: the score-matrix input of curve- and score-level metrics.

Kept apart from :mod:`.evaluate` so the command module does not grow; the files are read
by :mod:`.inputs`. The score matrix has one row per sample and one column per class, or a
single column for two classes. A header line names the columns: they are matched to the
classes by name (and reordered to ``--labels`` when it is given); without a header the
columns are in ``--labels`` order, or that of the sorted distinct labels (numbers sorted as
numbers). Printed probabilities that miss 1 only by their rounding are renormalised
(:func:`.score_files.rounded_probabilities`).
"""

from __future__ import annotations

import sys

from metricc.cli import inputs, score_files
from metricc.cli.tables import HEADER_CHOICES
from metricc.runtime import inputs as containers
from metricc.core.errors import InputError

__all__ = ["add_arguments", "score_inputs"]


def add_arguments(parser) -> None:
    parser.add_argument("--scores", metavar="FILE_OR_JSON",
                        help="class scores, one row per sample (CSV, whitespace or JSON; one column = two classes); with --y-true")
    add_header_option(parser)
    parser.add_argument("--probabilistic", choices=("relative", "absolute"),
                        help="with --scores (probabilities): matrix-level metrics read the probabilistic confusion "
                             "matrix of Wang et al. 2013, Eq. 5 (relative) or 12 (absolute); cen gives rpCEN / pCEN")


def add_header_option(parser) -> None:
    """``--scores-header``: whether the score file's first line names its columns."""
    parser.add_argument("--scores-header", choices=HEADER_CHOICES, default="auto",
                        help="whether --scores starts with a line of class names (default: detect it; unquoted "
                             "numeric names such as pandas' 0,1,2 when they are the classes)")


def score_inputs(args) -> dict:
    """``evaluate`` keyword arguments for ``--scores`` with ``--y-true`` (and optionally ``--y-pred``)."""
    if args.y_true is None:
        raise InputError("--y-true", "--scores needs the true labels (--y-true)")
    for option, given in (("--matrix", args.matrix), ("--orientation", args.orientation)):
        if given:
            raise InputError(option, "does not combine with --scores")
    if args.multilabel:
        return _multilabel_score_inputs(args)
    y_true, y_pred, rows, labels, numbers = scored_labels(args)
    return {"y_true": y_true, "y_pred": y_pred, "scores": rows, "labels": labels,
            "pos_label": inputs.positive_label(args.pos_label, numbers), "probabilistic": args.probabilistic}


def scored_labels(args) -> tuple[list, list | None, list, list | None, bool]:
    """-> (y_true, y_pred or None, score rows in class order, labels or None, whether labels are numbers).

    The one reading of labels with scores, for ``eval``, ``report`` and ``plot``: the label files
    by :func:`.inputs.read_label_pair` (the score rows tell a header line of a single label
    file), the score file's columns matched to the classes by name wherever a header names
    them (:func:`metricc.runtime.inputs.in_class_order`), by position (said on stderr) otherwise.
    """
    header = getattr(args, "scores_header", "auto")
    pred = getattr(args, "y_pred", None)
    table = score_files.read_score_table("--scores", args.scores, header)
    read = dict(column=getattr(args, "column", None), header=getattr(args, "header", "auto"),
                pred_column=getattr(args, "y_pred_column", None))
    y_true, y_pred = inputs.read_label_pair(args.y_true, pred, **read, rows=len(table.rows))
    if table.columns is None and header == "auto":
        seen = {str(v) for group in (y_true, y_pred, inputs.text_labels(args.labels)) if group for v in group.values}
        named = score_files.read_score_table("--scores", args.scores, header, classes=seen)
        if named.columns is not None:
            table = named
            if pred is None and read["pred_column"] is None:  # a single label file's header is told by the rows
                y_true, y_pred = inputs.read_label_pair(args.y_true, None, **read, rows=len(table.rows))
    columns = None if table.columns is None else inputs.Labels(table.columns, text=True)
    (y_true, y_pred, labels, columns), numbers = inputs.typed_labels(y_true, y_pred, inputs.text_labels(args.labels),
                                                                     columns)
    rows = table.rows
    if columns is not None:
        labels = labels if labels is not None else containers.sorted_classes(columns)
        rows = _named_columns(rows, columns, labels)
    elif labels is None:
        _note_column_order(rows, y_true, y_pred)
    return y_true, y_pred, score_files.rounded_probabilities("--scores", rows, table.decimals), labels, numbers


def _multilabel_score_inputs(args) -> dict:
    """Multi-label scores: ``--y-true`` (and ``--y-pred``) hold 0/1 indicator (or relevance) rows,
    ``--scores`` one score per label. The columns of all files are the classes, by position;
    ``--labels`` or a header line of ``--scores`` names them (both: they must agree)."""
    if args.probabilistic is not None:
        raise InputError("--probabilistic", "needs single-label data (one true class per sample), not --multilabel")
    inputs.no_label_columns(args.column, args.y_pred_column)
    table = score_files.read_score_table("--scores", args.scores, args.scores_header)
    labels = None if args.labels is None else list(args.labels)
    if table.columns is not None:
        if labels is not None and [str(c) for c in table.columns] != labels:
            raise InputError("--scores", f"the header's classes {table.columns} are not --labels {labels} in that "
                                         "order (multi-label columns are matched by position)")
        labels = list(table.columns)
    (labels,), numbers = inputs.typed_labels(None if labels is None else inputs.Labels(labels, text=True))
    return {"y_true": inputs.read_indicators("--y-true", args.y_true), "multilabel": True,
            "y_pred": None if args.y_pred is None else inputs.read_indicators("--y-pred", args.y_pred),
            "scores": table.rows, "labels": labels,
            "pos_label": inputs.positive_label(args.pos_label, numbers or labels is None)}


def _named_columns(rows: list, columns: list, labels: list) -> list:
    """Score rows with their named columns in ``labels`` order."""
    import numpy as np

    values = np.asarray(rows, dtype=object)
    if values.ndim != 2:  # ragged rows: the runtime explains
        return rows
    return containers.in_class_order(values, columns, labels, "--scores").tolist()


def _note_column_order(rows: list, y_true: list, y_pred: list | None) -> None:
    """Columns without names are taken as the sorted classes: say so (unless the classes are
    0..C-1), so that a file written in another class order is noticed."""
    if not rows or not isinstance(rows[0], list) or len(rows[0]) < 2:
        return
    try:
        classes = sorted(set(y_true) | set(y_pred or []))
    except TypeError:  # mixed label types: the runtime explains
        return
    if classes == list(range(len(classes))):  # column k is class k: nothing to guess
        return
    print(f"metricc: note: --scores: columns read as the classes {', '.join(map(str, classes))} (sorted); "
          "name them in a header line or give --labels", file=sys.stderr)
