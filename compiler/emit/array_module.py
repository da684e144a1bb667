"""Emit ``generated/arrays/<id>.py``: each count-level metric as Array API code, one namespace for any library.

The kernels are the numpy target's (:func:`.numpy_module.module_context`: the same CSE, exact
parts and undefined masks), rewritten to the namespace of the counts: ``np.`` becomes ``xp.``
(checked against :data:`STANDARD`, the Array API standard's functions this needs) and each
runtime helper is the one of :mod:`metricc.runtime.xp_kernel` of the same name, called with
``xp`` first. Where a formula needs what the standard lacks (a special function, numpy's
``shape``), a parameter computed on the host, or a level this target does not lay out yet, the
module says why in ``FALLBACK`` and calls the numpy module on a host copy of its input, which
:func:`metricc.runtime.xp_kernel.on_host` announces with a warning: never silently.
"""

from __future__ import annotations

import re
import textwrap

from metricc.compiler.emit.numpy_levels import literal, literal_tuple, python_string
from metricc.compiler.emit.numpy_module import ModuleContext, module_context
from metricc.compiler.emit.layout import scan as layout_scan
from metricc.compiler.emit.numpy_printer import WIDTH, layout
from metricc.compiler.emit.target import GENERATED, Target
from metricc.compiler.language import ir
from metricc.compiler.names import RUNTIME_NAMES

__all__ = ["STANDARD", "TARGET", "XP_HELPERS", "emit_array_module", "emit_array_registry", "fallback"]

LEVELS = ("class", "aggregate", "matrix")  # the levels of a confusion matrix's counts
SCORE_LEVELS = ("score", "curve")  # the levels of scores: their modules come from .array_scores

# The helpers of metricc.runtime.xp_kernel that printed kernels call (a test checks the copy).
XP_HELPERS = frozenset({"align", "arange", "diagonal", "equal", "exact", "extended_log", "eye", "heaviside", "log_ratio",
                        "nonzero", "real", "shape", "sum_last_axis", "transpose", "xlogy", "xlogy_ratio"})
# The Array API standard's names (2023.12) that printed kernels may read as ``xp.<name>``.
STANDARD = frozenset({"abs", "all", "any", "argmax", "broadcast_to", "count_nonzero", "e", "exp", "expand_dims", "floor", "inf",
                      "log", "max", "maximum", "min", "minimum", "pi", "sqrt", "sum", "where"})
# What the module's own lines call, beside XP_HELPERS: imported from the xp kernel too.
_TEMPLATE_HELPERS = frozenset({"average_class_metric", "average_class_values", "class_counts", "class_param", "finish", "matrix_param",
                               "matrix_terms", "prepared_terms", "quiet", "rescaled_counts", "rescaled_matrix",
                               "scalar_param", "space"})
_PREPARED = re.compile(r"(?<![.\w])terms(?!\w)")  # the numpy kernel's prepared matrix terms, read by printed code
_HELPER_OF_NUMPY = re.compile(r"(?<![.\w])np\.(heaviside|shape)\(")  # numpy's, helpers of the xp kernel
_NUMPY = re.compile(r"(?<![.\w])np\.(\w+)")
_CALL = re.compile(r"(?<![.\w])([A-Za-z_]\w*)\(")


def _rewritten(code: str, helpers: frozenset[str] = XP_HELPERS) -> tuple[str, set[str], set[str]]:
    """``code`` on the namespace ``xp``, the runtime helpers it calls and the namespace names it
    reads; each of ``helpers`` (those taking the namespace first) is called with ``xp`` first."""
    code = _NUMPY.sub(r"xp.\1", _HELPER_OF_NUMPY.sub(r"\1(", code))
    called = {name for name in _CALL.findall(code) if name in RUNTIME_NAMES | helpers}
    read = {m.group(1) for m in re.finditer(r"(?<![.\w])xp\.(\w+)", code)}
    return _CALL.sub(lambda m: f"{m.group(1)}(xp, " if m.group(1) in helpers else m.group(0), code), called, read


def _kernel_code(context: ModuleContext) -> list[str]:
    """Every printed code the module runs on arrays: its kernel's, its terms' and its parameters' defaults."""
    kernels = [context.kernel, *(t.kernel for t in context.terms),
               *(p.default_kernel for p in context.params if p.default_kernel)]
    return [line for k in kernels for line in (*k.lines, k.value, k.undefined)]


def fallback(metric: ir.Metric, context: ModuleContext | None = None) -> str | None:
    """Why ``metric`` has no Array API form (evaluated by numpy on the host instead), or None."""
    level = getattr(metric.level, "value", metric.level)
    if level not in LEVELS:
        return None  # no array module: curve and score metrics read scores, not counts
    for param in metric.params:
        if param.kind == "metric":
            return f"its metric parameter '{param.name}' is another metric's numpy function"
    context = context or module_context(metric)
    if any("np." in p.call for p in context.params):
        return "a parameter's domain is checked with numpy's functions"
    helpers, read = set(), set()
    for code in _kernel_code(context):
        _, called, names = _rewritten(code)
        helpers |= called
        read |= names
    missing = sorted(helpers - XP_HELPERS - _TEMPLATE_HELPERS)
    if missing:
        return f"needs {', '.join(missing)}, a special function the Array API standard does not have"
    beyond = sorted(read - STANDARD)
    if beyond:
        return f"needs numpy's {', '.join(beyond)}, which the Array API standard does not have"
    return None


def _lines(lines, extra: str = "", helpers: frozenset[str] = XP_HELPERS) -> list[str]:
    """The numpy module's laid-out ``lines`` on the namespace ``xp``, each statement laid out again
    (rewriting lengthens it: ``diagonal(M)`` becomes ``diagonal(xp, M)``), ``extra`` indented."""
    out = []
    for statement in _statements(lines):
        code = _rewritten(statement, helpers)[0]
        equals = [i for i, depth, char in layout_scan(code) if depth == 0 and code.startswith(" = ", i)]
        indent = code[: len(code) - len(code.lstrip())]
        if code.endswith(":") or not (equals or code.lstrip().startswith("return ")):
            out.append((extra + code).rstrip())
            continue
        cut = equals[0] + 3 if equals else len(indent) + len("return ")
        out += layout(extra + code[:cut], code[cut:])
    return out


def _statements(lines) -> list[str]:
    """Laid-out ``lines`` joined back into one line per statement (a statement's brackets close
    on its last line; a break dropped the space after an opening and left a trailing comma)."""
    out, pending = [], []
    for line in lines:
        pending.append(line.strip() if pending else line.rstrip())
        text = pending[0]
        for piece in pending[1:]:
            if piece[:1] in ")]}":
                text = text.removesuffix(",") + piece
            else:
                text += piece if text.endswith(("(", "[", "{")) else " " + piece
        if not any(depth > 0 for _, depth, _ in list(layout_scan(text))[-1:]):
            out.append(text)
            pending = []
    return out + ([text] if pending else [])


def _docstring(metric: ir.Metric, takes: str) -> list[str]:
    text = (f"Takes {takes}, of any Array API library; computed in their namespace and on their device "
            "(float64 where the device holds it, else float32).")
    return [f'    """{python_string(metric.name)}.', "", *textwrap.wrap(text, WIDTH, initial_indent="    ",
                                                                           subsequent_indent="    "), '    """']


def _header(metric: ir.Metric, kind: str) -> list[str]:
    return ['"""' + python_string(metric.name) + f": generated {kind}.", "",
            python_string(metric.description), "",
            f"Generated by metricc from {python_string(metric.source)} (sha256 {metric.digest}).",
            "DO NOT EDIT: edit the spec and run `metricc build`.", '"""', ""]


def _fallback_module(metric: ir.Metric, level: str, reason: str) -> str:
    note = f"{reason}: evaluated by numpy on the host, the value returned on the input's device"
    takes = "matrix" if level == "matrix" else "counts"
    return "\n".join([
        *_header(metric, "Array API module, evaluated by numpy on the host"),
        f"from metricc.generated.{metric.id} import {metric.id} as numpy_function",
        "from metricc.runtime.xp_kernel import on_host", "",
        f'__all__ = ["{metric.id}", "FALLBACK"]', "",
        *layout("FALLBACK = ", literal(note)), "", "",
        f"def {metric.id}({takes}, **options):",
        *textwrap.wrap(f'"""{python_string(metric.name)} by the numpy module on a host copy (see FALLBACK)."""', WIDTH,
                       initial_indent="    ", subsequent_indent="    "),
        f"    return on_host(numpy_function, {literal(metric.id)}, FALLBACK, {takes}, "
        f"matrix={level == 'matrix'}, **options)", ""])


def _term_lines(context: ModuleContext) -> list[str]:
    lines = []
    for term in context.terms:
        lines += [f"        {term.name} = average_class_metric(", f"            _term_{term.name},", "            counts,",
                  f'            average="{term.mode}",', f'            averages=("{term.mode}",),',
                  *layout("            params=", term.kernel.params_dict, ","),
                  *([f"            weights={term.weights},"] if term.weights else []),
                  "            zero_division=zero_division,", "        )"]
    return lines


def _kernel_def(name: str, kernel, args: str, undefined: bool = True) -> list[str]:
    signature = f"{name}(xp, {args}{''.join(', ' + p for p in kernel.params)})"
    value = f"{kernel.value}, {kernel.undefined}" if undefined else kernel.value
    return ["", "", f"def {signature}:", *_lines(kernel.lines), *_lines(layout("    return ", value))]


def _param_lines(context: ModuleContext) -> tuple[list[str], list[str]]:
    """The defaults of the class_vector and class_matrix parameters, and every parameter's check."""
    defaults, checks = [], []
    for param in context.params:
        if param.default_kernel:
            args = "C" if param.kind == "class_matrix" else "tp, fp, fn, tn"
            defaults += _kernel_def(f"_default_{param.name}", param.default_kernel, args, undefined=False)
        call = param.call.replace("matrix_param(", "matrix_param(xp, ", 1)
        checks += layout(f"    {param.name} = ", call)
    return defaults, checks


def _rescale(context: ModuleContext, source: str) -> list[str]:
    """A metric proved of degree 0 scales tiny real-valued input by a power of two first (as numpy's)."""
    return [f"    {source} = rescaled_{source}({source})"] if context.rescaled else []


def emit_array_module(metric: ir.Metric) -> str | None:
    """The source of ``generated/arrays/<id>.py``, or None for a metric of scores (no array module)."""
    level = getattr(metric.level, "value", metric.level)
    if level not in LEVELS:
        return None
    context = module_context(metric)
    reason = fallback(metric, context)
    if reason:
        return _fallback_module(metric, level, reason)
    kernels = [line for term in context.terms for line in _kernel_def(f"_term_{term.name}", term.kernel, "tp, fp, fn, tn")]
    params = [f"    {p.name}={p.default}," for p in context.params]
    defaults, checks = _param_lines(context)
    kernels = defaults + kernels
    if level == "class":
        kernels += _kernel_def("_per_class", context.kernel, "tp, fp, fn, tn")
        options = ["    weights=None,", "    pos_label=1,"]
        takes = "per-class counts (4, ..., C), TP, FP, FN, TN stacked"
        call = [f'        average=average,', f"        averages={literal_tuple(metric.averages)},",
                *layout("        params=", context.kernel.params_dict, ","),
                *([f"        reads={context.pooled_reads},"] if context.pooled_reads else []),
                "        weights=weights,", "        pos_label=pos_label,", "        zero_division=zero_division,"]
        body = [*_rescale(context, "counts"), *checks, "    return average_class_metric(", "        _per_class,", "        counts,", *call, "    )"]
        head = ["counts", f'    average="{metric.default_average}",', *options]
    else:
        source = "matrix" if level == "matrix" else "counts"
        prologue = ["    M, C, t, p, n, xp = matrix_terms(matrix)"] if level == "matrix" else ["    xp = space(counts)"]
        if level == "matrix" and context.counts:
            prologue.append("    counts = class_counts(matrix)")
        if level == "matrix" and _PREPARED.search("\n".join(_kernel_code(context))):
            prologue.append("    terms = prepared_terms(xp, M)")
        body = [*_rescale(context, source), *prologue, *checks, "    with quiet():", *_term_lines(context), *_lines(context.kernel.lines, "    "),
                *_lines(layout("        value = ", context.kernel.value)),
                *_lines(layout("        undefined = ", context.kernel.undefined))]
        head = [source]
        if metric.per_class:  # one value per class, averaged over the classes with the row totals as support
            body += ["        return average_class_values(", "            value,", "            undefined,", "            t,",
                     "            average=average,", f"            averages={literal_tuple(metric.averages)},",
                     "            weights=weights,", "            pos_label=pos_label,",
                     "            zero_division=zero_division,", "        )"]
            head += [f'    average="{metric.default_average}",', "    weights=None,", "    pos_label=1,"]
        else:
            body.append("        return finish(xp, value, undefined, zero_division)")
        takes = ("confusion matrices (..., C, C), rows the true class" if level == "matrix"
                 else "per-instance counts (4, ..., N) of multi-label data, TP, FP, FN, TN stacked"
                 if context.per_instance else "per-class counts (4, ..., C), TP, FP, FN, TN stacked")
    helpers = sorted(set(_CALL.findall("\n".join([*kernels, *checks, *body]))) & (XP_HELPERS | _TEMPLATE_HELPERS))
    return "\n".join([
        *_header(metric, "Array API implementation"), "import math", "",
        "from metricc.runtime.xp_kernel import (", *(f"    {name}," for name in helpers), ")", "",
        f'__all__ = ["{metric.id}", "FALLBACK"]', "",
        "FALLBACK = None  # computed in the input's namespace, on its device", *kernels, "", "",
        f"def {metric.id}(", f"    {head[0]},", "    *,", *params, *head[1:], "    zero_division=math.nan,", "):",
        *_docstring(metric, takes),
        *body, ""])


def emit_array_registry(metrics) -> str:
    """``generated/arrays/__init__.py``: every metric's array function and fallback note."""
    ids = [m.id for m in metrics.values() if getattr(m.level, "value", m.level) in LEVELS + SCORE_LEVELS]
    lines = ['"""The Array API form of every metric of the catalog (`metricc build` writes it).',
             "", "FUNCTIONS maps a metric id to its function; FALLBACK maps the id of each metric computed by",
             "numpy on the host (its formula needs what the standard lacks) to the reason.", '"""', "",
             "from metricc.generated.arrays import ("]
    lines += [f"    {i}," for i in ids] + [")", "", '__all__ = ["FALLBACK", "FUNCTIONS"]', "", "FUNCTIONS = {"]
    lines += [f'    "{i}": {i}.{i},' for i in ids] + ["}", ""]
    lines += ["FALLBACK = {name: module.FALLBACK for name, module in ("] + [f'    ("{i}", {i}),' for i in ids]
    lines += [") if module.FALLBACK}", ""]
    return "\n".join(lines)


def _files(metric: ir.Metric, catalog) -> dict[str, str]:
    text = emit_array_module(metric)
    return {} if text is None else {f"arrays/{metric.id}.py": text}


TARGET = Target(
    name="arrays",
    output=GENERATED,
    metric_files=_files,
    catalog_files=lambda catalog: {"arrays/__init__.py": emit_array_registry(catalog.metrics)},
)
