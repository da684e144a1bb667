"""Emit the catalog as a static website: an index with search, one page per metric, the
errata and the audit results.

The pages come from the same IR as the numpy modules and the LaTeX catalog. Formulas are
presentation MathML (:func:`~.text.mathml`), which current browsers render natively: the site
needs no network, no CDN and no script to show mathematics; the only script is the index's
search box. What the generated code computes (the worked examples) and what the audits
found are computed by the caller (``metricc docs``) and passed in as plain rows, so this
module stays a pure function of its inputs, like every emitter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import jinja2
import sympy
from markupsafe import Markup

from metricc.compiler.analysis import analyze
from metricc.compiler.emit.latex import per_class, pooled, family, source_of, INDEX, INSTANCE
from metricc.compiler.emit.target import SITE, Catalog, Target, emit_files
from metricc.compiler.emit.text import display_form, mathml
from metricc.compiler.emit.written import written_mathml
from metricc.compiler.language import ir, symbols
from metricc.compiler.language.averaging import MODES, per_instance
from metricc.compiler.language.levels import Level, rules
from metricc.compiler.language.load import ERRATA_FIELDS

__all__ = ["TARGET", "emit_site"]

_ENVIRONMENT = jinja2.Environment(
    loader=jinja2.PackageLoader("metricc.compiler.emit", "templates/html"),
    undefined=jinja2.StrictUndefined,
    autoescape=True,
    keep_trailing_newline=True,
    trim_blocks=True,
    lstrip_blocks=True,
)

_LEVELS = {
    Level.CLASS: "Per class, over the one-vs-rest counts TP, FP, FN, TN of each class; averaging is the compiler's.",
    Level.AGGREGATE: "One value per confusion matrix, from averaged per-class metrics.",
    Level.MATRIX: "One value per confusion matrix M (rows: true classes; t, p: row and column totals; n: total; C: classes).",
    Level.CURVE: "Per class, over the one-vs-rest count curve of each class (one point per distinct score threshold).",
    Level.SCORE: "One value per data set, from the scores S[s, k] of sample s for class k and the one-hot truth Y[s, k].",
}
# Matrix and score formulas that declare a class index (per_class: j) give one value per class.
_PER_CLASS_LEVELS = {
    Level.MATRIX: "One value per class {0} of a confusion matrix M, the formula written for class {0} over the whole matrix.",
    Level.SCORE: "One value per class {0}, from the scores S[s, k] and the one-hot truth Y[s, k] of every sample.",
}
def _math(expr: sympy.Expr, terms: Sequence[ir.Term] = (), display: bool = False) -> Markup:
    return Markup(mathml(expr, terms, display))


class _Shown:
    """A per-class formula as the display formulas of the averaging modes read it."""

    k, count, instance = INDEX, symbols.N_CLASSES, INSTANCE

    def __init__(self, shown: sympy.Expr):
        self.shown = shown
        self.value = per_class(shown)

    def at(self, index: sympy.Symbol) -> sympy.Expr:
        return per_class(self.shown, index)

    @property
    def pooled(self) -> sympy.Expr:
        return pooled(self.shown)

    @property
    def instance_value(self) -> sympy.Expr:
        return per_class(self.shown, INSTANCE)


def _expansions(metric: ir.Metric, shown: sympy.Expr) -> list[tuple[str, Markup | None, str]]:
    """(mode, MathML, note) for every averaging mode."""
    if metric.level is Level.CURVE:
        return [(mode, None, MODES[mode].curve_words) for mode in metric.averages]
    if not rules(metric.level).per_class:
        return []
    parts = _Shown(shown)
    return [(mode, _math(MODES[mode].display(parts), display=True), MODES[mode].words) for mode in metric.averages]


def _case(case: sympy.Expr, terms: Sequence[ir.Term] = ()) -> Markup:
    denominator, unequal = analyze.case_conditions(case)
    parts = [_math(sympy.Eq(denominator, 0, evaluate=False), terms)] if denominator != 0 else []  # xlogy(x, 0)
    parts += [_math(sympy.Ne(a, b, evaluate=False), terms) for a, b in unequal]
    return Markup(" and ").join(parts)


def _undefined(metric: ir.Metric) -> list[Markup]:
    cases = [_case(u, metric.terms) for u in metric.undefined]
    for term in metric.terms:
        index, unit = (INSTANCE, "instance") if per_instance(term.mode) else (INDEX, "class")
        for u in term.undefined:
            cases.append(_case(per_class(u, index)) + Markup(f" for some {unit} {index} (in <code>{Markup.escape(term.label)}</code>)"))
    return cases


def _bound(value: sympy.Expr) -> str:
    if value.is_Rational and not value.is_Integer:
        return repr(float(value))
    return {sympy.oo: "\u221e", -sympy.oo: "\u2212\u221e"}.get(value, str(value))


def _equivalences(metric: ir.Metric, metrics: Mapping[str, ir.Metric]) -> list[dict]:
    """Stated equivalences, one per other metric: the modes and scopes in which they agree."""
    grouped: dict[str, list[str]] = {}
    for eq in (e for e in metric.equivalences if e.stated):
        grouped.setdefault(eq.other, []).append(eq.text(metric.id) + f" (proved by {eq.method})")
    return [{"other": other, "name": metrics[other].name if other in metrics else other,
             "linked": other in metrics, "statements": statements} for other, statements in sorted(grouped.items())]


def _params(metric: ir.Metric) -> list[dict]:
    out = []
    for p in metric.params:
        default = Markup(f"<code>{Markup.escape(p.reference)}</code>") if p.kind == "metric" else _math(p.default)
        out.append({"name": p.name, "kind": p.kind, "default": default, "domain": p.domain_text, "description": p.description})
    return out


def _metric_page(metric: ir.Metric, metrics: Mapping[str, ir.Metric], example: Mapping | None) -> dict:
    shown = display_form(metric.simplified, metric.written)
    return {
        "metric": metric,
        "family": family(metric),
        "level_text": _PER_CLASS_LEVELS[metric.level].format(metric.per_class) if metric.per_class else _LEVELS[metric.level],
        "written": Markup(written_mathml(metric.formula, display=True)),
        "lets": [(Markup(written_mathml(name)), Markup(written_mathml(text))) for name, text in metric.lets],
        "simplified": _math(shown, metric.terms, display=True),
        "terms": [(t.label, "per instance" if per_instance(t.mode) else "per class",
                   _math(per_class(t.simplified, INSTANCE if per_instance(t.mode) else INDEX))) for t in metric.terms],
        "expansions": _expansions(metric, shown),
        "params": _params(metric),
        "low": _bound(metric.range[0]),
        "high": _bound(metric.range[1]),
        "undefined": _undefined(metric),
        "xlogy": metric.simplified.has(symbols.xlogy),
        "excused": [_math(sympy.Eq(d, 0, evaluate=False), metric.terms) for d in metric.excused],
        "equivalences": _equivalences(metric, metrics),
        "example": example,
    }


def _index(metrics: Mapping[str, ir.Metric]) -> dict:
    by_family: dict[str, list[ir.Metric]] = {}
    by_source: dict[str, set[str]] = {}
    for metric in metrics.values():
        by_family.setdefault(family(metric), []).append(metric)
        for reference in metric.references:
            by_source.setdefault(source_of(reference), set()).add(metric.id)
    return {
        "families": list(by_family.items()),
        "sources": [(source, sorted(ids)) for source, ids in sorted(by_source.items())],
        "metrics": metrics,
    }


def _pages(catalog: Catalog) -> dict[str, str]:
    """``index.html``, ``errata.html`` and ``audits.html``: the pages about every metric."""
    entries = [{key: str(entry.get(key, "")) for key in ERRATA_FIELDS} for entry in catalog.errata]
    index = _index(dict(sorted(catalog.metrics.items())))
    return {"index.html": _ENVIRONMENT.get_template("index.html.j2").render(root="", **index),
            "errata.html": _ENVIRONMENT.get_template("errata.html.j2").render(root="", entries=entries),
            "audits.html": _ENVIRONMENT.get_template("audits.html.j2").render(root="", rows=list(catalog.audits))}


def _metric_file(metric: ir.Metric, catalog: Catalog) -> dict[str, str]:
    page = _metric_page(metric, dict(sorted(catalog.metrics.items())), catalog.examples.get(metric.id))
    return {f"metrics/{metric.id}.html": _ENVIRONMENT.get_template("metric.html.j2").render(root="../", **page)}


TARGET = Target(name="html", output=SITE, metric_files=_metric_file, catalog_files=_pages)


def emit_site(metrics: Mapping[str, ir.Metric], errata: Sequence[Mapping[str, str]] = (),
              examples: Mapping[str, Mapping] | None = None, audits: Sequence[Mapping[str, str]] = ()) -> dict[str, str]:
    """Every file of the site (relative path -> text): ``index.html``, ``metrics/<id>.html``,
    ``errata.html`` and ``audits.html``. ``examples``: metric id -> worked example (``call``:
    the Python that computes it, ``input``: the data, ``rows``: (what, value) pairs);
    ``audits``: one row per recomputed claim."""
    return emit_files(Catalog(metrics, errata, examples or {}, audits), (TARGET,))
