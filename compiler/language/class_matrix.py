"""``class_matrix`` parameters: one value per pair of classes (true i, predicted j), such as
the disagreement weights of weighted kappa, used in matrix formulas as ``w[i, j]``.

A user passes a ``(C, C)`` array (or ``(..., C, C)``, one per matrix of a batch). The default
is a formula of the class indices ``i``, ``j`` and the number of classes ``C``: ``abs(i - j)``
(linear), ``(i - j)**2`` (quadratic), ``1 - KroneckerDelta(i, j)``... It cannot read counts:
a class distance is a property of the classes' order, not of the data. The domain is checked
on the default for every pair of classes of 2 to 8 classes, so a default outside its domain
(``j - i`` with ``domain: w >= 0``) is refused when the spec is compiled.

>>> expr = parse_default("abs(i - j)", lambda offset: None, "$.params.w.default")
>>> expr.subs({I: 0, J: 2})
2
>>> default_problem(expr, "w", ())
"""

from __future__ import annotations

import sympy

from metricc.compiler.language import symbols
from metricc.compiler.language.levels import Level
from metricc.compiler.language.parse import Scope, parse_formula

__all__ = ["I", "J", "LEVEL_PROBLEM", "parse_default", "default_problem"]

I, J = symbols.index_symbol("i"), symbols.index_symbol("j")
_SIZES = range(2, 9)  # numbers of classes on which a default is checked against its domain
LEVEL_PROBLEM = ("a class_matrix parameter is indexed by pairs of classes (w[i, j]), so only matrix-level "
                 "formulas use it; set 'level: matrix' or use a class_vector")
_SHAPE = ("the default of a class_matrix parameter is a number or a formula of the class indices i, j and "
          "the number of classes C, e.g. abs(i - j) or (i - j)**2; it cannot read counts or sums")


def parse_default(default, locate, key: str) -> sympy.Expr:
    """The default as an expression of i, j and C (a number stays a number)."""
    if not isinstance(default, str):
        return sympy.Rational(repr(default)) if isinstance(default, float) else sympy.Integer(default)
    scope = Scope(level=Level.MATRIX, allow_metrics=False)
    return parse_formula(default, scope, locate, key, bound=("i", "j")).expr


def default_problem(expr: sympy.Expr, name: str, domain) -> str | None:
    """Why ``expr`` cannot be the default of the class_matrix parameter ``name``, or None."""
    if expr.atoms(sympy.Indexed) or expr.has(sympy.Sum) or not expr.free_symbols <= {I, J, symbols.N_CLASSES}:
        return _SHAPE
    symbol = sympy.Symbol(name, real=True)
    for size in _SIZES:
        for i in range(size):
            for j in range(size):
                value = expr.subs({I: i, J: j, symbols.N_CLASSES: size})
                where = f"at i = {i}, j = {j} with C = {size}"
                if not (value.is_real and value.is_finite):
                    return f"the default is {value} {where}; it must be a finite real number for every pair of classes"
                if any(relation.subs(symbol, value) is not sympy.true for relation in domain):
                    return f"the default is {value} {where}, outside the domain"
    return None
