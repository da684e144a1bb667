"""The notation ``identify`` reads a formula in, with the user's ``--symbol NAME=MEANING``.

A meaning is a catalog metric's name (``p_o=accuracy``, ``P=precision:macro``: its formula) or
a formula in the same notation as the paper's (``P=TP+FN``), read with the formula's own
letters of several readings so that those are tried together.
"""

from __future__ import annotations

import re

from metricc.audit.latex_formula import parse_formula
from metricc.audit.notation import Notation, label_metric
from metricc.core.errors import InputError

__all__ = ["notation_with"]


def notation_with(symbols_map, syntax: str) -> Notation:
    """The papers' notation, with the user's --symbol meanings: a catalog metric's name
    (``p_o=accuracy``, ``P=precision:macro``) or a formula in the same notation."""
    notation = Notation()
    for name, meaning in (symbols_map or {}).items():
        metric = _metric_meaning(meaning)
        # the meaning is read with the same notation, so that its letters of several readings
        # (n: samples, negatives or classes) are tried with the formula's
        notation.defined[name] = metric if metric is not None else parse_formula(meaning, notation, syntax).expr
    return notation


def _metric_meaning(meaning: str):
    """The formula of the catalog metric ``meaning`` names (``accuracy``, ``precision:macro``),
    None when it names none."""
    from metricc.audit.identify_proof import catalog_expression

    name, _, mode = meaning.strip().partition(":")
    metric, label_mode = label_metric(name) if re.fullmatch(r"[A-Za-z][A-Za-z0-9_.-]*", name) else (None, None)
    if metric is None:
        return None
    expr = catalog_expression(metric, mode or label_mode)
    if expr is None:
        raise InputError("symbols_map", f"'{meaning}': {metric} needs a class vector or matrix; write its formula instead")
    return expr
