"""``metricc consistent``: could any confusion matrix produce these printed scores?

Registered by :mod:`.app` (``add_command``); the search is imported when the command runs.
Exit 0 consistent, 1 inconsistent, 2 unusable input.
"""

from __future__ import annotations

import argparse
import json

__all__ = ["add_command"]

_METHODS = {
    "exhaustive": "every (TP, TN) of the class totals, exactly",
    "search": "every confusion matrix with these totals, exactly",
    "intervals": "necessary conditions only (interval bounds): they never call consistent scores inconsistent",
}


def add_command(commands) -> None:
    parser = commands.add_parser(
        "consistent",
        help="decide whether some confusion matrix gives every printed score",
        description="Exit 0 when some integer confusion matrix with the given totals gives every score "
                    "within half a unit of its last printed digit; 1 when none does (with the smallest "
                    "conflicting sets of scores); 2 for unusable input. Two classes: class 1 is the "
                    "positive class, so --class-totals 270,232 is 270 negatives and 232 positives.",
    )
    sizes = parser.add_mutually_exclusive_group(required=True)
    sizes.add_argument("--class-totals", metavar="T0,T1,...", type=_totals,
                       help="samples per true class (rows of the matrix)")
    sizes.add_argument("--samples", metavar="N", type=int, help="the number of samples, class totals unknown")
    parser.add_argument("--classes", metavar="C", type=int, help="number of classes with --samples (default 2)")
    parser.add_argument("--score", metavar="ID[:AVERAGE]=PRINTED", action="append", required=True, dest="scores",
                        help="a printed score, e.g. f1:macro=0.494 or accuracy=0.8429 (repeat)")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--quiet", action="store_true", help="no progress bar (it is shown only on a terminal)")
    parser.set_defaults(run=_cmd_consistent)


def _totals(text: str) -> list[int]:
    try:
        totals = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated counts such as 415,107, got {text!r}") from None
    return totals


def _cmd_consistent(args) -> int:
    from metricc.compiler.audit.consistent import consistent

    result = consistent(args.scores, class_totals=args.class_totals, samples=args.samples, classes=args.classes,
                        progress=not args.quiet)
    if args.format == "json":
        print(json.dumps(result.to_json(), indent=2))
        return 0 if result.consistent else 1
    if result.consistent:
        count = result.feasible_count
        count = "" if count is None else f": {count} matri{'x gives' if count == 1 else 'ces give'} every score"
        print(f"consistent{count} ({result.method}: {_METHODS[result.method]})")
        for matrix in result.matrices:
            print("  " + json.dumps(matrix))
        if result.feasible_count is not None and result.feasible_count > len(result.matrices):
            print(f"  ... and {result.feasible_count - len(result.matrices)} more")
    else:
        print(f"INCONSISTENT: no confusion matrix gives every score ({result.method}: {_METHODS[result.method]})")
        for conflict in result.conflicts:
            print("  cannot hold together: " + ", ".join(conflict))
    if result.unchecked:
        print("not checked by the interval conditions: " + ", ".join(result.unchecked))
    return 0 if result.consistent else 1
