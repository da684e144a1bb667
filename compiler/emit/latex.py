"""Emit LaTeX documentation: a fragment per metric and the catalog ``docs/metrics.tex``.

Templates use ``((* *))`` / ``((( )))`` delimiters so LaTeX braces never clash with Jinja2;
every piece of spec text passes through :func:`~metricc.compiler.text.latex_escape`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence

import jinja2
import sympy

from metricc.compiler.analysis import analyze
from metricc.compiler.language import averaging, ir, symbols
from metricc.compiler.language.averaging import MODES, per_instance
from metricc.compiler.language.levels import Level, rules
from metricc.compiler.language.load import ERRATA_FIELDS
from metricc.compiler.emit.errata_math import errata_latex
from metricc.compiler.emit.latex_delta import delta_context
from metricc.compiler.emit.target import GENERATED, Target
from metricc.compiler.emit.text import display_form, latex, latex_escape
from metricc.compiler.emit.written import written_latex

__all__ = ["TARGET", "averaging_expansions", "family", "source_of", "per_class", "pooled", "INDEX", "INSTANCE"]

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
_ENVIRONMENT.filters["interval"] = lambda text: re.sub(r"\binf\b", r"\\infty", text)  # [3, inf) -> [3, \infty)
_ENVIRONMENT.filters["per_class_average"] = lambda mode, index, level: (
    MODES[mode].latex_score_values if level == Level.SCORE and MODES[mode].latex_score_values else MODES[mode].latex_values
).format(index)
# Long identifiers of the errata (test names, file paths) may break after _ and / .
_ENVIRONMENT.filters["breakable"] = lambda text: re.sub(r"(\\_|/)", r"\1\\allowbreak{}", latex_escape(text))

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


# About the characters of math that fit one display line of the catalog (A4, 2 cm margins).
_LINE = 80
# A term wider than this overflows the page even after the rough estimate's slack.
_UNBREAKABLE = 180


def width(expr: sympy.Basic) -> int:
    """The printed width of ``expr`` in characters, roughly: a fraction is as wide as its wider part."""
    if expr.is_Symbol or expr.is_Number or isinstance(expr, sympy.Indexed):
        return len(str(expr))
    numerator, denominator = sympy.fraction(expr) if expr.is_Mul or expr.is_Pow else (expr, sympy.S.One)
    if denominator != 1:
        return max(width(numerator), width(denominator))
    parts = sum(width(a) for a in expr.args)
    if expr.is_Add:
        return parts + 3 * (len(expr.args) - 1)
    if expr.is_Mul:
        return parts + 2 * (len(expr.args) - 1)
    return parts + 4


def _lines(expr: sympy.Expr, terms: Sequence[ir.Term], room: int = _LINE) -> list[str]:
    """A sum broken into lines of at most about ``room`` characters, signs leading."""
    if width(expr) <= room:
        return [latex(expr, terms)]
    if not expr.is_Add:
        return _summand_lines(expr, terms) or [latex(expr, terms)]
    lines, current, used = [], "", 0
    for i, term in enumerate(expr.as_ordered_terms()):
        split = _summand_lines(term, terms) if isinstance(term, sympy.Mul) and width(term) > room else None
        if split:  # a product wider than a line (a gradient's term), broken inside its widest sum
            lines += [current] if current else []
            lines += [("+ " if i and not term.could_extract_minus_sign() else "") + split[0], *split[1:-1]]
            current, used = split[-1], width(term) // len(split)
            continue
        negative = term.could_extract_minus_sign()
        text = latex(-term if negative else term, terms)
        piece = (("- " if negative else "") if i == 0 else (" - " if negative else " + ")) + text
        if current and used + width(term) > room:
            lines.append(current)
            current, used = piece.lstrip(), 0
        else:
            current += piece
        used += width(term) + 3
    return lines + [current]


def _summand_lines(term: sympy.Expr, terms: Sequence[ir.Term]) -> list[str] | None:
    r"""One ``Sum`` too wide for a line (overall_mcen's numerator), broken inside its summand:
    ``\sum_{k} f \cdot \Bigl(a`` then ``+ b \Bigr)``; a product (a gradient's term) likewise
    inside its widest sum factor; None when there is no sum to break."""
    negative = term.could_extract_minus_sign()
    body = -term if negative else term
    if not isinstance(body, (sympy.Sum, sympy.Mul)):
        return None
    factors = sympy.Mul.make_args(body.function if isinstance(body, sympy.Sum) else body)
    inner = max((f for f in factors if f.is_Add), key=width, default=None)
    if inner is None:
        return None
    rest = [f for f in factors if f is not inner]
    # a product's other factors share the first line with the sum (a Sum's summand keeps the whole line)
    room = _LINE if isinstance(body, sympy.Sum) else max(_LINE - sum(width(f) + 2 for f in rest), _LINE // 2)
    pieces = _lines(inner, terms, room)
    if len(pieces) == 1:
        return None
    shown_rest = "".join((rf"\left({latex(f, terms)}\right)" if f.is_Add else latex(f, terms)) + r" \cdot " for f in rest)
    summed = rf"\sum_{{{', '.join(latex(limit[0], terms) for limit in body.limits)}}} " if isinstance(body, sympy.Sum) else ""
    head = ("- " if negative else "") + summed + shown_rest
    return [head + r"\Bigl(" + pieces[0], *pieces[1:-1], pieces[-1] + r" \Bigr)"]


def broken(expr: sympy.Expr, terms: Sequence[ir.Term] = ()) -> str:
    """A display of ``expr`` that fits the page: as one line when it does, else as
    ``N / D`` with the numerator and denominator written out below, broken at their sums."""
    if width(expr) <= _LINE:
        return rf"\[ {latex(expr, terms)} \]"
    numerator, denominator = sympy.fraction(sympy.factor_terms(expr))
    if denominator == 1:
        parts, head = [("", numerator)], ""
    else:
        parts = [(name, part) for name, part in (("N", numerator), ("D", denominator))]
        head = r"& \frac{N}{D}, \quad \text{where} \\" + "\n"
    if any(max(map(width, sympy.Add.make_args(part))) > _UNBREAKABLE for _, part in parts):
        # A term far wider than a line (a score formula with its let definitions inlined) has
        # no sum to break at: scaled to the line, it stays whole and legible when zoomed.
        return rf"\[ \resizebox{{\linewidth}}{{!}}{{$\displaystyle {latex(expr, terms)}$}} \]"
    rows = []
    for name, part in parts:
        lines = _lines(part, terms)
        lead = f"{name} &= " if name else "& "
        rows.append(lead + lines[0] + "".join(rf" \\ & \quad {line}" for line in lines[1:]))
    return "\\begin{align*}\n" + head + " \\\\\n".join(rows) + "\n\\end{align*}"


def _fitted(expr: sympy.Expr, terms: Sequence[ir.Term] = ()) -> str:
    """:func:`broken`, factored first (``display_form``) when too long for a line: a
    factorization the short ones are spared."""
    return broken(display_form(expr) if width(expr) > _LINE else expr, terms)


class _Shown:
    """A per-class formula in LaTeX as the averaging modes write it out (each part printed when read)."""

    def __init__(self, shown: sympy.Expr):
        self.shown = shown
        self.value = latex(per_class(shown))

    @functools.cached_property
    def pooled(self) -> str:
        return latex(pooled(self.shown))

    @functools.cached_property
    def instance_value(self) -> str:
        return latex(per_class(self.shown, INSTANCE))


def averaging_expansions(metric: ir.Metric) -> list[tuple[str, str]]:
    """(mode, LaTeX) for every averaging mode of a class-level metric, sums written out.
    A per-class formula too long to repeat is shown once (``none``), the others use its m_k."""
    shown = display_form(metric.simplified)
    parts = _Shown(shown)
    out = []
    for name in metric.averages:
        mode = MODES[name]
        if mode.latex_by_class is None or width(shown) <= _LINE // mode.latex_share:
            out.append((name, mode.latex(parts)))
        else:
            out.append((name, mode.latex_by_class))
    return out


def _expansions(metric: ir.Metric) -> list[tuple[str, str]]:
    if metric.level is Level.CURVE:
        return [(mode, MODES[mode].latex_curve) for mode in metric.averages]
    return averaging_expansions(metric) if rules(metric.level).per_class else []


def _case(case: sympy.Expr, terms: Sequence[ir.Term] = (), suffix: str = "") -> str:
    """``D = 0``, and for a guarded case ``D = 0 and a != b`` (from its brackets ``[a = b]``), as
    an item's text: inline math, or scaled to the line where the denominator is wider than one
    (an item cannot break inside its formula)."""
    denominator, unequal = analyze.case_conditions(case)
    conditions = [rf"{latex(a, terms)} \neq {latex(b, terms)}" for a, b in unequal]
    zero = [latex(denominator, terms) + " = 0"] if denominator != 0 else []  # xlogy(x, 0): x != 0 alone
    text = r" \text{ and } ".join([*zero, *conditions]) + suffix
    if width(denominator) <= _LINE:
        return f"${text}$"
    return rf"\resizebox{{\linewidth}}{{!}}{{$\displaystyle {text}$}}"


def _undefined(metric: ir.Metric) -> list[str]:
    cases = [_case(u, metric.terms) for u in metric.undefined]
    for term in metric.terms:
        index, unit = (INSTANCE, "instance") if per_instance(term.mode) else (INDEX, "class")
        for u in term.undefined:
            cases.append(_case(per_class(u, index), suffix=rf" \text{{ for some {unit} }} {index} \text{{ (in {latex_escape(term.label)})}}"))
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


def _bound(value: sympy.Expr, short: bool = False) -> str:
    if value.is_Rational and not value.is_Integer:  # as the spec writes it: 1.0615, not 2123/2000
        return f"{float(value):.6g}" if short else repr(float(value))  # the summary table is narrow
    return {sympy.oo: r"\infty", -sympy.oo: r"-\infty"}.get(value, latex(value))


def _equivalences(metric: ir.Metric, metrics: Mapping[str, ir.Metric]) -> list[str]:
    """Stated equivalences, condensed: one line per partner, bindings, scope and proof, listing
    the averaging modes in which both sides agree mode by mode (``macro(f1) = macro(f_beta)``,
    ``weighted(f1) = ...`` become one line)."""
    groups: dict[tuple, tuple[list[str | None], list[str]]] = {}
    for eq in (e for e in metric.equivalences if e.stated):
        alike = eq.mode == eq.other_mode and eq.mode is not None
        key = (eq.other, eq.bindings, eq.other_bindings, eq.scope_text, None if alike else (eq.mode, eq.other_mode))
        modes, methods = groups.setdefault(key, ([], []))
        modes.append(eq.mode)
        if eq.method not in methods:
            methods.append(eq.method)
    lines = []
    for (other, bindings, other_bindings, scope, modes), (found, methods) in groups.items():
        if modes is None:
            left, right = _variant(metric.id, None, bindings), _variant(other, None, other_bindings)
            listed = ", ".join(rf"\texttt{{{m}}}" + (" (class by class)" if averaging.per_class(m) else "") for m in sorted(found))
            where = f"averaged alike: {listed};"
        else:
            left, right = _variant(metric.id, modes[0], bindings), _variant(other, modes[1], other_bindings)
            where = "class by class," if averaging.per_class(modes[0]) else ""
        notes = [_binding_note(b) for b in (bindings, other_bindings)]
        note = "".join(f"; {n}" for n in notes if n)
        proof = "; ".join(latex_escape(m) for m in methods)
        lines.append(rf"${left} = {right}$ " + " ".join(filter(None, [where, scope])) + f" (proved by {proof}{note})")
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
        "written": written_latex(metric.formula),
        "lets": [(written_latex(name), written_latex(text)) for name, text in metric.lets],
        "simplified": broken(display_form(metric.simplified, metric.written), metric.terms),
        "expansions": _expansions(metric),
        "terms": [(t.label, "per instance" if per_instance(t.mode) else "per class",
                   latex(per_class(t.simplified, INSTANCE if per_instance(t.mode) else INDEX))) for t in metric.terms],
        "undefined": _undefined(metric),
        "zero_weight": _zero_weight(metric),
        "binomial_tail": metric.simplified.has(symbols.binomial_tail),
        "guarded": _guarded(metric),
        "conditioning": metric.conditioning.text if metric.conditioning else "",
        "low": _bound(metric.range[0]),
        "high": _bound(metric.range[1]),
        "params": [(p.name, p.kind, r"\texttt{" + latex_escape(p.reference) + "}" if p.kind == "metric" else latex(p.default),
                    p.domain_text, p.description) for p in metric.params],
        "equivalences": _equivalences(metric, metrics),
        "delta": delta_context(metric, _fitted),
    }


def emit_metric_doc(metric: ir.Metric, metrics: Mapping[str, ir.Metric]) -> str:
    """``docs/metrics/<id>.tex``: a function of the metric's own IR (its equivalences name the others)."""
    return _ENVIRONMENT.get_template("metric.tex.j2").render(_context(metric, metrics))


def emit_catalog_docs(metrics: Mapping[str, ir.Metric], errata: Sequence[Mapping[str, str]] = ()) -> dict[str, str]:
    """``docs/errata.tex`` and the ``docs/metrics.tex`` catalog: the files about every metric."""
    files = {}
    entries = [{key: str(entry.get(key, "")) for key in ERRATA_FIELDS} for entry in errata]
    for entry in entries:
        entry["printed_tex"], entry["correct_tex"] = errata_latex(entry["printed"]), errata_latex(entry["correct"])
    if entries:
        files["docs/errata.tex"] = _ENVIRONMENT.get_template("errata.tex.j2").render(entries=entries)
    families: dict[str, list[ir.Metric]] = {name: [] for name in FAMILIES.values()}
    for metric in sorted(metrics.values(), key=lambda m: (m.name.lower(), m.id)):
        families[family(metric)].append(metric)
    files["docs/metrics.tex"] = _ENVIRONMENT.get_template("catalog.tex.j2").render(
        families=[(name, members) for name, members in families.items() if members],
        summary=[_summary(m) for members in families.values() for m in members], errata=bool(entries),
    )
    return files


def _summary(metric: ir.Metric) -> dict:
    """A row of the catalog's summary table."""
    return {"id": metric.id, "name": metric.name, "level": metric.level.value,
            "averages": ", ".join(m + ("*" if m == metric.default_average else "") for m in metric.averages) or "--",
            "range": f"$[{_bound(metric.range[0], short=True)}, {_bound(metric.range[1], short=True)}]$",
            "better": {True: "higher", False: "lower", None: "--"}[metric.higher_is_better]}


TARGET = Target(
    name="latex",
    output=GENERATED,
    metric_files=lambda metric, catalog: {f"docs/metrics/{metric.id}.tex": emit_metric_doc(metric, catalog.metrics)},
    catalog_files=lambda catalog: emit_catalog_docs(catalog.metrics, catalog.errata),
)
