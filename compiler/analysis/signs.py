"""Signs of brackets, which sympy does not know: when a denominator over them never vanishes.

``indicator(...)`` (Kronecker deltas and Heaviside steps), ``step`` and the truth ``Y[s, k]``
are 0 or 1, so ``1 + Sum(indicator(S[s, l] >= S[s, j]), l != j)`` is at least 1; sympy's
assumptions answer None for such sums, and the analysis would list an undefined case that
never occurs.
"""

from __future__ import annotations

import math

import sympy

from metricc.compiler.language import symbols

__all__ = ["never_zero"]

_BRACKETS = (sympy.Heaviside, symbols.step, sympy.KroneckerDelta)  # each 0 or 1 (step: 1/2 at 0)


def _sign(expr: sympy.Expr) -> int | None:
    """1 if ``expr`` is never negative, -1 if never positive, None if unknown: a sufficient
    test that sympy lacks for brackets. ``[a >= b]``, ``step``, ``[i = j]`` and the truth
    ``Y[s, k]`` are 0 or 1, ``[i = j] - 1`` is 0 or -1; signs multiply in products and agree
    in sums (``Sum(([s = u] - 1) * [a = b], u)`` is never positive)."""
    if expr.is_nonnegative or isinstance(expr, _BRACKETS):
        return 1
    if expr.is_nonpositive:
        return -1
    if isinstance(expr, sympy.Indexed):
        return 1 if expr.base == symbols.TRUTH else None
    if isinstance(expr, sympy.Sum):
        return _sign(expr.function)
    if isinstance(expr, sympy.Add) and len(expr.args) == 2 and expr.args[0] in (1, -1):
        if isinstance(-expr.args[0] * expr.args[1], _BRACKETS):  # 1 - [i = j] or [i = j] - 1
            return int(expr.args[0])
    signs = [_sign(a) for a in expr.args] if isinstance(expr, (sympy.Add, sympy.Mul)) else [None]
    if None in signs:
        return None
    if isinstance(expr, sympy.Mul):
        return math.prod(signs)
    return signs[0] if len(set(signs)) == 1 else None  # an Add: every term of one sign


def never_zero(expr: sympy.Expr) -> bool:
    """Never 0: ``expr.is_positive``, or a number plus terms of its sign (``1 + Sum([a >= b], l)``,
    ``-1 + Sum(([s = u] - 1) * [a = b], u)``)."""
    if expr.is_positive or expr.is_negative:
        return True
    if isinstance(expr, sympy.Add):
        number = sum(a for a in expr.args if a.is_number)
        rest = [_sign(a) for a in expr.args if not a.is_number]
        return number != 0 and all(sign == (1 if number > 0 else -1) for sign in rest)
    return False
