"""The "Standard error" paragraph of a metric's LaTeX page, from what analysis/delta.py derived.

The page states the model once (the multinomial delta method, :mod:`metricc.runtime.gradient`
computes it), then the metric's own gradient: the four partials of a class-level formula, an
aggregate's partials in its averaged terms, or a matrix-level metric's gradient in the cell
``M_{ab}``. A proportion names its successes and trials (the Wilson, Agresti-Coull and
Clopper-Pearson intervals); a metric without a gradient says why (the bootstrap applies).
"""

from __future__ import annotations

from metricc.compiler.analysis import delta
from metricc.compiler.emit.text import latex, latex_escape
from metricc.compiler.language import ir, levels, symbols

__all__ = ["delta_context"]

_COUNT_LATEX = {"tp": r"\mathit{TP}", "fp": r"\mathit{FP}", "fn": r"\mathit{FN}", "tn": r"\mathit{TN}"}
_CELLS = {"diagonal": r"\sum_k M_{kk}", "off_diagonal": r"n - \sum_k M_{kk}", "all": "n"}


def _partial(of: str, wrt: str) -> str:
    return rf"\frac{{\partial {of}}}{{\partial {wrt}}}"


def _proportion(metric: ir.Metric) -> str:
    if not metric.proportion:
        return ""
    successes, trials = metric.proportion
    if levels.rules(metric.level).partials is levels.Partials.CELLS:
        top, bottom = _CELLS[successes[0]], _CELLS[trials[0]]
    else:
        top, bottom = (" + ".join(_COUNT_LATEX[c] for c in part) for part in (successes, trials))
    return rf"${top}$ successes of ${bottom}$ trials"


def delta_context(metric: ir.Metric, broken) -> dict:
    """What ``metric.tex.j2`` prints under "Standard error"; ``broken`` lays out a long display."""
    level = getattr(metric.level, "value", metric.level)
    context = {"no_delta": latex_escape(metric.no_delta), "level": level, "partials": [], "proportion": _proportion(metric),
               "per_class": metric.per_class or "", "chain": "", "defaults": []}
    if not metric.gradient:
        return context
    taken_in = levels.rules(metric.level).partials
    if taken_in is levels.Partials.COUNTS:
        names = [str(c).lower() for c in delta.COUNT_ORDER]
        context["partials"] = [(_partial("f", _COUNT_LATEX[name]), broken(g))
                               for name, g in zip(names, metric.gradient) if g != 0]
        bound = [p for p in metric.params if p.kind == "metric"]  # one more partial each, after the four
        context["chain"] = ", ".join(rf"$\operatorname{{{p.name}}}$".replace("_", r"\_") for p in bound)
        context["partials"] += [(_partial("f", rf"\operatorname{{{p.name}}}".replace("_", r"\_")), broken(g))
                                for p, g in zip(bound, metric.gradient[4:])]
        # a default computed from the counts: the partial in the parameter, then the default's own
        for default, g in zip(metric.default_gradients, metric.gradient[4 + len(bound):]):
            symbol = latex(metric.param(default.name).symbol)
            context["defaults"].append(f"${symbol}$")
            context["partials"].append((_partial("f", symbol), broken(g)))
            context["partials"] += [(_partial(symbol, _COUNT_LATEX[name]), broken(d))
                                    for name, d in zip(names, default.gradient) if d != 0]
    elif taken_in is levels.Partials.TERMS:
        context["partials"] = [(_partial("F", latex(t.symbol, metric.terms)), broken(g, metric.terms))
                               for t, g in zip(metric.terms, metric.gradient) if g != 0]
    else:
        cell = latex(symbols.M[metric.gradient_cell])
        value = f"f_{metric.per_class}" if metric.per_class else "F"  # a per-class formula: one gradient per class
        context["partials"] = [(_partial(value, cell), broken(metric.gradient[0]))]
    return context
