"""Metric names printed as functions of their parameters and a class: Spark's ``F(\\beta, \\ell)``.

Spark's guide prints the F-measure of one class as ``F(\\beta, \\ell)`` and sums it as
``\\sum_{\\ell \\in L} F(\\beta, \\ell)``; others print ``TI(\\alpha, \\beta, k)`` or
``PPV(\\ell)``. A name that names a class-level catalog metric (by id, alias, abbreviation or
peer name, as labels are read) called with arguments is read with each argument by its role:

- a *class letter* (a letter a sum of the formula binds, or one printed as ``\\ell``): the
  value is that class's, over its counts TP_l, FP_l, ...;
- a *parameter* (``\\beta``, any Greek letter of :mod:`.formula_parameters`): one of the
  parameters the metric has, the one of the same name (beta of F-beta) or else the metric's
  next parameter in the catalog's order; a parameter the call does not print is at its default.

A call with an argument of neither role (a number too: ``F(2, \\ell)`` is not read), two class
letters, or more parameters than the metric has is not read here: the scanner then reads the
parenthesis as a product or says what it cannot read. :mod:`.identify` tries a printed
parameter in each role in turn. A label printed as a call names what it calls
(:func:`label_of_call`).
"""

from __future__ import annotations

import re

import sympy

from metricc.audit.formula_brackets import top_comma
from metricc.audit.formula_parameters import GREEK_PARAMETERS, parameter
from metricc.audit.notation import CLASS_COUNTS, SCALARS, label_metric
from metricc.compiler.language import symbols

__all__ = ["metric_call", "arguments", "class_metric", "label_of_call"]

_LABEL_CALL = re.compile(r"\s*(?P<name>(?:\\[A-Za-z]+\s*\{\s*[A-Za-z][A-Za-z0-9]*\s*\}|[A-Za-z][A-Za-z0-9]*)"
                         r"(?:_\s*(?:\{[^{}]*\}|[A-Za-z0-9]))?)\s*\((?P<args>[^()]*)\)\s*")
_PARAMETER = re.compile(r"\\?(" + "|".join((*SCALARS, *GREEK_PARAMETERS)) + r")")


def arguments(inside: str) -> list[tuple[int, str]]:
    """(offset, text) of each argument of a call, split at the commas outside brackets."""
    out, start = [], 0
    while True:
        comma = top_comma(inside[start:])
        end = len(inside) if comma is None else start + comma
        out.append((start + len(inside[start:end]) - len(inside[start:end].lstrip()), inside[start:end].strip()))
        if comma is None:
            return out
        start = end + 1


def metric_call(scanner, head: str, inside: str, end: int) -> bool:
    """Read ``head(inside)`` (``inside`` from the scanner's position + 1 to ``end``) as a
    catalog metric at its printed parameters and class; False (nothing read) when it is not one."""
    found = class_metric(head)
    if found is None:
        return False
    expr, params = found
    classes, printed = [], []
    for offset, text in arguments(inside):
        if re.fullmatch(r"[a-z]", text) and _is_class(scanner, text, scanner.pos + 1 + offset):
            classes.append(sympy.Symbol(text))
            continue
        value = _parameter_symbol(scanner.notation, text)
        if value is None:
            return False
        printed.append(value)
    bound = _bound(params, printed)
    if bound is None or len(classes) > 1:
        return False
    expr = expr.xreplace(bound)
    if classes:
        expr = expr.xreplace({s: CLASS_COUNTS[c][classes[0]] for c, s in zip(("TP", "FP", "FN", "TN"), symbols.COUNTS)})
    scanner.pos = end + 1
    scanner.out.append(" " + scanner.placeholder(expr) + " ")
    return True


def label_of_call(label: str) -> str:
    """A label printed as a call, as the name it calls: ``F(\\beta, \\ell)`` and ``F(\\ell,
    \\gamma)`` -> ``F``, ``F_{w}(\\beta)`` -> ``F_{w}``, ``F(2, \\ell)`` -> ``F_{2}`` (a printed
    value names F-beta at it); any other label as printed."""
    found = _LABEL_CALL.fullmatch(label)
    if found is None:
        return label
    values = []
    for _, text in arguments(found.group("args")):
        if re.fullmatch(r"\d{1,3}(\.\d{1,3})?", text):
            values.append(text)
        elif not (re.fullmatch(r"[a-z]|\\ell", text) or _PARAMETER.fullmatch(text)):
            return label
    return found.group("name") + (f"_{{{values[0]}}}" if len(values) == 1 else "")


def class_metric(head: str) -> tuple[sympy.Expr, list] | None:
    """(formula over one class's counts, [(parameter name, its symbol, default)]) of the
    class-level catalog metric ``head`` names with scalar parameters only; None for any other name."""
    from metricc.audit.identify_proof import catalog_metrics  # the catalog's formulas, built on first use
    from metricc.compiler.language.levels import rules

    metric_id = label_metric(head)[0] if re.fullmatch(r"[A-Za-z0-9\\{}_ ]+", head) else None  # PPV, F_\beta, \text{P}
    metric = catalog_metrics().get(metric_id) if metric_id else None
    if metric is None or not rules(metric.level).per_class or any(p.kind != "scalar" for p in metric.params):
        return None
    named = {s.name: s for s in metric.simplified.free_symbols}
    return metric.simplified, [(p.name, named.get(p.name), p.default) for p in metric.params]


def _is_class(scanner, letter: str, at: int) -> bool:
    """Whether the letter at ``at`` is a class: bound by a sum, or printed as ``\\ell``."""
    column = scanner.source.cols[at]
    return letter in scanner.indices or scanner.source.user.startswith("\\ell", column)


def _parameter_symbol(notation, text: str) -> sympy.Expr | None:
    """A printed parameter's symbol (``\\beta``, ``\\gamma``); None for any other argument."""
    found = _PARAMETER.fullmatch(text)
    if found is None:
        return None
    name = found.group(1)
    return SCALARS[name] if name in SCALARS else parameter(notation, name, [])


def _bound(params: list, printed: list) -> dict | None:
    """{the metric's parameter symbol: what stands for it}: a printed symbol on the parameter
    of its name, the others in the catalog's order, the unprinted at their defaults; None when
    more are printed than the metric has."""
    if len(printed) > len(params):
        return None
    names = {p[0] for p in params}
    by_name = {v.name: v for v in printed if isinstance(v, sympy.Symbol) and v.name in names}
    others = iter([v for v in printed if not (isinstance(v, sympy.Symbol) and v.name in by_name)])
    out = {}
    for name, symbol, default in params:
        value = by_name[name] if name in by_name else next(others, None)
        if symbol is not None:
            out[symbol] = value if value is not None else sympy.nsimplify(default)
    return out
