"""``metricc consistent``: could any confusion matrix produce these printed scores?

Registered by :mod:`.app` (``add_command``); the search is imported when the command runs.
Exit 0 consistent, 1 inconsistent as stated (also when another reading is consistent),
2 unusable input, 4 not refuted (only necessary conditions were checked, and none fails).
"""

from __future__ import annotations

import argparse
import json

__all__ = ["add_command"]

_METHODS = {
    "exhaustive": "every (TP, TN) of the class totals, exactly",
    "search": "every confusion matrix with these totals, exactly",
    "intervals": "necessary conditions only (interval bounds): they never call consistent scores inconsistent",
    "margins": "every diagonal and column total of the class totals, exactly",
    "range": "each score against its metric's range only",
}
EXIT = {"consistent": 0, "inconsistent": 1, "not_refuted": 4}


def add_command(commands) -> None:
    parser = commands.add_parser(
        "consistent",
        help="decide whether some confusion matrix gives every printed score",
        description="Exit 0 when some integer confusion matrix with the given totals gives every score "
                    "within half a unit of its last printed digit; 1 when none does (with the smallest "
                    "conflicting sets of scores, and the readings under which one does); 2 for unusable "
                    "input; 4 when only necessary conditions could be checked and none fails (not refuted). "
                    "Two classes: class 1 is the positive class, so --class-totals 270,232 is 270 negatives "
                    "and 232 positives, and a score without :AVERAGE is class 1's (as scikit-learn's "
                    "average='binary'). Names: catalog ids and aliases, or a peer's (sens, spec, fm, "
                    "F1 Macro, f1_score).",
    )
    sizes = parser.add_mutually_exclusive_group(required=True)
    sizes.add_argument("--class-totals", metavar="T0,T1,...", type=_totals,
                       help="samples per true class (rows of the matrix)")
    sizes.add_argument("--samples", metavar="N", type=int, help="the number of samples, class totals unknown")
    parser.add_argument("--classes", metavar="C", type=int, help="number of classes with --samples (default 2)")
    parser.add_argument("--score", metavar="ID[:AVERAGE][@CLASS]=PRINTED", action="append", required=True,
                        dest="scores", help="a printed score, e.g. f1:macro=0.494, accuracy=0.8429 or "
                                            "specificity@0=0.91 (class 0's, binary) (repeat)")
    parser.add_argument("--no-readings", action="store_true",
                        help="do not search other readings (averaging, positive class, ...) when inconsistent")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--quiet", action="store_true", help="no progress bar (it is shown only on a terminal)")
    parser.set_defaults(run=_cmd_consistent)


def _totals(text: str) -> list[int]:
    try:
        totals = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated counts such as 415,107, got {text!r}") from None
    return totals


def _matrices(result_like, indent: str = "  ") -> None:
    for matrix in result_like["matrices"]:
        print(indent + json.dumps(matrix))
    count = result_like["feasible_count"]
    if count is not None and count > len(result_like["matrices"]):
        print(f"{indent}... and {count - len(result_like['matrices'])} more")


def _count(count) -> str:
    return "" if count is None else f": {count} matri{'x gives' if count == 1 else 'ces give'} every score"


def _cmd_consistent(args) -> int:
    from metricc.audit.consistent import consistent

    result = consistent(args.scores, class_totals=args.class_totals, samples=args.samples, classes=args.classes,
                        progress=not args.quiet, readings=not args.no_readings)
    if args.format == "json":
        print(json.dumps(result.to_json(), indent=2))
        return EXIT[result.status]
    for assumption in result.assumptions:
        print(f"read as: {assumption}")
    method = f"({result.method}: {_METHODS[result.method]})"
    if result.status == "consistent" and result.readings and not result.conflicts:
        for reading in result.readings:  # unqualified multi-class scores: the averagings that hold
            print(f"consistent if {reading['reading']}{_count(reading['feasible_count'])} {method}")
            _matrices(reading)
    elif result.status == "consistent":
        print(f"consistent{_count(result.feasible_count)} {method}")
        _matrices(result.to_json())
    elif result.status == "not_refuted":
        print(f"not refuted: no necessary condition fails {method}; the scores may still be inconsistent")
        for reading in result.readings:
            print(f"  not refuted if {reading['reading']}")
    else:
        print(f"INCONSISTENT as stated: no confusion matrix gives every score {method}")
        for conflict in result.conflicts:
            print("  cannot hold together: " + ", ".join(conflict))
        for reading in result.readings:
            word = "consistent" if reading["status"] == "consistent" else "not refuted"
            print(f"{word} if {reading['reading']}{_count(reading['feasible_count'])}")
            _matrices(reading)
    if result.unchecked:
        print("not checked by the necessary conditions: " + ", ".join(result.unchecked))
    for note in result.notes:
        print(f"note: {note}")
    return EXIT[result.status]
