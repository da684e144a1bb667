"""References to other metrics in a formula: ``precision``, ``macro(recall)``, ``f_beta(beta=2)``,
``recall[k]``, ``iba(base=g_mean)``.

A mixin of the formula builder in :mod:`.parse`. A reference becomes a placeholder symbol and
a :class:`MetricCall` recording what was written and where; :mod:`.lower` resolves it (inlines
a per-class formula, or makes an averaged term) once every metric of the catalog is known.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

import sympy

from metricc.compiler.errors import Location
from metricc.compiler.language import averaging, symbols
from metricc.compiler.language.levels import Level
from metricc.compiler.names import did_you_mean

__all__ = ["MetricCall", "ReferenceForms"]


@dataclass(frozen=True)
class MetricCall:
    """A use of another metric: per class (``precision``, ``recall[k]``) or averaged."""

    placeholder: sympy.Expr
    metric: str
    mode: str | None
    bindings: tuple[tuple[str, sympy.Expr], ...]
    index: str | None
    location: Location
    binding_locations: tuple[tuple[str, Location], ...] = ()  # where each ``name=`` is written
    weights: str | None = None  # ``weighted(recall, relevance)``: a class_vector parameter
    argument: bool = False  # bound to a metric parameter (``iba(base=g_mean)``), not a value

    def binding_location(self, name: str) -> Location:
        return dict(self.binding_locations).get(name, self.location)


class ReferenceForms:
    """``_averaged``, ``_reference`` and ``_binding`` of the formula builder (uses its
    ``fail``/``build``/``location``, ``scope``, ``rules`` and ``calls``)."""

    def _averaged(self, node: ast.Call, mode: str) -> sympy.Expr:
        if not self.rules.averages_metrics:
            if self.rules.level is Level.CURVE:
                raise self.fail(node, f"{mode}() is not allowed in a curve formula: a curve metric is one value per class, averaged when called (average=...); use the metric itself")
            raise self.fail(node, f"{mode}() makes one value per matrix: use it in an aggregate or matrix formula (level: aggregate)")
        weights = None
        if averaging.MODES[mode].takes_weights and len(node.args) == 2 and not node.keywords:
            weights = node.args[1]
            if not isinstance(weights, ast.Name) or weights.id not in self.scope.vector_params:
                raise self.fail(weights, f"the weights of {mode}() are a class_vector parameter, e.g. {mode}(recall, relevance)")
            weights = weights.id
        elif len(node.args) != 1 or node.keywords:
            hint = f" or {mode}(recall, w) with w a class_vector parameter" if averaging.MODES[mode].takes_weights else ""
            raise self.fail(node, f"{mode}() takes one metric, e.g. {mode}(recall){hint}")
        arg = node.args[0]
        if isinstance(arg, ast.Name) and arg.id in self.scope.metrics:
            return self._reference(arg, arg.id, (), mode, None, weights)
        if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id in self.scope.metrics and not arg.args:
            return self._reference(arg, arg.func.id, arg.keywords, mode, None, weights)
        if isinstance(arg, ast.Name) and arg.id in symbols.COUNT_NAMES:
            raise self.fail(arg, f"'{arg.id}' is a count, not a metric: {mode}() takes a metric id, e.g. {mode}(recall)")
        if isinstance(arg, ast.Name):
            raise self.fail(arg, f"unknown metric '{arg.id}'{did_you_mean(arg.id, self.scope.metrics)}")
        raise self.fail(arg, f"{mode}() takes a metric id, e.g. {mode}(recall) or {mode}(f_beta(beta=2))")

    def _reference(self, node, name, keywords, mode, index, weights=None) -> sympy.Expr:
        bindings = []
        where = []
        for keyword in keywords:
            if keyword.arg is None:
                raise self.fail(keyword, "**kwargs is not allowed")
            bindings.append((keyword.arg, self._binding(keyword.value)))
            where.append((keyword.arg, self.location(keyword)))
        metric = self.scope.metrics[name]
        key = len(self.calls)
        if index is None:
            placeholder = sympy.Symbol(f"_ref{key}", real=True)
        else:
            placeholder = sympy.IndexedBase(f"_ref{key}")[symbols.index_symbol(index)]
        self.calls.append(MetricCall(placeholder, metric, mode, tuple(sorted(bindings)), index, self.location(node), tuple(where), weights))
        return placeholder

    def _binding(self, node: ast.AST) -> sympy.Expr:
        """A binding's value; a metric (``base=g_mean``, ``base=f_beta(beta=2)``) becomes an
        argument call, a symbol named like the metric, resolved by lowering."""
        call = node.func if isinstance(node, ast.Call) and not node.args else None
        name = node.id if isinstance(node, ast.Name) else call.id if isinstance(call, ast.Name) else None
        if name not in self.scope.metrics or not self.scope.allow_metrics:
            return self.build(node)
        keywords = node.keywords if call is not None else []
        bindings = []
        for keyword in keywords:
            if keyword.arg is None:
                raise self.fail(keyword, "**kwargs is not allowed")
            bindings.append((keyword.arg, self._binding(keyword.value)))
        bindings.sort()
        metric = self.scope.metrics[name]
        label = metric + ("(" + ", ".join(f"{k}={v}" for k, v in bindings) + ")" if bindings else "")
        placeholder = sympy.Symbol(label, real=True)
        where = tuple((k.arg, self.location(k)) for k in keywords)
        self.calls.append(MetricCall(placeholder, metric, None, tuple(bindings), None, self.location(node), where, argument=True))
        return placeholder
