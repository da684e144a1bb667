"""The metric evaluator of the declared-property checks: a metric's formulas as numpy functions,
its parameters bound, its averaged terms computed from their class formulas, on a :class:`Batch`.

Formulas are lambdified once per expression (shared through the caller's cache); a term is
averaged as its mode's row of the averaging table says (:mod:`metricc.compiler.language.averaging`).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping

import numpy as np
import sympy

from metricc.compiler.analysis.declared_data import COUNTS, Batch
from metricc.compiler.language import averaging, ir, symbols
from metricc.compiler.language.levels import Level
from metricc.core import binomial

__all__ = ["Compiled", "Function", "TOLERANCE", "compile_metric", "evaluate", "not_real_points", "parameter_settings"]

TOLERANCE = 1e-9  # relative slack for rounding in the range check
_CANDIDATES = (-10, -2, -1, -0.5, 0, 0.1, 0.5, 1, 2, 10)  # parameter values tried inside a domain


def _xlogy(x, y):
    """``x * log(y)``, 0 where ``x = 0`` (the runtime's convention, see ``symbols.xlogy``)."""
    return np.where(np.equal(x, 0), 0.0, x * np.log(np.where(np.equal(x, 0), 1.0, y)))


def _unknown(side) -> np.ndarray:
    """Where a compared value is undefined: NaN, or not real (sympy's ``I`` in a rewritten root)."""
    side = np.asarray(side)
    return np.isnan(side) | (np.abs(np.imag(side)) > TOLERANCE * np.maximum(1.0, np.abs(np.real(side))))


def _equal(a, b):
    """The bracket [a = b] as the generated code computes it (``runtime.kernel.equal``): NaN
    where a side is undefined, so a comparison cannot turn an undefined value into 0 or 1."""
    return np.where(_unknown(a) | _unknown(b), np.nan, np.equal(a, b) * 1.0)


def _step(x, at_zero):
    """numpy's ``heaviside`` (NaN stays NaN), with a non-real argument undefined too."""
    return np.where(_unknown(x), np.nan, np.heaviside(np.real(x), at_zero))


def _pick_rows(values, keys, holds):
    """``symbols.pick`` over thresholds on axis 0: the value at the first greatest key where the
    constraint holds, NaN where it holds nowhere."""
    rows = [np.asarray(v, dtype=float) for v in (values, keys, holds)]
    depth = max(r.ndim for r in rows)  # a row of constants (True) has no batch axis
    values, keys, holds = np.broadcast_arrays(*(r.reshape(r.shape + (1,) * (depth - r.ndim)) for r in rows))
    meets = holds != 0
    top = np.max(np.where(meets, keys, -np.inf), axis=0)
    first = np.argmax(meets & (keys == top), axis=0)
    chosen = np.take_along_axis(values, first[None], axis=0)[0]
    return np.where(meets.any(axis=0), chosen, np.nan)


def _extreme_rows(reduce):
    """``symbols.index_extreme`` over its index on axis 0 (a row of constants has no batch axis)."""
    def extreme(rows):
        return reduce(np.stack(np.broadcast_arrays(*(np.asarray(r, dtype=float) for r in rows))), axis=0)
    return extreme


_DELTA = sympy.Function("kronecker_delta")  # sympy prints KroneckerDelta for Python numbers only
# lambdify rewrites Heaviside as a Piecewise and folds it into its argument's sums (a bound
# index escapes its Sum): numpy's heaviside instead, under a name sympy leaves alone.
_HEAVISIDE = sympy.Function("indicator_step")
# A comparison of an undefined value (a log or root of a negative count) is undefined, as in
# the generated code, so the realness check sees ``indicator(log(TP - 3) != 0)`` at TP = 0 as
# the NaN the module returns; sympy would call ``log(-3) != 0`` true.
_NAMESPACE = {"kronecker_delta": _equal, "xlogy": _xlogy, "indicator_step": _step,
              "pick_rows": _pick_rows, "index_max_rows": _extreme_rows(np.max), "index_min_rows": _extreme_rows(np.min),
              "count_rows": lambda holds: np.count_nonzero(np.asarray(holds, dtype=float), axis=0),
              "binomial_tail": binomial.binomial_tail,  # the runtime's, vectorized: exact sums here take minutes
              "step": lambda x: _step(x, 0.5)}


def _free_symbols(expr: sympy.Basic, seen: dict) -> frozenset:
    """``expr.free_symbols`` by one walk: sympy's rebuilds every nested ``Sum`` to rename its
    index (seconds for the binned calibration errors, whose brackets nest sums three deep)."""
    if expr in seen:
        return seen[expr]
    if isinstance(expr, sympy.Symbol):
        found = frozenset({expr})
    elif isinstance(expr, sympy.Sum):
        inner = _free_symbols(expr.function, seen) - {limit[0] for limit in expr.limits}
        found = inner.union(*(_free_symbols(bound, seen) for limit in expr.limits for bound in limit[1:]))
    elif isinstance(expr, sympy.Indexed):
        found = frozenset().union(*(_free_symbols(i, seen) for i in expr.indices))
    elif isinstance(expr, (symbols.pick, symbols.meeting, symbols.index_extreme)):  # bind their index, like a Sum
        found = frozenset(expr.free_symbols)
    else:
        found = frozenset().union(*(_free_symbols(a, seen) for a in expr.args))
    seen[expr] = found
    return found


class Function:
    """``expr`` as a numpy function of an environment: symbol and array names -> values.

    A class index left free (an undefined case ``Sum(Y[s, j], s)`` of class ``j``) is a
    name the environment lacks: :meth:`vanishes` tries it at every class.
    """

    def __init__(self, expr: sympy.Expr) -> None:
        with sympy.evaluate(False):  # a renaming: re-evaluating Abs(...) of a sum of brackets takes seconds
            expr = expr.replace(sympy.KroneckerDelta, lambda a, b: _DELTA(a, b))
            expr = expr.replace(sympy.Heaviside, lambda x, at_zero=sympy.S.Half: _HEAVISIDE(x, at_zero))
        names = {s.name for s in _free_symbols(expr, {}) if isinstance(s, sympy.Symbol)}
        self.names = sorted(names | {b.label.name for b in expr.atoms(sympy.IndexedBase)})
        self.function = sympy.lambdify([sympy.Symbol(n) for n in self.names], expr, modules=[_NAMESPACE, "numpy"])

    def __call__(self, env: Mapping[str, object]) -> np.ndarray:
        return self.function(*(env[n] for n in self.names))

    def real(self, env: Mapping[str, object], shape: tuple[int, ...]) -> np.ndarray:
        """The values as floats, NaN where they are not real (sympy writes ``sqrt(-x)`` as ``I*sqrt(x)``)."""
        values = np.broadcast_to(np.asarray(self(env)), shape)
        if np.iscomplexobj(values):
            real = np.abs(values.imag) <= TOLERANCE * np.maximum(1.0, np.abs(values.real))
            values = np.where(real, values.real, np.nan)
        return values.astype(float)

    def vanishes(self, env: Mapping[str, object], shape: tuple[int, ...]) -> np.ndarray:
        """Where the value is 0 (for some class or sample, if a class or sample index is free:
        ``Sum(Y[s, k], k)``, a sample with no true label)."""
        free = [n for n in self.names if n not in env]
        ranges = [range(env["n"] if symbols.is_sample_index_name(n) else env.get("C", 1)) for n in free]
        found = np.zeros(shape, dtype=bool)
        for values in itertools.product(*ranges):
            found |= np.broadcast_to(self({**env, **dict(zip(free, values))}), shape) == 0
        return found


@dataclasses.dataclass(frozen=True)
class Compiled:
    """A metric's numpy functions: its value, its undefined cases, its terms' and defaults'."""

    value: Function
    undefined: tuple[Function, ...]
    terms: tuple[tuple[ir.Term, Function, tuple[Function, ...]], ...]
    defaults: Mapping[str, Function]
    scale: Function | None = None  # the conditioning scale, where the spec states one
    poles: tuple[Function, ...] = ()  # denominators and logarithm arguments: NaN elsewhere is a non-real value


def compile_metric(metric: ir.Metric, cache: dict) -> Compiled:
    def get(expr: sympy.Expr) -> Function:
        if expr not in cache:
            cache[expr] = Function(expr)
        return cache[expr]
    bound = {p.symbol: p.default for p in metric.params if p.kind == "metric"}
    # Term symbols are named by labels (``macro(recall)``), which are no Python names.
    bound.update({t.symbol: (sympy.IndexedBase if isinstance(t.symbol, sympy.IndexedBase) else sympy.Symbol)(f"term_{i}")
                  for i, t in enumerate(metric.terms)})
    terms = tuple((t, get(t.simplified.xreplace(bound)), tuple(get(u) for u in t.undefined)) for t in metric.terms)
    defaults = {p.name: get(p.default) for p in metric.params if p.kind == "class_vector" and not p.default.is_number}
    scale = get(metric.conditioning.scale.xreplace(bound)) if metric.conditioning else None
    value = metric.simplified.xreplace(bound)
    poles = {p.base for p in value.atoms(sympy.Pow) if p.exp.is_negative} | {a.args[0] for a in value.atoms(sympy.log)}
    return Compiled(get(value), tuple(get(u.xreplace(bound)) for u in metric.undefined), terms, defaults, scale,
                     tuple(get(p) for p in sorted(poles, key=sympy.default_sort_key)))


def _domain_values(param: ir.Param) -> list[float]:
    """A few values inside the parameter's domain, spread from its lowest to its highest."""
    symbol = sympy.Symbol(param.name, real=True)
    inside = [v for v in _CANDIDATES if all(r.subs(symbol, v) is sympy.true for r in param.domain)]
    if len(inside) <= 4:
        return inside
    return [inside[round(i * (len(inside) - 1) / 3)] for i in range(4)]


def parameter_settings(metric: ir.Metric) -> list[tuple[str, dict[str, object]]]:
    """``(label, values)``: every parameter at its default, then each in turn at other values."""
    numbers = [p for p in metric.params if p.kind != "metric"]
    defaults: dict[str, object] = {p.name: p.default for p in numbers}
    settings = [("", defaults)]
    for param in numbers:
        for value in _domain_values(param):
            if param.default.is_number and float(param.default) == value:
                continue
            where = " in every other class" if param.kind == "class_vector" and metric.level is not Level.CLASS else ""
            where = " at every other pair of classes" if param.kind == "class_matrix" else where
            settings.append((f" (at {param.name}={value:g}{where})", {**defaults, param.name: value}))
    return settings


def _bind(metric: ir.Metric, compiled: Compiled, setting: Mapping[str, object], batch: Batch) -> dict[str, object]:
    """Parameter values for ``batch``: a number, one per point, or one per class ``(C, B)``.

    A class vector of a matrix or aggregate formula takes a non-default value in every other
    class (the others keep a numeric default), so that the classes differ.
    """
    env: dict[str, object] = {}
    for param in metric.params:
        if param.kind == "metric":
            continue
        value = setting[param.name]
        if param.kind == "class_matrix":
            env[param.name] = _class_matrix(param, value, int(batch.env["C"]))
            continue
        vector = param.kind == "class_vector" and metric.level is not Level.CLASS and bool(batch.classes)
        if value is param.default and param.name in compiled.defaults:
            value = compiled.defaults[param.name](dict(zip(COUNTS, batch.classes)) if vector else batch.env)
        elif vector and value is not param.default and param.default.is_number:
            value = np.where(np.arange(batch.classes[0].shape[0])[:, None] % 2 == 0, value, float(param.default))
        value = np.asarray(value, dtype=float)
        env[param.name] = np.broadcast_to(value, batch.classes[0].shape) if vector else value if value.ndim else float(value)
    return env


def _class_matrix(param: ir.Param, value, classes: int) -> np.ndarray:
    """A class_matrix parameter ``(C, C, 1)`` for matrices of ``classes`` classes: its default,
    or the default with ``value`` at every other pair of classes (i + j odd)."""
    i, j = np.indices((classes, classes))
    matrix = np.broadcast_to(np.asarray(Function(param.default)({"i": i, "j": j, "C": np.int64(classes)}), dtype=float),
                             (classes, classes))
    if value is not param.default:
        matrix = np.where((i + j) % 2 == 1, float(value), matrix)
    return matrix[:, :, None]


def _term_value(term: ir.Term, value: Function, undefined: tuple[Function, ...], batch: Batch,
                params: Mapping[str, object]) -> tuple[np.ndarray, np.ndarray]:
    """An averaged (or per-class) term from its class formula; ``ok`` where it is defined."""
    mode = averaging.MODES[term.mode] if term.mode else None
    rows = batch.instances if mode and mode.per_instance else batch.classes
    if mode and mode.pools:
        rows = tuple(r.sum(axis=0, keepdims=True) for r in rows)
    per_class = not (mode and (mode.pools or mode.per_instance))
    env = {**{k: v for k, v in params.items() if np.ndim(v) == 0 or per_class}, **dict(zip(COUNTS, rows))}
    if any(name not in env for name in value.names):  # a class vector inside a pooled term: not sampled
        return np.full(batch.size, np.nan), np.zeros(batch.size, dtype=bool)
    per_row = value.real(env, rows[0].shape)
    ok = np.ones(rows[0].shape, dtype=bool)
    for case in undefined:
        ok &= ~case.vanishes(env, rows[0].shape)
    ok = ok.all(axis=0)
    if mode is None:
        return per_row, ok
    averaged, defined = mode.sample(per_row, params[term.weights] if term.weights else rows[0] + rows[2])
    return averaged, ok & defined


def evaluate(metric: ir.Metric, compiled: Compiled, setting, batch: Batch):
    """The metric's values on ``batch``, where it is defined, and its conditioning scale (None
    without one)."""
    defined = np.ones(batch.size, dtype=bool)
    if not batch.instances and any(t.mode and averaging.MODES[t.mode].per_instance for t in metric.terms):
        return np.full(batch.size, np.nan), ~defined, None  # samples() needs multi-label data
    params = _bind(metric, compiled, setting, batch)
    env = {**batch.env, **params}
    for index, (term, value, undefined) in enumerate(compiled.terms):
        env[f"term_{index}"], ok = _term_value(term, value, undefined, batch, params)
        defined &= ok
    for case in compiled.undefined:
        defined &= ~case.vanishes(env, (batch.size,))
    values = compiled.value.real(env, (batch.size,))
    return values, defined, compiled.scale.real(env, (batch.size,)) if compiled.scale else None


def not_real_points(compiled: Compiled, setting, batch: Batch, metric: ir.Metric, candidates: np.ndarray) -> np.ndarray:
    """Of the defined points where the value is NaN, those where no denominator or logarithm
    argument vanishes: there the NaN is a root or logarithm of a negative number, not 0/0
    left in a guarded factor (``indicator(TP != 0) * g_mean`` at TP = 0)."""
    params = _bind(metric, compiled, setting, batch)
    env = {**batch.env, **params}
    for index, (term, value, undefined) in enumerate(compiled.terms):
        env[f"term_{index}"], _ = _term_value(term, value, undefined, batch, params)
    found = candidates.copy()
    for pole in compiled.poles:
        found &= ~pole.vanishes(env, (batch.size,))
    return found
