"""Rewriting the sums of an expression from the inside out, the walk the emitter's sum rewrites
share (:mod:`.group_by`, :mod:`.row_ranks`)."""

from __future__ import annotations

from collections.abc import Callable

import sympy

__all__ = ["rewrite_sums"]


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
