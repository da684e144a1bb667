"""Definitions with index parameters, as Wang et al. print them, and what sum bounds mean.

``P_{i,j}^{j} = \\frac{p_{i,j}}{...}``, ``CEN_{j} = ...``, ``AUC(j,k) = ...`` define a name for
every value of their indices. A use (``P_{j,k}^{j}``, ``CEN_{j}``, ``AUC(j, r_j)``) is matched
against each definition of its name with the same shape: the definition's indices are bound
to the use's consistently (``P^{j}_{i,j}`` reads ``P^{j}_{k,j}`` with i = k, j = j, but not
``P^{j}_{j,k}``, which Eq. 9's ``P^{i}_{i,j}`` defines) and the definition's own summation
indices are renamed first, so that a use cannot capture them. Index conditions printed after
a definition (``i \\neq j, i, j = 1, ..., m``) restate the ranges and are dropped.

The letter that bounds a sum over samples is the number of samples, whatever it is: Wang's
Eq. 18 sums ``i = 1..c`` over the samples (``f(i,j)``) and Eq. 19 ``i = 1..m``, both divided
by ``m.c``; :func:`bound_meanings` reads each bound from the position its index takes in
``f(s,j)`` and ``p(s,j)`` (the errata wang-eq18-19-index-ranges).
"""

from __future__ import annotations

import dataclasses
import re

import sympy

from metricc.audit.notation import INDEX_LETTERS, REST
from metricc.compiler.language import symbols

__all__ = ["Pattern", "pattern_of", "match", "apply", "index_argument", "fresh_bound", "bound_meanings", "INDEX_CONDITIONS"]

INDEX_CONDITIONS = re.compile(r",\s*[a-z]\s*\\ne(q)?\s*[a-z](?=\s*(,|$))"
                              r"|,\s*[a-z](\s*,\s*[a-z])*\s*=\s*1\s*,\s*(\.\.\.|\\[lc]?dots)\s*,\s*[A-Za-z](?=\s*(,|$))")
_NAME = re.compile(r"\s*(\\?[A-Za-z][A-Za-z0-9]*)((?:\s*(?:[_^](?:\{[^{}]*\}|[A-Za-z])|\([^()]*\)))*)\s*$")
_PART = re.compile(r"([_^])(?:\{([^{}]*)\}|([A-Za-z]))|\(([^()]*)\)")
_ARGUMENT = re.compile(r"\s*(?:([a-z])|r_\{?([a-z])\}?)\s*$")


@dataclasses.dataclass(frozen=True)
class Pattern:
    """A printed name with index parameters: head, subscripts, superscripts, call arguments."""

    head: str
    sub: tuple[str, ...] = ()
    sup: tuple[str, ...] = ()
    args: tuple[str, ...] = ()


def _letters(group: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in group.split(",")) if group.strip() else ()


def pattern_of(name: str) -> Pattern | None:
    """The pattern of a definition's left side, None unless every parameter is one index letter."""
    found = _NAME.fullmatch(name)
    if not found or not found.group(2).strip():
        return None
    sub, sup, args = (), (), ()
    for part in _PART.finditer(found.group(2)):
        if part.group(4) is not None:
            args += _letters(part.group(4))
        elif part.group(1) == "_":
            sub += _letters(part.group(2) if part.group(2) is not None else part.group(3))
        else:
            sup += _letters(part.group(2) if part.group(2) is not None else part.group(3))
    parameters = sub + sup + args
    if not parameters or not all(p in INDEX_LETTERS for p in parameters):  # p_o, p_e: names, not indices
        return None
    return Pattern(found.group(1).lstrip("\\"), sub, sup, args)


def index_argument(text: str) -> sympy.Expr | None:
    """One index argument as printed: ``j`` or ``r_j`` (every class but j); None for another."""
    found = _ARGUMENT.match(text)
    if not found:
        return None
    return sympy.Symbol(found.group(1)) if found.group(1) else REST(sympy.Symbol(found.group(2)))


def match(pattern: Pattern, use: Pattern, uses: tuple[sympy.Expr, ...]) -> dict | None:
    """The binding of ``pattern``'s parameters to the use's arguments (``uses``, in the order
    sub, sup, args), or None when the shapes or the repeated letters disagree."""
    if (len(pattern.sub), len(pattern.sup), len(pattern.args)) != (len(use.sub), len(use.sup), len(use.args)):
        return None
    binding: dict = {}
    for parameter, value in zip(pattern.sub + pattern.sup + pattern.args, uses):
        symbol = sympy.Symbol(parameter)
        if binding.setdefault(symbol, value) != value:
            return None
    return binding


def fresh_bound(expr: sympy.Expr) -> sympy.Expr:
    """``expr`` with every summation index renamed to a fresh one (no capture on substitution)."""
    def rename(node):
        mapping = {var: sympy.Dummy(var.name, integer=True) for var, *_ in node.limits}
        return type(node)(node.function.xreplace(mapping), *((mapping[v], low, high) for v, low, high in node.limits))
    return expr.replace(lambda e: isinstance(e, (sympy.Sum, sympy.Product)), rename)


def bound_meanings(text: str) -> dict[str, sympy.Expr]:
    """The letters that bound sums over samples (n) and over classes (C), read from where each
    sum's index stands in the calls ``f(s,j)`` and ``p(s,j)``; empty without such calls."""
    if not re.search(r"(?<![A-Za-z\\])[fp]\(", text):
        return {}
    out = {}
    for found in re.finditer(r"\\sum_\{?\s*([a-z])\s*=\s*1\s*\}?\s*\^\s*\{?\s*([A-Za-z])\s*\}?", text):
        index, bound = found.groups()
        if re.search(rf"(?<![A-Za-z\\])[fp]\(\s*{index}\s*,", text):
            out[bound] = symbols.N_TOTAL
        elif re.search(rf"(?<![A-Za-z\\])[fp]\(\s*[a-z]\s*,\s*{index}\s*\)", text):
            out[bound] = symbols.N_CLASSES
    return out


def apply(patterns: dict, use: Pattern, values: tuple) -> sympy.Expr | None:
    """The meaning of a use of a name defined with index parameters, None if no definition of
    that name and shape matches; ``patterns``: head -> [(Pattern, meaning)]."""
    for pattern, meaning in patterns.get(use.head, ()):
        binding = match(pattern, use, values)
        if binding is not None:
            return meaning.xreplace(binding)
    return None
