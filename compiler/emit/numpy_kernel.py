"""Print one kernel: the assignment lines, value and undefined mask of a set of formulas.

Common subexpressions are pulled out first (``sympy.cse``); differences of products of counts
are computed exactly (:mod:`metricc.compiler.emit.exact`); the undefined mask tests the
printed denominators. Every level's kernel builder (:mod:`.numpy_levels`) and the gradient's
(:mod:`.numpy_gradient`) print through :func:`kernel`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import sympy

from metricc.compiler.emit import exact
from metricc.compiler.emit.numpy_printer import NumpyPrinter, Printed, layout
from metricc.compiler.language import ir, symbols

__all__ = ["COUNT_NAMES", "MATRIX_COUNTS", "Kernel", "class_kernel", "kernel"]


@dataclass(frozen=True)
class Kernel:
    """Printed code of one kernel: assignment lines, the value and undefined-mask expressions,
    the parameters it takes and the runtime helpers its code calls."""

    lines: tuple[str, ...]
    value: str
    undefined: str
    params: tuple[str, ...] = ()
    helpers: frozenset[str] = frozenset()
    indices: str = ""  # free class indices of the (first) value
    arrays: frozenset[tuple[int, int]] = frozenset()  # score level: (sample axes, class axes) of each array
    # Reads the matrix M beyond its diagonal: the runtime then hands it over as float64 (it
    # keeps integer matrices as int64 otherwise).
    reads_entries: bool = False
    reads_terms: bool = False  # reads the matrix's prepared terms (TERMS_DIAGONAL, exact parts)

    @property
    def params_dict(self) -> str:
        return "{" + ", ".join(f'"{p}": {p}' for p in self.params) + "}"


def kernel(outputs: Sequence[sympy.Expr], names: dict, ranges: tuple[sympy.Symbol, ...] = (),
           params: Sequence[str] = (), bound: Sequence[str] = (), counts: Mapping[sympy.Basic, str] | None = None,
           values: int = 1, keep: str = "", prefix: str = "x", printer: type[NumpyPrinter] = NumpyPrinter) -> Kernel:
    """CSE over ``[value, *undefined]`` and print the result (``values``: how many leading
    outputs are values, returned as a tuple: the partials of a gradient).

    Sum limits must stay intact for the printer: ``ranges`` are further index bounds
    (samples, thresholds) that CSE must not pull out of them. ``bound``: metric parameters,
    whose kernels give their values and where they are undefined. ``counts``: the count
    atoms and their variables; differences of their products are computed exactly
    (:mod:`metricc.compiler.emit.exact`). ``printer``: the printer class of the target's namespace.
    """
    names = dict(names)
    entries = any(_off_diagonal(output) for output in outputs)
    if counts and symbols.M in counts:  # the matrix's diagonal, gathered once by its MatrixTerms
        names.update({atom: Printed(TERMS_DIAGONAL, str(atom.indices[0])) for atom in _diagonal_entries(outputs)})
    printer = printer(names, sample_indices=symbols.N_TOTAL in ranges)
    lines, parts = [f"    {name}_value, {name}_undefined = {name}(tp, fp, fn, tn)" for name in bound], []
    if counts:
        outputs, parts = exact.split([exact.rearrange(o, set(counts)) for o in outputs], set(counts))
        lines += _exact_lines(parts, counts, printer, ranges)
    replacements, reduced = sympy.cse(
        list(outputs), symbols=sympy.numbered_symbols(prefix), order="canonical",
        ignore=(symbols.N_CLASSES, *ranges, *(printer.loop_indices(outputs) if printer.sample_indices else ())),
    )
    for symbol, expr in replacements:
        printed = printer.print(expr)
        lines += layout(f"    {symbol} = ", printed.code)
        names[symbol] = Printed(str(symbol), printed.indices, printed.batched)
    printed = [printer.print(expr) for expr in reduced]
    value, undefined = printed[:values], printed[values:]
    tests = [_zero_test(p, printer, keep) for p in undefined] + [f"{name}_undefined" for name in bound]
    return Kernel(tuple(lines), ", ".join(v.code for v in value), " | ".join(tests) or "False", tuple(params),
                  frozenset(printer.helpers), value[0].indices, frozenset(printer.arrays), entries,
                  bool(counts and symbols.M in counts and (parts or _diagonal_entries(outputs))))


# How generated matrix-level code reads the float64 diagonal of the matrix: its ``terms``
# (runtime MatrixTerms) gathered it once for every metric of the call.
TERMS_DIAGONAL = "terms.diagonal"


def _diagonal_entry(atom: sympy.Indexed) -> bool:
    """Whether ``atom`` is an entry ``M[k, k]`` of the matrix's diagonal."""
    return atom.base == symbols.M and len(atom.indices) == 2 and atom.indices[0] == atom.indices[1]


def _diagonal_entries(outputs) -> set[sympy.Indexed]:
    return {atom for output in outputs for atom in output.atoms(sympy.Indexed) if _diagonal_entry(atom)}


def _off_diagonal(expr: sympy.Expr) -> bool:
    """Whether ``expr`` reads an entry ``M[i, j]`` of the matrix at two different indices."""
    return any(atom.base == symbols.M and len(set(atom.indices)) > 1 for atom in expr.atoms(sympy.Indexed))


_DIAGONAL = sympy.IndexedBase("M_diagonal")


def _diagonal(expr: sympy.Expr) -> sympy.Expr:
    """``M[k, k]`` -> ``M_diagonal[k]``: a polynomial reading only the diagonal of the matrix
    gets an integer copy of the diagonal ``(..., C)``, not of the whole ``(..., C, C)`` stack."""
    return expr.replace(lambda e: isinstance(e, sympy.Indexed) and _diagonal_entry(e), lambda e: _DIAGONAL[e.indices[0]])


def _exact_lines(parts, counts: Mapping[sympy.Basic, str], printer: NumpyPrinter, ranges) -> list[str]:
    """Lines computing each exact part from integer copies of the counts it reads, then
    rounding it to float64 once; ``printer`` learns the parts' variables."""
    if not parts:
        return []
    polynomials = [_diagonal(expr) for _, expr in parts]
    counts = {**counts, _DIAGONAL: "M_diagonal"}
    read = set().union(*(exact.exact_atoms(expr, counts) for expr in polynomials))
    variables = sorted(counts[a] for a in read)
    copies = [f"{v}__exact" for v in variables]
    limit = sympy.sstr(sympy.Add(*(exact.bound(expr, counts) for expr in polynomials)))
    target = ", ".join(copies) if len(copies) > 1 else f"[{copies[0]}]"
    sources = [TERMS_DIAGONAL if v == "M_diagonal" else v for v in variables]
    of_terms = ["terms=terms"] if symbols.M in counts else []  # totals of the matrix: whole, with integer twins
    call = printer.call("exact", f"lambda {exact.LARGEST}: {limit}", *sources, *of_terms)
    lines = layout(f"    {target} = ", call)
    exact_printer = type(printer)({a: Printed(f"{counts[a]}__exact") for a in counts})
    replacements, reduced = sympy.cse(
        polynomials, symbols=sympy.numbered_symbols("exact__y"), order="canonical",
        ignore=(symbols.N_CLASSES, *ranges),
    )
    for symbol, expr in replacements:
        printed = exact_printer.print(expr)
        lines += layout(f"    {symbol} = ", printed.code)
        exact_printer.names[symbol] = Printed(str(symbol), printed.indices, printed.batched)
    for (symbol, _), expr in zip(parts, reduced):
        printed = exact_printer.print(expr)
        lines += layout(f"    {symbol} = ", printer.call("real", printed.code))
        printer.names[symbol] = Printed(str(symbol), printed.indices, printed.batched)
    printer.helpers |= exact_printer.helpers
    return lines


def _zero_test(printed: Printed, printer: NumpyPrinter, keep: str = "") -> str:
    """Where a denominator vanishes, for some value of its free class indices; ``keep``: the
    class index of a per-class value, whose axis stays (length 1 if the denominator lacks it)."""
    if keep:
        reduced = [name for name in printed.indices if name != keep]
        if keep not in printed.indices:
            tested = _zero_test(printed, printer)
            return printer.function("expand_dims", tested, "-1")
        if not reduced:
            return f"({printed.code} == 0)"
        axes = [str(position - len(printed.indices)) for position, name in enumerate(printed.indices) if name != keep]
        axis = "(" + ", ".join(axes) + ("," if len(axes) == 1 else "") + ")"
        return printer.function("any", f"{printed.code} == 0", f"axis={axis}")
    if not printed.indices:
        return f"({printed.code} == 0)"
    axes = [str(-i) for i in range(len(printed.indices), 0, -1)]
    axis = "(" + ", ".join(axes) + ("," if len(axes) == 1 else "") + ")"
    return printer.function("any", f"{printed.code} == 0", f"axis={axis}")


COUNT_NAMES = {symbols.TP: "tp", symbols.FP: "fp", symbols.FN: "fn", symbols.TN: "tn"}
MATRIX_COUNTS = {symbols.M: "M", symbols.ROW_TOTAL: "t", symbols.COLUMN_TOTAL: "p", symbols.N_TOTAL: "n"}


def class_kernel(expr: sympy.Expr, undefined: Sequence[sympy.Expr], params: Sequence[ir.Param],
                 printer: type[NumpyPrinter] = NumpyPrinter) -> Kernel:
    """The kernel of a per-class formula over the four counts (a class-level metric, a term,
    a class_vector parameter's default): it takes the parameters it reads."""
    names = {s: Printed(code) for s, code in COUNT_NAMES.items()}
    names.update({p.symbol: Printed(f"{p.name}_value" if p.kind == "metric" else p.name) for p in params})
    used = [p.name for p in params if expr.has(p.symbol) or any(u.has(p.symbol) for u in undefined)]
    bound = [p.name for p in params if p.kind == "metric" and p.name in used]
    return kernel([expr, *undefined], names, params=used, bound=bound, counts=COUNT_NAMES, printer=printer)
