"""Metric names used on a truth set and a predicted set with no definition: ``P(y_l, \\hat{y}_l)``.

scikit-learn's table of averages prints each averaging as a use of P, R or F-beta on two sets
(``\\frac{1}{|L|}\\sum_{l \\in L} P(y_l, \\hat{y}_l)``, ``R(y, \\hat{y})``) and defines the
functions once, elsewhere on the page. A reader who copies the row without the definition still
says what it means: the name names a catalog metric (as labels are read: P precision, R recall,
``F_\\beta`` F-beta), and the two arguments are the truth and the prediction, told apart by the
hat, never by their place. Each use is written out in set sizes from the catalog's class-level
formula of that metric: TP is the common part ``|y \\cap \\hat{y}|``, TP + FP the predicted set
``|\\hat{y}|``, TP + FN the true set ``|y|``. A metric that counts TN (no set holds it) is not
written out. :mod:`.formula_functions` then reads the sets both ways, as for a printed definition.
"""

from __future__ import annotations

import re

import sympy

from metricc.audit.formula_arguments import class_metric
from metricc.audit.formula_brackets import closing
from metricc.compiler.language import symbols

__all__ = ["implied_uses"]

_USE = re.compile(r"(?<![A-Za-z\\])(?P<name>\\(?:text|mathrm|operatorname)\s*\{\s*[A-Za-z][A-Za-z0-9]*\s*\}"
                  r"|[A-Z][A-Za-z0-9]*(?:_\s*(?:\{\s*\\?[A-Za-z]+\s*\}|\\?[A-Za-z]+))?)\s*\(")
_SET = re.compile(r"(?P<hat>\\hat\s*\{\s*|\\widehat\s*\{\s*)?[yY](?(hat)\s*\}|)(?:\s*_\s*(?:\{\s*[a-z]\s*\}|[a-z]))?")
_SIZES = {"Qc": "|{t} \\cap {p}|", "Qt": "|{t}|", "Qp": "|{p}|"}


def implied_uses(text: str, pieces) -> str | None:
    """``text`` with each use of a metric name on a true and a predicted set written out in set
    sizes; None when it has none (``pieces`` splits arguments at top-level commas)."""
    out, pos = [], 0
    for found in _USE.finditer(text):
        if found.start() < pos:
            continue
        end = closing(text, found.end() - 1)
        body = _written_out(re.sub(r"\s+", "", found.group("name")), [a.strip() for a in pieces(text[found.end():end])]) \
            if end is not None else None
        if body is not None:
            out.append(text[pos:found.start()] + "(" + body + ")")
            pos = end + 1
    return "".join(out) + text[pos:] if out else None


def _written_out(name: str, args: list[str]) -> str | None:
    """The catalog formula of the metric ``name`` names, over the sizes of the two sets."""
    sets = [_SET.fullmatch(a) for a in args]
    if len(args) != 2 or not all(sets) or sum(bool(s.group("hat")) for s in sets) != 1:
        return None
    found = class_metric(name)
    if found is None:
        return None
    expr, _ = found
    tp, fp, fn, tn = symbols.COUNTS
    if tn in expr.free_symbols:
        return None
    common, truth, predicted = sympy.symbols("Qc Qt Qp", positive=True)
    written = sympy.latex(sympy.cancel(expr.xreplace({tp: common, fp: predicted - common, fn: truth - common})),
                          mul_symbol="dot")
    t, p = (args[0], args[1]) if sets[1].group("hat") else (args[1], args[0])
    return re.sub(r"Q[ctp]", lambda m: " " + _SIZES[m.group(0)].format(t=t, p=p) + " ", written)
