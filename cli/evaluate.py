"""``metricc eval``: metrics of a confusion matrix, of label files or of scores (numpy only).

The data files are read by :mod:`.inputs`; ``--metric`` requests are expanded by
:mod:`.metrics`; ``--scores`` (:mod:`.scores`), ``--sweep`` (:mod:`.sweep`) and the relevance
options (:mod:`.relevance`) live in modules of their own. Per-class values are printed with
their class labels: ``precision[cat]: 0.75`` in text, ``{"precision": {"cat": 0.75}}`` in JSON.
Errors of the runtime name its arguments (``y_true``); they are reported under the option
that supplied them (``--y-true``).
"""

from __future__ import annotations

import argparse
import math

from metricc.api.formats import FORMATS, render
from metricc.api.value_formats import Values
from metricc.cli import indicator_files, inputs, interpret, label_stream, metrics, relevance, scores, sklearn_notes, sweep
from metricc.cli.tables import HEADER_CHOICES
from metricc.runtime.confusion import ORIENTATIONS
from metricc.core.errors import InputError
from metricc.runtime.kernel import AVERAGES

__all__ = ["add_command", "add_label_file_options", "n_classes", "parse_params", "parse_zero_division", "plain", "read_inputs"]

# Runtime argument names -> the options that supply them (parameters map to --param NAME).
_OPTIONS = {
    "matrix": "--matrix", "scores": "--scores", "y_true": "--y-true", "y_pred": "--y-pred", "labels": "--labels",
    "pos_label": "--pos-label", "probabilistic": "--probabilistic", "average": "--average", "weights": "--weights",
    "zero_division": "--zero-division", "orientation": "--orientation",
    "metric": "--metric", "metrics": "--metric", "params": "--param", "input": "--metric",
    "multilabel": "--multilabel", "interval": "--interval", "confidence": "--confidence",
    "n_resamples": "--n-resamples", "random_state": "--random-state",
    **relevance.OPTIONS,
}


def add_command(commands) -> None:
    """Add ``eval`` to ``commands`` (an argparse sub-parser group)."""
    ev = commands.add_parser("eval", help="evaluate metrics on a confusion matrix or label files")
    add_input_options(ev)
    ev.add_argument("--multilabel", action="store_true", help="label files hold 0/1 indicator rows")
    add_label_file_options(ev)
    ev.add_argument("--metric", action="append", required=True, metavar="ID",
                    help="metric id or alias, ID:AVERAGE (f1:macro), 'all', or a level: class, aggregate, matrix, "
                         "curve, score (also LEVEL:AVERAGE); repeatable")
    ev.add_argument("--average", choices=AVERAGES, action=Once,
                    help="averaging of class-level metrics (default: each metric's)")
    ev.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="parameter, value in JSON")
    ev.add_argument("--weights", metavar="JSON", help="class weights for --average weighted")
    ev.add_argument("--pos-label", metavar="LABEL", help="positive class for --average binary")
    ev.add_argument("--zero-division", default="nan", metavar="VALUE",
                    help="value of undefined cases (default nan), or 'skip': leave undefined classes out of means")
    ev.add_argument("--sweep", metavar="NAME=START:STOP:NUM", help="evaluate for every value of a parameter grid "
                    "(a class vector: every vector with entries from the values); also NAME=V1,V2,...")
    relevance.add_options(ev)
    interpret.add_option(ev)
    ev.add_argument("--quiet", action="store_true",
                    help="no progress bar for --sweep or large label files (shown only on a terminal)")
    ev.add_argument("--format", choices=tuple(FORMATS), default="text")
    add_interval_options(ev)
    scores.add_arguments(ev)
    ev.set_defaults(run=_cmd_eval)


class Once(argparse.Action):
    """An option that may be given once: a repeated ``--average`` is an error, not "the last wins"."""

    def __call__(self, parser, namespace, values, option_string=None):
        if getattr(namespace, self.dest) is not None:
            raise InputError(option_string, "given twice; give it once, or one average per metric (--metric f1:macro)")
        setattr(namespace, self.dest, values)


def add_interval_options(parser) -> None:
    """``--interval METHOD`` and its settings (runtime/uncertainty.py says which method fits which metric)."""
    from metricc.api.intervals import METHODS

    parser.add_argument("--interval", choices=METHODS, help="print each value with its confidence interval and "
                        "standard error: delta (any differentiable metric), wilson, agresti_coull, clopper_pearson "
                        "(proportions), bootstrap or bootstrap_bca (any metric)")
    parser.add_argument("--confidence", type=float, default=0.95, metavar="LEVEL", help="confidence level (default 0.95)")
    parser.add_argument("--n-resamples", type=int, default=2000, metavar="N", help="bootstrap resamples (default 2000)")
    parser.add_argument("--random-state", type=int, metavar="SEED", help="seed of the bootstrap (default: fresh entropy)")


def interval_kwargs(args) -> dict:
    """``evaluate``'s interval arguments from the options; none without ``--interval``."""
    if args.interval is None:
        return {}
    return {"interval": args.interval, "confidence": args.confidence, "n_resamples": args.n_resamples,
            "random_state": args.random_state}


def add_input_options(parser) -> None:
    """The data of ``eval`` and ``report``: a confusion matrix, or true and predicted label files."""
    parser.add_argument("--matrix", metavar="FILE_OR_JSON", help="confusion matrix: inline JSON, or a JSON/CSV file")
    parser.add_argument("--orientation", choices=ORIENTATIONS, help="which axis holds true classes (default true-rows)")
    parser.add_argument("--y-true", metavar="FILE", help="true labels: one per line, a comma-separated line, or a table column")
    parser.add_argument("--y-pred", metavar="FILE", help="predicted labels, like --y-true")


def add_label_file_options(parser) -> None:
    """``--labels``, and how label files are read (``--column``, ``--y-pred-column``, ``--header``)."""
    parser.add_argument("--labels", nargs="+", metavar="LABEL", help="class order (names matrix rows)")
    parser.add_argument("--column", metavar="NAME|INDEX",
                        help="the column of --y-true (and --y-pred) in a table file, by header name or index from 0")
    parser.add_argument("--y-pred-column", metavar="NAME|INDEX",
                        help="the column of --y-pred, if not --column; without --y-pred, a column of the --y-true table")
    parser.add_argument("--header", choices=HEADER_CHOICES, default="auto",
                        help="whether label files start with a header line (default: detect it, and say so on stderr)")


def _matrix_classes(matrix) -> int | None:
    import numpy as np

    try:
        shape = np.shape(matrix)
    except ValueError:  # ragged: the runtime explains
        return None
    return shape[-1] if len(shape) >= 2 else None


def parse_params(items: list[str]) -> dict:
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


def parse_zero_division(text: str) -> float | str:
    if text.strip().lower() == "nan":
        return math.nan
    if text.strip().lower() == "skip":
        return "skip"
    try:
        return float(text)
    except ValueError:
        raise InputError("--zero-division", f"expected a number or nan, or skip, got {text!r}") from None


def read_inputs(args) -> dict:
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
    from_table = args.y_pred is None and not args.multilabel and args.y_pred_column is not None  # both in one table
    missing = "--y-pred" if args.y_pred is None and not from_table else "--y-true" if args.y_true is None else None
    if missing:
        raise InputError(missing, "--y-true and --y-pred go together")
    if args.multilabel:
        inputs.no_label_columns(args.column, args.y_pred_column)
        if args.labels is not None:
            raise InputError("--labels", "not used with --multilabel; give --pos-label as a column index")
        shown = not getattr(args, "quiet", False)  # files of GBs: read in chunks, one byte per entry
        return {"y_true": indicator_files.read_indicators("--y-true", args.y_true, shown=shown), "multilabel": True,
                "y_pred": indicator_files.read_indicators("--y-pred", args.y_pred, shown=shown),
                "pos_label": inputs.positive_label(args.pos_label, True)}
    if label_stream.applies(args):  # files of GBs: counted in chunks, never held
        return label_stream.read_pair(args)
    y_true, y_pred = inputs.read_label_pair(args.y_true, args.y_pred, args.column, args.header,
                                            pred_column=args.y_pred_column)
    (y_true, y_pred, labels), integers = inputs.typed_labels(y_true, y_pred, inputs.text_labels(args.labels))
    return {"y_true": y_true, "y_pred": y_pred, "labels": labels,
            "pos_label": inputs.positive_label(args.pos_label, integers)}


def n_classes(data: dict) -> int | None:
    """The number of classes of ``evaluate``'s input, for ``--metric all`` (None if unknown)."""
    import numpy as np

    if data.get("labels") is not None:
        return len(data["labels"])
    if "matrix" in data:
        return _matrix_classes(data["matrix"])
    if data.get("multilabel"):
        return np.shape(data["y_true"])[-1]
    groups = [data.get(k) for k in ("y_true", "y_pred") if data.get(k) is not None]
    try:
        return len({label for group in groups for label in group})
    except TypeError:
        return None


def named_classes(data: dict) -> bool:
    """Whether the classes are not numbers and no ``--pos-label`` names the positive one."""
    if data.get("pos_label") is not None or data.get("multilabel"):
        return False
    groups = [data.get(k) for k in ("labels", "y_true", "y_pred") if data.get(k) is not None]
    return any(isinstance(label, str) for group in groups for label in group)


def plain(value):
    """JSON-ready values: per-class values as ``{label: value}``, arrays as lists, NaN kept."""
    from metricc.runtime.per_class import ClassValues

    if isinstance(value, ClassValues) and value.labels is not None:
        return {str(label): v for label, v in value.to_dict().items()}
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def _normalized(requests, values: dict) -> dict:
    """``{key: (value, percent of the range)}``; per-class values stay labelled."""
    from metricc.api.normalize import normalized
    from metricc.runtime.per_class import ClassValues

    out = {}
    for r in requests:
        value = values[r.key]
        percent = normalized(r.id, value)
        if isinstance(value, ClassValues) and value.labels is not None:
            percent = ClassValues(percent, value.labels)
        out[r.key] = (value, percent)
    return out


def _cmd_eval(args) -> int:
    params = parse_params(args.param)
    weights = None if args.weights is None else inputs.parse_json("--weights", args.weights)
    zero_division = parse_zero_division(args.zero_division)
    data = read_inputs(args)
    requests = metrics.expand(args.metric, args.average, metrics.input_kind(data), n_classes(data), named_classes(data))
    if args.interval is not None and (args.sweep is not None or args.normalized):
        raise InputError("--interval", f"not used with {'--sweep' if args.sweep is not None else '--normalized'}")
    if args.sweep is not None:
        relevance.refuse_with("--sweep", args)
        if args.interpret is not None:
            raise InputError("--interpret", "not with --sweep: it prints one value per grid vector")
        if any(r.average is not None for r in requests):
            raise InputError("--metric", "with --sweep give one average for every metric with --average")
        args.metric = [r.id for r in requests]
        return sweep.run(args, data, params, weights, zero_division, _OPTIONS)
    try:
        values = metrics.evaluate_requests(requests, args.average, params=params, weights=weights,
                                           zero_division=zero_division, **data, **relevance.evaluate_kwargs(args),
                                           **interval_kwargs(args))
        normalized = _normalized(requests, values) if args.normalized else None
    except InputError as error:
        option = f"--param {error.argument}" if error.argument in params else _OPTIONS.get(error.argument, error.argument)
        raise InputError(option, error.message) from None
    sklearn_notes.print_notes(requests, values if args.interval is None else {k: v.value for k, v in values.items()},
                              data, zero_division, n_classes(data))
    bands = None if args.interpret is None else interpret.bands(requests, values, args.interpret)
    if args.interval is not None:
        shown = Values({}, intervals={key: {name: plain(part) for name, part in value._asdict().items()}
                                      for key, value in values.items()}, confidence=args.confidence)
    else:
        shown = Values({key: plain(value) for key, value in values.items()},
                       normalized=None if normalized is None else {key: plain(p) for key, (_, p) in normalized.items()},
                       bands=bands, scale_names=interpret.scale_names() if bands else {})
    print(render(shown, args.format).rstrip("\n"))
    return 0
