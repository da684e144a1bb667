"""``metricc eval --scores FILE``: the score-matrix input of curve- and score-level metrics.

Kept apart from :mod:`.evaluate` so the command module does not grow; the files are read
by :mod:`.inputs`. The score matrix has one row per sample, one column per class in
``--labels`` order (or the sorted distinct true labels), or a single column for two classes.
"""

from __future__ import annotations

from metricc.compiler.cli import inputs
from metricc.runtime.errors import InputError

__all__ = ["add_arguments", "score_inputs"]


def add_arguments(parser) -> None:
    parser.add_argument("--scores", metavar="FILE_OR_JSON",
                        help="class scores, one row per sample (CSV, whitespace or JSON; one column = two classes); with --y-true")
    parser.add_argument("--probabilistic", choices=("relative", "absolute"),
                        help="with --scores (probabilities): matrix-level metrics read the probabilistic confusion "
                             "matrix of Wang et al. 2013, Eq. 5 (relative) or 12 (absolute); cen gives rpCEN / pCEN")


def score_inputs(args) -> dict:
    """``evaluate`` keyword arguments for ``--scores`` with ``--y-true`` (and optionally ``--y-pred``)."""
    if args.y_true is None:
        raise InputError("--y-true", "--scores needs the true labels (--y-true)")
    for option, given in (("--matrix", args.matrix), ("--multilabel", args.multilabel), ("--orientation", args.orientation)):
        if given:
            raise InputError(option, "does not combine with --scores")
    y_true = inputs.read_labels("--y-true", args.y_true)
    y_pred = None if args.y_pred is None else inputs.read_labels("--y-pred", args.y_pred)
    (y_true, y_pred, labels), integers = inputs.typed_labels(y_true, y_pred, inputs.text_labels(args.labels))
    return {"y_true": y_true, "y_pred": y_pred, "scores": inputs.read_scores("--scores", args.scores),
            "labels": labels, "pos_label": inputs.positive_label(args.pos_label, integers),
            "probabilistic": args.probabilistic}
