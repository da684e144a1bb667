"""Check what a spec declares about its formula: ``range``, ``higher_is_better``, realness,
the ``conditioning`` scale.

The checks sample, they do not prove (no sympy bounds): a spec is refused only on a concrete
counterexample. Each level draws its own data, deterministically (fixed seed), with zeros
and extreme imbalances. class: a grid of small counts, then random counts up to 10**6.
matrix: confusion matrices of 2 to 4 classes. aggregate: terms computed from their class
formulas over the per-class counts of such matrices and of multi-label indicator data (which
also gives the per-instance counts of ``samples``). curve: count curves from the origin, each
threshold adding a sample or more. score: score rows that are distributions (valid for
``scores: any`` too), one-hot truth. Points where the metric or a term is undefined are
skipped. Parameters take their defaults and, one at a time, a few values of their domain;
a metric parameter keeps its default metric.

- range: a defined value outside the bounds (beyond a relative 1e-9) refuses; the message
  names the smallest such data.
- realness: refused when a defined point gives no real number (``sqrt(-1 - TP)``,
  ``sqrt(log(f1, 2))``): a metric is a real number wherever it is defined.
- conditioning: the scale must be at least ``|value|`` wherever the value is defined (a
  documented error bound is never tighter than the 1e-12 relative guarantee it replaces).
- direction: correcting one error (FN -> TP, FP -> TN; an off-diagonal instance onto the
  diagonal; a wrong indicator bit; the top-ranked negative moved to the bottom; scores a
  quarter of the way toward the truth) refuses when it moves the value the wrong way at
  :data:`WRONG_SHARE` of the points where it moves it. Metrics that are not monotone pass:
  RCI goes the wrong way at about half of them, CEN at a fifth. ``higher_is_better: null``
  (a prevalence, an entropy, a test statistic) declares no direction: nothing to check.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterator, Mapping

import numpy as np
import sympy

from metricc.compiler.analysis import analyze
from metricc.compiler.errors import Diagnostic, FormulaError, InternalError
from metricc.compiler.language import averaging, ir, symbols
from metricc.compiler.language.levels import Level
from metricc.core import binomial

__all__ = ["check_declared", "TOLERANCE", "WRONG_SHARE"]

SEED = 11
TOLERANCE = 1e-9  # relative slack for rounding in the range check
WRONG_SHARE = 0.9  # share of moved values going the wrong way that contradicts the declared direction
MIN_MOVED = 20  # fewer moved values than this decide nothing
_CANDIDATES = (-10, -2, -1, -0.5, 0, 0.1, 0.5, 1, 2, 10)  # parameter values tried inside a domain
_COUNTS = ("TP", "FP", "FN", "TN")


def _xlogy(x, y):
    """``x * log(y)``, 0 where ``x = 0`` (the runtime's convention, see ``symbols.xlogy``)."""
    return np.where(np.equal(x, 0), 0.0, x * np.log(np.where(np.equal(x, 0), 1.0, y)))


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
_NAMESPACE = {"kronecker_delta": lambda a, b: np.equal(a, b) * 1.0, "xlogy": _xlogy, "indicator_step": np.heaviside,
              "pick_rows": _pick_rows, "index_max_rows": _extreme_rows(np.max), "index_min_rows": _extreme_rows(np.min),
              "count_rows": lambda holds: np.count_nonzero(np.asarray(holds, dtype=float), axis=0),
              "binomial_tail": binomial.binomial_tail,  # the runtime's, vectorized: exact sums here take minutes
              "step": lambda x: np.where(np.greater(x, 0), 1.0, np.where(np.equal(x, 0), 0.5, 0.0))}


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


class _Function:
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
        """Where the value is 0 (for some class, if a class index is free)."""
        free = [n for n in self.names if n not in env]
        found = np.zeros(shape, dtype=bool)
        for classes in itertools.product(range(env.get("C", 1)), repeat=len(free)):
            found |= np.broadcast_to(self({**env, **dict(zip(free, classes))}), shape) == 0
        return found


@dataclasses.dataclass(frozen=True)
class _Batch:
    """Data points of one shape, the batch on the last axis, and how to name one point.

    ``classes`` / ``instances``: per-class / per-instance counts ``(TP, FP, FN, TN)``, each
    of shape ``(rows, size)``, for the terms of aggregate and matrix formulas.
    """

    env: Mapping[str, object]
    size: int
    weight: np.ndarray  # what "smallest" means when naming a counterexample
    describe: Callable[[int], str]
    classes: tuple[np.ndarray, ...] = ()
    instances: tuple[np.ndarray, ...] = ()


def _class_batches(rng: np.random.Generator) -> Iterator[tuple[_Batch, _Batch | None]]:
    grid = np.array(list(itertools.product((0, 1, 2, 3, 7), repeat=4)), dtype=float).T
    scale = 10.0 ** rng.uniform(0, 6, size=(4, 1500))
    drawn = np.floor(scale * rng.random((4, 1500))) * (rng.random((4, 1500)) > 0.25)
    counts = np.concatenate([grid, drawn], axis=1)
    yield _counts_batch(counts), None
    for source, target in ((2, 0), (1, 3)):  # FN -> TP, FP -> TN
        movable = counts[:, counts[source] >= 1]
        moved = movable.copy()
        moved[source] -= 1
        moved[target] += 1
        yield _counts_batch(movable), _counts_batch(moved)


def _counts_batch(counts: np.ndarray) -> _Batch:
    return _Batch(dict(zip(_COUNTS, counts)), counts.shape[1], counts.sum(axis=0),
                  lambda i: ", ".join(f"{name}={int(counts[k, i])}" for k, name in enumerate(_COUNTS)))


def _pick(mask: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """One random marked cell of every batch column of ``mask`` ``(a, b, B)``: its ``(a, b, column)``."""
    flat = np.where(mask, rng.random(mask.shape), -1.0).reshape(-1, mask.shape[2]).argmax(axis=0)
    return flat // mask.shape[1], flat % mask.shape[1], np.arange(mask.shape[2])


def _matrix_batch(matrix: np.ndarray) -> _Batch:
    # Sizes are numpy integers (here and below): 1 / (C - 2) at C = 2 is inf, not an exception.
    rows, columns, total = matrix.sum(axis=1), matrix.sum(axis=0), matrix.sum(axis=(0, 1))
    tp = np.einsum("kkb->kb", matrix)
    env = {"M": matrix, "t": rows, "p": columns, "n": total, "C": np.int64(matrix.shape[0])}
    return _Batch(env, matrix.shape[2], total, lambda i: "M=" + str(matrix[:, :, i].astype(int).tolist()),
                  classes=(tp, columns - tp, rows - tp, total - rows - columns + tp))


def _matrix_batches(rng: np.random.Generator) -> Iterator[tuple[_Batch, _Batch | None]]:
    for classes in (2, 3, 4):
        high = 10 ** rng.integers(0, 4, size=300)
        matrix = rng.integers(0, high + 1, size=(classes, classes, 300)).astype(float)
        matrix *= rng.random(matrix.shape) > 0.3
        yield _matrix_batch(matrix), None
        wrong = ~np.eye(classes, dtype=bool)[:, :, None] & (matrix >= 1)
        matrix = matrix[:, :, wrong.any(axis=(0, 1))]
        row, column, index = _pick(wrong[:, :, wrong.any(axis=(0, 1))], rng)
        corrected = matrix.copy()  # one misclassified instance moved onto the diagonal
        corrected[row, column, index] -= 1
        corrected[row, row, index] += 1
        yield _matrix_batch(matrix), _matrix_batch(corrected)


def _indicator_batch(truth: np.ndarray, predicted: np.ndarray) -> _Batch:
    """Multi-label data ``(n, C, B)`` as per-class and per-instance counts."""
    counts = [truth * predicted, (1 - truth) * predicted, truth * (1 - predicted), (1 - truth) * (1 - predicted)]
    return _Batch({}, truth.shape[2], np.full(truth.shape[2], float(truth.shape[0])),
                  lambda i: f"Y={truth[:, :, i].astype(int).tolist()}, predicted {predicted[:, :, i].astype(int).tolist()}",
                  classes=tuple(c.sum(axis=0) for c in counts), instances=tuple(c.sum(axis=1) for c in counts))


def _aggregate_batches(rng: np.random.Generator) -> Iterator[tuple[_Batch, _Batch | None]]:
    for (batch, corrected) in _matrix_batches(rng):
        yield dataclasses.replace(batch, env={}), corrected and dataclasses.replace(corrected, env={})
    for classes in (2, 3, 5):
        truth = (rng.random((6, classes, 300)) < rng.random((1, 1, 300))).astype(float)
        predicted = np.where(rng.random(truth.shape) < 0.6, truth, 1 - truth)
        yield _indicator_batch(truth, predicted), None
        fixable = (truth != predicted).any(axis=(0, 1))
        truth, predicted = truth[:, :, fixable], predicted[:, :, fixable]
        cell = _pick(truth != predicted, rng)
        corrected = predicted.copy()  # one wrong indicator set right
        corrected[cell] = truth[cell]
        yield _indicator_batch(truth, predicted), _indicator_batch(truth, corrected)


def _curve_batch(tp: np.ndarray, fp: np.ndarray) -> _Batch:
    # The origin (no sample predicted positive) goes last, where TP[i - 1] at i = 0 reads it.
    origin = np.zeros((1, tp.shape[1]))
    positives, negatives = tp[-1], fp[-1]
    tp, fp = np.concatenate([tp, origin]), np.concatenate([fp, origin])
    env = {"TP": tp, "FP": fp, "FN": positives - tp, "TN": negatives - fp, "P": positives, "N": negatives,
           "L": np.int64(tp.shape[0] - 1)}
    return _Batch(env, tp.shape[1], positives + negatives,
                  lambda i: f"TP={tp[:-1, i].astype(int).tolist()}, FP={fp[:-1, i].astype(int).tolist()}")


def _curve_batches(rng: np.random.Generator) -> Iterator[tuple[_Batch, _Batch | None]]:
    for thresholds in (1, 3, 6):
        added = rng.integers(0, 4, size=(2, thresholds, 400)) * (rng.random((2, thresholds, 400)) > 0.3)
        added[0] += added.sum(axis=0) == 0  # every threshold adds at least one sample
        tp, fp = np.cumsum(added, axis=1).astype(float)
        yield _curve_batch(tp, fp), None
        # The top-ranked negative moved to the bottom threshold (the top one stays non-empty).
        movable = (added[1, 0] >= 1) & (added[:, 0].sum(axis=0) >= 2) & (thresholds > 1)
        moved = fp[:, movable].copy()
        moved[:-1] -= 1
        yield _curve_batch(tp[:, movable], fp[:, movable]), _curve_batch(tp[:, movable], moved)


def _score_batch(scores: np.ndarray, truth: np.ndarray) -> _Batch:
    env = {"S": scores, "Y": truth, "n": np.int64(scores.shape[0]), "C": np.int64(scores.shape[1])}
    return _Batch(env, scores.shape[2], np.zeros(scores.shape[2]),
                  lambda i: f"S={np.round(scores[:, :, i], 3).tolist()}, Y={_grades(truth[:, :, i])}")


def _grades(truth: np.ndarray) -> list:
    """A truth matrix as printed in a refusal: whole numbers as such (indicators, one-hot)."""
    return truth.astype(int).tolist() if (truth == np.round(truth)).all() else np.round(truth, 3).tolist()


def _score_batches(rng: np.random.Generator) -> Iterator[tuple[_Batch, _Batch | None]]:
    for samples, classes in ((4, 2), (6, 3)):
        labels = rng.integers(0, classes, size=(samples, 200))
        truth = (labels[:, None, :] == np.arange(classes)[None, :, None]).astype(float)
        scores = rng.gamma(rng.choice([0.2, 1.0, 5.0], size=(1, 1, 200)), size=(samples, classes, 200))
        scores /= scores.sum(axis=1, keepdims=True)
        yield _score_batch(scores, truth), None
        yield _score_batch(scores, truth), _score_batch(0.75 * scores + 0.25 * truth, truth)


def _indicator_score_batches(rng: np.random.Generator) -> Iterator[tuple[_Batch, _Batch | None]]:
    """Multi-label truth (``truth: indicator``): rows with any number of true labels, scores
    with ties (rounded to tenths), and the same scores a quarter of the way toward the truth."""
    for samples, classes in ((4, 3), (5, 4)):
        truth = (rng.random((samples, classes, 200)) < rng.random((1, 1, 200))).astype(float)
        scores = np.round(rng.random((samples, classes, 200)), 1)
        yield _score_batch(scores, truth), None
        yield _score_batch(scores, truth), _score_batch(0.75 * scores + 0.25 * truth, truth)


def _relevance_score_batches(rng: np.random.Generator) -> Iterator[tuple[_Batch, _Batch | None]]:
    """Graded truth (``truth: relevance``): relevances 0 to 3, scaled by a per-case factor
    (so they are not whole numbers), with ties, all-zero rows and rows of one grade; scores
    with ties; and the same scores moved a quarter of the way toward the relevances, which
    only ever puts a pair of labels in the order of their relevances."""
    for samples, classes in ((4, 3), (5, 4)):
        truth = rng.integers(0, 4, size=(samples, classes, 200)) * rng.choice([1.0, 0.37, 2.5], size=(1, 1, 200))
        truth[:, :, :20] *= rng.random((samples, 1, 20)) < 0.5  # all-zero rows
        truth[:, :, 20:30] = truth[:, :1, 20:30]  # every label of a row equally relevant
        scores = np.round(rng.random((samples, classes, 200)), 1)
        yield _score_batch(scores, truth), None
        yield _score_batch(scores, truth), _score_batch(0.75 * scores + 0.25 * truth, truth)


_TRUTH_BATCHES = {"indicator": _indicator_score_batches, "relevance": _relevance_score_batches}


_BATCHES = {Level.CLASS: _class_batches, Level.MATRIX: _matrix_batches, Level.AGGREGATE: _aggregate_batches,
            Level.CURVE: _curve_batches, Level.SCORE: _score_batches}


@dataclasses.dataclass(frozen=True)
class _Compiled:
    """A metric's numpy functions: its value, its undefined cases, its terms' and defaults'."""

    value: _Function
    undefined: tuple[_Function, ...]
    terms: tuple[tuple[ir.Term, _Function, tuple[_Function, ...]], ...]
    defaults: Mapping[str, _Function]
    scale: _Function | None = None  # the conditioning scale, where the spec states one
    poles: tuple[_Function, ...] = ()  # denominators and logarithm arguments: NaN elsewhere is a non-real value


def _compiled(metric: ir.Metric, cache: dict) -> _Compiled:
    def get(expr: sympy.Expr) -> _Function:
        if expr not in cache:
            cache[expr] = _Function(expr)
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
    return _Compiled(get(value), tuple(get(u.xreplace(bound)) for u in metric.undefined), terms, defaults, scale,
                     tuple(get(p) for p in sorted(poles, key=sympy.default_sort_key)))


def _domain_values(param: ir.Param) -> list[float]:
    """A few values inside the parameter's domain, spread from its lowest to its highest."""
    symbol = sympy.Symbol(param.name, real=True)
    inside = [v for v in _CANDIDATES if all(r.subs(symbol, v) is sympy.true for r in param.domain)]
    if len(inside) <= 4:
        return inside
    return [inside[round(i * (len(inside) - 1) / 3)] for i in range(4)]


def _settings(metric: ir.Metric) -> list[tuple[str, dict[str, object]]]:
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


def _bind(metric: ir.Metric, compiled: _Compiled, setting: Mapping[str, object], batch: _Batch) -> dict[str, object]:
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
            value = compiled.defaults[param.name](dict(zip(_COUNTS, batch.classes)) if vector else batch.env)
        elif vector and value is not param.default and param.default.is_number:
            value = np.where(np.arange(batch.classes[0].shape[0])[:, None] % 2 == 0, value, float(param.default))
        value = np.asarray(value, dtype=float)
        env[param.name] = np.broadcast_to(value, batch.classes[0].shape) if vector else value if value.ndim else float(value)
    return env


def _class_matrix(param: ir.Param, value, classes: int) -> np.ndarray:
    """A class_matrix parameter ``(C, C, 1)`` for matrices of ``classes`` classes: its default,
    or the default with ``value`` at every other pair of classes (i + j odd)."""
    i, j = np.indices((classes, classes))
    matrix = np.broadcast_to(np.asarray(_Function(param.default)({"i": i, "j": j, "C": np.int64(classes)}), dtype=float),
                             (classes, classes))
    if value is not param.default:
        matrix = np.where((i + j) % 2 == 1, float(value), matrix)
    return matrix[:, :, None]


def _term_value(term: ir.Term, value: _Function, undefined: tuple[_Function, ...], batch: _Batch,
                params: Mapping[str, object]) -> tuple[np.ndarray, np.ndarray]:
    """An averaged (or per-class) term from its class formula; ``ok`` where it is defined."""
    mode = averaging.MODES[term.mode] if term.mode else None
    rows = batch.instances if mode and mode.per_instance else batch.classes
    if mode and mode.pools:
        rows = tuple(r.sum(axis=0, keepdims=True) for r in rows)
    per_class = not (mode and (mode.pools or mode.per_instance))
    env = {**{k: v for k, v in params.items() if np.ndim(v) == 0 or per_class}, **dict(zip(_COUNTS, rows))}
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


def _evaluate(metric: ir.Metric, compiled: _Compiled, setting, batch: _Batch):
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


def _not_real(compiled: _Compiled, setting, batch: _Batch, metric: ir.Metric, candidates: np.ndarray) -> np.ndarray:
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


def _number(bound: sympy.Expr) -> str:
    return "inf" if bound == sympy.oo else "-inf" if bound == -sympy.oo else f"{float(bound):g}"


def _smallest(batch: _Batch, points: np.ndarray, order: np.ndarray) -> tuple[float, float, int]:
    """``(data size, -order, index)`` of the point of ``points`` with the least data (ties: largest ``order``)."""
    found = np.flatnonzero(points)
    index = int(found[np.lexsort((-order[found], batch.weight[found]))[0]])
    return float(batch.weight[index]), -float(order[index]), index


def _check_setting(metric: ir.Metric, compiled: _Compiled, label: str, setting, batches) -> dict[str, str]:
    """Problems under one parameter setting, by key."""
    low, high = (float(b) for b in metric.range)
    sign = 1.0 if metric.higher_is_better else -1.0
    defined_count = real_count = moved = wrong = 0
    first = outside_example = wrong_example = small_scale = not_real = None
    for batch, corrected in batches:
        values, defined, scale = _evaluate(metric, compiled, setting, batch)
        real = defined & ~np.isnan(values)
        if scale is not None and small_scale is None:
            small = real & ~(scale >= np.abs(values) * (1 - TOLERANCE))
            if small.any():
                index = int(np.flatnonzero(small)[0])
                small_scale = f"{batch.describe(index)} gives {values[index]:.6g} but the scale is {scale[index]:.6g}"
        defined_count, real_count = defined_count + int(defined.sum()), real_count + int(real.sum())
        first = first or (defined.any() and batch.describe(int(np.flatnonzero(defined)[0])))
        if not_real is None and (defined & np.isnan(values)).any():
            found = _not_real(compiled, setting, batch, metric, defined & np.isnan(values))
            not_real = batch.describe(int(np.flatnonzero(found)[0])) if found.any() else None
        slack = TOLERANCE * np.maximum(1.0, np.abs(np.where(np.isfinite(values), values, 0.0)))
        excess = np.maximum(low - values, values - high)
        outside = real & (excess > slack)
        if outside.any():
            *key, index = _smallest(batch, outside, excess)
            if outside_example is None or tuple(key) < outside_example[:2]:  # ties: the first batch, fewest classes
                outside_example = (*key, f"{batch.describe(index)} gives {values[index]:.6g}")
        if corrected is None or metric.higher_is_better is None:  # no direction to check
            continue
        after, after_defined, _ = _evaluate(metric, compiled, setting, corrected)
        change = sign * (after - values)
        changed = real & after_defined & ~np.isnan(after) & (np.abs(change) > slack)
        moved, wrong = moved + int(changed.sum()), wrong + int((changed & (change < 0)).sum())
        if (changed & (change < 0)).any() and wrong_example is None:
            *_, index = _smallest(batch, changed & (change < 0), -change)
            wrong_example = f"{batch.describe(index)} gives {values[index]:.6g} but {corrected.describe(index)} gives {after[index]:.6g}"
    problems = {}
    if defined_count and not real_count:
        problems["$.formula"] = (f"the formula is never real{label}: it gives no real number at any sampled point where it "
                                 f"is defined, e.g. {first} (a square root or logarithm of a negative value?); fix the formula")
    elif not_real:
        problems["$.formula"] = (f"the formula is not real at {not_real}{label}, where it is defined (a square root or "
                                 "logarithm of a negative value?): a metric must be a real number wherever it is "
                                 "defined; fix the formula")
    if outside_example:
        problems["$.range"] = (f"range [{_number(metric.range[0])}, {_number(metric.range[1])}] but {outside_example[2]}"
                               f"{label}; fix the formula or declare the range it has")
    if small_scale:
        problems["$.conditioning"] = (f"the conditioning scale must be at least |value| where the metric is defined, but "
                                      f"{small_scale}{label}; fix the scale")
    if moved >= MIN_MOVED and wrong >= WRONG_SHARE * moved:
        declared, other = ("true", "false") if metric.higher_is_better else ("false", "true")
        problems["$.higher_is_better"] = (
            f"higher_is_better: {declared} but correcting one error {'lowers' if sign > 0 else 'raises'} the value at "
            f"{wrong} of {moved} sampled points where it changes{label}, e.g. {wrong_example}; "
            f"declare higher_is_better: {other} or fix the formula")
    return problems


# Class counts at which a denominator of the class indices alone is tried: a zero at any of them
# is a division by zero for every input with that many classes.
_INDEX_CLASS_COUNTS = (1, 2, 3, 4)


def _excluded(term: sympy.Expr, power: sympy.Pow, at: dict) -> bool:
    """Whether a factor of ``term`` beside ``power`` is 0 at the indices ``at``: the term is
    left out there (``Sum(x, k != j)`` multiplies by 1 - [k = j])."""
    return any(not factor.has(power) and factor.xreplace(at) == 0 for factor in sympy.Mul.make_args(term))


def _vanishing_index_denominator(metric: ir.Metric) -> tuple[sympy.Expr, dict] | None:
    """A denominator in a class sum's terms that depends on the class indices alone and is 0 for
    some classes (``1 / |i - j|`` at i = j), with the indices where it is, or None.

    No count can rescue such a term, so no undefined case describes it: the formula divides by
    zero whenever those classes exist."""
    named = {symbols.N_CLASSES, symbols.THRESHOLDS}
    for total in metric.simplified.atoms(sympy.Sum):
        for power in total.function.atoms(sympy.Pow):
            base = power.base
            if not (power.exp.is_number and power.exp.is_negative) or analyze.depends_on_data(base):
                continue
            indices = sorted((s for s in base.free_symbols if s.is_integer and s not in named), key=str)
            if not indices or base.free_symbols - set(indices) - named:
                continue  # a parameter takes values from its domain, sampled elsewhere
            for classes in _INDEX_CLASS_COUNTS:
                for values in itertools.product(range(classes), repeat=len(indices)):
                    at = {**dict(zip(indices, map(sympy.Integer, values))), symbols.N_CLASSES: sympy.Integer(classes)}
                    if base.xreplace(at) == 0 and not _excluded(total.function, power, at):
                        return base, {index: at[index] for index in indices}
    return None


def _vanishing_log_in_sum(metric: ir.Metric) -> sympy.Expr | None:
    """The argument of a logarithm in a class sum's terms that may vanish, or None.

    Data atoms become non-negative unknowns: an argument sympy cannot then prove positive
    (``M[i, j]``, ``precision[k]``, an indicator) may be 0 for some class."""
    for total in metric.simplified.atoms(sympy.Sum):
        for log in total.function.atoms(sympy.log):
            argument = log.args[0]
            data = argument.atoms(sympy.Indexed) | {s for s in argument.free_symbols if isinstance(s, symbols.TermSymbol)}
            unknowns = {d: sympy.Dummy(nonnegative=True) for d in data}
            bounded = argument.xreplace(unknowns).replace(
                lambda e: isinstance(e, sympy.KroneckerDelta), lambda e: sympy.Dummy(nonnegative=True))
            if bounded.is_positive is not True:
                return argument
    return None


def _check_metric(metric: ir.Metric, batches: list, cache: dict) -> list[Diagnostic]:
    """Diagnostics for one analyzed metric, over the sampled ``batches`` of its level."""
    found: dict[str, str] = {}
    vanishing = _vanishing_log_in_sum(metric) if metric.level in ("matrix", "aggregate") else None
    if vanishing is not None:
        return [Diagnostic(metric.key_location("formula"), "$.formula", f"log({vanishing}) inside a class sum can be "
                           "log(0) = -inf for one class and so decide the whole sum; write xlogy(w, x) for w log x "
                           "with 0 log 0 = 0, or make the argument positive (e.g. log(1 + x))")]
    index_zero = _vanishing_index_denominator(metric)
    if index_zero is not None:
        base, at = index_zero
        where = ", ".join(f"{index} = {value}" for index, value in at.items())
        return [Diagnostic(metric.key_location("formula"), "$.formula", f"the formula divides by zero for every input: "
                           f"the denominator {base} depends on the class indices alone and is 0 at {where}; fix the formula "
                           "(e.g. sum over k != j, or add 1 to the denominator)")]
    if metric.simplified.has(sympy.zoo, sympy.nan):  # Sum(t[k] * p[k], k) / Sum(indicator(n != n), k)
        return [Diagnostic(metric.key_location("formula"), "$.formula", "the formula divides by zero for every input "
                           f"(it simplifies to {metric.simplified}); fix the formula")]
    try:
        compiled = _compiled(metric, cache)
        with np.errstate(all="ignore", over="raise"):  # a value beyond float64 is no metric value
            for label, setting in _settings(metric):
                for key, message in _check_setting(metric, compiled, label, setting, batches).items():
                    found.setdefault(key, message)
    except ArithmeticError as error:  # Sum(k**-1, k): the class index 0 divides by zero
        found = {"$.formula": f"the formula cannot be evaluated on sampled data ({error}): a division by zero "
                              "that does not depend on the counts, or values beyond float64 (about 1e308)?; fix the formula"}
    except (LookupError, NameError, TypeError, ValueError) as error:
        raise InternalError(f"cannot sample '{metric.id}' to check its declared claims: {error!r}") from error
    return [Diagnostic(metric.key_location(key[2:]), key, found[key])
            for key in ("$.formula", "$.range", "$.higher_is_better", "$.conditioning") if key in found]


def _per_class_batches(batches: list, index: str) -> list:
    """Each matrix batch once per class, the class index ``index`` bound: a per-class matrix
    formula (``per_class: j``) is checked as one value per class of every sampled matrix."""
    def bound(batch: _Batch | None, j: int) -> _Batch | None:
        if batch is None:
            return None
        describe = batch.describe
        return dataclasses.replace(batch, env={**batch.env, index: np.int64(j)},
                                   describe=lambda i: f"class {index} = {j} of {describe(i)}")
    return [(bound(batch, j), bound(corrected, j)) for batch, corrected in batches for j in range(int(batch.env["C"]))]


def check_declared(metrics: Mapping[str, ir.Metric]) -> dict[str, ir.Metric]:
    """The analyzed catalog unchanged, or a :class:`FormulaError` naming every refused claim."""
    batches: dict[tuple[Level, str], list] = {}
    cache: dict = {}  # one numpy function per expression, shared by the metrics that use it
    problems: list[Diagnostic] = []
    for metric in metrics.values():
        kind = (metric.level, metric.truth)
        if kind not in batches:
            sampler = _TRUTH_BATCHES.get(metric.truth, _BATCHES[metric.level])
            batches[kind] = list(sampler(np.random.default_rng(SEED)))
        sampled = _per_class_batches(batches[kind], metric.per_class) if metric.per_class else batches[kind]
        problems.extend(_check_metric(metric, sampled, cache))
    if problems:
        raise FormulaError(sorted(problems, key=lambda d: (d.location.file, d.location.line, d.location.column)))
    return dict(metrics)
