"""What differs between the numpy modules of the five levels (:data:`SHAPES`): the template
that lays a module out, the builder of its value kernel, the runtime helpers the template calls.

Each builder takes the metric and its terms' variables (:func:`term_names`) and returns the
printed :class:`~.numpy_kernel.Kernel`; the score level rewrites its formulas first (ranked
pairs, row ranks, group-by sums) so that no array holds more than the data needs.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import sympy

from metricc.compiler.emit import gather, group_by, numpy_kernel, row_ranks
from metricc.compiler.emit.numpy_printer import NumpyPrinter, Printed, layout
from metricc.compiler.errors import InternalError
from metricc.compiler.language import ir, symbols
from metricc.compiler.names import TERM_SEPARATOR

__all__ = ["PER_CLASS_TEMPLATES", "SHAPES", "Shape", "VALUE_NAMES", "literal", "literal_tuple", "python_string",
           "term_names"]


def python_string(text: str) -> str:
    """A double-quoted Python literal body for ``text``: no spec text can end the string."""
    out = []
    for char in text:
        if char == "\\":
            out.append("\\\\")
        elif char == '"':
            out.append('\\"')
        elif char == "\n":
            out.append("\n")
        elif char.isprintable() and unicodedata.category(char) not in ("Cf", "Zl", "Zp"):
            out.append(char)
        else:
            out.append(f"\\u{ord(char):04x}" if ord(char) < 0x10000 else f"\\U{ord(char):08x}")
    return "".join(out)


def literal(value) -> str:
    """A one-line Python string literal of ``value``."""
    return '"' + python_string(str(value)).replace("\n", "\\n") + '"'


def literal_tuple(items: Sequence) -> str:
    """A literal tuple of strings: ``()``, ``("f_measure",)``, ``("a", "b")``."""
    codes = [literal(item) for item in items]
    return "(" + ", ".join(codes) + ("," if len(codes) == 1 else "") + ")"


def _previous_points(expr: sympy.Expr) -> sympy.Expr:
    """``TP[i - 1]`` -> ``TP_prev[i]``: the kernel gets the previous points as their own arrays."""
    previous = {e: sympy.IndexedBase(f"{e.base.label}_prev")[e.indices[0] + 1]
                for e in expr.atoms(sympy.Indexed)
                if str(e.base.label) in symbols.CURVE_NAMES and not e.indices[0].is_Symbol}
    return expr.xreplace(previous)


def _python_name(term: ir.Term) -> str:
    """The term's variable in generated code, from its IR fields (never from its symbol's
    name): ``macro__f_beta__beta_2``, ``weighted_by_relevance__recall``, ``class__recall``.
    Spec names cannot contain the separator (``names.python_clash``), so these never clash
    with ids or parameters."""
    suffix = "".join(f"{TERM_SEPARATOR}{k}_{v}" for k, v in term.bindings)
    suffix = re.sub(r"\W", "_", suffix.replace("/", "_").replace("-", "m").replace(".", "p"))
    mode = f"{term.mode}_by_{term.weights}" if term.weights else term.mode or "class"
    return f"{mode}{TERM_SEPARATOR}{term.metric}{suffix}"


def term_names(metric: ir.Metric) -> dict[sympy.Basic, str]:
    """``{term symbol: Python variable}`` for the terms of an aggregate or matrix formula.

    The readable name is lossy (``beta=2*pi`` and ``beta=2/pi`` both read ``beta_2_pi``):
    distinct terms that would share one get numbered suffixes, in term order, so a name
    never stands for two terms.
    """
    readable = [_python_name(term) for term in metric.terms]
    taken = set(readable)
    names: dict[sympy.Basic, str] = {}
    for term, name in zip(metric.terms, readable):
        if name in names.values():
            number = 2
            while f"{name}{TERM_SEPARATOR}{number}" in taken:
                number += 1
            name = f"{name}{TERM_SEPARATOR}{number}"
            taken.add(name)
        names[term.symbol] = name
    return names


# -- one kernel builder per level: (metric, {term symbol: variable}, printer class) -> Kernel ----
def _class_level(metric: ir.Metric, terms: Mapping, printer: type[NumpyPrinter] = NumpyPrinter) -> numpy_kernel.Kernel:
    return numpy_kernel.class_kernel(metric.simplified, metric.undefined, metric.params, printer)


def _curve_level(metric: ir.Metric, terms: Mapping, printer: type[NumpyPrinter] = NumpyPrinter) -> numpy_kernel.Kernel:
    names = {symbols.CURVE_TOTALS["P"]: Printed("positives"), symbols.CURVE_TOTALS["N"]: Printed("negatives")}
    for name, base in symbols.CURVE_NAMES.items():
        names[base] = Printed(name.lower())
        names[sympy.IndexedBase(f"{name}_prev")] = Printed(f"{name.lower()}_prev")
    names.update(_scalar_names(metric))
    outputs = [_previous_points(e) for e in (metric.simplified, *metric.undefined)]
    used = [p.name for p in metric.params if any(o.has(p.symbol) for o in outputs)]
    return numpy_kernel.kernel(outputs, names, ranges=(symbols.THRESHOLDS,), params=used, printer=printer)


_RANKED = sympy.IndexedBase("ranked__pairs")


def _ranked_pairs(expr: sympy.Basic):
    """``Sum(step(S[a, j] - S[b, j]) * Y[a, j] * Y[b, k], (a, b))`` over all samples -> the
    entry ``[j, k]`` of the pairwise rank sums; anything else -> None. Broadcast over the pairs
    of samples it needs O(n^2 C^2) memory; the runtime's ``rank_pairs`` sorts instead."""
    if not isinstance(expr, sympy.Sum) or len(expr.limits) != 2:
        return None
    every_sample = (0, symbols.N_TOTAL - 1)
    if any(tuple(limit[1:]) != every_sample for limit in expr.limits):
        return None
    factors = sympy.Mul.make_args(expr.function)
    steps = [f for f in factors if isinstance(f, symbols.step)]
    truths = [f for f in factors if isinstance(f, sympy.Indexed) and f.base == symbols.TRUTH]
    if len(factors) != 3 or len(steps) != 1 or len(truths) != 2:
        return None
    samples = {limit[0] for limit in expr.limits}
    for above, below in (truths, truths[::-1]):
        (a, j), (b, k) = above.indices, below.indices
        if {a, b} == samples and a != b and steps[0].args[0] == symbols.SCORE[a, j] - symbols.SCORE[b, j]:
            return _RANKED[j, k]
    return None


def _score_level(metric: ir.Metric, terms: Mapping, printer: type[NumpyPrinter] = NumpyPrinter) -> numpy_kernel.Kernel:
    names = {symbols.SCORE: Printed("S"), symbols.TRUTH: Printed("Y"), symbols.N_TOTAL: Printed("n"),
             _RANKED: Printed("ranked__pairs"), gather.TRUE_CLASS: Printed("Y__class")} | _scalar_names(metric)
    outputs = [e.replace(lambda x: _ranked_pairs(x) is not None, _ranked_pairs)
               for e in (metric.simplified, *metric.undefined)]
    one_label = metric.truth == "labels"  # the template hands over the true classes Y__class, not Y
    if one_label:
        outputs = gather.rewrite(outputs)
    ranked = row_ranks.rewrite(outputs, weights=metric.truth != "relevance")  # 0/1 weights sum exactly
    outputs = gather.at_top(ranked.outputs) if one_label else ranked.outputs  # a top label's sums: its argmax
    lines, arrays, rows = [], set(), row_ranks.rows_read(outputs)
    space = printer({})  # writes the level's own statements in the namespace
    for row, by, counts in rows:  # one sort per row array, the counts read: S__above[s, k]...
        targets = ", ".join(str(base) for _, base in counts) if len(counts) > 1 else f"[{counts[0][1]}]"
        lines += layout(f"    {targets} = ", space.call("row_ranks", row, literal_tuple(count for count, _ in counts),
                                                          *([by] if by else [])))
        names |= {base: Printed(str(base)) for _, base in counts}
        arrays.add((1, 1))
    for row, argmax, maximum in gather.top_bases(outputs):  # the first maximum of each row: one argmax, no sort
        lines.append(f"    {argmax} = {space.function('argmax', row, 'axis=-1')}")
        names[argmax] = Printed(str(argmax))
        if maximum is not None:
            lines.append(f"    {maximum} = {space.row_take(row, str(argmax))}")
            names[maximum] = Printed(str(maximum))
        arrays.add((1, 0))
    outputs = gather.rewrite(outputs) if one_label else outputs
    for row, base in gather.gathered_bases(outputs) if one_label else ():  # after the ranks they may gather
        lines.append(f"    {base} = {space.row_take(row, 'Y__class')}")
        names[base] = Printed(str(base))
        arrays.add((1, 0))
    for column, base in gather.column_bases(outputs) if one_label else ():  # a fixed class: one column, a view
        lines.append(f"    {base} = S[:, {column}]")
        names[base] = Printed(str(base))
    others = gather.other_bases(outputs) if one_label else ()
    if others:  # the first maximum among the other classes: a masked argmax, no sort
        lines.append(f"    Y__other = {space.call('first_max_other', 'S', 'Y__class')}")
        names[gather.OTHER_CLASS] = Printed("Y__other")
    for row, base in others:
        lines += layout(f"    {base} = ", space.row_take(row, "Y__other"))
        names[base] = Printed(str(base))
        arrays.add((1, 0))
    for count, base in gather.true_counts(outputs) if one_label else ():  # a row against its true score: one pass
        compared = gather.TRUE_COUNTS[count].format(classes=space.function("arange", "C"))
        lines += layout(f"    {base} = ", space.function("count_nonzero", compared, "axis=-1"))
        names[base] = Printed(str(base))
        arrays.add((1, 1))
    one_hot = one_label and (metric.per_class or any(o.has(symbols.TRUTH) or o.has(_RANKED) for o in outputs)
                             or any("Y" in (row, by) for row, by, _ in rows))
    grouped = group_by.rewrite(outputs)
    for number, stage in enumerate(group_by.hoist(grouped.vectors) if grouped.vectors else ()):
        vectors = numpy_kernel.kernel([expr for _, expr in stage], names, ranges=(symbols.N_TOTAL,),
                                      values=len(stage), prefix=f"grouped__x{number}_", printer=printer)
        targets = ", ".join(str(base) for base, _ in stage)
        lines += [*vectors.lines, *layout(f"    {targets} = ", vectors.value)]
        space.helpers |= vectors.helpers
        arrays |= vectors.arrays
        names |= {base: Printed(str(base)) for base, _ in stage}
    kernel = numpy_kernel.kernel(grouped.outputs, names, ranges=(symbols.N_TOTAL,), keep=metric.per_class,
                                 printer=printer)
    if metric.per_class and kernel.indices != metric.per_class:
        raise InternalError(f"numpy emitter: the per-class value of {metric.id} has class axes {kernel.indices!r}, "
                            f"not {metric.per_class!r}")
    if any(o.has(_RANKED) for o in outputs):
        lines.insert(0, f"    ranked__pairs = {space.call('rank_pairs', 'Y', 'S')}")
        arrays.add((1, 1))
    if one_hot:  # a kernel that reads the truth matrix itself builds it from the classes
        lines[:0] = space.one_hot()
    return dataclasses.replace(kernel, lines=(*lines, *kernel.lines), helpers=kernel.helpers | space.helpers,
                               arrays=kernel.arrays | arrays)


def _scalar_names(metric: ir.Metric) -> dict:
    return {p.symbol: Printed(p.name, batched=False) for p in metric.params if p.kind == "scalar"}


def _aggregate_names(metric: ir.Metric, terms: Mapping) -> dict:
    return {symbol: Printed(name) for symbol, name in terms.items()} | _scalar_names(metric)


def _aggregate_level(metric: ir.Metric, terms: Mapping, printer: type[NumpyPrinter] = NumpyPrinter) -> numpy_kernel.Kernel:
    return numpy_kernel.kernel([metric.simplified, *metric.undefined], _aggregate_names(metric, terms), printer=printer)


def _matrix_names(metric: ir.Metric, terms: Mapping) -> dict:
    names: dict = {
        symbols.M: Printed("M"),
        symbols.ROW_TOTAL: Printed("t"),
        symbols.COLUMN_TOTAL: Printed("p"),
        symbols.N_TOTAL: Printed("n"),
    }
    names.update({symbol: Printed(name) for symbol, name in terms.items()})
    names.update({sympy.IndexedBase(p.name): Printed(p.name) for p in metric.params if p.kind != "scalar"})
    names.update(_scalar_names(metric))
    return names


def _matrix_level(metric: ir.Metric, terms: Mapping, printer: type[NumpyPrinter] = NumpyPrinter) -> numpy_kernel.Kernel:
    kernel = numpy_kernel.kernel([metric.simplified, *metric.undefined], _matrix_names(metric, terms),
                                 counts=numpy_kernel.MATRIX_COUNTS, keep=metric.per_class, printer=printer)
    if metric.per_class and kernel.indices != metric.per_class:
        raise InternalError(f"numpy emitter: the per-class value of {metric.id} has class axes {kernel.indices!r}, "
                            f"not {metric.per_class!r}")
    if metric.simplified.free_symbols <= {symbols.N_CLASSES} | set(_scalar_names(metric)):
        # A value of C alone (chi-squared's degrees of freedom) is one number per matrix of
        # the batch too, like every other matrix metric's.
        space = printer({})
        value = space.function("broadcast_to", kernel.value, space.function("shape", "n"))
        kernel = dataclasses.replace(kernel, value=value, helpers=kernel.helpers | space.helpers)
    return kernel


VALUE_NAMES = {"aggregate": _aggregate_names, "matrix": _matrix_names}


@dataclass(frozen=True)
class Shape:
    """What differs between the modules of one level: the template that lays the module out,
    the builder of its kernel, and the runtime helpers the template's own code calls."""

    template: str
    kernel: Callable[..., numpy_kernel.Kernel]  # (metric, {term symbol: variable}, printer class)
    helpers: frozenset[str]
    counts: str | None = None  # helper deriving per-class counts, when terms or class parameters need them


# Keyed by the level's value, so that a str-valued Level enum and a plain string both find their row.
SHAPES: Mapping[str, Shape] = MappingProxyType({
    "class": Shape("class.py.j2", _class_level, frozenset({"average_class_metric", "check_counts"})),
    "aggregate": Shape("aggregate.py.j2", _aggregate_level, frozenset({"check_counts", "finish"})),
    "matrix": Shape("matrix.py.j2", _matrix_level, frozenset({"matrix_terms", "finish"}), "matrix_counts"),
    "curve": Shape("curve.py.j2", _curve_level, frozenset({"average_curve_metric", "score_curves"})),
    "score": Shape("score.py.j2", _score_level, frozenset({"check_score_memory", "check_scores", "finish", "np"})),
})
# The template of a level's formulas that declare a class index (per_class: j): one value per class.
PER_CLASS_TEMPLATES: Mapping[str, str] = MappingProxyType({"matrix": "matrix_per_class.py.j2", "score": "score_per_class.py.j2"})
