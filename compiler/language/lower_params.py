"""Lowering a spec's parameters: names, kinds, domains and defaults (a mixin of the lowering).

A scalar or class_vector default is a number or a formula of the counts, inside the domain; a
class_matrix default a formula of the class indices (:mod:`.class_matrix`); a metric
parameter's default another class-level metric, lowered first and bound as a reference is.
"""

from __future__ import annotations

import math

import sympy

from metricc.compiler.errors import CatalogError, Diagnostic, FormulaError
from metricc.compiler.language import averaging, class_matrix, ir, symbols
from metricc.compiler.language.levels import Level, rules
from metricc.compiler.language.load import SourceSpec
from metricc.compiler.language.parse import Scope, parse_domain, parse_formula
from metricc.compiler.names import python_clash

# The language's names and its averaging modes: no metric, parameter or definition may take one.
RESERVED = symbols.RESERVED | frozenset(averaging.MODES)

__all__ = ["ParamLowering", "in_file_order", "spec_number"]


def spec_number(value) -> sympy.Expr:
    """A number as a spec writes it: ``inf``, ``-inf``, an integer, a float read exactly as printed."""
    if value == "inf":
        return sympy.oo
    if value == "-inf":
        return -sympy.oo
    return sympy.Rational(repr(value)) if isinstance(value, float) else sympy.Integer(value)


def in_file_order(problems: list[Diagnostic]) -> list[Diagnostic]:
    """Problems in the order a reader meets them: by file, line and column."""
    return sorted(problems, key=lambda d: (d.location.file, d.location.line, d.location.column))


class ParamLowering:
    """``_params`` of :class:`.lower._Lowering` (uses its ``names``, ``specs``, ``metric`` and ``_bind``)."""

    def _params(self, spec: SourceSpec, level: Level) -> tuple[ir.Param, ...]:
        params = []
        problems = []
        for name, entry in sorted(spec.data.get("params", {}).items()):
            path = ("params", name)
            if name in RESERVED or name in self.names or (len(name) == 1 and rules(level).indexed):
                problems.append(spec.key_diagnostic(path, f"parameter name '{name}' clashes with a reserved name, metric or index; rename it"))
                continue
            if clash := python_clash(name):
                problems.append(spec.key_diagnostic(path, f"parameter name '{name}' {clash}; rename it"))
                continue
            kind = entry["kind"]
            if level is Level.SCORE and kind == "class_vector":
                problems.append(spec.diagnostic(path + ("kind",), "score-level parameters are scalars (kind: scalar), "
                                                                    "e.g. the k of top-k accuracy"))
                continue
            if kind == "metric":
                problem = self._metric_param_problem(spec, path, level, entry)
                if problem:
                    problems.append(problem)
                else:
                    params.append(self._metric_param(spec, name, entry))
                continue
            domain_text = entry.get("domain", "")
            domain = ()
            if domain_text:
                domain = parse_domain(domain_text, name, spec.locator(path + ("domain",)), spec.key_name(path + ("domain",)))
            default = entry["default"]
            if kind == "class_matrix":
                params.append(ir.Param(name, kind, self._class_matrix_default(spec, name, level, domain, domain_text),
                                       domain, domain_text, entry.get("description", ""), spec.locate(path),
                                       " ".join(str(default).split())))
                continue
            if isinstance(default, str):
                counts_scope = Scope(level=Level.CLASS, allow_metrics=False)
                if kind == "scalar":
                    counts_scope = Scope(level=None, allow_metrics=False)
                default_expr = parse_formula(default, counts_scope, spec.locator(path + ("default",)), spec.key_name(path + ("default",))).expr
            else:
                default_expr = spec_number(default)
            if default_expr.is_number:
                symbol = sympy.Symbol(name, real=True)
                for relation in domain:
                    if relation.subs(symbol, default_expr) is not sympy.true:
                        problems.append(spec.diagnostic(path + ("default",), f"default {default} is outside the domain '{domain_text}'"))
                        break
                if not math.isfinite(float(default_expr)):
                    problems.append(spec.diagnostic(path + ("default",), "a default must be finite"))
            params.append(ir.Param(name, kind, default_expr, domain, domain_text, entry.get("description", ""), spec.locate(path)))
        if problems:
            raise FormulaError(in_file_order(problems))
        return tuple(params)

    @staticmethod
    def _class_matrix_default(spec: SourceSpec, name: str, level: Level, domain, domain_text: str) -> sympy.Expr:
        path = ("params", name)
        if level is not Level.MATRIX:
            raise FormulaError(spec.key_diagnostic(path, class_matrix.LEVEL_PROBLEM))
        where = path + ("default",)
        default = class_matrix.parse_default(spec.data["params"][name]["default"], spec.locator(where), spec.key_name(where))
        problem = class_matrix.default_problem(default, name, domain)
        if problem:
            raise FormulaError(spec.diagnostic(where, problem + (f" '{domain_text}'" if problem.endswith("domain") else "")))
        return default

    @staticmethod
    def _metric_param_problem(spec, path, level: Level, entry) -> Diagnostic | None:
        if not rules(level).per_class:
            return spec.key_diagnostic(path, "metric parameters are for class-level specs: the bound metric is used per class")
        if "domain" in entry:
            return spec.diagnostic(path + ("domain",), "a metric parameter has no domain: it takes any class-level metric")
        if not isinstance(entry["default"], str):
            return spec.diagnostic(path + ("default",), "the default of a metric parameter is a metric id, e.g. g_mean")
        return None

    def _metric_param(self, spec, name: str, entry) -> ir.Param:
        """A metric parameter; its default is the default metric's per-class formula."""
        path = ("params", name, "default")
        scope = Scope(level=Level.CLASS, metrics={k: v for k, v in self.names.items() if v != spec.data["id"]})
        parsed = parse_formula(entry["default"], scope, spec.locator(path), spec.key_name(path))
        top = [c for c in parsed.calls if not c.argument]
        if len(top) != 1 or parsed.expr != top[0].placeholder:
            raise FormulaError(spec.diagnostic(path, "the default of a metric parameter is one metric id, e.g. g_mean or f_beta(beta=2)"))
        call = top[0]
        arguments = {c.placeholder: c for c in parsed.calls if c.argument}
        if call.metric not in self.specs:
            raise CatalogError(Diagnostic(call.location, spec.key_name(path), f"unknown metric '{call.metric}'"))
        target = self.metric(call.metric, via=(spec, call))
        if not rules(target.level).per_class:
            raise CatalogError(Diagnostic(call.location, spec.key_name(path), f"'{target.id}' is one value per matrix (level {target.level}); a metric parameter takes a class-level metric"))
        default = self._bind(spec, call, target, {}, arguments)
        reference = " ".join(entry["default"].split())
        return ir.Param(name, "metric", default, (), "", entry.get("description", ""), spec.locate(("params", name)), reference)
