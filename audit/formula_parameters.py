"""Scalar parameters printed under any Greek letter: ``\\gamma``, ``\\lambda``, ``\\theta``, ``beta_positive``.

The catalog's scalar parameters are alpha and beta (F-beta, Tversky); papers name theirs as
they like (a weight gamma, a trade-off lambda) and qualify them (``\\beta_{pos}``, mlscorecheck's
``beta_positive``). A printed parameter is a symbol of its own that :mod:`.identify` binds to
each catalog parameter in turn (``_bindings``), so the answer says which role it plays
("beta = the formula's gamma"), never assumes one. A Greek letter with a class index
(``\\lambda_i``) is no scalar and is left to the rest of the notation.
"""

from __future__ import annotations

import sympy

from metricc.audit.notation import SCALARS

__all__ = ["GREEK_PARAMETERS", "parameter", "printed_parameters"]

GREEK_PARAMETERS = ("gamma", "lambda", "theta", "eta", "tau", "omega", "rho", "sigma", "epsilon", "zeta", "nu", "xi",
                    "psi", "chi")
_SYMBOLS = {name: sympy.Symbol(name, real=True) for name in GREEK_PARAMETERS}
# what a word subscript on a parameter says: whose it is, not another quantity
_QUALIFIERS = ("positive", "pos", "negative", "neg", "p", "n", "weight", "w")


def parameter(notation, head: str, rest: list[str]) -> sympy.Expr | None:
    """The symbol of a printed scalar parameter, None for any other name."""
    if rest and not (len(rest) == 1 and rest[0] in _QUALIFIERS):
        return None
    if head in _SYMBOLS:
        return _SYMBOLS[head]
    if head in SCALARS and rest and head in notation.params:  # beta_positive: beta, qualified
        return SCALARS[head]
    return None


def printed_parameters(expr: sympy.Expr) -> list[sympy.Symbol]:
    """The scalar parameters a formula prints, catalog names first, in a fixed order."""
    names = [*SCALARS.values(), *_SYMBOLS.values()]
    return [s for s in names if s in expr.free_symbols]
