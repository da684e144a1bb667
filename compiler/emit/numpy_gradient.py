"""Print the delta-method gradient of a metric next to its value (analysis/delta.py derived it).

Each level's template emits a public ``gradient`` function with the value function's
arguments: class level, the four partials of the per-class formula, averaged by the runtime
(``average_class_gradient``), and those of each parameter default computed from the counts; aggregate level, each term's averaged partials and the formula's
partials in its terms (``combine_gradients``); matrix level, the gradient in the cells over a
row and a column index (``cell_values``). Kernels are printed as the value's are (CSE, exact
differences of counts, ``nonzero`` divisions with the undefined mask beside them), by
:func:`.numpy_kernel.kernel`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from metricc.compiler.emit.numpy_kernel import Kernel, kernel
from metricc.compiler.emit.numpy_printer import Printed
from metricc.compiler.language import ir, levels, symbols

__all__ = ["GRADIENT_HELPERS", "GradientCode", "gradient_context"]

GRADIENT_HELPERS = frozenset({"average_class_gradient", "combine_gradients", "cell_values", "class_cell_values",
                              "average_class_cells"})
_COUNT_NAMES = {symbols.TP: "tp", symbols.FP: "fp", symbols.FN: "fn", symbols.TN: "tn"}


@dataclass(frozen=True)
class GradientCode:
    """What the level's template prints as ``gradient``: the outer kernel (the per-class partials,
    the formula's partials in its terms, or the gradient in the cells), each averaged term's
    partials by term name, each count-computed default's partials by parameter name, the cell
    indices of a matrix gradient as the template spells them (``rc``, ``src`` per class) and
    every runtime helper the printed code calls."""

    kernel: Kernel
    helpers: frozenset[str]
    terms: Mapping[str, Kernel] = field(default_factory=dict)
    defaults: Mapping[str, Kernel] = field(default_factory=dict)
    source: str = ""


def _class_names(params) -> dict:
    names = {s: Printed(code) for s, code in _COUNT_NAMES.items()}
    names.update({p.symbol: Printed(f"{p.name}_value" if p.kind == "metric" else p.name) for p in params})
    return names


def _bound(metric: ir.Metric, outputs) -> list[str]:
    """The metric parameters the gradient kernel reads: their kernels give their values."""
    return [p.name for p in metric.params if p.kind == "metric" and any(o.has(p.symbol) for o in outputs)]


def gradient_context(metric: ir.Metric, value_names: Mapping, value_params: tuple[str, ...],
                     term_params: Mapping[str, tuple[str, ...]], matrix_counts: Mapping) -> GradientCode | None:
    """What the templates need to print ``gradient``, or None when the metric has none.

    ``value_names``: the printer's names of the value kernel (terms, matrix data, parameters);
    ``value_params``/``term_params``: the parameters of the value's kernels, which the
    gradient kernels take too (the runtime passes both the same); ``matrix_counts``: the
    matrix atoms whose differences are computed exactly.
    """
    if not metric.gradient:
        return None
    partials = levels.rules(metric.level).partials
    names = {**value_names}
    if partials is levels.Partials.COUNTS:
        # four partials in the counts, then one per metric parameter (runtime: the chain rule)
        outputs = [*metric.gradient, *metric.gradient_undefined]
        printed = kernel(outputs, _class_names(metric.params), params=value_params, counts=_COUNT_NAMES,
                         values=len(metric.gradient), bound=_bound(metric, outputs))
        # a default computed from the counts: its own partials, chained when the parameter is left out
        defaults = {d.name: kernel([*d.gradient, *d.undefined], _class_names(()), counts=_COUNT_NAMES, values=4)
                    for d in metric.default_gradients}
        helpers = printed.helpers.union(*(d.helpers for d in defaults.values()))
        return GradientCode(printed, frozenset(helpers | {"average_class_gradient"}), defaults=defaults)
    if partials is levels.Partials.TERMS:
        terms = {}
        helpers = {"average_class_gradient", "combine_gradients"}
        for term, name in zip(metric.terms, [value_names[t.symbol].code for t in metric.terms]):
            printed = kernel([*term.gradient, *term.gradient_undefined], _class_names(metric.params),
                             params=term_params[name], counts=_COUNT_NAMES, values=4)
            terms[name] = printed
            helpers |= printed.helpers
        outer = kernel([*metric.gradient, *metric.gradient_undefined], names, values=len(metric.gradient))
        return GradientCode(outer, frozenset(helpers | outer.helpers), terms=terms)
    row, column = metric.gradient_cell
    printed = kernel([metric.gradient[0], *metric.gradient_undefined], names, counts=matrix_counts,
                     keep=metric.per_class or "")  # a per-class gradient is undefined per class
    source = printed.indices.replace(str(row), "r").replace(str(column), "c")
    if metric.per_class:  # G[j, a, b]: the class's axis sorts after the cell's (a, b < j)
        source = source.replace(metric.per_class, "s")
        return GradientCode(printed, frozenset(printed.helpers | {"class_cell_values", "average_class_cells"}),
                            source=source)
    return GradientCode(printed, frozenset(printed.helpers | {"cell_values"}), source=source)
