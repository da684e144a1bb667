"""Emit one numpy module per metric, and the registry module ``generated/__init__.py``.

Kernels are printed from the simplified form after common-subexpression elimination; the
undefined mask is printed from the derived denominators. The Jinja2 templates lay out the
files, one template per level (:data:`SHAPES`); :mod:`metricc.compiler.emit.numpy_printer`
writes the expressions and records the runtime helpers they use, so a module imports
exactly the helpers its printed code and its template call.
"""

from __future__ import annotations

import math
import re
import textwrap
import unicodedata
from collections.abc import Callable, Mapping, Sequence
import dataclasses
from dataclasses import dataclass
from types import MappingProxyType

import jinja2
import sympy

from metricc.compiler.analysis import analyze
from metricc.compiler.emit import exact, group_by, numpy_gradient, row_ranks
from metricc.compiler.emit.numpy_gradient import GRADIENT_HELPERS
from metricc.compiler.emit.numpy_printer import WIDTH, NumpyPrinter, Printed, layout
from metricc.compiler.emit.text import plain
from metricc.compiler.errors import InternalError
from metricc.compiler.language import averaging, ir, symbols
from metricc.compiler.names import RUNTIME_NAMES, TERM_SEPARATOR

__all__ = ["SHAPES", "Shape", "emit_module", "emit_registry", "module_context", "python_string", "term_names"]

_ENVIRONMENT = jinja2.Environment(
    loader=jinja2.PackageLoader("metricc.compiler.emit", "templates"),
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=True,
    trim_blocks=True,
    lstrip_blocks=True,
    autoescape=False,
)


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


def _literal(value) -> str:
    """A one-line Python string literal of ``value``."""
    return '"' + python_string(str(value)).replace("\n", "\\n") + '"'


def _tuple(items: Sequence) -> str:
    """A literal tuple of strings: ``()``, ``("f_measure",)``, ``("a", "b")``."""
    codes = [_literal(item) for item in items]
    return "(" + ", ".join(codes) + ("," if len(codes) == 1 else "") + ")"


def _prose(text: str, indent: str, hanging: str | None = None) -> str:
    """Docstring text at ``indent``, each line filled to the module width."""
    lines = []
    for line in text.split("\n"):
        wrapped = textwrap.wrap(line, WIDTH, initial_indent=indent, subsequent_indent=hanging or indent,
                                break_long_words=False, break_on_hyphens=False)
        lines += wrapped or [""]
    return "\n".join(lines)


_ENVIRONMENT.filters.update(
    pystr=python_string,
    pyrepr=_literal,
    pytuple=_tuple,
    pyfloat=lambda value: {math.inf: "math.inf", -math.inf: "-math.inf"}.get(value, repr(float(value))),
    prose=_prose,
    layout=lambda code, head, tail="": "\n".join(layout(head, code, tail)),
    add_suffix=lambda name: f"{name}__gradient",
)


def _number(value: sympy.Expr) -> str:
    if value == sympy.oo:
        return "math.inf"
    if value == -sympy.oo:
        return "-math.inf"
    return repr(float(value))


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

    @property
    def params_dict(self) -> str:
        return "{" + ", ".join(f'"{p}": {p}' for p in self.params) + "}"


def _kernel(outputs: Sequence[sympy.Expr], names: dict, ranges: tuple[sympy.Symbol, ...] = (),
            params: Sequence[str] = (), bound: Sequence[str] = (), counts: Mapping[sympy.Basic, str] | None = None,
            values: int = 1, keep: str = "", prefix: str = "x") -> Kernel:
    """CSE over ``[value, *undefined]`` and print the result (``values``: how many leading
    outputs are values, returned as a tuple: the partials of a gradient).

    Sum limits must stay intact for the printer: ``ranges`` are further index bounds
    (samples, thresholds) that CSE must not pull out of them. ``bound``: metric parameters,
    whose kernels give their values and where they are undefined. ``counts``: the count
    atoms and their variables; differences of their products are computed exactly
    (:mod:`metricc.compiler.emit.exact`).
    """
    names = dict(names)
    printer = NumpyPrinter(names, sample_indices=symbols.N_TOTAL in ranges)
    lines = [f"    {name}_value, {name}_undefined = {name}(tp, fp, fn, tn)" for name in bound]
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
                  frozenset(printer.helpers), value[0].indices, frozenset(printer.arrays))


_DIAGONAL = sympy.IndexedBase("M_diagonal")


def _diagonal(expr: sympy.Expr) -> sympy.Expr:
    """``M[k, k]`` -> ``M_diagonal[k]``: a polynomial reading only the diagonal of the matrix
    gets an integer copy of the diagonal ``(..., C)``, not of the whole ``(..., C, C)`` stack."""
    return expr.replace(lambda e: isinstance(e, sympy.Indexed) and e.base == symbols.M and len(set(e.indices)) == 1,
                        lambda e: _DIAGONAL[e.indices[0]])


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
    sources = [f"{printer.use('diagonal')}(M)" if v == "M_diagonal" else v for v in variables]
    call = f"{printer.use('exact')}(lambda {exact.LARGEST}: {limit}, {', '.join(sources)})"
    lines = layout(f"    {target} = ", call)
    exact_printer = NumpyPrinter({a: Printed(f"{counts[a]}__exact") for a in counts})
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
        lines += layout(f"    {symbol} = ", f"{printer.use('real')}({printed.code})")
        printer.names[symbol] = Printed(str(symbol), printed.indices, printed.batched)
    printer.helpers |= exact_printer.helpers
    return lines


def _case_text(case: sympy.Expr) -> str:
    """``D = 0``, and for a guarded case ``D = 0 and TP != 0`` (its brackets ``[a = b]``)."""
    denominator, unequal = analyze.case_conditions(case)
    return " and ".join([plain(denominator) + " = 0", *(f"{plain(a)} != {plain(b)}" for a, b in unequal)])


def _zero_test(printed: Printed, printer: NumpyPrinter, keep: str = "") -> str:
    """Where a denominator vanishes, for some value of its free class indices; ``keep``: the
    class index of a per-class value, whose axis stays (length 1 if the denominator lacks it)."""
    if keep:
        reduced = [name for name in printed.indices if name != keep]
        if keep not in printed.indices:
            tested = _zero_test(printed, printer)
            return f"{printer.use('np')}.expand_dims({tested}, -1)"
        if not reduced:
            return f"({printed.code} == 0)"
        axes = [str(position - len(printed.indices)) for position, name in enumerate(printed.indices) if name != keep]
        axis = "(" + ", ".join(axes) + ("," if len(axes) == 1 else "") + ")"
        return f"{printer.use('np')}.any({printed.code} == 0, axis={axis})"
    if not printed.indices:
        return f"({printed.code} == 0)"
    axes = [str(-i) for i in range(len(printed.indices), 0, -1)]
    axis = "(" + ", ".join(axes) + ("," if len(axes) == 1 else "") + ")"
    return f"{printer.use('np')}.any({printed.code} == 0, axis={axis})"


_COUNT_NAMES = {symbols.TP: "tp", symbols.FP: "fp", symbols.FN: "fn", symbols.TN: "tn"}
_MATRIX_COUNTS = {symbols.M: "M", symbols.ROW_TOTAL: "t", symbols.COLUMN_TOTAL: "p", symbols.N_TOTAL: "n"}


def _class_kernel(expr: sympy.Expr, undefined: Sequence[sympy.Expr], params: Sequence[ir.Param]) -> Kernel:
    names = {s: Printed(code) for s, code in _COUNT_NAMES.items()}
    names.update({p.symbol: Printed(f"{p.name}_value" if p.kind == "metric" else p.name) for p in params})
    used = [p.name for p in params if expr.has(p.symbol) or any(u.has(p.symbol) for u in undefined)]
    bound = [p.name for p in params if p.kind == "metric" and p.name in used]
    return _kernel([expr, *undefined], names, params=used, bound=bound, counts=_COUNT_NAMES)


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


# -- one kernel builder per level: (metric, {term symbol: variable}) -> Kernel ----------------
def _class_level(metric: ir.Metric, terms: Mapping) -> Kernel:
    return _class_kernel(metric.simplified, metric.undefined, metric.params)


def _curve_level(metric: ir.Metric, terms: Mapping) -> Kernel:
    names = {symbols.CURVE_TOTALS["P"]: Printed("positives"), symbols.CURVE_TOTALS["N"]: Printed("negatives")}
    for name, base in symbols.CURVE_NAMES.items():
        names[base] = Printed(name.lower())
        names[sympy.IndexedBase(f"{name}_prev")] = Printed(f"{name.lower()}_prev")
    names.update(_scalar_names(metric))
    outputs = [_previous_points(e) for e in (metric.simplified, *metric.undefined)]
    used = [p.name for p in metric.params if any(o.has(p.symbol) for o in outputs)]
    return _kernel(outputs, names, ranges=(symbols.THRESHOLDS,), params=used)


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


def _score_level(metric: ir.Metric, terms: Mapping) -> Kernel:
    names = {symbols.SCORE: Printed("S"), symbols.TRUTH: Printed("Y"), symbols.N_TOTAL: Printed("n"),
             _RANKED: Printed("ranked__pairs")} | _scalar_names(metric)
    outputs = [e.replace(lambda x: _ranked_pairs(x) is not None, _ranked_pairs)
               for e in (metric.simplified, *metric.undefined)]
    ranked = row_ranks.rewrite(outputs, weights=metric.truth != "relevance")  # 0/1 weights sum exactly
    lines, helpers, arrays = [], set(), set()
    for row, by, counts in ranked.rows:  # one sort per row array, the counts read: S__above[s, k]...
        targets = ", ".join(str(base) for _, base in counts) if len(counts) > 1 else f"[{counts[0][1]}]"
        weights = f", {by}" if by else ""
        lines += layout(f"    {targets} = ", f"row_ranks({row}, {_tuple(count for count, _ in counts)}{weights})")
        names |= {base: Printed(str(base)) for _, base in counts}
        helpers.add("row_ranks")
        arrays.add((1, 1))
    grouped = group_by.rewrite(ranked.outputs)
    for number, stage in enumerate(group_by.hoist(grouped.vectors) if grouped.vectors else ()):
        vectors = _kernel([expr for _, expr in stage], names, ranges=(symbols.N_TOTAL,), values=len(stage),
                          prefix=f"grouped__x{number}_")
        targets = ", ".join(str(base) for base, _ in stage)
        lines += [*vectors.lines, *layout(f"    {targets} = ", vectors.value)]
        helpers |= vectors.helpers
        arrays |= vectors.arrays
        names |= {base: Printed(str(base)) for base, _ in stage}
    kernel = _kernel(grouped.outputs, names, ranges=(symbols.N_TOTAL,), keep=metric.per_class)
    if metric.per_class and kernel.indices != metric.per_class:
        raise InternalError(f"numpy emitter: the per-class value of {metric.id} has class axes {kernel.indices!r}, "
                            f"not {metric.per_class!r}")
    if any(o.has(_RANKED) for o in outputs):
        lines.insert(0, "    ranked__pairs = rank_pairs(Y, S)")
        helpers.add("rank_pairs")
        arrays.add((1, 1))
    return dataclasses.replace(kernel, lines=(*lines, *kernel.lines), helpers=kernel.helpers | helpers,
                               arrays=kernel.arrays | arrays)


def _scalar_names(metric: ir.Metric) -> dict:
    return {p.symbol: Printed(p.name, batched=False) for p in metric.params if p.kind == "scalar"}


def _aggregate_names(metric: ir.Metric, terms: Mapping) -> dict:
    return {symbol: Printed(name) for symbol, name in terms.items()} | _scalar_names(metric)


def _aggregate_level(metric: ir.Metric, terms: Mapping) -> Kernel:
    return _kernel([metric.simplified, *metric.undefined], _aggregate_names(metric, terms))


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


def _matrix_level(metric: ir.Metric, terms: Mapping) -> Kernel:
    kernel = _kernel([metric.simplified, *metric.undefined], _matrix_names(metric, terms), counts=_MATRIX_COUNTS,
                     keep=metric.per_class)
    if metric.per_class and kernel.indices != metric.per_class:
        raise InternalError(f"numpy emitter: the per-class value of {metric.id} has class axes {kernel.indices!r}, "
                            f"not {metric.per_class!r}")
    if metric.simplified.free_symbols <= {symbols.N_CLASSES} | set(_scalar_names(metric)):
        # A value of C alone (chi-squared's degrees of freedom) is one number per matrix of
        # the batch too, like every other matrix metric's.
        kernel = dataclasses.replace(kernel, value=f"np.broadcast_to({kernel.value}, np.shape(n))",
                                     helpers=kernel.helpers | {"np"})
    return kernel


_VALUE_NAMES = {"aggregate": _aggregate_names, "matrix": _matrix_names}


@dataclass(frozen=True)
class Shape:
    """What differs between the modules of one level: the template that lays the module out,
    the builder of its kernel, and the runtime helpers the template's own code calls."""

    template: str
    kernel: Callable[[ir.Metric, Mapping], Kernel]
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
_PER_CLASS_TEMPLATES: Mapping[str, str] = MappingProxyType({"matrix": "matrix_per_class.py.j2", "score": "score_per_class.py.j2"})
# Runtime helper that checks a parameter of each kind on entry.
_PARAM_HELPERS = MappingProxyType({"scalar": "scalar_param", "class_vector": "class_param", "class_matrix": "matrix_param",
                                   "metric": "metric_param"})
_COMPARISONS = {sympy.StrictLessThan: "<", sympy.LessThan: "<=", sympy.StrictGreaterThan: ">", sympy.GreaterThan: ">="}


def _param_info(param: ir.Param) -> dict:
    """A parameter's default, its entry check and its ``ParamInfo``, as code."""
    printer = NumpyPrinter({param.symbol: Printed(param.name)})
    tests = [f"({printer.code(r.lhs)} {_COMPARISONS[type(r)]} {printer.code(r.rhs)})" for r in param.domain]
    check = f"lambda {param.name}: " + " & ".join(tests) if tests else "None"
    domain = param.domain_text or "any real value"
    default_kernel = None
    if param.kind == "scalar":
        default = _number(param.default)
        call = f"scalar_param({_literal(param.name)}, {param.name}, {check}, {_literal(domain)})"
    elif param.kind == "metric":
        default, domain = _literal(param.reference), "a class-level metric id"
        call = f"metric_param({_literal(param.name)}, {param.name})"
    elif param.kind == "class_matrix":
        default, default_kernel = "None", _pairs_kernel(param.default)
        call = (f"matrix_param({_literal(param.name)}, {param.name}, C, _default_{param.name}, {check}, "
                f"{_literal(domain)})")
    else:
        default, default_kernel = "None", _class_kernel(param.default, (), ())
        call = (f"class_param({_literal(param.name)}, {param.name}, counts, _default_{param.name}, {check}, "
                f"{_literal(domain)})")
    description = f": {param.description}" if param.description else ""
    return {
        "name": param.name, "kind": param.kind, "default": default, "default_kernel": default_kernel, "call": call,
        "doc": f"Parameter `{param.name}` ({param.kind}, {domain}){description}",
        "info": f"ParamInfo({_literal(param.name)}, {_literal(param.kind)}, "
                f"{_literal(param.reference) if param.kind == 'class_matrix' else default}, {_literal(domain)})",
        "helpers": printer.helpers | {_PARAM_HELPERS[param.kind]} | (default_kernel.helpers if default_kernel else set()),
    }


def _pairs_kernel(default: sympy.Expr) -> Kernel:
    """The default of a class_matrix parameter as code of ``C``: an array over the pairs ``ij``."""
    printer = NumpyPrinter({})
    printed = printer.print(default)
    code = printed.code if printed.indices in ("", "ij") else f'{printer.use("align")}({printed.code}, "{printed.indices}", "ij")'
    return Kernel((), code, "False", (), frozenset(printer.helpers))


def _reads_entries(kernel: Kernel) -> bool:
    """True if the printed kernel reads the matrix ``M`` beyond its diagonal: the matrix is
    then needed as float64 (the runtime keeps integer matrices as int64 otherwise)."""
    code = "\n".join((*kernel.lines, kernel.value, kernel.undefined)).replace("diagonal(M)", "")
    return re.search(r"\bM\b", code) is not None


def _largest_arrays(arrays) -> str:
    """The ``(sample axes, class axes)`` of the arrays no other array exceeds on both counts,
    as a literal tuple: what the runtime's memory check sizes for the data at hand."""
    largest = sorted(a for a in arrays if not any(b != a and b[0] >= a[0] and b[1] >= a[1] for b in arrays))
    return "(" + ", ".join(f"({s}, {c})" for s, c in largest) + ("," if len(largest) == 1 else "") + ")"


def _pooled_reads(metric: ir.Metric) -> str:
    """The counts a class-level kernel reads, as a tuple literal, where it leaves one out
    (``("tp", "fp", "fn")`` for F1): micro averaging then need not refuse a pooled TN beyond
    2**53 that the value never reads. ``""`` where it reads all four, or where a metric or
    class-vector parameter (whose kernel or default reads the counts) is bound."""
    if metric.level != "class" or any(p.kind in ("metric", "class_vector") for p in metric.params):
        return ""
    read = set().union(*(e.free_symbols for e in (metric.simplified, *metric.undefined)))
    names = [name for symbol, name in _COUNT_NAMES.items() if symbol in read]
    return "" if len(names) == len(_COUNT_NAMES) else _tuple(names)


def module_context(metric: ir.Metric) -> dict:
    """What the level's template needs: the metric, its printed kernels and the imports."""
    level = getattr(metric.level, "value", metric.level)
    shape = SHAPES[level]
    names = term_names(metric)
    terms = [{"name": names[t.symbol], "mode": t.mode or "none", "weights": t.weights,
              "kernel": _class_kernel(t.simplified, t.undefined, metric.params)} for t in metric.terms]
    params = [_param_info(p) for p in metric.params]
    kernel = shape.kernel(metric, names)
    counts = bool(terms) or any(p.kind == "class_vector" for p in metric.params)
    helpers = set(shape.helpers | kernel.helpers).union(*(p["helpers"] for p in params), *(t["kernel"].helpers for t in terms))
    value_names = _VALUE_NAMES[level](metric, names) if level in _VALUE_NAMES else {}
    gradient = numpy_gradient.gradient_context(metric, value_names, _kernel, kernel.params,
                                               {t["name"]: t["kernel"].params for t in terms}, _MATRIX_COUNTS)
    gradient_helpers = gradient["helpers"] & GRADIENT_HELPERS if gradient else set()
    helpers |= (gradient["helpers"] - GRADIENT_HELPERS) if gradient else set()
    if terms:
        helpers.add("average_class_metric")
    if metric.per_class:  # averaged by the runtime, which also replaces the undefined values
        helpers = (helpers - {"finish"}) | {"average_class_values"}
    if counts and shape.counts:
        helpers.add(shape.counts)
    if not helpers | gradient_helpers <= RUNTIME_NAMES:
        raise InternalError(f"numpy emitter: {sorted((helpers | gradient_helpers) - RUNTIME_NAMES)} are not runtime helpers")
    return {
        "metric": metric,
        "level": level,
        "source": metric.source,
        "digest": metric.digest,
        "range": [_number(v) for v in metric.range],
        "params": params,
        "undefined_text": [_case_text(u) for u in metric.undefined],
        "conditioning_text": metric.conditioning.text if metric.conditioning else "",
        "simplified_text": plain(metric.simplified),
        "equivalences_text": [e.text(metric.id) for e in metric.equivalences if e.stated],
        "terms": terms,
        "per_instance": any(averaging.per_instance(t.mode) for t in metric.terms),
        "counts": counts,
        "class_params": _tuple(p.name for p in metric.params if p.kind == "class_vector"),
        "pooled_reads": _pooled_reads(metric),
        "kernel": kernel,
        "arrays": _largest_arrays(kernel.arrays),
        "elementwise": _reads_entries(kernel),
        "whole_counts": metric.whole_counts,
        "imports": sorted(helpers),
        "registry_imports": sorted({"MetricInfo"} | ({"ParamInfo"} if params else set())
                                   | ({"Band", "Scale"} if metric.interpretation else set())),
        "scales": metric.interpretation,
        "gradient": gradient,
        "gradient_imports": sorted(gradient_helpers),
    }


def emit_module(metric: ir.Metric) -> str:
    """The source of ``generated/<id>.py``, importing only the runtime helpers it uses."""
    context = module_context(metric)
    template = _PER_CLASS_TEMPLATES[context["level"]] if metric.per_class else SHAPES[context["level"]].template
    return _ENVIRONMENT.get_template(template).render(context)


def emit_registry(metrics: Mapping[str, ir.Metric]) -> str:
    """The source of ``generated/__init__.py``: every metric and its metadata."""
    return _ENVIRONMENT.get_template("registry.py.j2").render(metrics=list(metrics.values()))
