"""``metricc identify FORMULA``: which catalog metric a printed formula defines.

Exit 0 when a catalog metric matches under one reading of the formula's letters, 1 when none
does (or the metric depends on which reading the paper means), 2 when the formula cannot be read.
The answer is written as a document of :mod:`metricc.api.formats` (:func:`document`).
"""

from __future__ import annotations

from metricc.api.formats import FORMATS, Note, Result, Table, render
from metricc.core.errors import InputError

__all__ = ["add_command", "document"]


def add_command(commands) -> None:
    parser = commands.add_parser("identify", help="which catalog metric a printed formula defines",
                                 description="Identify a formula as printed (LaTeX): the catalog metric and "
                                             "averaging it equals, proved symbolically, and when.")
    parser.add_argument("formula", metavar="FORMULA", help=r"e.g. '\frac{TP}{TP + \frac{1}{2}(FP + FN)}'")
    parser.add_argument("--notation", choices=("latex", "text"), default="latex")
    parser.add_argument("--setting", choices=("binary", "multiclass", "multilabel", "any"), default="any")
    parser.add_argument("--symbol", action="append", default=[], metavar="NAME=MEANING",
                        help="what a symbol of another notation means: a formula (a=TP, N=n) or a catalog metric "
                             "(p_o=accuracy, P=precision:macro) (repeatable)")
    parser.add_argument("--format", choices=tuple(FORMATS), default="text")
    parser.set_defaults(run=_run)


# identify()'s parameters as this command spells them.
_FLAGS = {"setting": "--setting", "notation": "--notation", "symbols_map": "--symbol"}


def _run(args) -> int:
    from metricc.audit.identify import identify

    symbols = {}
    for item in args.symbol:
        name, sep, meaning = item.partition("=")
        if not sep or not name.strip() or not meaning.strip():
            raise InputError("--symbol", f"'{item}': write NAME=MEANING, e.g. a=TP")
        symbols[name.strip()] = meaning.strip()
    try:
        result = identify(args.formula, notation=args.notation, setting=args.setting, symbols_map=symbols)
    except InputError as error:  # the function names its parameters; the command names its options
        flag = _FLAGS.get(error.argument, error.argument)
        raise InputError(flag, error.message) from None
    print(render(document(result), args.format).rstrip("\n"))
    return 0 if result.matches and result.forced else 1


def document(result) -> Result:
    """An identification: its own text, its JSON, and the matches and nearest metrics as tables."""
    data = result.to_json()
    matches = tuple((m["metric"], m["average"] or "", m["holds"], "yes" if m["proved"] else "no",
                     ", ".join(f"{k} = {v}" for k, v in m["params"].items()), " and ".join(m["reading"]))
                    for m in data["matches"])
    tables = [Note(f"parsed: {result.parsed}"), *(Note(line) for line in result.inferred),
              Table(("metric", "average", "holds", "proved", "parameters", "reading"), matches, "Matches")]
    if data["nearest"]:
        tables.append(Table(("metric", "average", "differs"), tuple((n["metric"], n["average"] or "", n["differs"])
                                                                   for n in data["nearest"]), "Nearest"))
    return Result("Formula identified", data, tuple(tables), {"text": lambda digits: result.text()})
