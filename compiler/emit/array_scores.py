"""Emit ``generated/arrays/<id>.py`` for score- and curve-level metrics: Array API code on the scores' device.

The kernels are printed as :mod:`.array_module` prints the count levels' (by
:class:`.array_printer.ArrayPrinter`, through the numpy target's kernel builders): the score level's own
statements too (the one-hot truth is ``one_hot``, a gather of each row's class ``row_take``); the
sorting, grouping and windowed-sum helpers are those of :mod:`metricc.runtime.xp_scores` and
:mod:`metricc.runtime.xp_curves`. A kernel calling a runtime helper with no namespace form (none in
today's catalog) gets a module whose ``FALLBACK`` says so and that computes with numpy on host
copies, with a warning: never silently.
"""

from __future__ import annotations

from metricc.compiler.emit.array_module import QUIET, SCORE_LEVELS, _averaged, _docstring, _header
from metricc.compiler.emit.array_printer import ArrayKernels, OutsideNamespace, array_kernels, imports
from metricc.compiler.emit.layout import WIDTH
from metricc.compiler.emit.numpy_levels import literal, literal_tuple, python_string
from metricc.compiler.emit.numpy_module import ModuleContext, module_context
from metricc.compiler.emit.numpy_printer import layout
from metricc.compiler.emit.target import GENERATED, Target
from metricc.compiler.language import ir

__all__ = ["TARGET", "emit_score_module", "score_fallback"]

_CURVE_ARGS = "tp, fp, fn, tn, tp_prev, fp_prev, fn_prev, tn_prev, positives, negatives, valid"


def _printed(metric: ir.Metric, context: ModuleContext) -> ArrayKernels | str:
    """The metric's kernels in the namespace, or why it has none."""
    if any(p.kind != "scalar" for p in context.params):
        return "a parameter other than a number is read by numpy's functions"
    try:
        return array_kernels(metric, context)
    except OutsideNamespace as outside:
        return f"needs {outside.function}, which has no namespace form"


def score_fallback(metric: ir.Metric, context: ModuleContext | None = None) -> str | None:
    """Why the score or curve metric ``metric`` has no Array API form, or None."""
    kernels = _printed(metric, context or module_context(metric))
    return kernels if isinstance(kernels, str) else None


def _fallback_module(metric: ir.Metric, reason: str) -> str:
    note = (f"{reason}: evaluated by numpy on the host (copies of the truth and the scores), the value returned on "
            "the scores' device")
    return "\n".join([
        *_header(metric, "Array API module, evaluated by numpy on the host"),
        f"from metricc.generated.{metric.id} import {metric.id} as numpy_function",
        "from metricc.runtime.xp_scores import scores_on_host", "",
        f'__all__ = ["{metric.id}", "FALLBACK"]', "",
        *layout("FALLBACK = ", literal(note)), "", "",
        f"def {metric.id}(y_true, scores, **options):",
        f'    """{python_string(metric.name)} by the numpy module on host copies (see FALLBACK)."""',
        f"    return scores_on_host(numpy_function, {literal(metric.id)}, FALLBACK, y_true, scores, **options)", ""])


def _score_body(metric: ir.Metric, context: ModuleContext, kernel, checks: list[str]) -> tuple[list[str], str, set]:
    """The score function's body, what it takes and the runtime functions its own lines call."""
    probabilities = metric.scores == "probabilities"
    if metric.truth in ("relevance", "indicator"):
        relevance = ", relevance=True" if metric.truth == "relevance" else ""
        call = f"check_scores(y_true, scores, labels, probabilities={probabilities}, indicator=True{relevance})"
        head, takes = "    Y, S, xp = ", "the truth Y (n, C) and scores (n, C)"
    else:
        call = f"check_scores(y_true, scores, labels, probabilities={probabilities}, codes=True)"
        head, takes = "    Y__class, S, xp = ", "true labels (n,) and scores (n, C) (or (n,) for two classes)"
    body = [*layout(head, call), "    n, C = S.shape",
            f"    check_score_memory({literal(metric.id)}, n, C, {context.arrays})",
            *checks, *kernel.lines, *layout("    value = ", kernel.value), *layout("    undefined = ", kernel.undefined)]
    used = {"check_scores", "check_score_memory", "quiet"}
    if metric.per_class:
        body += _averaged(metric, "xp.sum(Y, axis=-2)")
        used.add("average_class_values")
    else:
        body.append("    return finish(xp, value, undefined, zero_division)")
        used.add("finish")
    return body, takes, used


def _curve_body(metric: ir.Metric, kernel, checks: list[str]) -> tuple[list[str], list[str]]:
    """The per-curve kernel and the curve function's body."""
    params = "".join(", " + p.name for p in metric.params)
    signature = f"def _per_curve(xp, {_CURVE_ARGS}{params}):"
    if len(signature) > WIDTH:  # one argument a line, as the numpy modules' long signatures
        signature = "\n".join(["def _per_curve(", *(f"    {a}," for a in f"xp, {_CURVE_ARGS}{params}".split(", ")), "):"])
    definition = ["", "", signature, *kernel.lines, *layout("    return ", f"{kernel.value}, {kernel.undefined}")]
    passed = "{" + ", ".join(f'"{p.name}": {p.name}' for p in metric.params) + "}"
    body = [*checks, "    return average_curve_metric(", "        _per_curve,",
            "        score_curves(y_true, scores, labels, multilabel=multilabel),", "        average=average,",
            f"        averages={literal_tuple(metric.averages)},",
            *([f"        params={passed},"] if metric.params else []),
            "        weights=weights,", "        pos_label=pos_label,", "        zero_division=zero_division,", "    )"]
    return definition, body


def emit_score_module(metric: ir.Metric) -> str | None:
    """The source of ``generated/arrays/<id>.py`` of a score or curve metric, else None."""
    level = getattr(metric.level, "value", metric.level)
    if level not in SCORE_LEVELS:
        return None
    context = module_context(metric)
    kernels = _printed(metric, context)
    if isinstance(kernels, str):
        return _fallback_module(metric, kernels)
    checks = [line for p in kernels.params for line in layout(f"    {p.name} = ", p.call)]
    params = [f"    {p.name}={p.default}," for p in kernels.params]
    used = kernels.kernel.helpers.union(*(p.helpers for p in kernels.params))
    if level == "curve":
        definitions, body = _curve_body(metric, kernels.kernel, checks)
        options = ["    labels=None,", f'    average="{metric.default_average}",', "    weights=None,",
                   "    pos_label=1,",
                   "    multilabel=False,"]
        takes = ("true labels (n,) and scores (n, C) (or (n,) for two classes), or with multilabel=True an indicator "
                 "matrix (n, C) beside the scores")
        used |= {"average_curve_metric", "score_curves"}
        decorator = []
    else:
        body, takes, own = _score_body(metric, context, kernels.kernel, checks)
        definitions, used = [], used | own
        averaged = [f'    average="{metric.default_average}",', "    weights=None,", "    pos_label=1,"]
        options = [*(averaged if metric.per_class else []), "    labels=None,"]
        decorator = [QUIET]
    return "\n".join([
        *_header(metric, "Array API implementation"), "import math", "", *imports(used), "",
        f'__all__ = ["{metric.id}", "FALLBACK"]', "",
        "FALLBACK = None  # computed in the scores' namespace, on their device", *definitions, "", "",
        *decorator, f"def {metric.id}(", "    y_true,", "    scores,", "    *,", *params, *options,
        "    zero_division=math.nan,", "):",
        *_docstring(metric, takes), *body, ""])


def _files(metric: ir.Metric, catalog) -> dict[str, str]:
    text = emit_score_module(metric)
    return {} if text is None else {f"arrays/{metric.id}.py": text}


TARGET = Target(name="array_scores", output=GENERATED, metric_files=_files, catalog_files=lambda catalog: {})
