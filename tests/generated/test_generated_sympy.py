"""Generated numpy code against exact sympy evaluation of each metric's *written* formula.

For every metric of the catalog and every averaging mode it supports, the generated function
(``CATALOG[id].function``) must agree with the formula as the spec writes it
(``ir.Metric.written``: references to other metrics inlined, nothing simplified), evaluated
exactly with sympy on random integer confusion matrices. The averaging is re-implemented
here, from the definitions in docs/spec-language.md, independently of runtime/kernel.py:

- ``none``: one value per class; ``binary``: the class ``pos_label``;
- ``micro``: pool TP, FP, FN, TN over classes, then apply the formula;
- ``macro``: mean of the per-class values; ``weighted``: mean weighted by support
  ``TP + FN`` (or by a user ``weights`` vector); ``geometric``: geometric mean;
- ``samples``: the counts are per-instance counts (any non-negative counts may be: here the
  rows of the matrix's per-class counts stand for instances); mean of the per-instance values.

Undefined per-class values become ``zero_division`` before averaging (NaN by default, and
NaN propagates through every mean); a class of weight 0 takes no part in a weighted mean.
``zero_division="skip"`` leaves undefined classes out of the means (macro, weighted,
geometric) and is NaN elsewhere. ``weighted(recall, relevance)`` in an aggregate formula is
the mean weighted by the class-vector parameter ``relevance``.

Per-class counts are derived here from the matrix (TP = diagonal, FP = column sum - TP,
FN = row sum - TP, TN = n - TP - FP - FN), not by the runtime.

Where the written form divides by zero but the simplified form does not (F1 at TP = FP = 0 <
FN), the expected value is the simplified one: see :func:`written_or_limit`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from metricc.compiler.analysis import analyze
from metricc.compiler.language import symbols
from metricc.generated import CATALOG

S = sympy.S
TP, FP, FN, TN = symbols.COUNTS
RTOL, ATOL = 1e-9, 1e-12
ON_COUNTS = sorted(i for i in CATALOG if CATALOG[i].level in ("class", "aggregate", "matrix"))
# 20 inputs per metric (each checked in every mode and with every zero_division);
# the fixed EDGE_MATRICES below add the undefined and extreme cases on every metric, and
# benchmarks/exactness.py draws thousands per metric.
FAST = settings(max_examples=20, deadline=None)
ZERO_DIVISIONS = (math.nan, 0.0, 1.0, "skip")
_UNDEFINED = (S.NaN, S.ComplexInfinity, S.Infinity, S.NegativeInfinity)


# ---------------------------------------------------------------- exact evaluation

def exact(expr: sympy.Expr, values: dict, memo: dict | None = None) -> sympy.Expr | None:
    """``expr`` at ``values``, exactly; None when any sub-expression is undefined.

    Evaluated bottom-up, so that a division by zero anywhere counts: sympy's own arithmetic
    would turn ``1 / (1 / 0)`` into ``1 / zoo = 0``. The exceptions are the documented
    conventions of ``xlogy(x, y)``, 0 where ``x = 0`` even where ``y`` is undefined, and of
    guards (an indicator, step...): a product with a guard that is 0 is 0, whatever its other
    factors are. ``memo`` holds the sub-expressions already evaluated at these ``values``: a
    written-out formula repeats them (a binned calibration error compares every pair of
    samples' bins), and each is evaluated once.
    """
    memo = {} if memo is None else memo
    if expr not in memo:
        memo[expr] = _exact(expr, values, memo)
    return memo[expr]


def _exact(expr: sympy.Expr, values: dict, memo: dict) -> sympy.Expr | None:
    if expr in values:
        return values[expr]
    if isinstance(expr, symbols.pick):
        return exact_pick(*expr.args, values)
    if isinstance(expr, symbols.xlogy):
        weight = exact(expr.args[0], values, memo)
        if weight is None or weight == 0:
            return weight
    if isinstance(expr, sympy.Mul):
        guards = [exact(f, values, memo) for f in expr.args if analyze.is_guard(f)]
        if any(g is not None and g == 0 for g in guards):
            return S.Zero
    if not expr.args:
        if isinstance(expr, sympy.Symbol):
            raise AssertionError(f"test bug: no value for symbol {expr}")
        return expr
    args = []
    for arg in expr.args:
        value = exact(arg, values, memo)
        if value is None or value.has(*_UNDEFINED):  # Min(nan, 1) raises: undefined in, undefined out
            return None
        args.append(value)
    if expr.func == sympy.floor:  # floor reads its argument rounded to float64 (docs/spec-language.md)
        return sympy.floor(sympy.Rational(float(args[0])))
    value = expr.func(*args)
    return None if value.has(*_UNDEFINED) else value


def exact_pick(value, key, condition, index, last, values: dict) -> sympy.Expr | None:
    """A chosen threshold's value, by a loop over the thresholds: among those where the
    condition holds, the first (highest score) of the greatest key; None where none holds."""
    best = None
    for v in range(int(exact(last, values)) + 1):
        row = [exact(written_out(e.xreplace({index: v})), values) for e in (value, key, condition)]
        if any(r is None for r in row):
            return None
        if row[2] == sympy.true and (best is None or row[1] > best[1]):
            best = row
    return None if best is None else best[0]


def written_out(expr: sympy.Expr) -> sympy.Expr:
    """``expr`` with every sum of numeric bounds written out term by term.

    What ``Sum.doit`` gives for such bounds, without its symbolic summation (partial
    fractions of every summand), which took most of the time of the score-level tests. The
    outermost limit goes first, so that an inner bound may name an outer index. A ``Max`` or
    ``Min`` is left unevaluated: comparing its symbolic arguments (a binned calibration error's
    gap of every sample) took minutes, and :func:`exact` compares their values.
    """
    if isinstance(expr, sympy.Sum):
        *inner, (index, low, high) = expr.limits
        term = sympy.Sum(expr.function, *inner) if inner else expr.function
        return sympy.Add(*(written_out(term.xreplace({index: sympy.Integer(v)})) for v in range(int(low), int(high) + 1)))
    if not expr.args:
        return expr
    if isinstance(expr, (sympy.Max, sympy.Min)):
        return expr.func(*map(written_out, expr.args), evaluate=False)
    return expr.func(*map(written_out, expr.args))


def written_or_limit(metric_like, values: dict) -> sympy.Expr | None:
    """The written formula's value; where only the written form is undefined, the simplified one.

    The written form can divide by zero where its simplified form does not: F1 written as
    2 P R / (P + R) is 0/0 when TP = FP = 0 < FN (precision is 0/0), while the simplified
    2 TP / (2 TP + FP + FN) is 0 there, which is also the limit of the written form. The
    compiler derives undefined cases from the simplified form only (docs/spec-language.md,
    "Undefined cases"), so the generated code returns that value, and so do we.
    """
    value = exact(metric_like.written if hasattr(metric_like, "written") else metric_like.expr, values)
    if value is None:
        value = exact(metric_like.simplified, values)
    return value


def fill_value(zero_division) -> sympy.Expr:
    if zero_division == "skip" or math.isnan(zero_division):
        return S.NaN
    return sympy.Rational(zero_division)


def to_float(value) -> float:
    return math.nan if value is S.NaN else float(value)


def assert_matches(actual, expected, where: str) -> None:
    expected = np.array([to_float(v) for v in expected]) if isinstance(expected, list) else to_float(expected)
    np.testing.assert_allclose(np.asarray(actual, dtype=float), expected, rtol=RTOL, atol=ATOL,
                               equal_nan=True, err_msg=where)


# ---------------------------------------------------------------- counts and parameters

def class_counts(matrix: np.ndarray) -> list[tuple[int, int, int, int]]:
    """(TP, FP, FN, TN) per class of a matrix with true classes in rows."""
    n = int(matrix.sum())
    out = []
    for k in range(matrix.shape[0]):
        tp = int(matrix[k, k])
        fp = int(matrix[:, k].sum()) - tp
        fn = int(matrix[k, :].sum()) - tp
        out.append((tp, fp, fn, n - tp - fp - fn))
    return out


def count_values(counts) -> dict:
    tp, fp, fn, tn = (sympy.Integer(c) for c in counts)
    return {TP: tp, FP: fp, FN: fn, TN: tn, symbols.N_TOTAL: tp + fp + fn + tn}


def param_candidates(param) -> list[sympy.Rational]:
    """Values satisfying the declared domain (a numeric default always among them)."""
    pool = [param.default] if param.default.is_number else []
    pool += [sympy.Rational(v) for v in ("0", "1/4", "1/2", "1", "2", "3", "5/2", "-1")]
    return sorted({v for v in pool if all(bool(rel.subs(param.symbol, v)) for rel in param.domain)}, key=float)


# Metrics bound to metric parameters (``iba(base=...)``): parameter-free class-level metrics.
BASES = ("g_mean", "f1", "recall", "jaccard")


@dataclass(frozen=True)
class BoundMetric:
    """The value of a metric parameter: the id the generated function takes, and its IR."""

    id: str
    metric: object


def draw_params(metric, draw, n_classes: int, catalog: dict) -> dict:
    """Exact parameter values: {symbol: Rational} for scalars, {symbol: [Rational] or None}
    for class vectors (None: the default, computed from the counts), {symbol: BoundMetric}
    for metric parameters."""
    out = {}
    for p in metric.params:
        if p.kind == "metric":
            out[p.symbol] = BoundMetric(metric_id := draw(st.sampled_from(BASES)), catalog[metric_id])
            continue
        pool = st.sampled_from(param_candidates(p))
        if p.kind == "scalar":
            out[p.symbol] = draw(pool)
        elif p.kind == "class_matrix":  # None: the default, a formula of i, j and C
            row = st.lists(pool, min_size=n_classes, max_size=n_classes)
            out[p.symbol] = draw(st.none() | st.lists(row, min_size=n_classes, max_size=n_classes))
        else:
            out[p.symbol] = draw(st.none() | st.lists(pool, min_size=n_classes, max_size=n_classes))
    return out


def default_params(metric, catalog: dict) -> dict:
    defaults = {p.symbol: p.default if p.kind == "scalar" else None for p in metric.params}
    defaults.update({p.symbol: BoundMetric(p.reference, catalog[p.reference]) for p in metric.params if p.kind == "metric"})
    return defaults


def as_kwargs(params: dict) -> dict:
    """The parameters as the generated function takes them (a None vector: left out)."""
    out = {}
    for symbol, v in params.items():
        if isinstance(v, BoundMetric):
            out[symbol.name] = v.id
        elif isinstance(v, list):
            out[symbol.name] = [[float(x) for x in row] if isinstance(row, list) else float(row) for row in v]
        elif v is not None:
            out[symbol.name] = float(v)
    return out


def param_values(metric, params: dict, counts, k: int | None) -> dict:
    """Values of the parameter symbols for class ``k`` (None: pooled counts).

    Class vectors take the user's entry ``k``, or their default formula evaluated on this
    class's counts (an undefined default is NaN, which makes the class undefined).
    """
    out = {}
    for p in metric.params:
        v = params[p.symbol]
        if p.kind == "scalar":
            out[p.symbol] = v
        elif p.kind == "metric":  # the bound metric's own value on these counts (undefined: NaN)
            value = written_or_limit(v.metric, count_values(counts))
            out[p.symbol] = S.NaN if value is None else value
        elif v is not None and k is not None:
            out[p.symbol] = v[k]
        else:
            default = exact(p.default, count_values(counts))
            out[p.symbol] = S.NaN if default is None else default
    return out


# ---------------------------------------------------------------- averaging, by definition

class PerClass:
    """Exact values of one class-level formula on one matrix: per class and pooled."""

    def __init__(self, formula, per_class_counts, params: dict, owner) -> None:
        self.counts = per_class_counts
        self.values = [
            written_or_limit(formula, {**count_values(c), **param_values(owner, params, c, k)})
            for k, c in enumerate(per_class_counts)
        ]
        pooled = tuple(sum(c[i] for c in per_class_counts) for i in range(4))
        self.pooled = written_or_limit(formula, {**count_values(pooled), **param_values(owner, params, pooled, None)})

    def average(self, mode: str, zero_division: float, pos_label: int = 1, weights=None):
        fill = fill_value(zero_division)
        if mode == "micro":
            return fill if self.pooled is None else self.pooled
        values = [fill if v is None else v for v in self.values]
        if zero_division == "skip" and mode in ("macro", "samples", "geometric", "weighted"):
            return self._skipping(mode, weights)
        if mode == "none":
            return values
        if mode == "binary":
            return values[pos_label]
        if mode in ("macro", "samples"):
            return sympy.Add(*values) / len(values)
        if mode == "geometric":
            return sympy.Mul(*values) ** sympy.Rational(1, len(values))
        if mode == "weighted":
            if weights is None:
                weights = [c[0] + c[2] for c in self.counts]  # support TP + FN
            total = sum(weights)
            if total == 0:
                return fill
            return sympy.Add(*(sympy.Rational(w) * v for w, v in zip(weights, values) if w != 0)) / total
        raise AssertionError(f"test bug: unknown mode {mode}")

    def _skipping(self, mode: str, weights):
        """The mean over the classes whose value is defined (NaN when there is none)."""
        if weights is None:
            weights = [c[0] + c[2] for c in self.counts] if mode == "weighted" else [1] * len(self.values)
        kept = [(sympy.Rational(w), v) for w, v in zip(weights, self.values) if v is not None and w != 0]
        total = sum(w for w, _ in kept)
        if total == 0:
            return S.NaN
        if mode == "geometric":
            return sympy.Mul(*(v for _, v in kept)) ** sympy.Rational(1, len(kept))
        return sympy.Add(*(w * v for w, v in kept)) / total


def aggregate_reference(metric, per_class_counts, params: dict, zero_division: float, matrix=None, bound=None):
    """Aggregate or matrix-level value: terms averaged per their mode, then the formula.

    ``zero_division`` fills undefined per-class values inside the averaged terms too (as for
    a class-level metric under that mode), and then an undefined value of the formula.
    """
    fill = fill_value(zero_division)
    values = {s: v for s, v in params.items() if not isinstance(v, list) and v is not None} | (bound or {})
    for term in metric.terms:
        term_values = PerClass(term, per_class_counts, params, metric)
        if term.mode is None:  # recall[k] in a matrix formula
            for k, v in enumerate(term_values.average("none", zero_division)):
                values[term.symbol[k]] = v
        else:
            weights = None
            if term.weights:  # weighted(metric, vector parameter): the parameter's values per class
                param = sympy.Symbol(term.weights, real=True)
                weights = [param_values(metric, params, c, k)[param] for k, c in enumerate(per_class_counts)]
            values[term.symbol] = term_values.average(term.mode, zero_division, weights=weights)
    if metric.level == "matrix":
        c = matrix.shape[0]
        values.update(matrix_values(matrix))
        for p in metric.params:
            if p.kind == "class_vector":
                for k, counts in enumerate(per_class_counts):
                    values[sympy.IndexedBase(p.name)[k]] = param_values(metric, params, counts, k)[p.symbol]
            elif p.kind == "class_matrix":  # the user's entries, or the default of the class indices i, j and C
                given = params.get(p.symbol)
                for i in range(c):
                    for j in range(c):
                        values[sympy.IndexedBase(p.name)[i, j]] = given[i][j] if given is not None else p.default.subs(
                            {symbols.index_symbol("i"): i, symbols.index_symbol("j"): j, symbols.N_CLASSES: c})
        written, simplified = (e.xreplace(bound or {}) for e in expanded(metric, c))
    else:
        written, simplified = metric.written, metric.simplified
    value = exact(written, values)
    if value is None:  # see written_or_limit
        value = exact(simplified, values)
    return fill if value is None else value


_EXPANDED: dict = {}


def expanded(metric, c: int):
    """Written and simplified matrix formulas with C = c and every Sum written out."""
    key = (metric.id, c)
    if key not in _EXPANDED:
        _EXPANDED[key] = tuple(written_out(e.xreplace({symbols.N_CLASSES: sympy.Integer(c)})) for e in (metric.written, metric.simplified))
    return _EXPANDED[key]


def matrix_values(matrix: np.ndarray) -> dict:
    c = matrix.shape[0]
    values = {symbols.M[i, j]: sympy.Integer(int(matrix[i, j])) for i in range(c) for j in range(c)}
    values.update({symbols.ROW_TOTAL[k]: sympy.Integer(int(matrix[k, :].sum())) for k in range(c)})
    values.update({symbols.COLUMN_TOTAL[k]: sympy.Integer(int(matrix[:, k].sum())) for k in range(c)})
    values[symbols.N_TOTAL] = sympy.Integer(int(matrix.sum()))
    values[symbols.N_CLASSES] = sympy.Integer(c)
    return values


# ---------------------------------------------------------------- one check per metric

def check_metric(metric, info, matrix: np.ndarray, params: dict, pos_label: int, weights: list[int]) -> None:
    """Compare every mode and zero_division of one metric with the sympy reference."""
    per_class_counts = class_counts(matrix)
    counts = tuple(np.array([c[i] for c in per_class_counts], dtype=np.int64) for i in range(4))
    kwargs = as_kwargs(params)
    where = f"{metric.id} on {matrix.tolist()} with {kwargs}"
    if metric.level == "class":
        reference = PerClass(metric, per_class_counts, params, metric)
        for mode in info.averages:
            by_zero_division = {}
            for zd in ZERO_DIVISIONS:
                actual = info.function(*counts, average=mode, pos_label=pos_label, zero_division=zd, **kwargs)
                expected = reference.average(mode, zd, pos_label=pos_label)
                assert_matches(actual, expected, f"{where}, average={mode}, zero_division={zd}")
                by_zero_division[zd] = np.asarray(actual, dtype=float)
            if mode == "none":
                # zero_division replaces exactly the undefined (NaN by default) entries.
                for zd in ZERO_DIVISIONS[1:-1]:
                    default = by_zero_division[math.nan]
                    np.testing.assert_array_equal(by_zero_division[zd], np.where(np.isnan(default), zd, default), err_msg=where)
        if "binary" in info.averages:
            assert_matches(info.function(*counts, average="binary", **kwargs), reference.average("binary", math.nan, pos_label=1),
                           f"{where}, average=binary, default pos_label")
        if "weighted" in info.averages:
            for zd in ZERO_DIVISIONS:
                actual = info.function(*counts, average="weighted", weights=weights, zero_division=zd, **kwargs)
                expected = reference.average("weighted", zd, weights=weights)
                assert_matches(actual, expected, f"{where}, average=weighted, weights={weights}, zero_division={zd}")
        return
    if metric.per_class:  # one value per class j (averaging none); the averages are the runtime's (test_per_class)
        index = symbols.index_symbol(metric.per_class)
        for zd in ZERO_DIVISIONS:
            if zd == "skip":
                continue
            actual = info.function(matrix, average="none", zero_division=zd, **kwargs)
            expected = [aggregate_reference(metric, per_class_counts, params, zd, matrix, {index: sympy.Integer(k)})
                        for k in range(matrix.shape[0])]
            assert_matches(actual, expected, f"{where}, average=none, zero_division={zd}")
        return
    by_zero_division = {}
    for zd in ZERO_DIVISIONS:
        if metric.level == "matrix":
            actual = info.function(matrix, zero_division=zd, **kwargs)
        else:
            actual = info.function(*counts, zero_division=zd, **kwargs)
        expected = aggregate_reference(metric, per_class_counts, params, zd, matrix)
        assert_matches(actual, expected, f"{where}, zero_division={zd}")
        by_zero_division[zd] = float(actual)
    if metric.level == "matrix" and not metric.terms:
        # One division, no inner averages: zero_division only replaces an undefined value.
        default = by_zero_division[math.nan]
        for zd in ZERO_DIVISIONS[1:-1]:
            assert by_zero_division[zd] == (zd if math.isnan(default) else default), where
        assert by_zero_division["skip"] == default or math.isnan(default) and math.isnan(by_zero_division["skip"]), where


# ---------------------------------------------------------------- the tests

@st.composite
def confusion_matrices(draw, sizes=st.integers(2, 5)):
    """C x C integer matrices, C in 2..5, entries 0..30; half of them sparse (empty classes)."""
    c = draw(sizes)
    entries = st.integers(0, 30)
    if draw(st.booleans()):
        entries = st.one_of(st.just(0), entries)
    return draw(hnp.arrays(np.int64, (c, c), elements=entries))


def test_ir_and_catalog_list_the_same_metrics(compiled_metrics):
    assert sorted(compiled_metrics) == sorted(CATALOG)


@pytest.mark.parametrize("metric_id", ON_COUNTS)
@FAST
@given(data=st.data())
def test_generated_equals_sympy_of_written_form(compiled_metrics, metric_id, data):
    metric, info = compiled_metrics[metric_id], CATALOG[metric_id]
    matrix = data.draw(confusion_matrices(), label="matrix")
    c = matrix.shape[0]
    params = draw_params(metric, data.draw, c, compiled_metrics)
    pos_label = data.draw(st.integers(0, c - 1), label="pos_label")
    weights = data.draw(st.lists(st.integers(0, 5), min_size=c, max_size=c), label="weights")
    check_metric(metric, info, matrix, params, pos_label, weights)


EDGE_MATRICES = {
    "all zero": np.zeros((3, 3), dtype=np.int64),
    "one class only": np.array([[7, 0], [0, 0]]),
    "never predicted class": np.array([[3, 2, 0], [1, 4, 0], [0, 5, 0]]),
    "empty class": np.array([[3, 0, 1], [0, 0, 0], [2, 0, 6]]),
    "perfect": np.diag([4, 1, 6, 2]),
    "all wrong": np.array([[0, 5], [3, 0]]),
}


@pytest.mark.parametrize("name", sorted(EDGE_MATRICES))
@pytest.mark.parametrize("metric_id", ON_COUNTS)
def test_generated_equals_sympy_on_edge_cases(compiled_metrics, metric_id, name):
    metric = compiled_metrics[metric_id]
    matrix = EDGE_MATRICES[name]
    params = default_params(metric, compiled_metrics)
    check_metric(metric, CATALOG[metric_id], matrix, params, pos_label=0, weights=[1] * matrix.shape[0])


def test_simplified_value_where_only_the_written_form_is_undefined(compiled_metrics):
    """F1 at TP = FP = 0 < FN: precision is 0/0, yet 2 TP / (2 TP + FP + FN) = 0."""
    f1 = compiled_metrics["f1"]
    values = count_values((0, 0, 3, 5))
    assert exact(f1.written, values) is None
    assert exact(f1.simplified, values) == 0
    assert CATALOG["f1"].function([0], [0], [3], [5], average="binary", pos_label=0) == 0.0


# ---------------------------------------------------------------- curve and score levels
#
# Score level: the written formula with n, C numbers, every Sum written out, S[s, k] and
# Y[s, k] exact rationals. Curve level: the written formula on counts computed here by a
# loop over the distinct thresholds of each class (origin at i - 1 = -1), independently of
# runtime/curves.py; then the averaging of the docs: none, binary, micro (one curve over all
# (sample, class) pairs), macro, weighted by positives.

ON_SCORES = sorted(i for i in CATALOG if CATALOG[i].level in ("curve", "score"))
TRUTH, SCORE = symbols.TRUTH, symbols.SCORE


@st.composite
def small_scored(draw):
    c = draw(st.integers(2, 3))
    n = draw(st.integers(2, 7))
    y = draw(st.lists(st.integers(0, c - 1), min_size=n, max_size=n).filter(lambda v: len(set(v)) >= 2))
    weights = draw(st.lists(st.lists(st.integers(0, 3), min_size=c, max_size=c).filter(any), min_size=n, max_size=n))
    return y, [[sympy.Rational(w, sum(row)) for w in row] for row in weights]


def truth_value(y, s: int, k: int) -> sympy.Rational:
    """``Y[s, k]`` of labels ``y`` (one-hot) or of a multi-label indicator or relevance matrix ``y``."""
    return sympy.Rational(y[s][k]) if isinstance(y[s], (list, tuple)) else sympy.Integer(int(y[s] == k))


def score_reference(metric, y, scores, bound: dict | None = None) -> sympy.Expr:
    """The formula's exact value; ``bound``: the class index of a per-class formula, set."""
    n, c = len(scores), len(scores[0])
    values = {TRUTH[s, k]: S(truth_value(y, s, k)) for s in range(n) for k in range(c)}
    values.update({SCORE[s, k]: scores[s][k] for s in range(n) for k in range(c)})
    sizes = {symbols.N_TOTAL: n, symbols.N_CLASSES: c, **{p.symbol: p.default for p in metric.params}, **(bound or {})}
    expr = written_out(with_sizes(metric.written, sizes))
    value = exact(expr, values)
    if value is None:
        value = exact(written_out(with_sizes(metric.simplified, sizes)), values)
    if value is None:  # log loss of a zero probability: +oo; its D-squared score: -oo
        extended = with_log_of_zero(expr, values)
        if extended in (S.Infinity, S.NegativeInfinity):
            return extended
    return S.NaN if value is None else value


def with_sizes(expr: sympy.Expr, sizes: dict) -> sympy.Expr:
    """``expr.xreplace(sizes)`` with each maximum or minimum over an index written out
    unevaluated: the catalog's ``index_extreme`` becomes sympy's ``Max`` of its terms once its
    last index is a number, and comparing their symbolic terms (a binned calibration error's gap
    of every sample) took minutes; :func:`exact` compares their values."""
    def written(extreme):
        x, index, last = extreme.args
        terms = (x.xreplace({index: sympy.Integer(v)}).xreplace(sizes) for v in range(int(last.xreplace(sizes)) + 1))
        return type(extreme)._reduce(*terms, evaluate=False)

    return expr.replace(lambda e: isinstance(e, symbols.index_extreme) and e.args[2].xreplace(sizes).is_Integer,
                        written).xreplace(sizes)


def with_log_of_zero(expr: sympy.Expr, values: dict) -> sympy.Expr:
    """Bottom-up like :func:`exact`, but ``log(0) = -oo`` (the extended reals of the docs)."""
    if expr in values:
        return values[expr]
    if not expr.args:
        return expr
    args = [with_log_of_zero(arg, values) for arg in expr.args]
    if expr.func == sympy.log and args[0] == 0:
        return -S.Infinity
    return expr.func(*args)


def loop_curve(truth, score) -> list[tuple[int, int, int, int]]:
    points = []
    for threshold in sorted(set(score), reverse=True):
        predicted = [v >= threshold for v in score]
        points.append(tuple(sum(1 for p, t in zip(predicted, truth) if p == a and t == b)
                            for a, b in ((True, True), (True, False), (False, True), (False, False))))
    return points


def curve_reference(metric, truth, score) -> sympy.Expr:
    points = loop_curve(truth, score)
    positives, negatives = sum(truth), len(truth) - sum(truth)
    values = {symbols.CURVE_TOTALS["P"]: S(positives), symbols.CURVE_TOTALS["N"]: S(negatives)}
    values.update({p.symbol: p.default for p in metric.params})
    for name, origin, position in (("TP", 0, 0), ("FP", 0, 1), ("FN", positives, 2), ("TN", negatives, 3)):
        base = symbols.CURVE_NAMES[name]
        values[base[-1]] = S(origin)
        values.update({base[i]: S(point[position]) for i, point in enumerate(points)})
    value = exact(written_out(metric.written.xreplace({symbols.THRESHOLDS: len(points)})), values)
    return S.NaN if value is None else value


@pytest.mark.parametrize("metric_id", ON_SCORES)
@settings(max_examples=8, deadline=None)
@given(data=small_scored(), pos_label=st.integers(0, 1))
def test_generated_equals_sympy_on_scores(compiled_metrics, metric_id, data, pos_label):
    metric, info = compiled_metrics[metric_id], CATALOG[metric_id]
    y, scores = data
    if metric.truth == "indicator":  # multi-label truth: any 0/1 row, drawn from the same data
        y = [[int((3 * s + 2 * k + v) % 4 < 2) if s % 3 else int(k == v) for k in range(len(scores[0]))]
             for s, v in enumerate(y)]
    elif metric.truth == "relevance":  # graded: halves 0 to 3/2, ties, every third row all zero
        y = [[((3 * s + 2 * k + v) % 4) / 2 if s % 3 else 0.0 for k in range(len(scores[0]))] for s, v in enumerate(y)]
    floats = np.array(scores, dtype=float)
    if metric.level == "score" and not metric.per_class:
        assert_matches(info.function(y, floats), score_reference(metric, y, scores), f"{metric_id} on {y}, {scores}")
        return
    c = len(scores[0])
    if metric.per_class:  # one value per class k: the formula with k set, averaged as curve values are
        index = symbols.index_symbol(metric.per_class)
        per_class = [score_reference(metric, y, scores, {index: sympy.Integer(k)}) for k in range(c)]
    else:
        per_class = [curve_reference(metric, [int(v == k) for v in y], [row[k] for row in scores]) for k in range(c)]
    pooled = (curve_reference(metric, [int(v == k) for v in y for k in range(c)], [x for row in scores for x in row])
              if "micro" in info.averages else None)
    support = [sum(1 for v in y if v == k) for k in range(c)]
    weighted = sum((w * v for w, v in zip(support, per_class) if w), S.Zero) / sum(support)  # weight 0 takes no part
    expected = {"none": per_class, "binary": per_class[pos_label], "micro": pooled,
                "macro": sum(per_class, S.Zero) / c, "weighted": weighted}
    for mode in info.averages:
        actual = info.function(y, floats, average=mode, pos_label=pos_label)
        assert_matches(actual, expected[mode], f"{metric_id} ({mode}) on {y}, {scores}")
