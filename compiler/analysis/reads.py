"""What a metric's simplified formula reads, for the checks that bound a value without computing it.

``metricc consistent`` bounds a printed score over the matrices of a data set's size
(:mod:`metricc.audit.consistent_intervals`, :mod:`metricc.audit.consistent_margins`). How
depends on what the formula reads: the trace and n alone (accuracy), one average of a class
metric (``macro(recall)``), only per-class totals and the diagonal, or its parameters. The
compiler answers from the IR and the generated ``INFO`` carries the answer
(:class:`metricc.runtime.registry.MetricInfo`), so no application reads the printed formula.

>>> from metricc.compiler.language.symbols import M, N_TOTAL
>>> k = sympy.Symbol("k", integer=True)
>>> only_trace(sympy.Sum(M[k, k], (k, 0, symbols.N_CLASSES - 1)) / N_TOTAL)
True
>>> reads_off_diagonal(M[k, k] + M[k, 0])
True
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from metricc.compiler.language import ir, symbols

__all__ = ["Reads", "averaged_class_metric", "only_trace", "parameters_read", "reads", "reads_off_diagonal"]


@dataclass(frozen=True)
class Reads:
    """The fields of ``INFO`` that say what the formula reads (defaults: reads nothing special)."""

    averaged_class_metric: tuple[str, str] | None = None
    only_trace: bool = False
    reads_off_diagonal: bool = False
    parameters_read: tuple[str, ...] = ()


def averaged_class_metric(metric: ir.Metric) -> tuple[str, str] | None:
    """(class metric id, mode) of a formula that is one averaging of a class metric as declared,
    ``macro(recall)``: no bound parameter, no class weights; None for any other formula."""
    term = next((t for t in metric.terms if t.symbol == metric.simplified), None)
    if term is None or term.mode is None or term.bindings or term.weights:
        return None
    return term.metric, term.mode


def _is_trace(expr: sympy.Expr) -> bool:
    """``Sum(M[k, k], k)``: the correct predictions."""
    if not isinstance(expr, sympy.Sum) or len(expr.limits) != 1:
        return False
    index = expr.limits[0][0]
    return expr.function == symbols.M[index, index]


def only_trace(expr: sympy.Expr) -> bool:
    """Whether a matrix formula reads the trace and n alone: no other cell, total, class
    count or data (accuracy, error rate)."""
    traces = [s for s in expr.atoms(sympy.Sum) if _is_trace(s)]
    if not traces:
        return False
    rest = expr.xreplace({s: sympy.Dummy() for s in traces})
    return not rest.atoms(sympy.Indexed) and symbols.N_CLASSES not in rest.free_symbols


def reads_off_diagonal(expr: sympy.Expr) -> bool:
    """Whether a formula reads a cell ``M[i, j]`` whose two indices are not one (the diagonal
    ``M[k, k]`` and the row and column totals are per-class counts)."""
    return any(cell.base == symbols.M and cell.indices[0] != cell.indices[-1] for cell in expr.atoms(sympy.Indexed))


def parameters_read(metric: ir.Metric) -> tuple[str, ...]:
    """The parameters whose value the simplified formula reads, scalars or indexed ones
    (``distance[i, j]``, ``class_weights[k]``), in declaration order."""
    expr = metric.simplified
    names = {s.name for s in expr.free_symbols if isinstance(s, sympy.Symbol)}
    names |= {str(e.base.label) for e in expr.atoms(sympy.Indexed)}
    return tuple(p.name for p in metric.params if p.name in names or p.symbol in expr.free_symbols)


def reads(metric: ir.Metric) -> Reads:
    """What ``metric``'s simplified formula reads, as ``INFO`` declares it."""
    return Reads(averaged_class_metric=averaged_class_metric(metric), only_trace=only_trace(metric.simplified),
                 reads_off_diagonal=reads_off_diagonal(metric.simplified), parameters_read=parameters_read(metric))
