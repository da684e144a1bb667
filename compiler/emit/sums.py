"""The emitter's sums in sympy terms: rewriting them from the inside out, the walk the sum
rewrites share (:mod:`.group_by`, :mod:`.row_ranks`), and the score-level shapes the numpy
printer prints as loops (:func:`looped`) and windows (:func:`window`)."""

from __future__ import annotations

from collections.abc import Callable

import sympy

from metricc.compiler.language import symbols

__all__ = ["rewrite_sums", "looped", "loop_indices", "window"]


def rewrite_sums(expr: sympy.Basic, rule: Callable[[sympy.Sum], sympy.Expr | None]) -> sympy.Basic:
    """``expr`` with each ``Sum`` replaced by ``rule(sum)`` where that is not None, inner sums
    first, so that a rule sees the sums inside its terms already rewritten."""
    if not expr.args or isinstance(expr, (sympy.Indexed, sympy.Symbol)):
        return expr
    rebuilt = expr.func(*(rewrite_sums(a, rule) for a in expr.args)) if any(a.args for a in expr.args) else expr
    if isinstance(rebuilt, sympy.Sum):
        rewritten = rule(rebuilt)
        if rewritten is not None:
            return rewritten
    return rebuilt


def looped(total: sympy.Sum) -> bool:
    """Score level: whether a sum varies with a sample and two or more classes in its terms
    (``Sum([S[s, l] > S[s, k]], l)``), printed as a loop over its class index so that no
    array holds n * C * C floats. Innermost sums only: a loop would compute the sums
    inside its terms once per class."""
    if len(total.limits) != 1 or total.limits[0][2] != symbols.N_CLASSES - 1 or total.function.atoms(sympy.Sum):
        return False
    indices = [s for s in total.function.free_symbols if symbols.is_index(s)]
    samples = sum(map(symbols.is_sample_index, indices))
    return bool(samples) and len(indices) - samples >= 2


def loop_indices(exprs) -> set[sympy.Symbol]:
    """The indices of the looped sums in ``exprs``: common subexpressions must not hold
    their terms either."""
    return {total.limits[0][0] for expr in exprs for total in expr.atoms(sympy.Sum) if looped(total)}


def window(total: sympy.Sum) -> tuple[sympy.Expr, sympy.Expr, sympy.Expr] | None:
    """``(a, b, g(m))`` of ``Sum([m >= a] * [m < b] * g(m), m)`` (DCG's discount over the
    positions of a tie group: a window of the looped index), or None."""
    index = total.limits[0][0]
    low = high = None
    rest = []
    for factor in sympy.Mul.make_args(total.function):
        if isinstance(factor, sympy.Heaviside) and len(factor.args) == 2:
            difference = sympy.expand(factor.args[0])
            slope = difference.coeff(index)
            if factor.args[1] == 1 and slope == 1 and low is None:  # [m - a >= 0]
                low = index - difference
                continue
            if factor.args[1] == 0 and slope == -1 and high is None:  # [b - m > 0]
                high = difference + index
                continue
        rest.append(factor)
    if low is None or high is None or low.has(index) or high.has(index):
        return None
    return low, high, sympy.Mul(*rest)
