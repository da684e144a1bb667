"""``metricc plot KIND ... -o FILE.png|svg``: the figures of :mod:`metricc.bridges.plot`.

One sub-command per kind, with the inputs that kind reads (by :mod:`.inputs`, like ``eval``).
matplotlib is imported when a plot runs, never when the command line starts, so the other
commands work without the ``plot`` extra.
"""

from __future__ import annotations

import sys

from metricc.cli import evaluate, inputs, scores, sweep
from metricc.cli.tables import HEADER_CHOICES
from metricc.runtime.confusion import ORIENTATIONS
from metricc.core.errors import InputError
from metricc.runtime.kernel import AVERAGES

__all__ = ["add_command"]

# Runtime argument names -> the options that supply them.
_OPTIONS = {
    "matrix": "--matrix", "matrices": "--matrix", "y_true": "--y-true", "y_pred": "--y-pred", "scores": "--scores",
    "labels": "--labels", "pos_label": "--pos-label", "orientation": "--orientation", "metrics": "--metric",
    "metric": "--metric", "names": "--names", "average": "--average", "values": "--values", "grid": "--values",
    "slices": "--slices", "params": "--param", "input": "--matrix", "path": "--output", "bins": "--bins",
}


def add_command(commands) -> None:
    """Add ``plot`` and its kinds to ``commands`` (an argparse sub-parser group)."""
    plot = commands.add_parser("plot", help="draw a confusion matrix, curves or rankings to a PNG or SVG file")
    kinds = plot.add_subparsers(title="kinds", metavar="KIND")
    plot.set_defaults(run=lambda args: plot.print_help(sys.stderr) or 2)

    cm = _kind(kinds, "confusion-matrix", "heatmap of a confusion matrix: counts and row-normalised rates", _confusion)
    cm.add_argument("--matrix", metavar="FILE_OR_JSON", help="confusion matrix (or give --y-true and --y-pred)")
    cm.add_argument("--y-true", metavar="FILE", help="true labels")
    cm.add_argument("--y-pred", metavar="FILE", help="predicted labels")
    _classes(cm)
    _label_files(cm)
    cm.add_argument("--y-pred-column", metavar="NAME|INDEX",
                    help="the column of --y-pred, if not --column; without --y-pred, a column of the --y-true table")

    pd = _kind(kinds, "preference-space", "the preference-driven measure over the kappa grid (Kozak et al. 2022)",
               _preference)
    pd.add_argument("--matrix", metavar="FILE_OR_JSON", action="append", required=True,
                    help="confusion matrix, or a list of them (repeatable: one panel each)")
    pd.add_argument("--values", metavar="START:STOP:NUM", default="0:1:11",
                    help="kappa entries: START:STOP:NUM or V1,V2,... (default 0:1:11, the step 0.1)")
    pd.add_argument("--slices", metavar="VALUE", nargs="+", type=float, help="three classes: the kappa_3 values shown")
    pd.add_argument("--names", metavar="NAME", nargs="+", help="names of the matrices")
    _classes(pd)

    for name, help_text in (("threshold", "metrics against the decision threshold, best threshold marked"),
                            ("roc", "ROC curves with their areas"),
                            ("precision-recall", "precision-recall curves with their average precision"),
                            ("det", "DET curves: false negative against false positive rate, normal deviate scales"),
                            ("reliability", "reliability diagram over the bins of the calibration errors (ECE, MCE)")):
        scored = _kind(kinds, name, help_text, _scored)
        scored.add_argument("--y-true", metavar="FILE", required=True, help="true labels")
        scored.add_argument("--scores", metavar="FILE_OR_JSON", required=True,
                            help="class scores, one row per sample (one column: two classes)")
        scored.add_argument("--labels", nargs="+", metavar="LABEL",
                            help="the classes, in the order of the score columns when no header line names them")
        _label_files(scored)
        scores.add_header_option(scored)
        if name == "reliability":
            scored.add_argument("--bins", type=int, default=15, metavar="N",
                                help="equal-width confidence bins, as the calibration_error metrics' bins (default 15)")
        if name == "threshold":
            scored.add_argument("--metric", action="append", required=True, metavar="ID", help="metric id (repeatable)")
            scored.add_argument("--pos-label", metavar="LABEL", help="positive class (needed for more than two)")
            scored.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="parameter, in JSON")

    rk = _kind(kinds, "rankings", "bump chart: classifiers (matrices) ranked by several metrics", _rankings)
    rk.add_argument("--matrix", metavar="FILE_OR_JSON", action="append", required=True,
                    help="one classifier's confusion matrix (repeatable), or a list of them")
    rk.add_argument("--names", metavar="NAME", nargs="+", help="names of the classifiers")
    rk.add_argument("--metric", action="append", required=True, metavar="ID", help="metric id (two or more)")
    rk.add_argument("--average", choices=AVERAGES, help="averaging of class-level metrics (default: each metric's)")
    rk.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="parameter, in JSON")
    rk.add_argument("--orientation", choices=ORIENTATIONS, default="true-rows", help="which axis holds true classes")


def _kind(kinds, name: str, help_text: str, draw):
    parser = kinds.add_parser(name, help=help_text, description=help_text)
    parser.add_argument("-o", "--output", metavar="FILE", required=True, help="output file, .png or .svg")
    parser.set_defaults(run=lambda args: _run(args, draw), kind=name)
    return parser


def _classes(parser) -> None:
    parser.add_argument("--labels", nargs="+", metavar="LABEL", help="class names, in matrix order")
    parser.add_argument("--orientation", choices=ORIENTATIONS, default="true-rows", help="which axis holds true classes")


def _label_files(parser) -> None:
    """How label files are read: the options and rules of ``eval`` (:func:`.inputs.read_label_pair`)."""
    parser.add_argument("--column", metavar="NAME|INDEX",
                        help="the column of the label files in a table file, by header name or index from 0")
    parser.add_argument("--header", choices=HEADER_CHOICES, default="auto",
                        help="whether label files start with a header line (default: detect it, and say so on stderr)")


def _run(args, draw) -> int:
    """Check the file name first (no work for a file that cannot be written), draw, save."""
    if args.output.rsplit(".", 1)[-1].lower() not in ("png", "svg") or "." not in args.output:
        raise InputError("--output", f"{args.output!r}: name the file .png or .svg (the format follows the suffix)")
    try:
        from metricc.bridges import plot
    except ImportError as error:
        raise InputError("plot", str(error)) from None
    try:
        figure = draw(plot, args)
        plot.save(figure, args.output)
    except InputError as error:
        params = {item.partition("=")[0].strip() for item in getattr(args, "param", [])}
        option = f"--param {error.argument}" if error.argument in params else _OPTIONS.get(error.argument, error.argument)
        raise InputError(option, error.message) from None
    print(args.output)
    return 0


def _matrices(values: list[str]) -> list:
    """Each ``--matrix`` read; one is returned as given, several are stacked as a batch."""
    read = [inputs.read_matrix("--matrix", value) for value in values]
    if len(read) == 1:
        return read[0]
    flat = []
    for matrix in read:
        single = all(isinstance(row, list) and not any(isinstance(x, list) for x in row) for row in matrix)
        flat.extend([matrix] if single else matrix)
    return flat


def _confusion(plot, args):
    if args.matrix is not None:
        if args.y_true is not None or args.y_pred is not None:
            raise InputError("--matrix", "give either --matrix, or --y-true with --y-pred")
        (labels,), _ = inputs.typed_labels(inputs.text_labels(args.labels))
        return plot.confusion_matrix(inputs.read_matrix("--matrix", args.matrix), labels=labels,
                                     orientation=args.orientation)
    if args.y_true is None or (args.y_pred is None and args.y_pred_column is None):
        raise InputError("--y-pred" if args.y_true else "--y-true", "give --matrix, or --y-true with --y-pred")
    y_true, y_pred = inputs.read_label_pair(args.y_true, args.y_pred, args.column, args.header,
                                            pred_column=args.y_pred_column)
    (y_true, y_pred, labels), _ = inputs.typed_labels(y_true, y_pred, inputs.text_labels(args.labels))
    return plot.confusion_matrix(y_true=y_true, y_pred=y_pred, labels=labels)


def _preference(plot, args):
    try:
        _, values = sweep.parse_spec(f"kappa={args.values}")
    except InputError as error:
        raise InputError("--values", error.message) from None
    return plot.preference_space(_matrices(args.matrix), values=values, labels=args.labels, names=args.names,
                                 slices=args.slices, orientation=args.orientation)


def _scored(plot, args):
    y_true, _, scored, labels, numbers = scores.scored_labels(args)  # columns matched by name, as in eval
    if args.kind == "threshold":
        return plot.threshold(args.metric, y_true, scored, labels=labels, params=evaluate.parse_params(args.param),
                              pos_label=inputs.positive_label(args.pos_label, numbers))
    if args.kind == "reliability":
        return plot.reliability(y_true, scored, labels=labels, bins=args.bins)
    draw = {"roc": plot.roc, "det": plot.det, "precision-recall": plot.precision_recall}[args.kind]
    return draw(y_true, scored, labels=labels)


def _rankings(plot, args):
    return plot.rankings(_matrices(args.matrix), args.metric, names=args.names, average=args.average,
                         params=evaluate.parse_params(args.param), orientation=args.orientation)
