"""``metricc consistent``: could any confusion matrix produce these printed scores?

Registered by :mod:`.app` (``add_command``); the search is imported when the command runs.
Exit 0 consistent, 1 inconsistent as stated (also when another reading is consistent),
2 unusable input, 4 not refuted (only necessary conditions were checked, and none fails).
The verdict is written as a document of :mod:`metricc.api.formats` (:func:`document`).
"""

from __future__ import annotations

import argparse
import json

from metricc.api.formats import FORMATS, Note, Result, Table, render

__all__ = ["add_command", "document"]

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
    parser.add_argument("--format", choices=tuple(FORMATS), default="text")
    parser.add_argument("--quiet", action="store_true", help="no progress bar (it is shown only on a terminal)")
    parser.set_defaults(run=_cmd_consistent)


def _totals(text: str) -> list[int]:
    try:
        totals = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated counts such as 415,107, got {text!r}") from None
    return totals


def _matrices(result_like, indent: str = "  ") -> list[str]:
    lines = [indent + json.dumps(matrix) for matrix in result_like["matrices"]]
    count = result_like["feasible_count"]
    if count is not None and count > len(result_like["matrices"]):
        lines.append(f"{indent}... and {count - len(result_like['matrices'])} more")
    return lines


def _count(count) -> str:
    return "" if count is None else f": {count} matri{'x gives' if count == 1 else 'ces give'} every score"


def _text(result) -> str:
    lines = [f"read as: {assumption}" for assumption in result.assumptions]
    method = f"({result.method}: {_METHODS[result.method]})"
    if result.status == "consistent" and result.readings and not result.conflicts:
        for reading in result.readings:  # unqualified multi-class scores: the averagings that hold
            lines.append(f"consistent if {reading['reading']}{_count(reading['feasible_count'])} {method}")
            lines += _matrices(reading)
    elif result.status == "consistent":
        lines.append(f"consistent{_count(result.feasible_count)} {method}")
        lines += _matrices(result.to_json())
    elif result.status == "not_refuted":
        lines.append(f"not refuted: no necessary condition fails {method}; the scores may still be inconsistent")
        lines += [f"  not refuted if {reading['reading']}" for reading in result.readings]
    else:
        lines.append(f"INCONSISTENT as stated: no confusion matrix gives every score {method}")
        lines += ["  cannot hold together: " + ", ".join(conflict) for conflict in result.conflicts]
        for reading in result.readings:
            word = "consistent" if reading["status"] == "consistent" else "not refuted"
            lines.append(f"{word} if {reading['reading']}{_count(reading['feasible_count'])}")
            lines += _matrices(reading)
    if result.unchecked:
        lines.append("not checked by the necessary conditions: " + ", ".join(result.unchecked))
    return "\n".join(lines + [f"note: {note}" for note in result.notes])


def document(result) -> Result:
    """A verdict: its own text, its JSON, and as tables the verdict, the readings and the
    matrices found (the text's sentences as notes)."""
    data = result.to_json()
    count = "" if data["feasible_count"] is None else str(data["feasible_count"])
    tables = [Table(("scores", "status", "method", "matrices"), ((", ".join(data["scores"]), data["status"],
                                                                  f"{result.method}: {_METHODS[result.method]}", count),),
                    "Verdict")]
    if data["readings"]:
        tables.append(Table(("reading", "status", "matrices"), tuple(
            (r["reading"], r["status"], "" if r["feasible_count"] is None else str(r["feasible_count"]))
            for r in data["readings"]), "Readings"))
    if data["matrices"]:
        tables.append(Table(("matrix", "rows"), tuple((str(k), json.dumps(m)) for k, m in enumerate(data["matrices"], 1)),
                            "Matrices giving every score"))
    notes = [*(f"read as: {a}" for a in data["assumptions"]),
             *("cannot hold together: " + ", ".join(c) for c in data["conflicts"]),
             *(["not checked by the necessary conditions: " + ", ".join(data["unchecked"])] if data["unchecked"] else []),
             *(f"note: {n}" for n in data["notes"])]
    return Result("Consistency of printed scores", data, (*tables, *map(Note, notes)), {"text": lambda digits: _text(result)})


def _cmd_consistent(args) -> int:
    from metricc.audit.consistent import consistent

    result = consistent(args.scores, class_totals=args.class_totals, samples=args.samples, classes=args.classes,
                        progress=not args.quiet, readings=not args.no_readings)
    print(render(document(result), args.format).rstrip("\n"))
    return EXIT[result.status]
