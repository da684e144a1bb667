"""``metricc report``: the classification report of a confusion matrix or of label files.

The inputs are those of ``metricc eval`` (read by :func:`.evaluate.read_inputs`); the report
is :func:`metricc.api.report`, printed as aligned text (default), Markdown, CSV, JSON, a
LaTeX ``tabular`` or a self-contained HTML page, to stdout or to ``--output FILE``.

>>> from metricc.cli import main
>>> main(["report", "--matrix", "[[5, 1], [2, 4]]", "--labels", "neg", "pos", "--metric", "recall",
...       "--metric", "accuracy", "--digits", "3"])
              recall  support
neg            0.833        6
pos            0.667        6
micro avg      0.750       12
macro avg      0.750       12
weighted avg   0.750       12
<BLANKLINE>
accuracy       0.750
<BLANKLINE>
confusion matrix (rows: true class, columns: predicted class)
     neg  pos
neg    5    1
pos    2    4
0
"""

from __future__ import annotations

from pathlib import Path

from metricc.api import formats
from metricc.cli import evaluate, scores
from metricc.cli.paths import shown
from metricc.core.errors import InputError

__all__ = ["add_command"]

_OPTIONS = {"matrix": "--matrix", "y_true": "--y-true", "y_pred": "--y-pred", "labels": "--labels",
            "metrics": "--metric", "metric": "--metric", "params": "--param", "zero_division": "--zero-division",
            "orientation": "--orientation", "input": "--matrix", "scores": "--scores", "interval": "--interval",
            "confidence": "--confidence", "n_resamples": "--n-resamples", "random_state": "--random-state"}


def add_command(commands) -> None:
    """Add ``report`` to ``commands`` (an argparse sub-parser group)."""
    rep = commands.add_parser("report", help="per-class table, averages, overall metrics and the confusion matrix")
    evaluate.add_input_options(rep)
    evaluate.add_label_file_options(rep)
    rep.add_argument("--metric", action="append", metavar="ID",
                     help="class-level metrics become columns, others overall rows (repeatable; default: "
                          "precision, recall, f1; accuracy, mcc, cohen_kappa)")
    rep.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="parameter, value in JSON")
    rep.add_argument("--zero-division", default="nan", metavar="VALUE", help="value of undefined cases (default nan)")
    rep.add_argument("--format", choices=tuple(formats.FORMATS), default="text")
    rep.add_argument("--digits", type=int, default=4, metavar="N", help="decimals shown (default 4; CSV and JSON are exact)")
    rep.add_argument("--output", "-o", metavar="FILE", help="write to FILE instead of stdout")
    rep.add_argument("--scores", metavar="FILE_OR_JSON",
                     help="class scores, one row per sample (as for eval): adds ROC AUC, average precision, log loss "
                          "and calibration error (or the curve and score metrics of --metric) to the overall rows")
    scores.add_header_option(rep)
    evaluate.add_interval_options(rep)
    rep.set_defaults(run=_cmd_report, probabilistic=None, multilabel=False, pos_label=None)


def _cmd_report(args) -> int:
    from metricc.api import report

    if not 0 <= args.digits <= 17:
        raise InputError("--digits", f"expected 0 to 17 decimals, got {args.digits}")
    params = evaluate.parse_params(args.param)
    zero_division = evaluate.parse_zero_division(args.zero_division)
    if zero_division == "skip":
        raise InputError("--zero-division", "skip applies to means; a report shows every class, give a number or nan")
    data = evaluate.read_inputs(args)
    data.pop("pos_label", None)
    data.pop("probabilistic", None)
    if args.scores is not None and data.get("y_pred") is None:
        raise InputError("--y-pred", "a report of scores also needs the predicted labels (--y-pred) for its class table")
    try:
        result = report(args.metric, **data, params=params, zero_division=zero_division,
                        **evaluate.interval_kwargs(args))
    except InputError as error:
        option = f"--param {error.argument}" if error.argument in params else _OPTIONS.get(error.argument, error.argument)
        raise InputError(option, error.message) from None
    output = result.to(args.format, args.digits)
    if args.output is None:
        print(output.rstrip("\n"))
        return 0
    try:
        Path(args.output).write_text(output if output.endswith("\n") else output + "\n", encoding="utf-8")
    except OSError as error:
        raise InputError("--output", f"cannot write {args.output}: {error.strerror or error}") from None
    print(f"wrote {shown(Path(args.output))}")
    return 0
