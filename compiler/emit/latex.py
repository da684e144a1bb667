"""Emit LaTeX documentation: a fragment per metric and the catalog ``docs/metrics.tex``.

Templates use ``((* *))`` / ``((( )))`` delimiters so LaTeX braces never clash with Jinja2;
every piece of spec text passes through :func:`~metricc.compiler.text.latex_escape`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import jinja2
import sympy

from metricc.compiler.analysis import analyze
from metricc.compiler.language import ir, symbols
from metricc.compiler.language.levels import Level, rules
from metricc.compiler.language.load import ERRATA_FIELDS
from metricc.compiler.emit.text import latex, latex_escape

__all__ = ["emit_docs", "averaging_expansions", "family", "source_of", "per_class", "pooled", "INDEX", "INSTANCE"]

_ENVIRONMENT = jinja2.Environment(
    loader=jinja2.PackageLoader("metricc.compiler.emit", "templates"),
    undefined=jinja2.StrictUndefined,
    block_start_string="((*",
    block_end_string="*))",
    variable_start_string="(((",
    variable_end_string=")))",
    comment_start_string="((=",
    comment_end_string="=))",
    keep_trailing_newline=True,
    trim_blocks=True,
    lstrip_blocks=True,
    autoescape=False,
)
_ENVIRONMENT.filters["esc"] = latex_escape

INDEX = symbols.index_symbol("k")
INSTANCE = symbols.index_symbol("s")  # an instance (sample) of multi-label data
_SUM_LIMITS = (INDEX, 1, symbols.N_CLASSES)


def per_class(expr: sympy.Expr, index: sympy.Symbol = INDEX) -> sympy.Expr:
    """``TP`` -> ``TP_k``: the formula applied to class k (or, with ``INSTANCE``, to instance s)."""
    return expr.xreplace({s: sympy.IndexedBase(s.name)[index] for s in symbols.COUNTS})


def pooled(expr: sympy.Expr) -> sympy.Expr:
    """``TP`` -> ``sum_k TP_k``: the counts of all classes pooled (micro averaging)."""
    return expr.xreplace({s: sympy.Sum(sympy.IndexedBase(s.name)[INDEX], _SUM_LIMITS) for s in symbols.COUNTS})


# Families, in catalog order: the level says what a metric is computed from.
FAMILIES = {
    Level.CLASS: "Per-class metrics",
    Level.AGGREGATE: "Metrics of averaged metrics",
    Level.MATRIX: "Confusion-matrix metrics",
    Level.CURVE: "Threshold-curve metrics",
    Level.SCORE: "Score metrics",
}


def family(metric: ir.Metric) -> str:
    """The family a metric is listed under, by what it is computed from (its level)."""
    return FAMILIES[metric.level]


def source_of(reference: str) -> str:
    """The work a reference cites: ``Kozak et al. 2022, Eq. 9`` -> ``Kozak et al. 2022``."""
    return re.split(r"[,:]", reference, maxsplit=1)[0].strip()


def averaging_expansions(metric: ir.Metric) -> list[tuple[str, str]]:
    """(mode, LaTeX) for every averaging mode of a class-level metric, sums written out."""
    value = latex(per_class(metric.simplified))
    out = []
    for mode in metric.averages:
        if mode == "none":
            text = rf"m_k = {value}, \quad k = 1, \dots, C"
        elif mode == "binary":
            text = rf"m_c = {value.replace('_{k}', '_{c}')} \quad \text{{for the positive class }} c"
        elif mode == "micro":
            text = latex(pooled(metric.simplified))
        elif mode == "macro":
            text = rf"\frac{{1}}{{C}} \sum_{{k=1}}^{{C}} {value}"
        elif mode == "weighted":
            text = (rf"\frac{{\sum_{{k=1}}^{{C}} w_k \, {value}}}{{\sum_{{k=1}}^{{C}} w_k}}, \quad "
                    r"w_k = \mathit{TP}_k + \mathit{FN}_k \text{ (support) unless weights are given}")
        elif mode == "samples":
            text = (rf"\frac{{1}}{{N}} \sum_{{s=1}}^{{N}} {latex(per_class(metric.simplified, INSTANCE))}, \quad "
                    r"\text{counts of instance } s \text{ over its labels, } N \text{ instances}")
        else:
            text = rf"\Bigl(\prod_{{k=1}}^{{C}} {value}\Bigr)^{{1/C}}"
        out.append((mode, text))
    return out


_CURVE_AVERAGES = {
    "none": r"m_k \text{ on the curve of class } k \text{ against the rest}, \quad k = 1, \dots, C",
    "binary": r"m_c \text{ on the curve of the positive class } c",
    "micro": r"m \text{ on one curve over all } n C \text{ (sample, class) pairs}",
    "macro": r"\frac{1}{C} \sum_{k=1}^{C} m_k",
    "weighted": r"\frac{\sum_{k=1}^{C} w_k \, m_k}{\sum_{k=1}^{C} w_k}, \quad w_k = P_k \text{ (support) unless weights are given}",
}


def _expansions(metric: ir.Metric) -> list[tuple[str, str]]:
    if metric.level is Level.CURVE:
        return [(mode, _CURVE_AVERAGES[mode]) for mode in metric.averages]
    return averaging_expansions(metric) if rules(metric.level).per_class else []


def _case(case: sympy.Expr, terms: Sequence[ir.Term] = ()) -> str:
    """``D = 0``, and for a guarded case ``D = 0 and a != b`` (from its brackets ``[a = b]``)."""
    denominator, unequal = analyze.case_conditions(case)
    conditions = [rf"{latex(a, terms)} \neq {latex(b, terms)}" for a, b in unequal]
    return r" \text{ and } ".join([latex(denominator, terms) + " = 0", *conditions])


def _undefined(metric: ir.Metric) -> list[str]:
    cases = [_case(u, metric.terms) for u in metric.undefined]
    for term in metric.terms:
        index, unit = (INSTANCE, "instance") if term.mode == "samples" else (INDEX, "class")
        for u in term.undefined:
            cases.append(_case(per_class(u, index)) + rf" \text{{ for some {unit} }} {index} \text{{ (in {latex_escape(term.label)})}}")
    return cases


def _zero_weight(metric: ir.Metric) -> dict | None:
    """The 0 log 0 = 0 convention, and the denominators it excuses, where ``xlogy`` is used."""
    if not metric.simplified.has(symbols.xlogy):
        return None
    return {"excused": [latex(d, metric.terms) + " = 0" for d in metric.excused]}


def _guarded(metric: ir.Metric) -> list[str]:
    """Denominators excused by a guard (indicator, step, Piecewise): the value is defined there."""
    guards = any(analyze.is_guard(node) for node in sympy.preorder_traversal(metric.simplified))
    if not metric.excused or not guards or metric.simplified.has(symbols.xlogy):
        return []
    return [latex(d, metric.terms) + " = 0" for d in metric.excused]


def _bound(value: sympy.Expr) -> str:
    if value.is_Rational and not value.is_Integer:  # as the spec writes it: 1.0615, not 2123/2000
        return repr(float(value))
    return {sympy.oo: r"\infty", -sympy.oo: r"-\infty"}.get(value, latex(value))


def _equivalences(metric: ir.Metric, metrics: Mapping[str, ir.Metric]) -> list[str]:
    lines = []
    for eq in (e for e in metric.equivalences if e.stated):
        left = _variant(metric.id, eq.mode, eq.bindings)
        right = _variant(eq.other, eq.other_mode, eq.other_bindings)
        scope = eq.scope_text
        if eq.mode == "none":
            scope = "class by class, " + scope
        notes = [_binding_note(b) for b in (eq.bindings, eq.other_bindings)]
        note = "".join(f"; {n}" for n in notes if n)
        lines.append(rf"${left} = {right}$ {scope} (proved by {latex_escape(eq.method)}{note})")
    return lines


def _variant(metric_id: str, mode: str | None, bindings=()) -> str:
    name = metric_id.replace("_", r"\_")
    text = rf"\mathrm{{{mode}({name})}}" if mode else rf"\mathrm{{{name}}}"
    if bindings:
        text += r"\big|_{" + ", ".join(f"{latex(sympy.Symbol(k))} = {v}" for k, v, _ in bindings) + "}"
    return text


def _binding_note(bindings) -> str:
    """Bindings of class-vector parameters set every class: say so."""
    vectors = [(k, v) for k, v, kind in bindings if kind == "class_vector"]
    return ", ".join(rf"${latex(sympy.Symbol(k))}_k = {v}$ for every class $k$" for k, v in vectors)


def _context(metric: ir.Metric, metrics: Mapping[str, ir.Metric]) -> dict:
    return {
        "metric": metric,
        "written": latex(metric.as_written),
        "simplified": latex(metric.simplified, metric.terms),
        "expansions": _expansions(metric),
        "terms": [(t.label, "per instance" if t.mode == "samples" else "per class",
                   latex(per_class(t.simplified, INSTANCE if t.mode == "samples" else INDEX))) for t in metric.terms],
        "undefined": _undefined(metric),
        "zero_weight": _zero_weight(metric),
        "guarded": _guarded(metric),
        "conditioning": metric.conditioning.text if metric.conditioning else "",
        "low": _bound(metric.range[0]),
        "high": _bound(metric.range[1]),
        "params": [(p.name, p.kind, r"\texttt{" + latex_escape(p.reference) + "}" if p.kind == "metric" else latex(p.default),
                    p.domain_text, p.description) for p in metric.params],
        "equivalences": _equivalences(metric, metrics),
    }




def emit_docs(metrics: Mapping[str, ir.Metric], errata: Sequence[Mapping[str, str]] = ()) -> dict[str, str]:
    """``docs/metrics/<id>.tex`` per metric, ``docs/errata.tex`` and the ``docs/metrics.tex`` catalog."""
    fragment = _ENVIRONMENT.get_template("metric.tex.j2")
    files = {f"docs/metrics/{m.id}.tex": fragment.render(_context(m, metrics)) for m in metrics.values()}
    entries = [{key: str(entry.get(key, "")) for key in ERRATA_FIELDS} for entry in errata]
    if entries:
        files["docs/errata.tex"] = _ENVIRONMENT.get_template("errata.tex.j2").render(entries=entries)
    files["docs/metrics.tex"] = _ENVIRONMENT.get_template("catalog.tex.j2").render(
        metrics=list(metrics.values()), errata=bool(entries)
    )
    return files
