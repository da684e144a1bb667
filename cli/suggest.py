"""``metricc suggest``: the metrics the thesis' rule selects for a task (numpy only).

The rule itself is :func:`metricc.api.suggest.suggest`; ``--labels-file`` is read like
``eval --y-true``, by the same rules (:func:`.inputs.read_label_pair`: ``--column``, ``--header``).

>>> from metricc.cli import main
>>> main(["suggest", "--class-counts", "1669,1527", "--format", "json"]) == 0  # doctest: +ELLIPSIS
[{"metric": "accuracy", ...}]
True
"""

from __future__ import annotations

from metricc.api.formats import FORMATS, Result, Table, render
from metricc.cli import inputs
from metricc.cli.tables import HEADER_CHOICES
from metricc.core.errors import InputError

__all__ = ["add_command"]

# suggest() argument names -> the options that supply them.
_OPTIONS = {"classes": "--classes", "class_counts": "--class-counts", "y_true": "--labels-file",
            "imbalance_ratio": "--imbalance-ratio", "threshold": "--threshold"}


def add_command(commands) -> None:
    """Add the ``suggest`` sub-command to ``commands`` (an argparse sub-parser group)."""
    command = commands.add_parser("suggest", help="suggest metrics for a task (binary/multi-class, imbalance, ordinal)")
    command.add_argument("--classes", type=int, metavar="C", help="number of classes (with --imbalance-ratio)")
    balance = command.add_mutually_exclusive_group(required=True)
    balance.add_argument("--class-counts", metavar="N,N,...", help="instances per class, comma-separated")
    balance.add_argument("--labels-file", metavar="FILE", help="true labels: one per line, or one comma-separated line")
    balance.add_argument("--imbalance-ratio", type=float, metavar="R", help="majority / minority class size (>= 1)")
    command.add_argument("--column", metavar="NAME|INDEX", help="the column of --labels-file in a table file")
    command.add_argument("--header", choices=HEADER_CHOICES, default="auto",
                         help="whether --labels-file starts with a header line (default: detect it, and say so on stderr)")
    command.add_argument("--ordinal", action="store_true", help="the classes are ordered (multi-class only)")
    command.add_argument("--threshold", type=float, metavar="T",
                         help="imbalanced when minority < T * majority (default 0.70, the thesis' isBalanced)")
    command.add_argument("--format", choices=tuple(FORMATS), default="text")
    command.set_defaults(run=_run)


def _class_counts(text: str) -> list[float]:
    counts = []
    for token in (t.strip() for t in text.split(",")):
        try:
            counts.append(float(token))
        except ValueError:
            raise InputError("--class-counts", f"{token!r} is not a number") from None
    return counts


def _run(args) -> int:
    from metricc.api.suggest import suggest

    kwargs = {"classes": args.classes, "ordinal": args.ordinal, "threshold": args.threshold,
              "imbalance_ratio": args.imbalance_ratio}
    if args.class_counts is not None:
        kwargs["class_counts"] = _class_counts(args.class_counts)
    if args.labels_file is not None:
        labels, _ = inputs.read_label_pair(args.labels_file, None, args.column, args.header, true_option="--labels-file")
        (kwargs["y_true"],), _ = inputs.typed_labels(labels)
    elif args.column is not None or args.header != "auto":
        raise InputError("--column" if args.column is not None else "--header", "applies to --labels-file")
    try:
        found = suggest(**kwargs)
    except InputError as error:
        raise InputError(_OPTIONS.get(error.argument, error.argument), error.message) from None
    names = [s.metric + (f" ({s.average})" if s.average else "") for s in found]

    def text(digits: int) -> str:
        width = max(map(len, names))
        return "\n".join(f"{name:<{width}}  [{s.rule}] {s.reason}" for name, s in zip(names, found))

    data = [{"metric": s.metric, "average": s.average, "rule": s.rule, "reason": s.reason} for s in found]
    rows = tuple((s.metric, s.average or "", s.rule, s.reason) for s in found)
    document = Result("Suggested metrics", data, (Table(("metric", "average", "rule", "reason"), rows, "Suggested"),),
                      {"text": text}, json_indent=None)
    print(render(document, args.format).rstrip("\n"))
    return 0
