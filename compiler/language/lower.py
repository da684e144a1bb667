"""Validated specs -> :class:`~metricc.compiler.ir.Metric` values (the symbolic IR).

Parses every formula, resolves references between metrics in dependency order (reporting
unknown metrics and cycles at the referencing column), applies parameter bindings, and
inlines per-class references so that a class-level formula is a plain expression over
TP, FP, FN, TN and parameters.
"""

from __future__ import annotations

import hashlib
import keyword
from pathlib import Path
from collections.abc import Sequence

import sympy
from sympy.core.function import AppliedUndef

from metricc.compiler.language import averaging, bands, ir, symbols
from metricc.compiler.names import did_you_mean, python_clash
from metricc.compiler.errors import CatalogError, Diagnostic, FormulaError, SpecError
from metricc.compiler.language.levels import Average, Level, rules
from metricc.compiler.language.load import SourceSpec
from metricc.compiler.language.lower_params import RESERVED, ParamLowering, in_file_order, spec_number
from metricc.compiler.language.parse import MetricCall, Scope, parse_formula

__all__ = ["lower_catalog"]


def _source_name(path: str) -> str:
    """``specs/f1.yaml`` whatever the working directory: generated files name no absolute path."""
    location = Path(path)
    return f"{location.parent.name}/{location.name}" if location.parent.name else location.name


def _display_symbol(call: MetricCall) -> sympy.Symbol:
    """``macro(f_beta(beta=2))`` as one symbol, for printing the formula as written."""
    name = call.metric
    if call.bindings:
        name += "(" + ", ".join(f"{k}={v}" for k, v in call.bindings) + ")"
    if call.weights:
        name += f", {call.weights}"
    return sympy.Symbol(f"{call.mode}({name})" if call.mode else name, real=True)


def _catalog_names(specs: Sequence[SourceSpec]) -> dict[str, str]:
    """id and alias -> id; duplicates and reserved names are catalog errors."""
    names: dict[str, str] = {}
    owner: dict[str, SourceSpec] = {}
    spelled: dict[str, str] = {}  # lookup ignores '_' and case (runtime registry.name_key): f1_score = f1score
    problems = []
    # Ids first: an alias that repeats another metric's id is the alias's fault.
    entries = [(spec, ("id",), spec.data["id"]) for spec in specs]
    entries += [(spec, ("aliases", i), a) for spec in specs for i, a in enumerate(spec.data.get("aliases", []))]
    for spec, path, name in entries:
        clash = python_clash(name) if path == ("id",) else ("is a Python keyword" if keyword.iskeyword(name) else None)
        if name in RESERVED or name in ("t", "p"):
            problems.append(spec.diagnostic(path, f"'{name}' is a reserved name in formulas; choose another"))
        elif clash:
            problems.append(spec.diagnostic(path, f"'{name}' {clash}; choose another"))
        elif name in names and not (owner[name] is spec and names[name] == name):
            problems.append(spec.diagnostic(path, f"'{name}' is already used by {owner[name].path}"))
        elif name.replace("_", "") in spelled and names[spelled[name.replace("_", "")]] != spec.data["id"]:
            other = spelled[name.replace("_", "")]
            problems.append(spec.diagnostic(path, f"'{name}' reads as '{other}' of {owner[other].path} "
                                                   "(names are looked up ignoring '_'); choose another"))
        else:
            spelled.setdefault(name.replace("_", ""), name)
            names[name] = spec.data["id"]
            owner[name] = spec
    if problems:
        raise CatalogError(in_file_order(problems))
    return names


# A formula for class j at each level that may declare one (validate.PER_CLASS_LEVELS).
_PER_CLASS_EXAMPLE = {Level.MATRIX: "e.g. M[{0}, {0}] / t[{0}]", Level.SCORE: "e.g. Sum(Y[s, {0}] * S[s, {0}], s) / n"}


class _Lowering(ParamLowering):
    """Lowers the specs by id on demand, each once, referenced metrics first (cycles are errors)."""

    def __init__(self, specs: Sequence[SourceSpec]) -> None:
        self.specs = {spec.data["id"]: spec for spec in specs}
        self.names = _catalog_names(specs)
        self.done: dict[str, ir.Metric] = {}
        self.active: list[str] = []

    def metric(self, metric_id: str, via: tuple[SourceSpec, MetricCall] | None = None) -> ir.Metric:
        if metric_id in self.done:
            return self.done[metric_id]
        if metric_id in self.active:
            spec, call = via
            cycle = " -> ".join([*self.active[self.active.index(metric_id):], metric_id])
            raise CatalogError(Diagnostic(call.location, spec.key_name(("formula",)), f"metrics reference each other in a cycle: {cycle}"))
        self.active.append(metric_id)
        try:
            result = self._lower(self.specs[metric_id])
        finally:
            self.active.pop()
        self.done[metric_id] = result
        return result

    def _lower(self, spec: SourceSpec) -> ir.Metric:
        data = spec.data
        level = Level(data.get("level", "class"))
        params = self._params(spec, level)
        scope = Scope(
            level=level,
            scalar_params=frozenset(p.name for p in params if p.kind == "scalar"),
            vector_params=frozenset(p.name for p in params if p.kind == "class_vector"),
            matrix_params=frozenset(p.name for p in params if p.kind == "class_matrix"),
            metrics={k: v for k, v in self.names.items() if v != data["id"]},
            metric_params=frozenset(p.name for p in params if p.kind == "metric"),
        )
        scope = Scope(**{**scope.__dict__, "macros": self._macros(spec, scope)})
        free = (data["per_class"],) if "per_class" in data else ()
        parsed = parse_formula(data["formula"], scope, spec.locator(("formula",)), spec.key_name(("formula",)), bound=free)
        written, terms = self._resolve(spec, level, params, parsed.expr, parsed.calls)
        as_written = parsed.expr.xreplace({c.placeholder: _display_symbol(c) for c in parsed.calls if c.index is None})
        self._check_params_used(spec, params, written, terms)
        if free and symbols.index_symbol(free[0]) not in written.free_symbols:
            raise FormulaError(spec.diagnostic(("formula",), f"per_class: {free[0]} declares one value per class {free[0]}, "
                                                              f"but the formula does not use {free[0]}; write it for class "
                                                              f"{free[0]} ({_PER_CLASS_EXAMPLE[level].format(free[0])}) or remove per_class"))
        if written.has(symbols.binomial_tail) and data.get("counts") != "whole":
            raise FormulaError(spec.diagnostic(("formula",), "binomial_tail() counts whole successes of whole trials: declare "
                                                              "'counts: whole' so that the generated function refuses a matrix "
                                                              "with a fraction instead of testing it"))
        low, high = (spec_number(v) for v in data["range"])
        return ir.Metric(
            id=data["id"],
            name=data["name"],
            aliases=tuple(data.get("aliases", ())),
            description=data["description"],
            references=tuple(data["references"]),
            level=level,
            params=params,
            averages=tuple(a.value for a in Average if a in data.get("averages", ())),
            default_average=data.get("default_average"),
            range=(low, high),
            higher_is_better=data["higher_is_better"],
            formula=" ".join(data["formula"].split()),
            as_written=as_written,
            written=written,
            terms=terms,
            source=_source_name(spec.path),
            digest=hashlib.sha256(spec.text.encode("utf-8")).hexdigest(),
            location=spec.locate(("id",)),
            key_locations=tuple((key, spec.locate((key,))) for key in ("formula", "range", "higher_is_better", "conditioning")),
            scores=data.get("scores", "any"),
            truth=data.get("truth", "labels"),
            whole_counts=data.get("counts", "real") == "whole",
            conditioning=self._conditioning(spec, scope),
            lets=tuple((key, " ".join(text.split())) for key, text in data.get("let", {}).items()),
            interpretation=bands.scales(data),
            per_class=data.get("per_class", ""),
        )

    @staticmethod
    def _conditioning(spec: SourceSpec, scope: Scope) -> ir.Conditioning | None:
        entry = spec.data.get("conditioning")
        if entry is None:
            return None
        path = ("conditioning", "scale")
        free = (spec.data["per_class"],) if "per_class" in spec.data else ()
        parsed = parse_formula(entry["scale"], scope, spec.locator(path), spec.key_name(path), bound=free)
        if parsed.calls:
            raise FormulaError(spec.diagnostic(path, "a conditioning scale is written over counts, parameters "
                                                      "and let definitions, not other metrics"))
        return ir.Conditioning(parsed.expr, " ".join(entry["scale"].split()), " ".join(entry["reason"].split()),
                               spec.locate(("conditioning",)))

    def _macros(self, spec: SourceSpec, scope: Scope) -> dict:
        macros: dict[str, tuple[tuple[str, ...], sympy.Expr]] = {}
        for key, text in spec.data.get("let", {}).items():
            name, _, rest = key.partition("[")
            indices = tuple(i.strip() for i in rest.rstrip("]").split(",")) if rest else ()
            path = ("let", key)
            if name in RESERVED or name in self.names or name in scope.scalar_params or name in scope.vector_params \
                    or name in scope.matrix_params:
                raise FormulaError(spec.diagnostic(path, f"definition name '{name}' clashes with a reserved name, metric or parameter"))
            inner = Scope(**{**scope.__dict__, "macros": dict(macros)})
            parsed = parse_formula(text, inner, spec.locator(path), spec.key_name(path), bound=indices)
            if parsed.calls:
                raise FormulaError(spec.diagnostic(path, "let definitions cannot use other metrics yet; write them in the formula"))
            macros[name] = (indices, parsed.expr)
        return macros

    def _resolve(self, spec, level, params, expr, calls) -> tuple[sympy.Expr, tuple[ir.Term, ...]]:
        own = {p.name: p for p in params}
        replacements: dict[sympy.Expr, sympy.Expr] = {}
        terms: dict[tuple, ir.Term] = {}
        arguments = {c.placeholder: c for c in calls if c.argument}
        for call in calls:
            if call.argument:
                continue  # resolved where it is bound, in _bind
            if call.metric not in self.specs:
                raise CatalogError(Diagnostic(call.location, spec.key_name(("formula",)), f"unknown metric '{call.metric}'"))
            target = self.metric(call.metric, via=(spec, call))
            allowed = rules(level).references
            if not allowed:
                raise CatalogError(Diagnostic(call.location, spec.key_name(("formula",)),
                                              f"'{target.id}' is a metric: {level}-level formulas cannot use other metrics; write them over S[s, k] and Y[s, k]"))
            if target.level not in allowed and Level.CURVE in allowed:
                raise CatalogError(Diagnostic(call.location, spec.key_name(("formula",)),
                                              f"'{target.id}' is level {target.level}; curve formulas can use only curve-level metrics"))
            if target.level not in allowed:
                raise CatalogError(Diagnostic(call.location, spec.key_name(("formula",)),
                                              f"'{target.id}' is one value per matrix (level {target.level}); only class-level metrics can be used per class or averaged"))
            if call.mode is not None and call.mode not in target.averages:
                raise CatalogError(Diagnostic(call.location, spec.key_name(("formula",)),
                                              f"'{target.id}' does not support {call.mode} averaging (it lists {', '.join(target.averages)})"))
            self._check_count_axis(spec, level, call, calls)
            body = self._bind(spec, call, target, own, arguments)
            if rules(level).inlines_references:
                replacements[call.placeholder] = body
                continue
            key = (call.metric, call.mode, call.bindings, call.weights)
            if key not in terms:
                # Named by its label, for people; what the term is lives in the ir.Term.
                inner = ir.term_inner(call.metric, call.bindings, call.weights)
                if call.mode:
                    symbol = symbols.TermSymbol(f"{call.mode}({inner})", real=True)
                else:
                    symbol = sympy.IndexedBase(symbols.TermSymbol(inner))
                terms[key] = ir.Term(symbol, call.metric, call.mode, call.bindings, body, weights=call.weights)
            symbol = terms[key].symbol
            replacements[call.placeholder] = symbol if call.mode else symbol[symbols.index_symbol(call.index)]
            if call.mode is None:
                replacements[call.placeholder.base] = symbol
        written = expr.xreplace(replacements)
        return written, tuple(sorted(terms.values(), key=lambda t: str(t.symbol)))

    @staticmethod
    def _check_count_axis(spec, level: Level, call: MetricCall, calls) -> None:
        """``samples(...)`` averages over instances: the formula then takes per-instance counts.

        Per-class terms (``macro``, ``weighted``, ``geometric``, ``binary``, ``recall[k]``)
        need per-class counts, so they cannot share a formula with ``samples``; ``micro``
        pools every count and gives the same value over either axis.
        """
        if not averaging.per_instance(call.mode):
            return
        where = spec.key_name(("formula",))
        if level is Level.MATRIX:
            raise FormulaError(Diagnostic(call.location, where, "samples() averages per-instance counts of multi-label data; a matrix formula takes a confusion matrix (use level: aggregate)"))
        other = next((c for c in calls if not (averaging.per_instance(c.mode) or c.mode and averaging.MODES[c.mode].pools)), None)
        if other is not None:
            shown = f"{other.mode}({other.metric})" if other.mode else f"{other.metric}[{other.index}]"
            raise FormulaError(Diagnostic(call.location, where, f"samples() needs per-instance counts, {shown} per-class counts: one formula takes one kind (micro() fits either)"))

    def _bind(self, spec, call: MetricCall, target: ir.Metric, own: dict[str, ir.Param], arguments: dict) -> sympy.Expr:
        bound = dict(call.bindings)
        mapping = {}
        for name, value in bound.items():
            where = call.binding_location(name)
            if not any(p.name == name for p in target.params):
                raise FormulaError(Diagnostic(where, spec.key_name(("formula",)), f"'{target.id}' has no parameter '{name}'{did_you_mean(name, [p.name for p in target.params])}"))
            if target.param(name).kind == "metric" or value in arguments:
                mapping[symbols.metric_value(name)] = self._bind_metric(spec, target.param(name), value, where, own, arguments)
                continue
            if not value.is_number and not value.free_symbols <= {p.symbol for p in own.values()}:
                raise FormulaError(Diagnostic(where, spec.key_name(("formula",)), f"parameter '{name}' must be bound to a number or a parameter of this spec"))
            mapping[sympy.Symbol(name, real=True)] = value
        for param in target.params:
            if param.name in bound:
                continue
            mine = own.get(param.name)
            if mine is None or mine.kind != param.kind:
                example = param.reference or "1"
                raise FormulaError(Diagnostic(call.location, spec.key_name(("formula",)),
                                              f"'{target.id}' needs parameter '{param.name}' ({param.kind}): bind it, e.g. {target.id}({param.name}={example}), or declare it in params"))
        return target.written.xreplace(mapping)

    def _bind_metric(self, spec, param: ir.Param, value, where, own, arguments) -> sympy.Expr:
        """The per-class formula of the metric bound to a metric parameter (``base=g_mean``)."""
        key = spec.key_name(("formula",))
        if param.kind != "metric":
            raise FormulaError(Diagnostic(where, key, f"parameter '{param.name}' takes a number, not a metric"))
        mine = own.get(type(value).__name__) if isinstance(value, AppliedUndef) else None
        if mine is not None and mine.kind == "metric":
            return value  # passed through: this spec's own metric parameter
        if value not in arguments:
            raise FormulaError(Diagnostic(where, key, f"parameter '{param.name}' takes a class-level metric id, e.g. {param.name}={param.reference}"))
        argument = arguments[value]
        if argument.metric not in self.specs:
            raise CatalogError(Diagnostic(argument.location, key, f"unknown metric '{argument.metric}'"))
        bound = self.metric(argument.metric, via=(spec, argument))
        if not rules(bound.level).per_class:
            raise CatalogError(Diagnostic(argument.location, key, f"'{bound.id}' is one value per matrix (level {bound.level}); parameter '{param.name}' takes a class-level metric"))
        return self._bind(spec, argument, bound, own, arguments)

    def _check_params_used(self, spec, params, written, terms) -> None:
        used = {s.name for s in written.free_symbols} | {type(f).__name__ for f in written.atoms(AppliedUndef)}
        used |= {b.label.name for b in written.atoms(sympy.IndexedBase)} | {str(b) for b in written.atoms(sympy.Indexed)}
        for term in terms:
            used |= {s.name for s in term.expr.free_symbols} | ({term.weights} if term.weights else set())
            used |= {type(f).__name__ for f in term.expr.atoms(AppliedUndef)}
        used_names = used | {str(b.base) for b in written.atoms(sympy.Indexed)}
        for param in params:
            if param.name not in used_names:
                raise FormulaError(spec.key_diagnostic(("params", param.name), f"parameter '{param.name}' is declared but the formula does not use it"))


def lower_catalog(specs: Sequence[SourceSpec]) -> dict[str, ir.Metric]:
    """Lower every validated spec; raises the first :class:`SpecError` found per metric."""
    lowering = _Lowering(specs)
    problems: list[Diagnostic] = []
    kind = None
    for metric_id in sorted(lowering.specs):
        try:
            lowering.metric(metric_id)
        except SpecError as error:
            kind = kind or type(error)
            problems.extend(d for d in error.diagnostics if d not in problems)
    if problems:
        raise kind(in_file_order(problems))
    return dict(sorted(lowering.done.items()))
