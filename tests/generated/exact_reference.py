"""Exact reference values of the generated catalog, and the comparison with the generated code.

Shared by ``tests/generated/test_exactness.py`` (bounded hypothesis examples) and
``benchmarks/exactness.py`` (a sweep over thousands of inputs). Nothing here uses numpy
float arithmetic for a reference value: each metric's *simplified* formula (``ir.Metric``,
the form the generated code implements) is evaluated bottom-up with sympy Integers and
Rationals substituted for the counts, scores and parameters (a float parameter or score is
the exact rational it stands for); sums are expanded over the concrete classes, samples or
thresholds; logarithms and exponentials stay symbolic, fractional powers are taken to 110
digits (:func:`power`), and the result is rounded once, with :data:`DIGITS` significant
digits, for the comparison.

Conventions of the evaluation (docs/spec-language.md, "Undefined cases"):

- a division by zero (or ``log(0)``) anywhere makes the value undefined, even where sympy's
  own arithmetic would absorb it (``1 / (1 / 0)``);
- ``xlogy(x, y)`` is 0 where ``x = 0``, whatever ``y`` is (0 log 0 = 0);
- a factor made only of indicators (``indicator(TP != 0)``, ``1 - [j = k]``) that is 0 makes
  its product 0, whatever the other factors are (the Iverson bracket is a strong zero: the
  issue 12 reading of ``indicator(TP != 0) * ...`` in the adjusted G-mean);
- where the simplified form is undefined but the formula as written is defined, the written
  value counts (the continuous extension works the other way round: F1 at TP = FP = 0 < FN);
- score level only: ``log(0) = -oo`` is a value (log loss of a zero probability is +inf).

Averaging follows runtime/kernel.py's documented rules (``average_class_metric``): undefined
per-class values become ``zero_division`` before averaging; ``micro`` pools the counts (and
is refused above 2**53); ``weighted`` weighs by support ``TP + FN``, a class of weight 0
taking no part, and is undefined when the weights sum to 0; ``geometric`` is the C-th root of
the product; ``samples`` is the mean over the rows of the counts.
"""

from __future__ import annotations

import dataclasses

import functools
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import sympy

from metricc.compiler.language import symbols
from metricc.core.errors import InputError

S = sympy.S
TP, FP, FN, TN = symbols.COUNTS
MAX_COUNT = 2 ** 53
RTOL = 1e-12
DIGITS = 60
WORKING_DIGITS = 110
TINY = float(np.finfo(np.float64).tiny)
ZERO_DIVISIONS = (math.nan, 0.25)
_UNDEFINED = (S.NaN, S.ComplexInfinity, S.Infinity, S.NegativeInfinity)
_INFINITE = (S.Infinity, S.NegativeInfinity)
_SAMPLE_INDICES = frozenset(symbols.SAMPLE_INDICES)


class Refused(Exception):
    """The runtime must refuse this input with an InputError (a pooled count above 2**53)."""


# ---------------------------------------------------------------- exact evaluation

@functools.lru_cache(maxsize=None)
def _is_indicator(factor: sympy.Expr) -> bool:
    """True for a factor that is a function of Kronecker deltas alone (``1 - [TP = 0]``)."""
    deltas = factor.atoms(sympy.KroneckerDelta)
    return bool(deltas) and not factor.xreplace({d: S.One for d in deltas}).free_symbols


class Evaluator:
    """Exact bottom-up evaluation of one formula on given values; ``None`` means undefined.

    ``values`` maps symbols (and applied functions such as ``base(TP, FP, FN, TN)``) to sympy
    numbers; ``indexed`` maps ``(base name, (i, ...))`` to numbers for ``M[i, j]``, ``t[k]``,
    ``TP[i]``, ``S[s, k]``. ``extended``: ``log(0) = -oo`` is a value (score level).
    """

    def __init__(self, values: dict, indexed: dict | None = None, extended: bool = False) -> None:
        self.values = values
        self.indexed = indexed or {}
        self.extended = extended

    def __call__(self, expr: sympy.Expr) -> sympy.Expr | None:
        value = self._eval(expr)
        if value is None:
            return None
        bad = (S.NaN, S.ComplexInfinity) if self.extended else _UNDEFINED
        return None if value.has(*bad) else value

    def _eval(self, expr):
        if expr in self.values:
            return self.values[expr]
        if isinstance(expr, sympy.Indexed):
            key = (expr.base.label.name, tuple(int(self._eval(i)) for i in expr.indices))
            if key not in self.indexed:
                raise AssertionError(f"reference bug: no value for {expr} at {key}")
            return self.indexed[key]
        if isinstance(expr, sympy.Sum):
            return self._sum(expr.function, list(expr.limits))
        if isinstance(expr, symbols.pick):
            return self._pick(*expr.args)
        if isinstance(expr, symbols.index_extreme):  # Max(x, k): undefined where a term is, like a Sum
            rows = self._rows((expr.args[0],), *expr.args[1:])
            extreme = max if isinstance(expr, symbols.index_max) else min
            return None if rows is None else extreme(value for (value,) in rows)
        if isinstance(expr, symbols.meeting):
            rows = self._rows((expr.args[0],), *expr.args[1:])
            return None if rows is None else sympy.Integer(sum(1 for (holds,) in rows if holds == S.true))
        if isinstance(expr, symbols.xlogy):
            weight = self._eval(expr.args[0])
            if weight is None or weight == 0:
                return weight
            share = self._eval(expr.args[1])
            if share is None or share == 0 and not self.extended:
                return None
            return weight * self._log(share)
        if not expr.args:
            if isinstance(expr, sympy.Symbol):
                raise AssertionError(f"reference bug: no value for symbol {expr}")
            return expr
        if isinstance(expr, sympy.Mul):
            indicators = [a for a in expr.args if _is_indicator(a)]
            for factor in indicators:
                if self._eval(factor) == 0:
                    return S.Zero
        args = []
        for arg in expr.args:
            value = self._eval(arg)
            if value is None or value.has(S.NaN, S.ComplexInfinity):
                return None
            if not self.extended and value.has(*_INFINITE):
                return None
            args.append(value)
        if expr.func == sympy.log:
            return self._log(args[0])
        if expr.func == sympy.floor:  # the bin of a float64 product, as documented
            return sympy.floor(sympy.Rational(float(args[0])))
        if isinstance(expr, sympy.Pow):
            return power(*args)
        value = expr.func(*args)
        return None if value.has(S.NaN, S.ComplexInfinity) else value

    def _log(self, x):
        if x == 0:
            return -S.Infinity if self.extended else None
        return sympy.log(x)

    def _sum(self, function, limits):
        *inner, (index, low, high) = limits  # the last limit is the outermost
        low, high = self._eval(low), self._eval(high)
        total = S.Zero
        saved = self.values.get(index)
        try:
            for v in range(int(low), int(high) + 1):
                self.values[index] = sympy.Integer(v)
                term = self._sum(function, inner) if inner else self._eval(function)
                if term is None:
                    return None
                total += term
        finally:
            if saved is None:
                self.values.pop(index, None)
            else:
                self.values[index] = saved
        return total

    def _rows(self, exprs, index, last):
        """``exprs`` at every threshold ``index = 0 .. last``; None if one is undefined anywhere."""
        rows = []
        saved = self.values.get(index)
        try:
            for v in range(int(self._eval(last)) + 1):
                self.values[index] = sympy.Integer(v)
                row = tuple(self._eval(e) for e in exprs)
                if any(r is None for r in row):
                    return None
                rows.append(row)
        finally:
            if saved is None:
                self.values.pop(index, None)
            else:
                self.values[index] = saved
        return rows

    def _pick(self, value, key, condition, index, last):
        """The chosen threshold's value: the greatest key where the condition holds, the first
        (highest score) of equal keys; None where no threshold meets the condition."""
        rows = self._rows((value, key, condition), index, last)
        if rows is None:
            return None
        meeting = [(k, -position, v) for position, (v, k, holds) in enumerate(rows) if holds == S.true]
        return max(meeting)[2] if meeting else None

    def holds(self, case: sympy.Expr, sizes: dict[str, int]) -> bool:
        """True where the undefined case ``case = 0`` holds for some value of its free indices
        (class indices range over the classes, sample indices s, u, v over the samples)."""
        labels = {i.base.label for i in case.atoms(sympy.Indexed)}
        free = sorted((s for s in case.free_symbols - labels if isinstance(s, sympy.Symbol) and s not in self.values), key=str)
        if not free:
            value = self(case)
            return value is None or value == 0
        index, rest = free[0], case
        size = sizes["n"] if index.name in _SAMPLE_INDICES else sizes["C"]
        return any(self.holds(rest.xreplace({index: v}), sizes) for v in range(size))


def power(base: sympy.Expr, exponent: sympy.Expr) -> sympy.Expr | None:
    """``base ** exponent``; a fractional power of a rational as a :data:`WORKING_DIGITS` float.

    sympy would keep ``sqrt(p/q)`` exact by factoring ``p`` and ``q``, which is slow for counts
    near 2**53 and, in sympy 1.14, can fail ("... is not a prime factor of ..."). The rounding
    of one root to 110 digits is far below the 1e-12 the tests ask: products and quotients keep
    the relative error, and the sums of roots in the catalog do not cancel to within 1e-90.
    """
    if exponent.is_Rational and not exponent.is_Integer and base.is_Rational:
        if base == 0:
            return S.Zero if exponent > 0 else None
        return sympy.Float(base, WORKING_DIGITS) ** exponent
    value = sympy.Pow(base, exponent)
    return None if value.has(S.NaN, S.ComplexInfinity) else value


def written_or_simplified(metric_like, evaluator: Evaluator):
    """The simplified formula's value; where it is undefined, the written formula's (or None).

    ``metric_like``: an ``ir.Metric`` or an ``ir.Term`` (whose written form is ``expr``).
    """
    value = evaluator(metric_like.simplified)
    if value is None:
        value = evaluator(metric_like.written if hasattr(metric_like, "written") else metric_like.expr)
    return value


def to_number(value: sympy.Expr) -> sympy.Float:
    """``value`` rounded once to :data:`DIGITS` significant digits (infinities stay)."""
    if value in _INFINITE:
        return value
    return sympy.N(value, DIGITS)


def rational(x) -> sympy.Rational:
    """The exact rational a float (or int) stands for."""
    return sympy.Rational(Fraction(x)) if isinstance(x, float) else sympy.Integer(x)


# ---------------------------------------------------------------- inputs and parameters

def class_counts(matrix) -> list[tuple[int, int, int, int]]:
    """(TP, FP, FN, TN) per class of a matrix with true classes in rows, in Python integers."""
    m = [[int(v) for v in row] for row in np.asarray(matrix).tolist()]
    n = sum(map(sum, m))
    out = []
    for k in range(len(m)):
        tp = m[k][k]
        fp = sum(row[k] for row in m) - tp
        fn = sum(m[k]) - tp
        out.append((tp, fp, fn, n - tp - fp - fn))
    return out


def count_values(counts) -> dict:
    tp, fp, fn, tn = (sympy.Integer(c) for c in counts)
    return {TP: tp, FP: fp, FN: fn, TN: tn, symbols.N_TOTAL: tp + fp + fn + tn}


_OTHER_SCALARS = ("2", "1/2", "0", "1")


def parameter_settings(metric) -> list[dict]:
    """Keyword arguments to test: every default, then each scalar parameter at up to two other
    values of its domain (``beta`` 2 and 1/2, ``alpha`` 0 and 1)."""
    settings = [{}]
    for p in metric.params:
        if p.kind != "scalar":
            continue
        others = [sympy.Rational(v) for v in _OTHER_SCALARS
                  if sympy.Rational(v) != p.default and all(bool(r.subs(p.symbol, sympy.Rational(v))) for r in p.domain)]
        settings += [{p.name: float(v)} for v in others[:2]]
    return settings


def _param_values(metric, kwargs: dict, counts, k: int | None, catalog: dict) -> dict | None:
    """Exact values of the parameter symbols for class ``k`` (None: pooled), None if undefined.

    Scalars are the floats given (or the default); a class vector its default formula on these
    counts; a metric parameter (``iba``'s ``base``) the bound metric's value on these counts.
    """
    out = {}
    for p in metric.params:
        if p.kind == "scalar":
            out[p.symbol] = rational(kwargs[p.name]) if p.name in kwargs else p.default
        elif p.kind == "metric":
            bound = catalog[kwargs.get(p.name, p.reference)]
            value = written_or_simplified(bound, Evaluator(count_values(counts)))
            if value is None:
                return None
            out[p.symbol] = value
        else:
            value = Evaluator(count_values(counts))(p.default)
            if value is None:
                return None
            out[p.symbol] = value
    return out


# ---------------------------------------------------------------- per-class values and averages

def _pooled_reads(formula, owner) -> tuple[int, ...]:
    """The counts (indices into TP, FP, FN, TN) micro averaging checks against 2**53: those a
    class-level metric's own formula reads (F1 never reads TN); every count for terms of
    aggregate and matrix formulas, and where a metric or class-vector parameter is bound."""
    level = getattr(owner.level, "value", owner.level)
    if formula is not owner or level != "class" or any(p.kind in ("metric", "class_vector") for p in owner.params):
        return (0, 1, 2, 3)
    read = set().union(*(e.free_symbols for e in (owner.simplified, *owner.undefined)))
    return tuple(i for i, symbol in enumerate((TP, FP, FN, TN)) if symbol in read)


@dataclass
class PerClass:
    """Exact values of one class-level formula per class (None: undefined) and pooled."""

    values: list
    pooled: sympy.Expr | None
    pooled_refused: bool
    support: list[int]
    derived: list[bool] = field(default_factory=list)  # a derived undefined case holds

    @classmethod
    def of(cls, formula, owner, counts: list, kwargs: dict, catalog: dict, derive: bool = False):
        values, derived = [], []
        for k, c in enumerate(counts):
            value, holds = _class_value(formula, owner, c, k, kwargs, catalog)
            values.append(value)
            derived.append(holds)
        pooled_counts = tuple(sum(c[i] for c in counts) for i in range(4))
        read = _pooled_reads(formula, owner)
        refused = (any(pooled_counts[i] > MAX_COUNT for i in read)
                   or len(read) == 4 and sum(pooled_counts) > MAX_COUNT)  # as check_counts
        pooled = None if refused else _class_value(formula, owner, pooled_counts, None, kwargs, catalog)[0]
        return cls(values, pooled, refused, [c[0] + c[2] for c in counts], derived)

    def average(self, mode: str, zero_division: float, pos_label: int, weights=None):
        """The exact average: a value, a list (``none``), or None (undefined: NaN expected)."""
        fill = None if math.isnan(zero_division) else rational(zero_division)
        if mode == "micro":
            if self.pooled_refused:
                raise Refused("micro averaging pools a count beyond 2**53")
            return fill if self.pooled is None else self.pooled
        values = [fill if v is None else v for v in self.values]
        if mode == "none":
            return values
        if mode == "binary":
            return values[pos_label]
        if mode in ("macro", "samples"):
            return None if None in values else sympy.Add(*values) / len(values)
        if mode == "geometric":
            if None in values:
                return None
            if any(v.is_negative for v in values):
                raise Refused("geometric averaging of a negative value")
            return power(sympy.Mul(*values), sympy.Rational(1, len(values)))
        if mode == "weighted":
            weights = self.support if weights is None else weights
            kept = [(w, v) for w, v in zip(weights, values) if w != 0]
            total = sum((w for w, _ in kept), S.Zero)
            if total == 0:
                return fill
            if any(v is None for _, v in kept):
                return None
            return sympy.Add(*(w * v for w, v in kept)) / total
        raise AssertionError(f"reference bug: unknown mode {mode}")


def _class_value(formula, owner, counts, k, kwargs, catalog):
    """(exact value or None, whether a derived undefined case of ``formula`` holds)."""
    params = _param_values(owner, kwargs, counts, k, catalog)
    if params is None:
        return None, True
    evaluator = Evaluator({**count_values(counts), **params})
    value = written_or_simplified(formula, evaluator)
    holds = any(evaluator.holds(case, {}) for case in formula.undefined)
    if owner.level == "class":  # a bound metric's own undefined cases count too
        for p in owner.params:
            if p.kind == "metric":
                bound = catalog[kwargs.get(p.name, p.reference)]
                holds = holds or any(evaluator.holds(case, {}) for case in bound.undefined)
    return value, holds


# ---------------------------------------------------------------- expected outputs of one call

@dataclass(frozen=True)
class Call:
    """One call of a generated function and its exact expected result."""

    mode: str  # averaging mode, or "-" for metrics without
    zero_division: float
    kwargs: dict
    expected: object  # sympy value, None (undefined: NaN), a list of those, or Refused
    scale: object = None  # conditioning scale (same shape as expected), or None: relative to |value|
    derived_mismatch: str = ""  # the derived undefined cases disagree with exact evaluation


def _fill(zero_division):
    return None if math.isnan(zero_division) else rational(zero_division)


def _derived_message(per_class: PerClass) -> str:
    wrong = [k for k, (v, d) in enumerate(zip(per_class.values, per_class.derived)) if (v is None) != d]
    if not wrong:
        return ""
    k = wrong[0]
    said = "undefined" if per_class.derived[k] else "defined"
    return f"class {k}: derived undefined cases say {said}, exact evaluation says {'defined' if said == 'undefined' else 'undefined'}"


MEANS = ("macro", "weighted", "samples")  # documented bound: 1e-12 of the same mean of |values|


def _magnitudes(per_class: PerClass) -> PerClass:
    """The per-class values' magnitudes: a mean of values of both signs cancels, and its
    documented error bound is relative to the same mean of |values| (docs/guide/evaluating.md, "Exactness")."""
    return dataclasses.replace(per_class, values=[None if v is None else abs(v) for v in per_class.values])


def class_calls(metric, counts: list, kwargs: dict, catalog: dict) -> list[Call]:
    per_class = PerClass.of(metric, metric, counts, kwargs, catalog)
    mismatch = _derived_message(per_class)
    pos_label = 1 if len(counts) > 1 else 0
    calls = []
    for mode in metric.averages:
        for zd in ZERO_DIVISIONS:
            scale = None
            try:
                expected = per_class.average(mode, zd, pos_label)
                if mode in MEANS:
                    scale = _magnitudes(per_class).average(mode, zd, pos_label)
            except Refused as refused:
                expected = refused
            args = dict(kwargs, average=mode, zero_division=zd)
            if mode == "binary":
                args["pos_label"] = pos_label
            calls.append(Call(mode, zd, args, expected, scale, derived_mismatch=mismatch))
    return calls


def _term_values(metric, counts, kwargs, zero_division, catalog, indexed: dict) -> dict:
    """Exact values of an aggregate or matrix formula's terms (None: undefined)."""
    values = {}
    for term in metric.terms:
        per_class = PerClass.of(term, metric, counts, kwargs, catalog)
        if term.mode is None:  # recall[k] of a matrix formula
            for k, v in enumerate(per_class.average("none", zero_division, 0)):
                indexed[(term.symbol.name, (k,))] = v
            continue
        weights = None
        if term.weights:  # weighted(metric, vector parameter): the parameter's value per class
            param = metric.param(term.weights)
            weights = [Evaluator(count_values(c))(param.default) for c in counts]
        values[term.symbol] = per_class.average(term.mode, zero_division, 0, weights=weights)
    return values


def formula_calls(metric, counts: list, kwargs: dict, catalog: dict, matrix=None) -> list[Call]:
    """Aggregate and matrix levels: terms averaged per their mode, then the formula."""
    calls = []
    for zd in ZERO_DIVISIONS:
        try:
            expected, scale, mismatch = _formula_value(metric, counts, kwargs, zd, catalog, matrix)
        except Refused as refused:
            expected, scale, mismatch = refused, None, ""
        calls.append(Call("-", zd, dict(kwargs, zero_division=zd), expected, scale, mismatch))
    return calls


def per_class_calls(metric, counts: list, kwargs: dict, catalog: dict, matrix) -> list[Call]:
    """A matrix formula with one value per class (``per_class: j``): the formula at each class
    j, then averaged as class-level values are (weighted: by the row totals)."""
    index = symbols.index_symbol(metric.per_class)
    pos_label = 1 if len(counts) > 1 else 0
    support = [c[0] + c[2] for c in counts]
    calls = []
    for zd in ZERO_DIVISIONS:
        found = [_formula_value(metric, counts, kwargs, zd, catalog, matrix, {index: sympy.Integer(k)})
                 for k in range(len(counts))]
        per_class = PerClass([value for value, _, _ in found], None, False, support)
        scales = PerClass([scale for _, scale, _ in found], None, False, support) if metric.conditioning else None
        mismatch = next((f"class {k}: {m}" for k, (_, _, m) in enumerate(found) if m), "")
        for mode in metric.averages:
            expected = per_class.average(mode, zd, pos_label)
            scale = (scales.average(mode, zd, pos_label) if scales is not None
                     else _magnitudes(per_class).average(mode, zd, pos_label) if mode in MEANS else None)
            args = dict(kwargs, average=mode, zero_division=zd)
            if mode == "binary":
                args["pos_label"] = pos_label
            calls.append(Call(mode, zd, args, expected, scale, derived_mismatch=mismatch))
    return calls


def _formula_value(metric, counts, kwargs, zero_division, catalog, matrix, bound: dict | None = None):
    indexed: dict = {}
    values = {p.symbol: rational(kwargs[p.name]) if p.name in kwargs else p.default
              for p in metric.params if p.kind == "scalar"} | (bound or {})
    sizes = {"C": len(counts), "n": 0}
    if matrix is not None:
        m = [[int(v) for v in row] for row in np.asarray(matrix).tolist()]
        c = len(m)
        for i in range(c):
            for j in range(c):
                indexed[("M", (i, j))] = sympy.Integer(m[i][j])
            indexed[("t", (i,))] = sympy.Integer(sum(m[i]))
            indexed[("p", (i,))] = sympy.Integer(sum(row[i] for row in m))
        values[symbols.N_TOTAL] = sympy.Integer(sum(map(sum, m)))
        values[symbols.N_CLASSES] = sympy.Integer(c)
        for p in metric.params:
            if p.kind == "class_vector":
                for k, cc in enumerate(counts):
                    indexed[(p.name, (k,))] = Evaluator(count_values(cc))(p.default)
            elif p.kind == "class_matrix":  # the user's (C, C) entries, or the default of i, j and C
                given = np.asarray(kwargs[p.name]).tolist() if kwargs.get(p.name) is not None else None
                for i in range(c):
                    for j in range(c):
                        indexed[(p.name, (i, j))] = rational(given[i][j]) if given else sympy.sympify(p.default).subs(
                            {symbols.index_symbol("i"): i, symbols.index_symbol("j"): j, symbols.N_CLASSES: c})
    terms = _term_values(metric, counts, kwargs, zero_division, catalog, indexed)
    fill = _fill(zero_division)
    if any(v is None for v in terms.values()) or any(v is None for v in indexed.values()):
        return fill, None, ""  # an undefined term (zero_division NaN) makes the value NaN
    evaluator = Evaluator({**values, **terms}, indexed)
    value = written_or_simplified(metric, evaluator)
    holds = any(evaluator.holds(case, sizes) for case in metric.undefined)
    mismatch = ""
    if holds != (value is None):
        mismatch = f"derived undefined cases say {'undefined' if holds else 'defined'}, exact evaluation says {'undefined' if value is None else 'defined'}"
    if value is None:
        return fill, None, mismatch
    scale = evaluator(metric.conditioning.scale) if metric.conditioning is not None else None
    return value, scale, mismatch


# ---------------------------------------------------------------- curve and score levels

def loop_curve(truth: Sequence[int], score: Sequence[sympy.Rational]) -> list[tuple[int, int, int, int]]:
    """(TP, FP, FN, TN) at each distinct threshold, highest first (predicted: score >= threshold)."""
    points = []
    for threshold in sorted(set(score), reverse=True):
        predicted = [v >= threshold for v in score]
        points.append((sum(1 for p, t in zip(predicted, truth) if p and t), sum(1 for p, t in zip(predicted, truth) if p and not t),
                       sum(1 for p, t in zip(predicted, truth) if not p and t), sum(1 for p, t in zip(predicted, truth) if not p and not t)))
    return points


def curve_value(metric, truth, score, kwargs: dict):
    points = loop_curve(truth, score)
    positives, negatives = sum(truth), len(truth) - sum(truth)
    indexed = {}
    for position, (name, origin) in enumerate((("TP", 0), ("FP", 0), ("FN", positives), ("TN", negatives))):
        indexed[(name, (-1,))] = sympy.Integer(origin)
        indexed.update({(name, (i,)): sympy.Integer(point[position]) for i, point in enumerate(points)})
    values = {symbols.CURVE_TOTALS["P"]: sympy.Integer(positives), symbols.CURVE_TOTALS["N"]: sympy.Integer(negatives),
              symbols.THRESHOLDS: sympy.Integer(len(points))}
    values.update({p.symbol: rational(kwargs[p.name]) if p.name in kwargs else p.default for p in metric.params})
    return written_or_simplified(metric, Evaluator(values, indexed))


def curve_calls(metric, y: list[int], scores: list[list[float]], kwargs: dict) -> list[Call]:
    c = len(scores[0])
    exact = [[rational(x) for x in row] for row in scores]
    truths = [[int(v == k) for v in y] for k in range(c)]
    per_class = [curve_value(metric, truths[k], [row[k] for row in exact], kwargs) for k in range(c)]
    pooled = curve_value(metric, [t for v in y for t in (int(v == k) for k in range(c))], [x for row in exact for x in row], kwargs)
    averages = PerClass(per_class, pooled, False, [sum(t) for t in truths])
    calls = []
    for mode in metric.averages:
        for zd in ZERO_DIVISIONS:
            args = {**kwargs, "average": mode, "zero_division": zd, "labels": list(range(c))}
            if mode == "binary":
                args["pos_label"] = 1
            calls.append(Call(mode, zd, args, averages.average(mode, zd, 1)))
    return calls


def score_calls(metric, y: list[int], scores: list[list[float]], kwargs: dict | None = None) -> list[Call]:
    """Every zero_division of a score metric; ``kwargs`` its scalar parameters (else defaults)."""
    kwargs = kwargs or {}
    n, c = len(scores), len(scores[0])
    indexed = {("S", (s, k)): rational(scores[s][k]) for s in range(n) for k in range(c)}
    one_hot = not isinstance(y[0], (list, tuple))  # else a multi-label indicator matrix
    indexed.update({("Y", (s, k)): sympy.Integer(int(y[s] == k)) if one_hot else rational(y[s][k])
                    for s in range(n) for k in range(c)})
    params = {p.symbol: rational(kwargs[p.name]) if p.name in kwargs else p.default for p in metric.params}
    sizes = {symbols.N_TOTAL: sympy.Integer(n), symbols.N_CLASSES: sympy.Integer(c)}
    if metric.per_class:
        return _per_class_score_calls(metric, indexed, {**sizes, **params}, c, kwargs)
    evaluator = Evaluator({**sizes, **params}, indexed, extended=True)
    value = written_or_simplified(metric, evaluator)
    scale = evaluator(metric.conditioning.scale) if metric.conditioning is not None and value is not None else None
    calls = []
    for zd in ZERO_DIVISIONS:
        call_kwargs = {"zero_division": zd, "labels": list(range(c)), **kwargs}
        calls.append(Call("-", zd, call_kwargs, _fill(zd) if value is None else value, scale))
    return calls


def _per_class_score_calls(metric, indexed: dict, values: dict, c: int, kwargs: dict) -> list[Call]:
    """A score formula with one value per class (``per_class: k``): the formula at each class
    k, then averaged as class-level values are (weighted: by the class's samples, Y's column sums)."""
    index = symbols.index_symbol(metric.per_class)
    found = [written_or_simplified(metric, Evaluator({**values, index: sympy.Integer(k)}, indexed, extended=True))
             for k in range(c)]
    support = [sum(v for (name, (_, k)), v in indexed.items() if name == "Y" and k == column) for column in range(c)]
    per_class = PerClass(found, None, False, support)
    calls = []
    for zd in ZERO_DIVISIONS:
        for mode in metric.averages:
            expected = per_class.average(mode, zd, 1)
            scale = _magnitudes(per_class).average(mode, zd, 1) if mode in MEANS else None
            args = {"zero_division": zd, "labels": list(range(c)), "average": mode, **kwargs}
            if mode == "binary":
                args["pos_label"] = 1
            calls.append(Call(mode, zd, args, expected, scale))
    return calls


# ---------------------------------------------------------------- running and judging

@dataclass(frozen=True)
class Outcome:
    """One call judged: the worst error over its entries, and what was wrong (if anything)."""

    mode: str
    zero_division: float
    kwargs: dict
    error: float  # relative error (or error / conditioning scale); 0 where exact or both undefined
    problem: str  # "" if correct; else "inexact", "undefined mismatch", "undefined derivation",
    #              "warning", "signed zero", "error", "not refused"
    detail: str


def run(function: Callable, args: tuple, call: Call) -> Outcome:
    """Call ``function(*args, **call.kwargs)`` watching numpy warnings, and judge its result."""
    with warnings.catch_warnings(record=True) as caught, np.errstate(divide="warn", over="warn", invalid="warn", under="ignore"):
        warnings.simplefilter("always")
        try:
            got = function(*args, **call.kwargs)
        except InputError as error:
            if isinstance(call.expected, Refused):
                return Outcome(call.mode, call.zero_division, call.kwargs, 0.0, "", "")
            return Outcome(call.mode, call.zero_division, call.kwargs, math.inf, "error", f"InputError: {error}")
        except Exception as error:  # reported with the input, not raised: the sweep goes on
            return Outcome(call.mode, call.zero_division, call.kwargs, math.inf, "error", f"{type(error).__name__}: {error}")
    if caught:
        return Outcome(call.mode, call.zero_division, call.kwargs, math.inf, "warning", str(caught[0].message))
    if isinstance(call.expected, Refused):
        return Outcome(call.mode, call.zero_division, call.kwargs, math.inf, "not refused", f"{call.expected}; got {got!r}")
    expected = call.expected if isinstance(call.expected, list) else [call.expected]
    scales = call.scale if isinstance(call.scale, list) else [call.scale] * len(expected)
    got_values = np.atleast_1d(np.asarray(got, dtype=float)).tolist()
    if len(got_values) != len(expected):
        return Outcome(call.mode, call.zero_division, call.kwargs, math.inf, "error", f"shape: got {got!r}")
    worst, problem, detail = 0.0, "", ""
    for k, (g, e, scale) in enumerate(zip(got_values, expected, scales)):
        error, what = judge(g, e, scale)
        where = f"[{k}] " if isinstance(call.expected, list) else ""
        if what and (not problem or error > worst):
            problem, detail = what, f"{where}got {g!r}, exact {_show(e)}"
        worst = max(worst, error)
    if not problem and call.derived_mismatch:
        problem, detail = "undefined derivation", call.derived_mismatch
    return Outcome(call.mode, call.zero_division, call.kwargs, worst, problem, detail)


def _show(value) -> str:
    if value is None:
        return "undefined"
    number = to_number(value)
    return str(number) if number in _INFINITE else f"{float(number)!r} ({sympy.N(value, 20)})"


def judge(got: float, expected, scale=None) -> tuple[float, str]:
    """(error, problem) of one entry; the error is relative to |exact| (or to the conditioning scale)."""
    if expected is None:
        return (0.0, "") if math.isnan(got) else (math.inf, "undefined mismatch")
    if math.isnan(got):
        return math.inf, "undefined mismatch"
    exact = to_number(expected)
    if exact in _INFINITE:
        return (0.0, "") if got == float(exact) else (math.inf, "inexact")
    if math.isinf(got):
        return math.inf, "inexact"
    if got == 0 and math.copysign(1.0, got) < 0:
        return (0.0 if exact == 0 else 1.0), "signed zero"
    if exact == 0 and scale is None:  # an exact zero must come out as exactly 0
        return (0.0, "") if got == 0 else (math.inf, "inexact")
    difference = abs(sympy.Float(got, DIGITS) - exact)
    bound = abs(to_number(scale)) if scale is not None else abs(exact)
    # Below the smallest normal float64 (2**-1022) fewer than 12 digits exist (a Brier score
    # of 5e-601 rounds to 0.0): there the bound is 1e-12 of that smallest normal.
    bound = max(bound, sympy.Float(TINY, DIGITS))
    error = float(difference / bound)
    return error, ("inexact" if error > RTOL else "")


# ---------------------------------------------------------------- one input, every call

def check_matrix_input(metric, info, matrix: np.ndarray, kwargs: dict, catalog: dict) -> list[Outcome]:
    """Every mode and zero_division of a class, aggregate or matrix metric on one matrix."""
    counts = class_counts(matrix)
    if metric.level == "class":
        calls = class_calls(metric, counts, kwargs, catalog)
    elif metric.per_class:
        calls = per_class_calls(metric, counts, kwargs, catalog, matrix)
    else:
        calls = formula_calls(metric, counts, kwargs, catalog, matrix if metric.level == "matrix" else None)
    if metric.level == "matrix":
        args = (matrix,)
    else:
        dtype = matrix.dtype
        args = tuple(np.array([c[i] for c in counts], dtype=dtype) for i in range(4))
    return [run(info.function, args, call) for call in calls]


def check_scores_input(metric, info, y: list[int], scores: list[list[float]], kwargs: dict | None = None) -> list[Outcome]:
    """Every mode and zero_division of a curve or score metric on one input; ``kwargs``: its
    scalar parameters (:func:`parameter_settings`)."""
    calls = (curve_calls(metric, y, scores, kwargs or {}) if metric.level == "curve"
             else score_calls(metric, y, scores, kwargs))
    array = np.array(scores, dtype=float)
    return [run(info.function, (list(y), array), call) for call in calls]


# ---------------------------------------------------------------- random and adversarial inputs

MATRIX_KINDS = ("small", "uniform", "skewed", "dominant", "zero row or column", "all zero", "perfect")
# Matrices whose chance-corrected values (kappa, Scott's pi, Gwet's AC1, Krippendorff's alpha,
# MCC, informedness, markedness, Youden's J, log odds...) are near 0: the regime where a value
# computed as a difference of rounded terms keeps only the absolute error of its terms, which is
# large relative to the value (issue 27: Gwet's AC1 was 1.7e-11 off at 2.2e-6).
NEAR_ZERO_KINDS = ("near independent", "near uniform")


def cell_bound(c: int) -> int:
    """The largest cell such that the total of a C x C matrix stays within 2**53 (and 1e15)."""
    return min(10 ** 15, MAX_COUNT // (c * c))


def _jitter(rng, cell: int) -> int:
    """``cell`` moved by a few counts, or by up to 2 percent of itself, never below 0."""
    step = rng.choice((1, 3, max(1, cell // 50)))
    return max(0, cell + rng.randint(-min(step, cell), step))


def random_matrix(rng, c: int, kind: str) -> list[list[int]]:
    """A C x C count matrix of one adversarial ``kind`` (``rng``: a ``random.Random``)."""
    top = cell_bound(c)

    def big():
        return rng.choice((rng.randint(10 ** 12, top), top, rng.randint(1, top)))

    if kind == "small":
        m = [[rng.choice((0, rng.randint(0, 30))) for _ in range(c)] for _ in range(c)]
    elif kind == "uniform":
        m = [[rng.randint(0, top) for _ in range(c)] for _ in range(c)]
    elif kind == "skewed":  # one huge cell, the others 0..10
        m = [[rng.randint(0, 10) for _ in range(c)] for _ in range(c)]
        m[rng.randrange(c)][rng.randrange(c)] = rng.randint(10 ** 12, top)
    elif kind == "dominant":  # one class holds almost every sample
        k = rng.randrange(c)
        m = [[rng.randint(0, 10) for _ in range(c)] for _ in range(c)]
        m[k] = [big() if j == k else rng.randint(0, 1000) for j in range(c)]
    elif kind == "zero row or column":
        m = [[rng.choice((rng.randint(0, 30), big())) for _ in range(c)] for _ in range(c)]
        k = rng.randrange(c)
        if rng.random() < 0.7:
            m[k] = [0] * c
        if rng.random() < 0.7:
            j = rng.randrange(c)
            for row in m:
                row[j] = 0
    elif kind == "near independent":  # rows proportional to the column totals, a little noise
        rows = [rng.randint(1, 9) for _ in range(c)]
        columns = [rng.randint(1, 9) for _ in range(c)]
        scale = rng.choice((rng.randint(1, 10 ** 4), rng.randint(1, top // 85)))  # jitter stays within top
        m = [[_jitter(rng, r * k * scale) for k in columns] for r in rows]
    elif kind == "near uniform":  # every cell nearly equal: accuracy near every chance level, 1/C
        scale = rng.choice((rng.randint(1, 10 ** 5), rng.randint(1, top * 9 // 10)))
        m = [[_jitter(rng, scale) for _ in range(c)] for _ in range(c)]
    elif kind == "all zero":
        m = [[0] * c for _ in range(c)]
    elif kind == "perfect":
        m = [[(rng.choice((rng.randint(0, 30), big())) if i == j else 0) for j in range(c)] for i in range(c)]
    else:
        raise ValueError(kind)
    return m


def random_scores(rng, n: int, c: int) -> tuple[list[int], list[list[float]]]:
    """Labels (at least two classes present) and probability rows with ties, zeros and
    extreme values (1e-300, 1 - 2**-53)."""
    y = [rng.randrange(c) for _ in range(n)]
    if len(set(y)) < 2:
        y[0] = (y[1] + 1) % c
    return y, [probability_row([rng.choice((0.0, 1.0, 1e-300, 0.5, 1 - 2 ** -53, rng.random())) for _ in range(c)])
               for _ in range(n)]


# Score matrices whose skill-type values are near 0 (issue 27: the near-zero regime of the count
# metrics, for scores): every row near the class prior of the truth (D² scores, calibration
# errors and skill scores near 0, a log loss near the entropy) or near uniform (AUCs near 1/2,
# Gini near 0). Each row is moved by a relative 1e-12 to 1e-3, so the values are small but not 0.
NEAR_ZERO_SCORE_KINDS = ("near prior", "near uniform")


def near_zero_scores(rng, n: int, c: int, kind: str) -> tuple[list[int], list[list[float]]]:
    """Labels (at least two classes present) and probability rows of one ``kind`` above."""
    y = [rng.randrange(c) for _ in range(n)]
    if len(set(y)) < 2:
        y[0] = (y[1] + 1) % c
    centre = [y.count(k) / n for k in range(c)] if kind == "near prior" else [1 / c] * c
    size = rng.choice((1e-12, 1e-9, 1e-6, 1e-3))
    return y, [probability_row([w * (1 + size * (2 * rng.random() - 1)) for w in centre]) for _ in range(n)]


def random_indicator(rng, n: int, c: int) -> list[list[int]]:
    """A multi-label truth (``truth: indicator`` metrics): rows with no, some and every label."""
    density = rng.choice((0.2, 0.5, 0.8))
    return [[int(rng.random() < density) for _ in range(c)] for _ in range(n)]


def random_relevance(rng, n: int, c: int) -> list[list[float]]:
    """A graded truth (``truth: relevance`` metrics): grades 0 to 3 scaled by a whole or a
    non-whole factor, so rows hold zeros and ties, some rows all zero or all equal."""
    scale = rng.choice((1.0, 0.37, 2.5, 1e-300))
    rows = [[rng.randrange(4) * scale for _ in range(c)] for _ in range(n)]
    kind = rng.choice(("graded", "all zero", "all equal"))
    if kind != "graded":
        rows[rng.randrange(n)] = [0.0 if kind == "all zero" else scale] * c
    return rows


def probability_row(weights: Sequence[float]) -> list[float]:
    """Non-negative weights scaled to sum to 1 in float64 (all equal when all are 0)."""
    total = math.fsum(weights)
    if total == 0:
        return [1.0 / len(weights)] * len(weights)
    return [w / total for w in weights]
