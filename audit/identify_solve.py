"""Numbers printed where a catalog metric has a parameter: ``F_2 = \\frac{5PR}{4P+R}`` is F-beta at beta = 2.

A per-class formula that prints numbers and matches no catalog metric as it stands is compared
with every class-level catalog metric whose parameters are all scalars (F-beta, Tversky), the
parameters left unknown: the equation "formula = metric" at a few fixed counts is solved for
them, exactly (printed decimals are read as the fractions they print, 1.25 = 5/4). Solutions
that are not real or lie outside the parameter's domain (``beta > 0``) are dropped, and each
remaining binding must hold for the whole formula: proved when the difference cancels to zero,
else confirmed at fresh random counts (:func:`.identify_numeric.confirmed`). The value comes out
of the equation; no parameter value is listed anywhere.
"""

from __future__ import annotations

import functools
import re

import sympy

from metricc.audit.identify_numeric import confirmed
from metricc.audit.identify_proof import catalog_metrics
from metricc.compiler.language import symbols

__all__ = ["solved", "shown", "prints_numbers", "label_binding", "label_agrees", "on_boundary"]

# counts at which the equation is written: distinct primes and small numbers, so that no two
# counts coincide (a coincidence could make a wrong binding solve the equations)
_POINTS = ((3, 5, 7, 11), (8, 2, 9, 13), (6, 17, 1, 10), (19, 4, 12, 3), (2, 23, 5, 7))


@functools.lru_cache(maxsize=1)
def _parametric() -> tuple[str, ...]:
    """The class-level catalog metrics whose parameters are all scalars."""
    import metricc.api as mc

    return tuple(sorted(info.id for info in mc.catalog().values()
                        if info.per_class_counts and info.params and all(p.kind == "scalar" for p in info.params)))


def prints_numbers(expr: sympy.Expr | None) -> bool:
    """Whether a formula (as printed, before the letters' meanings) has a number that could
    stand for a parameter (not 0, 1 or -1): numbers a reading of letters brings in (TOP + P -
    TP read as TP + 2 FN) are not the paper's."""
    return expr is not None and any(abs(n) != 1 for n in expr.atoms(sympy.Number) if n != 0)


def _per_class_with_numbers(expr: sympy.Expr) -> bool:
    """Over plain counts only, a ratio of polynomials, with a number that could stand for a parameter."""
    if expr.atoms(sympy.Indexed) or not expr.free_symbols or not expr.free_symbols <= set(symbols.COUNTS):
        return False
    # the parametric metrics are ratios of polynomials in the counts: a log or a root of the
    # counts never equals one, and sympy's solver would labour over it
    return prints_numbers(expr) and expr.is_rational_function(*symbols.COUNTS)


def shown(value: sympy.Expr) -> str:
    """A solved value as a paper prints it: ``2``, ``0.5``, ``1/3``, ``sqrt(2)``."""
    if value.is_Rational:
        q = int(value.q)
        while q % 2 == 0:
            q //= 2
        while q % 5 == 0:
            q //= 5
        return f"{float(value):g}" if q == 1 else str(value)
    return str(value)


def solved(expr: sympy.Expr) -> list[tuple[tuple, str, bool, tuple[tuple[str, str], ...], tuple[str, ...]]]:
    """(variant, holds, proved, params, boundary) of each parametric catalog metric the formula
    equals at a solved binding of its parameters, ``boundary`` naming the parameters solved on
    the boundary of their domain (:func:`on_boundary`); empty for a formula without numbers."""
    if not _per_class_with_numbers(expr):
        return []
    exact = sympy.nsimplify(expr, rational=True)
    out = []
    for metric_id in _parametric():
        metric = catalog_metrics().get(metric_id)
        if metric is None:
            continue
        unknowns = {s.name: s for s in metric.simplified.free_symbols if s.name in {p.name for p in metric.params}}
        if not unknowns:
            continue
        for binding in _bindings(exact, metric, unknowns):
            rest = sympy.cancel(sympy.together(exact - metric.simplified.xreplace(binding)))
            params = tuple((name, float(binding[unknowns[name]])) for name in sorted(unknowns))
            variant = (metric_id, "binary", "class", params)
            proved = rest == 0
            if proved or confirmed(expr, variant, "all")[0]:
                out.append((variant, "all", proved, tuple((name, shown(binding[unknowns[name]])) for name in sorted(unknowns)),
                            on_boundary(metric.params, binding, unknowns)))
    return out


def _bindings(exact: sympy.Expr, metric, unknowns: dict) -> list[dict]:
    """The real bindings of the metric's parameters in their domains that solve the equation
    at :data:`_POINTS` (one point more than there are unknowns, at least three)."""
    equations = []
    for point in _POINTS[:max(3, len(unknowns) + 1)]:
        at = dict(zip(symbols.COUNTS, map(sympy.Integer, point)))
        difference = sympy.together(exact.xreplace(at) - metric.simplified.xreplace(at))
        equations.append(sympy.numer(difference))
    try:
        solutions = sympy.solve(equations, list(unknowns.values()), dict=True)
    except (NotImplementedError, ValueError, TypeError):
        return []
    out = []
    for solution in solutions:
        if set(solution) != set(unknowns.values()) or not all(v.is_real and v.is_number for v in solution.values()):
            continue  # a family of solutions (the parameter does not matter) or a complex one
        if all(_in_domain(p, solution, unknowns) for p in metric.params):
            out.append(solution)
    return out


def _in_domain(param, solution: dict, unknowns: dict) -> bool:
    """Whether the solved value satisfies the parameter's declared domain (``beta > 0``)."""
    mapping = {s: solution[unknowns[s.name]] for d in param.domain for s in d.free_symbols if s.name in unknowns}
    return all(bool(d.xreplace(mapping)) for d in param.domain)


def on_boundary(params, solution: dict, unknowns: dict) -> tuple[str, ...]:
    """The parameters whose solved value makes a non-strict bound of their domain an equality
    (``beta >= 0`` at beta = 0). There the metric degenerates (Tversky's index at beta = 0 no
    longer counts FN): the match is exact, but names a corner of the metric that the paper
    hardly means, so it is flagged and ranked after the matches inside their domains. A
    degenerate case that is itself a catalog metric (Tversky at alpha = 1, beta = 0 is
    precision) never gets here: numbers are solved for only when no catalog metric matches."""
    out = []
    for param in params:
        mapping = {s: solution[unknowns[s.name]] for d in param.domain for s in d.free_symbols if s.name in unknowns}
        if any(isinstance(d, (sympy.GreaterThan, sympy.LessThan)) and (d.lhs - d.rhs).xreplace(mapping) == 0
               for d in param.domain):
            out.append(param.name)
    return tuple(out)


_F_BETA_LABEL = re.compile(r"\s*(?:\\(?:text|mathrm|mathit)\s*\{\s*F\s*\}|F)\s*_?\s*\{?\s*([0-9]+(?:\.[0-9]+)?)\s*\}?\s*")


def label_binding(label: str) -> dict[str, sympy.Expr] | None:
    """The parameter a label prints (``F_2``, ``F_{0.5}``: F-beta at beta = 2, 0.5); None for
    any other label, ``F_1`` included (the catalog's f1)."""
    found = _F_BETA_LABEL.fullmatch(label)
    if not found or sympy.Rational(found.group(1)) == 1:
        return None
    return {"beta": sympy.Rational(found.group(1))}


def label_agrees(binding: dict, matches) -> bool:
    """Whether a match is F-beta at the label's value (``F_2`` over ``5PR/(4P+R)``), proved or
    confirmed as every match is; values compared as :func:`shown` writes them."""
    return any(m.metric == "f_beta" and dict(m.params).get("beta") == shown(binding["beta"]) for m in matches)
