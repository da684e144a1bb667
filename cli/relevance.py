"""``metricc eval`` options of Branco et al. (2017): relevance and normalized values.

Kept apart from :mod:`.evaluate` so the command module does not grow:
``--relevance`` (per-class JSON values, a ``{"label": value}`` object, or ``prevalence``),
``--relevance-order`` (``"c3 < c1, c3 < c2"``) and ``--normalized`` (each value also as a
percentage of its metric's range, 0 worst, 100 best).
"""

from __future__ import annotations

from metricc.cli.inputs import parse_json
from metricc.core.errors import InputError

__all__ = ["OPTIONS", "add_options", "evaluate_kwargs", "refuse_with"]

OPTIONS = {"relevance": "--relevance", "relevance_order": "--relevance-order", "value": "--normalized"}


def add_options(parser) -> None:
    parser.add_argument("--relevance", metavar="JSON|prevalence",
                        help="class relevance for relevance_* metrics: JSON list or {label: value}, or 'prevalence' (Eq. 9)")
    parser.add_argument("--relevance-order", metavar="ORDER",
                        help="relevance from a partial or total order of classes, e.g. 'c3 < c1, c3 < c2' (Eq. 10)")
    parser.add_argument("--normalized", action="store_true",
                        help="also print each value as a percentage of its range (0 worst, 100 best)")


def evaluate_kwargs(args) -> dict:
    """``relevance`` / ``relevance_order`` keyword arguments of ``evaluate``."""
    out = {}
    if args.relevance is not None:
        text = args.relevance.strip()
        if text == "prevalence":
            out["relevance"] = text
        else:
            out["relevance"] = parse_json("--relevance", text, "expected a JSON list or object, or 'prevalence': ")
            if not isinstance(out["relevance"], (list, dict)):
                raise InputError("--relevance", "expected a JSON list or object, or 'prevalence'")
    if args.relevance_order is not None:
        out["relevance_order"] = args.relevance_order
    return out


def refuse_with(option: str, args) -> None:
    """These options apply to one evaluation; ``option`` (e.g. ``--sweep``) does not take them."""
    for given, name in ((args.relevance, "--relevance"), (args.relevance_order, "--relevance-order"),
                        (args.normalized or None, "--normalized")):
        if given is not None:
            raise InputError(name, f"cannot be combined with {option}")
