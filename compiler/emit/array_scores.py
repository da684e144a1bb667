"""Emit ``generated/arrays/<id>.py`` for score- and curve-level metrics: Array API code on the scores' device.

The kernels are the numpy target's (:func:`.numpy_module.module_context`), rewritten as
:mod:`.array_module` rewrites the count levels' (``np.`` to ``xp.``, helpers called with
``xp`` first), plus the printed habits of score code that the standard spells otherwise: the
one-hot truth built by fancy assignment becomes ``one_hot``, a gather of each row's class
(``X.reshape(-1)[np.arange(n) * C + k]``) ``row_take``, ``np.arange`` the integer ``indices``;
the sorting, grouping and windowed-sum helpers are those of :mod:`metricc.runtime.xp_scores`
and :mod:`metricc.runtime.xp_curves`. A kernel calling a runtime helper with no namespace form
(none in today's catalog) gets a module whose ``FALLBACK`` says so and that computes with
numpy on host copies, with a warning: never silently.
"""

from __future__ import annotations

import re

from metricc.compiler.emit.array_module import SCORE_LEVELS, STANDARD, XP_HELPERS, _CALL, _docstring, _header, _lines, \
    _rewritten, _statements
from metricc.compiler.emit.layout import WIDTH
from metricc.compiler.emit.numpy_levels import literal, literal_tuple, python_string
from metricc.compiler.emit.numpy_module import ModuleContext, module_context
from metricc.compiler.emit.numpy_printer import layout
from metricc.compiler.emit.target import GENERATED, Target
from metricc.compiler.language import ir

__all__ = ["SCORE_HELPERS", "TARGET", "emit_score_module", "score_fallback"]

# The helpers of metricc.runtime.xp_scores and xp_curves printed kernels call, with ``xp`` first.
SCORE_HELPERS = frozenset({"count_nonzero", "curve_pick", "expand_dims", "first_max_other", "group_sum", "indices",
                           "one_hot", "rank_pairs", "row_ranks", "row_take", "window_sum"})
_HELPERS = XP_HELPERS | SCORE_HELPERS
# Each helper's module; the rest are metricc.runtime.xp_kernel's.
_MODULES = {"xp_scores": SCORE_HELPERS - {"curve_pick"} | {"check_scores", "check_score_memory"},
            "xp_curves": frozenset({"curve_pick", "average_curve_metric", "score_curves"})}
_TEMPLATE = frozenset({"average_class_values", "finish", "quiet", "scalar_param"})
_ONE_HOT_SET = re.compile(r"^\s*Y\[np\.arange\(n\), Y__class\] = 1\.0$")
_REWRITES = ((re.compile(r"^(\s*)Y = np\.zeros\(S\.shape\)$"), r"\1Y = one_hot(Y__class, S)"),
             (re.compile(r"(\w+)\.reshape\(-1\)\[np\.arange\(n\) \* C \+ (\w+)\]"), r"row_take(\1, \2)"),
             (re.compile(r"(?<![.\w])np\.arange\("), "indices("),
             (re.compile(r"(?<![.\w])np\.expand_dims\("), "expand_dims("),
             (re.compile(r"(?<![.\w])np\.count_nonzero\("), "count_nonzero("))
_CURVE_ARGS = "tp, fp, fn, tn, tp_prev, fp_prev, fn_prev, tn_prev, positives, negatives, valid"


def _habits(code: str) -> str:
    """Printed score code with its numpy habits in the standard's words (see the module's doc)."""
    for pattern, replacement in _REWRITES:
        code = pattern.sub(replacement, code)
    return code


def _score_statements(lines) -> list[str]:
    """The printed statements, rewritten by :func:`_habits`; the one-hot assignment goes (``one_hot`` builds ``Y``)."""
    return [_habits(statement) for statement in _statements(lines) if not _ONE_HOT_SET.match(statement)]


def _code(context: ModuleContext) -> list[str]:
    kernel = context.kernel
    return [*_score_statements(kernel.lines), _habits(kernel.value), _habits(kernel.undefined)]


def score_fallback(metric: ir.Metric, context: ModuleContext | None = None) -> str | None:
    """Why the score or curve metric ``metric`` has no Array API form, or None."""
    context = context or module_context(metric)
    if any(p.kind != "scalar" for p in context.params):
        return "a parameter other than a number is read by numpy's functions"
    helpers, read = set(), set()
    for code in _code(context):
        _, called, names = _rewritten(code, _HELPERS)
        helpers |= called
        read |= names
    missing = sorted(helpers - _HELPERS - _TEMPLATE)
    if missing:
        return f"needs {', '.join(missing)}, which has no namespace form"
    beyond = sorted(read - STANDARD)
    if beyond:
        return f"needs numpy's {', '.join(beyond)}, which the Array API standard does not have"
    return None


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


def _imports(code: list[str]) -> list[str]:
    used = set(_CALL.findall("\n".join(code)))
    lines = []
    for module in ("xp_curves", "xp_kernel", "xp_scores"):
        names = sorted(used & _MODULES[module] if module in _MODULES
                       else used & (XP_HELPERS | _TEMPLATE) - SCORE_HELPERS)
        if names:
            lines += [f"from metricc.runtime.{module} import (", *(f"    {name}," for name in names), ")"]
    return lines


def _score_body(metric: ir.Metric, context: ModuleContext, checks: list[str]) -> tuple[list[str], str]:
    """The score function's body and what it takes."""
    probabilities = metric.scores == "probabilities"
    if metric.truth in ("relevance", "indicator"):
        relevance = ", relevance=True" if metric.truth == "relevance" else ""
        call = f"check_scores(y_true, scores, labels, probabilities={probabilities}, indicator=True{relevance})"
        head, takes = "    Y, S, xp = ", "the truth Y (n, C) and scores (n, C)"
    else:
        call = f"check_scores(y_true, scores, labels, probabilities={probabilities}, codes=True)"
        head, takes = "    Y__class, S, xp = ", "true labels (n,) and scores (n, C) (or (n,) for two classes)"
    kernel = context.kernel
    body = [*layout(head, call), "    n, C = S.shape",
            f"    check_score_memory({literal(metric.id)}, n, C, {context.arrays})",
            *checks, "    with quiet():", *_lines(_score_statements(kernel.lines), "    ", _HELPERS),
            *_lines(layout("        value = ", _habits(kernel.value)), "", _HELPERS),
            *_lines(layout("        undefined = ", _habits(kernel.undefined)), "", _HELPERS)]
    if metric.per_class:
        body += ["        return average_class_values(", "            value,", "            undefined,",
                 "            xp.sum(Y, axis=-2),", "            average=average,",
                 f"            averages={literal_tuple(metric.averages)},", "            weights=weights,",
                 "            pos_label=pos_label,", "            zero_division=zero_division,", "        )"]
    else:
        body.append("        return finish(xp, value, undefined, zero_division)")
    return body, takes


def _curve_body(metric: ir.Metric, context: ModuleContext, checks: list[str]) -> tuple[list[str], list[str]]:
    """The per-curve kernel and the curve function's body."""
    kernel = context.kernel
    params = "".join(", " + p.name for p in context.params)
    signature = f"def _per_curve(xp, {_CURVE_ARGS}{params}):"
    if len(signature) > WIDTH:  # one argument a line, as the numpy modules' long signatures
        signature = "\n".join(["def _per_curve(", *(f"    {a}," for a in f"xp, {_CURVE_ARGS}{params}".split(", ")), "):"])
    definition = ["", "", signature,
                  *_lines(_score_statements(kernel.lines), "", _HELPERS),
                  *_lines(layout("    return ", _habits(f"{kernel.value}, {kernel.undefined}")), "", _HELPERS)]
    passed = "{" + ", ".join(f'"{p.name}": {p.name}' for p in context.params) + "}"
    body = [*checks, "    return average_curve_metric(", "        _per_curve,",
            "        score_curves(y_true, scores, labels, multilabel=multilabel),", "        average=average,",
            f"        averages={literal_tuple(metric.averages)},",
            *([f"        params={passed},"] if context.params else []),
            "        weights=weights,", "        pos_label=pos_label,", "        zero_division=zero_division,", "    )"]
    return definition, body


def emit_score_module(metric: ir.Metric) -> str | None:
    """The source of ``generated/arrays/<id>.py`` of a score or curve metric, else None."""
    level = getattr(metric.level, "value", metric.level)
    if level not in SCORE_LEVELS:
        return None
    context = module_context(metric)
    reason = score_fallback(metric, context)
    if reason:
        return _fallback_module(metric, reason)
    checks = [line for p in context.params for line in layout(f"    {p.name} = ", p.call)]
    params = [f"    {p.name}={p.default}," for p in context.params]
    if level == "curve":
        kernels, body = _curve_body(metric, context, checks)
        options = ["    labels=None,", f'    average="{metric.default_average}",', "    weights=None,",
                   "    pos_label=1,",
                   "    multilabel=False,"]
        takes = ("true labels (n,) and scores (n, C) (or (n,) for two classes), or with multilabel=True an indicator "
                 "matrix (n, C) beside the scores")
    else:
        kernels, (body, takes) = [], _score_body(metric, context, checks)
        averaged = [f'    average="{metric.default_average}",', "    weights=None,", "    pos_label=1,"]
        options = [*(averaged if metric.per_class else []), "    labels=None,"]
    code = [*kernels, *body]
    return "\n".join([
        *_header(metric, "Array API implementation"), "import math", "", *_imports(code), "",
        f'__all__ = ["{metric.id}", "FALLBACK"]', "",
        "FALLBACK = None  # computed in the scores' namespace, on their device", *kernels, "", "",
        f"def {metric.id}(", "    y_true,", "    scores,", "    *,", *params, *options,
        "    zero_division=math.nan,", "):",
        *_docstring(metric, takes), *body, ""])


def _files(metric: ir.Metric, catalog) -> dict[str, str]:
    text = emit_score_module(metric)
    return {} if text is None else {f"arrays/{metric.id}.py": text}


TARGET = Target(name="array_scores", output=GENERATED, metric_files=_files, catalog_files=lambda catalog: {})
