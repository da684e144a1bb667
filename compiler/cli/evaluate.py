"""``metricc eval``: metrics of a confusion matrix, of label files or of scores (numpy only).

The data files are read by :mod:`.inputs`; ``--scores`` (:mod:`.scores`), ``--sweep``
(:mod:`.sweep`) and the relevance options (:mod:`.relevance`) live in modules of their own.
Errors of the runtime name its arguments (``y_true``); they are reported under the option
that supplied them (``--y-true``).
"""

from __future__ import annotations

import json
import math

from metricc.compiler.cli import inputs, relevance, scores, sweep
from metricc.runtime.confusion import ORIENTATIONS
from metricc.runtime.errors import InputError
from metricc.runtime.kernel import AVERAGES

__all__ = ["add_command"]

# Runtime argument names -> the options that supply them (parameters map to --param NAME).
_OPTIONS = {
    "matrix": "--matrix", "scores": "--scores", "y_true": "--y-true", "y_pred": "--y-pred", "labels": "--labels",
    "pos_label": "--pos-label", "probabilistic": "--probabilistic", "average": "--average", "weights": "--weights",
    "zero_division": "--zero-division", "orientation": "--orientation",
    "metric": "--metric", "metrics": "--metric", "params": "--param", "input": "--metric",
    "multilabel": "--multilabel",
    **relevance.OPTIONS,
}


def add_command(commands) -> None:
    """Add ``eval`` to ``commands`` (an argparse sub-parser group)."""
    ev = commands.add_parser("eval", help="evaluate metrics on a confusion matrix or label files")
    ev.add_argument("--matrix", metavar="FILE_OR_JSON", help="confusion matrix: inline JSON, or a JSON/CSV file")
    ev.add_argument("--orientation", choices=ORIENTATIONS, help="which axis holds true classes (default true-rows)")
    ev.add_argument("--y-true", metavar="FILE", help="true labels: one per line, or one comma-separated line")
    ev.add_argument("--y-pred", metavar="FILE", help="predicted labels, like --y-true")
    ev.add_argument("--multilabel", action="store_true", help="label files hold 0/1 indicator rows")
    ev.add_argument("--labels", nargs="+", metavar="LABEL", help="class order (names matrix rows)")
    ev.add_argument("--metric", action="append", required=True, metavar="ID", help="metric id or alias (repeatable)")
    ev.add_argument("--average", choices=AVERAGES, help="averaging of class-level metrics (default: each metric's)")
    ev.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="parameter, value in JSON")
    ev.add_argument("--weights", metavar="JSON", help="class weights for --average weighted")
    ev.add_argument("--pos-label", metavar="LABEL", help="positive class for --average binary")
    ev.add_argument("--zero-division", default="nan", metavar="VALUE",
                    help="value of undefined cases (default nan), or 'skip': leave undefined classes out of means")
    ev.add_argument("--sweep", metavar="NAME=START:STOP:NUM", help="evaluate for every value of a parameter grid "
                    "(a class vector: every vector with entries from the values); also NAME=V1,V2,...")
    relevance.add_options(ev)
    ev.add_argument("--format", choices=("text", "json"), default="text")
    scores.add_arguments(ev)
    ev.set_defaults(run=_cmd_eval)


def _matrix_classes(matrix) -> int | None:
    import numpy as np

    try:
        shape = np.shape(matrix)
    except ValueError:  # ragged: the runtime explains
        return None
    return shape[-1] if len(shape) >= 2 else None


def _params(items: list[str]) -> dict:
    params = {}
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise InputError("--param", f"expected NAME=VALUE (value in JSON, e.g. beta=2), got {item!r}")
        if name in params:
            raise InputError("--param", f"{name} given twice")
        params[name] = inputs.parse_json(f"--param {name}", text, f"{text!r} is ")
    return params


def _zero_division(text: str) -> float | str:
    if text.strip().lower() == "nan":
        return math.nan
    if text.strip().lower() == "skip":
        return "skip"
    try:
        return float(text)
    except ValueError:
        raise InputError("--zero-division", f"expected a number or nan, or skip, got {text!r}") from None


def _data(args) -> dict:
    """The data keyword arguments of ``evaluate`` from the input options."""
    if args.scores is not None:
        return scores.score_inputs(args)
    if args.probabilistic is not None:
        raise InputError("--probabilistic", "needs --scores (class probabilities) and --y-true")
    if (args.matrix is None) == (args.y_true is None and args.y_pred is None):
        raise InputError("--matrix", "give either --matrix, or --y-true with --y-pred")
    if args.matrix is not None:
        if args.multilabel:
            raise InputError("--multilabel", "applies to --y-true/--y-pred, not to --matrix")
        matrix = inputs.read_matrix("--matrix", args.matrix)
        (labels,), integers = inputs.typed_labels(inputs.text_labels(args.labels))
        classes = _matrix_classes(matrix)
        if labels is not None and classes is not None and len(labels) != classes:
            raise InputError("--labels", f"expected one label per class of the matrix ({classes}), got {len(labels)}")
        return {"matrix": matrix, "orientation": args.orientation or "true-rows", "labels": labels,
                "pos_label": inputs.positive_label(args.pos_label, integers)}
    if args.orientation is not None:
        raise InputError("--orientation", "applies to --matrix only")
    missing = "--y-pred" if args.y_pred is None else "--y-true" if args.y_true is None else None
    if missing:
        raise InputError(missing, "--y-true and --y-pred go together")
    if args.multilabel:
        if args.labels is not None:
            raise InputError("--labels", "not used with --multilabel; give --pos-label as a column index")
        return {"y_true": inputs.read_indicators("--y-true", args.y_true), "multilabel": True,
                "y_pred": inputs.read_indicators("--y-pred", args.y_pred),
                "pos_label": inputs.positive_label(args.pos_label, True)}
    y_true, y_pred = inputs.read_labels("--y-true", args.y_true), inputs.read_labels("--y-pred", args.y_pred)
    (y_true, y_pred, labels), integers = inputs.typed_labels(y_true, y_pred, inputs.text_labels(args.labels))
    return {"y_true": y_true, "y_pred": y_pred, "labels": labels,
            "pos_label": inputs.positive_label(args.pos_label, integers)}


def _plain(value):
    """numpy arrays -> lists, numpy scalars -> Python numbers (NaN stays NaN)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def _cmd_eval(args) -> int:
    from metricc.runtime import evaluate

    params = _params(args.param)
    weights = None if args.weights is None else inputs.parse_json("--weights", args.weights)
    zero_division = _zero_division(args.zero_division)
    data = _data(args)
    if args.sweep is not None:
        relevance.refuse_with("--sweep", args)
        return sweep.run(args, data, params, weights, zero_division, _OPTIONS)
    try:
        values = evaluate(args.metric, average=args.average, params=params, weights=weights,
                          zero_division=zero_division, **data, **relevance.evaluate_kwargs(args))
        values = {name: _plain(value) for name, value in values.items()}
        if args.normalized:
            values = relevance.with_normalized(values)
    except InputError as error:
        option = f"--param {error.argument}" if error.argument in params else _OPTIONS.get(error.argument, error.argument)
        raise InputError(option, error.message) from None
    if args.format == "json":
        print(json.dumps(values))
    else:
        print("\n".join(f"{name}: {json.dumps(value)}" for name, value in values.items()))
    return 0
