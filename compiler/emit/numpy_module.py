"""Emit one numpy module per metric, and the registry module ``generated/__init__.py``.

Kernels are printed from the simplified form after common-subexpression elimination
(:mod:`.numpy_kernel`); the undefined mask is printed from the derived denominators. The Jinja2
templates lay out the files, one template per level (:data:`.numpy_levels.SHAPES`), from a
typed :class:`ModuleContext`; :mod:`.numpy_printer` writes the expressions and records the
runtime helpers they use, so a module imports exactly the helpers its printed code and its
template call. :data:`TARGET` is this output in the build's list (:mod:`.targets`).
"""

from __future__ import annotations

import dataclasses
import math
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import jinja2
import sympy

from metricc.compiler.analysis import analyze, homogeneity, reads
from metricc.compiler.emit import numpy_gradient
from metricc.compiler.emit.numpy_gradient import GRADIENT_HELPERS
from metricc.compiler.emit.numpy_kernel import COUNT_NAMES, MATRIX_COUNTS, Kernel, class_kernel
from metricc.compiler.emit.numpy_levels import (PER_CLASS_TEMPLATES, SHAPES, VALUE_NAMES, Shape, literal,
                                                literal_tuple, python_string, term_names)
from metricc.compiler.emit.numpy_printer import WIDTH, NumpyPrinter, Printed, layout
from metricc.compiler.emit.target import GENERATED, Target
from metricc.compiler.emit.text import plain
from metricc.compiler.errors import InternalError
from metricc.compiler.language import averaging, ir, levels
from metricc.compiler.names import RUNTIME_NAMES

__all__ = ["SHAPES", "TARGET", "ModuleContext", "ParamCode", "Shape", "TermCode", "emit_module", "emit_registry",
           "module_context", "param_code", "python_string", "term_names"]

_ENVIRONMENT = jinja2.Environment(
    loader=jinja2.PackageLoader("metricc.compiler.emit", "templates"),
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=True,
    trim_blocks=True,
    lstrip_blocks=True,
    autoescape=False,
)


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
    pyrepr=literal,
    pytuple=literal_tuple,
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


def _case_text(case: sympy.Expr) -> str:
    """``D = 0``, and for a guarded case ``D = 0 and TP != 0`` (its brackets ``[a = b]``)."""
    denominator, unequal = analyze.case_conditions(case)
    zero = [plain(denominator) + " = 0"] if denominator != 0 else []  # xlogy(x, 0): x != 0 alone
    return " and ".join([*zero, *(f"{plain(a)} != {plain(b)}" for a, b in unequal)])


@dataclass(frozen=True)
class ParamCode:
    """A parameter as its module writes it: the default, the entry check (``call``), the
    docstring line, its ``ParamInfo`` and the runtime helpers these call."""

    name: str
    kind: str
    default: str
    default_kernel: Kernel | None  # a class_vector or class_matrix default computed from the data
    call: str
    doc: str
    info: str
    helpers: frozenset[str]


@dataclass(frozen=True)
class TermCode:
    """An averaged term of an aggregate or matrix formula: its variable and per-class kernel."""

    name: str
    mode: str
    weights: str | None
    kernel: Kernel


@dataclass(frozen=True)
class ModuleContext:
    """Everything the level's template reads, each field one template variable."""

    metric: ir.Metric
    level: str
    source: str
    digest: str
    range: list[str]
    params: list[ParamCode]
    undefined_text: list[str]
    conditioning_text: str
    simplified_text: str
    equivalences_text: list[str]
    terms: list[TermCode]
    per_instance: bool
    counts: bool  # the module derives per-class counts (terms or class parameters read them)
    class_params: str
    pooled_reads: str
    kernel: Kernel
    arrays: str
    elementwise: bool
    whole_counts: bool
    rescaled: bool  # degree 0 in the counts (gains): tiny counts, huge or tiny gains are scaled by a power of two first
    imports: list[str]
    registry_imports: list[str]
    scales: tuple  # the metric's interpretation scales (INFO's bands)
    gradient: numpy_gradient.GradientCode | None
    gradient_imports: list[str]
    leaves_domains: bool  # the public functions run under the errstate of ERRSTATE
    reads: reads.Reads  # what the formula reads (INFO's fields for consistent's bounds)
    fused_terms: bool  # an aggregate whose formula evaluate's plan applies to its terms (api/evaluate_plan.py)

    @property
    def template(self) -> str:
        return PER_CLASS_TEMPLATES[self.level] if self.metric.per_class else SHAPES[self.level].template

    def variables(self) -> dict:
        """The template's variables (a shallow dict: kernels stay objects)."""
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}


# Runtime helper that checks a parameter of each kind on entry.
_PARAM_HELPERS = MappingProxyType({"scalar": "scalar_param", "class_vector": "class_param", "class_matrix": "matrix_param",
                                   "metric": "metric_param"})
_COMPARISONS = {sympy.StrictLessThan: "<", sympy.LessThan: "<=", sympy.StrictGreaterThan: ">", sympy.GreaterThan: ">="}


def param_code(param: ir.Param, namespace: type[NumpyPrinter] = NumpyPrinter) -> ParamCode:
    """A parameter's default, its entry check and its ``ParamInfo``, as code; the default
    computed from the data in ``namespace``'s code, the check (of the caller's numbers, on the host) in numpy's."""
    printer = NumpyPrinter({param.symbol: Printed(param.name)})
    tests = [f"({printer.code(r.lhs)} {_COMPARISONS[type(r)]} {printer.code(r.rhs)})" for r in param.domain]
    check = f"lambda {param.name}: " + " & ".join(tests) if tests else "None"
    domain = param.domain_text or "any real value"
    default_kernel = None
    if param.kind == "scalar":
        default = _number(param.default)
        call = f"scalar_param({literal(param.name)}, {param.name}, {check}, {literal(domain)})"
    elif param.kind == "metric":
        default, domain = literal(param.reference), "a class-level metric id"
        call = f"metric_param({literal(param.name)}, {param.name})"
    elif param.kind == "class_matrix":
        default, default_kernel = "None", _pairs_kernel(param.default, namespace)
        call = namespace({}).call("matrix_param", literal(param.name), param.name, "C", f"_default_{param.name}", check,
                                  literal(domain))
    else:
        default, default_kernel = "None", class_kernel(param.default, (), (), namespace)
        call = (f"class_param({literal(param.name)}, {param.name}, counts, _default_{param.name}, {check}, "
                f"{literal(domain)})")
    description = f": {param.description}" if param.description else ""
    return ParamCode(
        name=param.name, kind=param.kind, default=default, default_kernel=default_kernel, call=call,
        doc=f"Parameter `{param.name}` ({param.kind}, {domain}){description}",
        info=f"ParamInfo({literal(param.name)}, {literal(param.kind)}, "
             f"{literal(param.reference) if param.kind == 'class_matrix' else default}, {literal(domain)})",
        helpers=frozenset(printer.helpers | {_PARAM_HELPERS[param.kind]}
                          | (default_kernel.helpers if default_kernel else set())),
    )


def _pairs_kernel(default: sympy.Expr, namespace: type[NumpyPrinter]) -> Kernel:
    """The default of a class_matrix parameter as code of ``C``: an array over the pairs ``ij``."""
    printer = namespace({})
    printed = printer.print(default)
    code = printed.code if printed.indices in ("", "ij") else printer.call("align", printed.code, f'"{printed.indices}"', '"ij"')
    return Kernel((), code, "False", (), frozenset(printer.helpers))


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
    if not levels.rules(metric.level).per_class or any(p.kind in ("metric", "class_vector") for p in metric.params):
        return ""
    read = set().union(*(e.free_symbols for e in (metric.simplified, *metric.undefined)))
    names = [name for symbol, name in COUNT_NAMES.items() if symbol in read]
    return "" if len(names) == len(COUNT_NAMES) else literal_tuple(names)


def _imports(metric: ir.Metric, shape: Shape, kernel: Kernel, params, terms, gradient: numpy_gradient.GradientCode | None,
             counts: bool) -> tuple[set[str], set[str]]:
    """The runtime helpers the module imports from the kernel package and from its gradient
    module: what every printed kernel recorded, what the level's template calls, and what the
    template calls for terms, per-class values and per-class counts."""
    helpers = set(shape.helpers | kernel.helpers).union(*(p.helpers for p in params), *(t.kernel.helpers for t in terms))
    gradient_helpers = set(gradient.helpers & GRADIENT_HELPERS) if gradient else set()
    helpers |= (gradient.helpers - GRADIENT_HELPERS) if gradient else set()
    if terms:
        helpers.add("average_class_metric")
    if metric.per_class:  # averaged by the runtime, which also replaces the undefined values
        helpers = (helpers - {"finish"}) | {"average_class_values"}
    if counts and shape.counts:
        helpers.add(shape.counts)
    if "matrix_terms" in helpers:  # the template reads the matrix once (read_matrix), then its terms
        helpers.add("read_matrix")
    if not helpers | gradient_helpers <= RUNTIME_NAMES:
        raise InternalError(f"numpy emitter: {sorted((helpers | gradient_helpers) - RUNTIME_NAMES)} are not runtime helpers")
    return helpers, gradient_helpers


def _leaves_domains(metric: ir.Metric) -> bool:
    """Whether the printed code can take a logarithm or root of a negative number or overflow
    an exponential of the data (``indicator(log(TP - 3) != 0)`` at TP = 1): numpy warns there, though the
    value (NaN, inf) or the undefined mask already says what happened. Only such modules pay
    for an ``np.errstate`` per call."""
    exprs = [metric.simplified, *(t.simplified for t in metric.terms),
             *(p.default for p in metric.params if isinstance(p.default, sympy.Basic))]
    bases = [b for e in exprs for b in (*(f.args[0] for f in e.atoms(sympy.log, sympy.exp)),
                                         *(p.base for p in e.atoms(sympy.Pow) if not p.exp.is_integer))]
    return any(map(analyze.depends_on_data, bases))


_FUSED_MODES = frozenset({"macro", "weighted", "micro"})  # the modes api/evaluate_plan.py reads off a kernel
# The runtime helper that scales tiny real-valued counts (huge or tiny gains) of a level, for a value of degree 0.
_RESCALED = MappingProxyType({"class": "rescaled_counts", "aggregate": "rescaled_counts", "matrix": "rescaled",
                              "score": "rescaled_rows"})


def module_context(metric: ir.Metric) -> ModuleContext:
    """What the level's template needs: the metric, its printed kernels and the imports."""
    level = getattr(metric.level, "value", metric.level)
    shape = SHAPES[level]
    names = term_names(metric)
    terms = [TermCode(names[t.symbol], t.mode or "none", t.weights, class_kernel(t.simplified, t.undefined, metric.params))
             for t in metric.terms]
    params = [param_code(p) for p in metric.params]
    kernel = shape.kernel(metric, names)
    counts = bool(terms) or any(p.kind == "class_vector" for p in metric.params)
    value_names = VALUE_NAMES[level](metric, names) if level in VALUE_NAMES else {}
    gradient = numpy_gradient.gradient_context(metric, value_names, kernel.params,
                                               {t.name: t.kernel.params for t in terms}, MATRIX_COUNTS)
    helpers, gradient_helpers = _imports(metric, shape, kernel, params, terms, gradient, counts)
    rescaled = level in _RESCALED and homogeneity.degree_zero(metric)
    helpers |= {_RESCALED[level]} if rescaled else set()
    leaves_domains = _leaves_domains(metric)
    helpers |= {"np"} if leaves_domains else set()  # the errstate decorator's (a score shape's helpers have it)
    return ModuleContext(
        metric=metric,
        level=level,
        source=metric.source,
        digest=metric.digest,
        range=[_number(v) for v in metric.range],
        params=params,
        undefined_text=[_case_text(u) for u in metric.undefined],
        conditioning_text=metric.conditioning.text if metric.conditioning else "",
        simplified_text=plain(metric.simplified),
        equivalences_text=[e.text(metric.id) for e in metric.equivalences if e.stated],
        terms=terms,
        per_instance=any(averaging.per_instance(t.mode) for t in metric.terms),
        counts=counts,
        class_params=literal_tuple(p.name for p in metric.params if p.kind == "class_vector"),
        pooled_reads=_pooled_reads(metric),
        kernel=kernel,
        arrays=_largest_arrays(kernel.arrays),
        elementwise=kernel.reads_entries,
        whole_counts=metric.whole_counts,
        rescaled=rescaled,
        imports=sorted(helpers),
        registry_imports=sorted({"MetricInfo"} | ({"ParamInfo"} if params else set())
                                | ({"Band", "Scale"} if metric.interpretation else set())),
        scales=metric.interpretation,
        gradient=gradient,
        gradient_imports=sorted(gradient_helpers),
        leaves_domains=leaves_domains,
        reads=reads.reads(metric),
        fused_terms=_fused_terms(level, params, terms, leaves_domains),
    )


def _fused_terms(level: str, params, terms, leaves_domains: bool) -> bool:
    """Whether an aggregate's formula is emitted alone for evaluate's plan: terms averaged by
    a mode the plan fuses, and nothing else (no parameter, no weights, no errstate)."""
    return (level == "aggregate" and not params and not leaves_domains
            and all(t.mode in _FUSED_MODES and not t.weights and not t.kernel.params for t in terms))


def emit_module(metric: ir.Metric) -> str:
    """The source of ``generated/<id>.py``, importing only the runtime helpers it uses."""
    context = module_context(metric)
    return _ENVIRONMENT.get_template(context.template).render(context.variables())


def emit_registry(metrics: Mapping[str, ir.Metric]) -> str:
    """The source of ``generated/__init__.py``: every metric and its metadata."""
    return _ENVIRONMENT.get_template("registry.py.j2").render(metrics=list(metrics.values()))


TARGET = Target(
    name="numpy",
    output=GENERATED,
    metric_files=lambda metric, catalog: {f"{metric.id}.py": emit_module(metric)},
    catalog_files=lambda catalog: {"__init__.py": emit_registry(catalog.metrics)},
)
