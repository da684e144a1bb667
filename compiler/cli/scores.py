"""``metricc eval --scores FILE``: the score-matrix input of curve- and score-level metrics.

Kept apart from :mod:`metricc.compiler.cli` so the command module does not grow; it reuses
that module's file readers (numbers per line, labels per line) and only adds the score
matrix: one row per sample, one column per class in ``--labels`` order (or the sorted
distinct true labels), or a single column for two classes.
"""

from __future__ import annotations

from metricc.runtime.errors import InputError

__all__ = ["add_arguments", "score_inputs"]


def add_arguments(parser) -> None:
    parser.add_argument("--scores", metavar="FILE_OR_JSON",
                        help="class scores, one row per sample (CSV, whitespace or JSON; one column = two classes); with --y-true")
    parser.add_argument("--probabilistic", choices=("relative", "absolute"),
                        help="with --scores (probabilities): matrix-level metrics read the probabilistic confusion "
                             "matrix of Wang et al. 2013, Eq. 5 (relative) or 12 (absolute); cen gives rpCEN / pCEN")


def _load_scores(value: str) -> list:
    from metricc.compiler.cli import app as cli

    if value.lstrip().startswith("["):
        scores = cli._json("--scores", value, "")
    else:
        text = cli._read("--scores", value)
        is_json = value.endswith(".json") or text.lstrip().startswith("[")
        scores = cli._json("--scores", text, f"{value}: ") if is_json else cli._rows("--scores", text, value)
    if not isinstance(scores, list):
        raise InputError("--scores", f"expected a JSON array of rows, got {type(scores).__name__}")
    return [row[0] if isinstance(row, list) and len(row) == 1 else row for row in scores]


def score_inputs(args) -> dict:
    """``evaluate`` keyword arguments for ``--scores`` with ``--y-true`` (and optionally ``--y-pred``)."""
    from metricc.compiler.cli import app as cli

    if args.y_true is None:
        raise InputError("--y-true", "--scores needs the true labels (--y-true)")
    for option, given in (("--matrix", args.matrix), ("--multilabel", args.multilabel), ("--orientation", args.orientation)):
        if given:
            raise InputError(option, "does not combine with --scores")
    y_true = cli._load_labels("--y-true", args.y_true)
    y_pred = None if args.y_pred is None else cli._load_labels("--y-pred", args.y_pred)
    (y_true, y_pred, labels), integers = cli._as_labels(y_true, y_pred, args.labels)
    return {"y_true": y_true, "y_pred": y_pred, "scores": _load_scores(args.scores), "labels": labels,
            "pos_label": cli._pos_label(args.pos_label, integers), "probabilistic": args.probabilistic}
