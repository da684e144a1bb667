"""The sympy symbols formulas are written in, shared by every compiler stage.

Counts are non-negative integers: telling sympy so lets it simplify ``sqrt(TP**2)`` and
decide which denominators can vanish.
"""

from __future__ import annotations

import math

import sympy

__all__ = [
    "TP",
    "FP",
    "FN",
    "TN",
    "COUNTS",
    "COUNT_NAMES",
    "M",
    "ROW_TOTAL",
    "COLUMN_TOTAL",
    "N_TOTAL",
    "N_CLASSES",
    "MATRIX_NAMES",
    "RESERVED",
    "IndexSymbol",
    "index_symbol",
    "is_index",
    "is_index_name",
    "is_sample_index",
    "is_sample_index_name",
    "xlogy",
    "binomial_tail",
    "pick",
    "meeting",
    "index_extreme",
    "index_max",
    "index_min",
    "INDEX_EXTREMES",
    "CURVE_NAMES",
    "CURVE_TOTALS",
    "THRESHOLDS",
    "THRESHOLD_PICKS",
    "SCORE",
    "TRUTH",
    "SAMPLE_INDICES",
    "SCORE_NAMES",
    "metric_value",
    "TermSymbol",
]

TP = sympy.Symbol("TP", integer=True, nonnegative=True)
FP = sympy.Symbol("FP", integer=True, nonnegative=True)
FN = sympy.Symbol("FN", integer=True, nonnegative=True)
TN = sympy.Symbol("TN", integer=True, nonnegative=True)
COUNTS = (TP, FP, FN, TN)
COUNT_NAMES = {"TP": TP, "FP": FP, "FN": FN, "TN": TN}

M = sympy.IndexedBase("M")
ROW_TOTAL = sympy.IndexedBase("t")
COLUMN_TOTAL = sympy.IndexedBase("p")
N_TOTAL = sympy.Symbol("n", integer=True, nonnegative=True)
N_CLASSES = sympy.Symbol("C", integer=True, positive=True)
MATRIX_NAMES = {"M": M, "t": ROW_TOTAL, "p": COLUMN_TOTAL, "n": N_TOTAL, "C": N_CLASSES}

# Curve level: counts at every distinct score threshold, TP[i] (and TP[i - 1], the point
# before), and the totals of positives P and negatives N of the one-vs-rest curve.
CURVE_NAMES = {name: sympy.IndexedBase(name) for name in ("TP", "FP", "FN", "TN")}
CURVE_TOTALS = {name: sympy.Symbol(name, integer=True, nonnegative=True) for name in ("P", "N")}
THRESHOLDS = sympy.Symbol("L", integer=True, positive=True)  # number of distinct thresholds

# Curve level: the reductions that choose one threshold (``Max(x, i, where=c)``...), see :class:`pick`.
THRESHOLD_PICKS = ("Max", "Min", "At")

# Score level: S[s, k] the score of sample s for class k, Y[s, k] = 1 if s is of class k.
SCORE = sympy.IndexedBase("S")
TRUTH = sympy.IndexedBase("Y")
SAMPLE_INDICES = ("s", "u", "v")
SCORE_NAMES = {"S": SCORE, "Y": TRUTH, "n": N_TOTAL, "C": N_CLASSES}

FUNCTIONS = ("sqrt", "log", "exp", "abs", "min", "max", "xlogy", "binomial_tail", "Sum", "indicator", "step", "floor", *THRESHOLD_PICKS)
CONSTANTS = ("pi",)
# Names no spec may define; the averaging modes are reserved too (their table, :mod:`.averaging`, reads these symbols).
RESERVED = frozenset({*COUNT_NAMES, *MATRIX_NAMES, *FUNCTIONS, *CONSTANTS, *CURVE_TOTALS, *SCORE_NAMES})


class TermSymbol(sympy.Symbol):
    """A term of an aggregate or matrix formula: an averaged class metric (``macro(recall)``)
    or, as an ``IndexedBase`` label, a per-class one (``recall[k]``).

    The :class:`~metricc.compiler.language.ir.Term` holding this symbol says what the term is
    (metric, mode, bindings, weights); the type alone tells the analysis that it varies with
    the data. Its name is only a unique key: nothing reads meaning out of it.
    """


def metric_value(name: str) -> sympy.Expr:
    """The per-class value of the metric bound to parameter ``name``: ``name(TP, FP, FN, TN)``.

    An undefined function of the counts: opaque to simplification, replaced by the bound
    metric's formula when a spec binds it, computed by the bound metric's kernel at run time.
    """
    return sympy.Function(name, real=True)(TP, FP, FN, TN)


class IndexSymbol(sympy.Symbol):
    """A summation index: a class (``k``, ``0 .. C-1``), at the score level also a sample
    (``s``, ``0 .. n-1``), at the curve level a threshold (``i``).

    Every stage after parsing asks :func:`is_index`, never the spelling: the parser creates
    indices (:func:`index_symbol`) where a ``Sum``, an extreme, a ``let`` definition or
    ``per_class`` binds a name that :func:`is_index_name` admits, and the delta stage where it
    introduces the cell ``M[a, b]`` of a gradient.
    """


def index_symbol(name: str) -> IndexSymbol:
    """The index spelt ``name`` (an integer from 0)."""
    return IndexSymbol(name, integer=True, nonnegative=True)


def is_index(expr: sympy.Basic) -> bool:
    """Whether ``expr`` is a summation index (:class:`IndexSymbol`), not a count, total or parameter."""
    return isinstance(expr, IndexSymbol)


def is_sample_index(expr: sympy.Basic) -> bool:
    """Score level: whether ``expr`` is an index over the samples (``s``, ``u``, ``v``), not the classes."""
    return is_index(expr) and is_sample_index_name(expr.name)


def is_sample_index_name(name: str) -> bool:
    """Score level: whether an index spelt ``name`` (in a spec, or in printed code) runs over the samples."""
    return name in SAMPLE_INDICES


def is_index_name(name: str) -> bool:
    """The spelling a spec may give an index: one lower-case letter other than the matrix totals n, p, t."""
    return len(name) == 1 and name.islower() and name not in ("n", "p", "t")


class xlogy(sympy.Function):
    """``x * log(y)``, and 0 wherever ``x = 0``, even where ``y`` is undefined there.

    The convention ``0 log 0 = 0`` of entropies: a cell (or class) with no mass contributes
    nothing, and its share ``y = x / total`` may be ``0 / 0``. Numbers evaluate at once, so
    exact evaluation and the runtime helper of the same name agree.

    >>> x = sympy.Symbol("x")
    >>> xlogy(0, x), xlogy(2, 1), xlogy(x, 3)
    (0, 0, xlogy(x, 3))
    """

    nargs = 2

    @classmethod
    def eval(cls, x, y):
        if x.is_zero:
            return sympy.S.Zero
        if x.is_number and y.is_number or y.is_number and y == 1:
            return x * sympy.log(y)
        return None

    def _eval_evalf(self, prec):
        """Numerically, also where the arguments stand unevaluated (``sympy.evaluate(False)``)."""
        x, y = (a._evalf(prec) for a in self.args)
        return sympy.S.Zero if x.is_zero else (x * sympy.log(y))._evalf(prec)


class binomial_tail(sympy.Function):
    """``P(X >= x)`` for ``X ~ Binomial(n, p)``: ``binomial_tail(x, n, p)``, the one-sided
    binomial test of ``x`` successes in ``n`` trials against the chance ``p``.

    Its meaning for sympy is the finite sum ``Sum(binomial(n, j) p**j (1 - p)**(n - j), (j, x, n))``
    (``rewrite(sympy.Sum)``), equal to the regularized incomplete beta ``I_p(x, n - x + 1)``
    for ``1 <= x <= n`` (``rewrite(sympy.betainc_regularized)``). Whole numbers evaluate
    exactly up to :data:`EXACT_TRIALS` trials (and at the certain ends: ``x <= 0``, ``x > n``,
    ``p`` 0 or 1); beyond, ``evalf`` sums the terms or runs the continued fraction in mpmath at
    the precision asked, so exact references need no float64.

    >>> binomial_tail(2, 3, sympy.Rational(1, 2)), binomial_tail(0, 10**18, sympy.Rational(1, 3)), binomial_tail(4, 3, 1)
    (1/2, 1, 0)
    """

    nargs = 3
    EXACT_TRIALS = 3000

    @classmethod
    def eval(cls, x, n, p):
        if x.is_Integer and x <= 0:
            return sympy.S.One
        if x.is_Integer and n.is_Integer and x > n:
            return sympy.S.Zero
        if not (x.is_Integer and n.is_Integer and p.is_Rational and 0 <= p <= 1):
            return None
        if p == 0 or p == 1:
            return sympy.S(int(p))  # x is in 1 .. n here
        if n > cls.EXACT_TRIALS:
            return None
        x, n, a, b = int(x), int(n), p.p, p.q - p.p  # p = a / (a + b)
        term = a ** x * b ** (n - x) * math.comb(n, x)
        total = 0
        for j in range(x, n + 1):
            total += term
            term = term * (n - j) * a // ((j + 1) * b) if j < n else 0
        return sympy.Rational(total, p.q ** n)

    def _eval_rewrite_as_Sum(self, x, n, p, **kwargs):
        j = sympy.Dummy("j", integer=True)
        return sympy.Sum(sympy.binomial(n, j) * p ** j * (1 - p) ** (n - j), (j, sympy.Max(x, 0), n))

    def _eval_rewrite_as_betainc_regularized(self, x, n, p, **kwargs):
        return sympy.Piecewise((1, x <= 0), (0, x > n), (sympy.betainc_regularized(x, n - x + 1, 0, p), True))

    def _eval_is_real(self):
        return True if all(a.is_real for a in self.args) else None

    def _eval_is_nonnegative(self):
        return self._eval_is_real()

    def _eval_evalf(self, prec):
        x, n, p = (a.evalf(prec) if not a.is_Rational else a for a in self.args)
        if not (self.args[0].is_Integer and self.args[1].is_Integer and self.args[2].is_Rational):
            return None
        from metricc.compiler.language.binomial_reference import tail  # mpmath, only where asked

        return sympy.Float(tail(int(x), int(n), int(p.p), int(p.q), prec), precision=prec)


class step(sympy.Function):
    """The step of rank statistics: 1 above 0, 1/2 at 0 (a tie counts half), 0 below.

    ``I(p(s, j), p(t, j))`` of Wang et al. 2013, Eq. 13; numbers evaluate at once.

    >>> x = sympy.Symbol("x")
    >>> step(2), step(0), step(-sympy.Rational(1, 3)), step(x)
    (1, 1/2, 0, step(x))
    """

    nargs = 1

    @classmethod
    def eval(cls, x):
        if x.is_zero:
            return sympy.S.Half
        if x.is_positive:
            return sympy.S.One
        if x.is_negative:
            return sympy.S.Zero
        return None


class pick(sympy.Function):
    """A curve quantity at one chosen threshold: ``pick(value, key, condition, i, last)``.

    ``value`` at the threshold ``i`` in ``0 .. last`` whose ``key`` is greatest among the
    thresholds where ``condition`` (a comparison, or ``true``) holds; of equal keys the first,
    i.e. the highest score. Where no threshold meets the condition the value is undefined
    (:class:`meeting` is the case). ``Max(x, i, where=c)`` is ``pick(x, x, c, i, last)``,
    ``Min`` picks by ``-x``. The index is bound: it is not a free symbol of the whole.
    """

    nargs = 5

    @property
    def free_symbols(self):
        value, key, condition, index, last = self.args
        return (value.free_symbols | key.free_symbols | condition.free_symbols | last.free_symbols) - {index}

    def _numpycode(self, printer) -> str:
        """For ``lambdify`` (the declared-claims check): the rows over thresholds, then ``pick_rows``."""
        value, key, holds, index, last = self.args
        return f"pick_rows({', '.join(_rows(printer, e, index, last) for e in (value, key, holds))})"

    @staticmethod
    def choose(rows):
        """``rows`` of ``(value, key, holds)`` in threshold order -> the picked value, None if none holds."""
        best = None
        for value, key, holds in rows:
            if holds and (best is None or key > best[1]):
                best = (value, key)
        return None if best is None else best[0]


class meeting(sympy.Function):
    """How many thresholds ``i`` in ``0 .. last`` meet ``condition``: ``meeting(condition, i, last)``.

    The undefined case of :class:`pick`: 0 when no threshold meets the constraint.
    """

    nargs = 3

    @property
    def free_symbols(self):
        condition, index, last = self.args
        return (condition.free_symbols | last.free_symbols) - {index}

    def _numpycode(self, printer) -> str:
        condition, index, last = self.args
        return f"count_rows({_rows(printer, condition, index, last)})"


class index_extreme(sympy.Function):
    """The greatest (``index_max``) or least (``index_min``) value of ``x`` over ``index`` in
    ``0 .. last``: ``index_max(x, k, last)``, a formula's ``Max(x, k)`` over the classes (matrix
    and score levels, ``last = C - 1``) or the samples (score level, ``last = n - 1``).

    Like a ``Sum`` it binds its index (not a free symbol of the whole) and the index's other
    uses stay free (``Sum(Max(M[i, j], j), i)`` is a maximum per row ``i``). With a number of
    classes it is sympy's ``Max``/``Min`` of the terms, so exact evaluation needs nothing more.

    >>> k, i = index_symbol("k"), index_symbol("i")
    >>> k in index_max(ROW_TOTAL[k], k, N_CLASSES - 1).free_symbols
    False
    >>> index_max(ROW_TOTAL[k], k, 2), index_min(M[i, k], k, 1), index_max(N_TOTAL, k, N_CLASSES - 1)
    (Max(t[0], t[1], t[2]), Min(M[i, 0], M[i, 1]), n)
    """

    nargs = 3
    _reduce = None  # sympy.Max or sympy.Min

    @classmethod
    def eval(cls, x, index, last):
        if cls._reduce is None:
            return None
        if index not in x.free_symbols:  # the same at every class (there is at least one)
            return x
        if last.is_Integer and last >= 0:
            return cls._reduce(*(x.xreplace({index: sympy.Integer(v)}) for v in range(int(last) + 1)))
        return None

    @property
    def free_symbols(self):
        x, index, last = self.args
        return (x.free_symbols | last.free_symbols) - {index}

    def _eval_is_real(self):
        return self.args[0].is_real

    def _eval_is_nonnegative(self):
        return True if self.args[0].is_nonnegative else None

    def _eval_is_positive(self):
        return True if self.args[0].is_positive else None

    def _numpycode(self, printer) -> str:
        """For ``lambdify`` (the declared-claims check): the rows over classes, then their extreme."""
        x, index, last = self.args
        return f"{type(self).__name__}_rows({_rows(printer, x, index, last)})"


class index_max(index_extreme):
    """``Max(x, k)``: the greatest value of ``x`` over an index (see :class:`index_extreme`)."""

    _reduce = sympy.Max


class index_min(index_extreme):
    """``Min(x, k)``: the least value of ``x`` over an index (see :class:`index_extreme`)."""

    _reduce = sympy.Min


# Matrix and score levels: ``Max(x, k)`` and ``Min(x, k)`` over an index, by their spec names.
INDEX_EXTREMES = {"Max": index_max, "Min": index_min}


def _rows(printer, expr: sympy.Basic, index: sympy.Symbol, last: sympy.Expr) -> str:
    """``[expr for index in range(0, last + 1)]`` in the printer's code (thresholds on axis 0)."""
    return f"[{printer._print(expr)} for {printer._print(index)} in range(0, {printer._print(last)} + 1)]"
