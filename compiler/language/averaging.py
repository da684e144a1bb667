r"""The averaging modes of the spec language, as one table: what each mode means to every stage.

A class-level metric is one value per class; an averaging mode makes one value of them
(``macro``: their mean), or keeps them (``none``). Each row of :data:`MODES` holds what the
stages need of its mode: its symbolic meaning for the prover (:func:`Mode.general` for any
number of classes, :func:`Mode.binary` on a 2 x 2 matrix) and for ``identify`` (:func:`Mode.summed`,
sums over the classes' counts), its numeric meaning for the declared-property checks
(:func:`Mode.sample`), its words and displayed formula for the HTML catalog, its LaTeX.

The runtime, which never imports the compiler, has its own table of the same modes
(:data:`metricc.runtime.averaging.MODES`: how the values are combined at run time and
differentiated); a test checks that the two list the same modes. A new mode is one row here
and one there.

>>> CALLS
('micro', 'macro', 'weighted', 'geometric', 'samples')
>>> MODES["macro"].binary(TP, (A, D))
m00/2 + m11/2
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
import sympy

from metricc.compiler.language import symbols

__all__ = ["A", "B", "CALLS", "CLASS_COUNTS_2X2", "Cc", "D", "MODES", "Mode", "PER_CLASS", "POOLED", "TRACE", "instance_mean",
           "opaque", "per_class", "per_instance", "positive_class"]

TRACE = sympy.Symbol("T", nonnegative=True)
N, C = symbols.N_TOTAL, symbols.N_CLASSES
A, B, Cc, D = sympy.symbols("m00 m01 m10 m11", nonnegative=True)  # M[true, pred], C = 2
TP, FP, FN, TN = symbols.COUNTS
# Pooled sums of single-label counts: sum TP = T, sum FP = sum FN = n - T, sum TN = (C - 2) n + T.
POOLED = {TP: TRACE, FP: N - TRACE, FN: N - TRACE, TN: (C - 2) * N + TRACE}
# Class 0's and class 1's counts on a 2 x 2 matrix.
CLASS_COUNTS_2X2 = ({TP: A, FP: Cc, FN: B, TN: D}, {TP: D, FP: B, FN: Cc, TN: A})


def opaque(mode: str, per_class: sympy.Expr) -> sympy.Symbol:
    """One symbol per (mode, per-class formula) for an average that cannot be written without
    the matrix. Canonical (cancelled) form, so that a bound formula such as kappa*precision +
    (1 - kappa)*recall at kappa = 1 gets the same symbol as precision."""
    digest = hashlib.sha256(sympy.srepr(sympy.cancel(per_class)).encode()).hexdigest()[:12]
    return sympy.Symbol(f"avg_{mode}_{digest}", real=True)


# sympy numbers: xreplace returns a mapped value as given, so a bare TP would come back an int.
_CORRECT_INSTANCE = {TP: sympy.S.One, FP: sympy.S.Zero, FN: sympy.S.Zero}
_WRONG_INSTANCE = {TP: sympy.S.Zero, FP: sympy.S.One, FN: sympy.S.One}


def instance_mean(per_class: sympy.Expr, n_classes: sympy.Expr, correct: sympy.Expr, wrong: sympy.Expr) -> sympy.Expr | None:
    """Mean over one-hot instances of single-label data; None if an instance value is undefined.

    Single-label data read as indicator rows has two kinds of instance, ``correct`` ones
    (TP, FP, FN, TN) = (1, 0, 0, C - 1) and ``wrong`` ones (0, 1, 1, C - 2)."""
    try:
        values = (per_class.xreplace({**_CORRECT_INSTANCE, TN: n_classes - 1}),
                  per_class.xreplace({**_WRONG_INSTANCE, TN: n_classes - 2}))
    except (TypeError, ValueError):  # max(exp(...), log(0)): sympy cannot compare an infinity
        return None
    if any(v.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo) for v in values):
        return None
    return (correct * values[0] + wrong * values[1]) / (correct + wrong)


# --- general forms (any C, single-label counts) --------------------------------------------


def _pooled_general(per_class):
    return sympy.cancel(per_class.xreplace(POOLED))


def _support_weighted_general(per_class):
    linear = sympy.cancel(per_class * (TP + FN))
    if linear.is_polynomial(*symbols.COUNTS) and sympy.Poly(linear, *symbols.COUNTS).total_degree() <= 1:
        return sympy.cancel(linear.xreplace(POOLED) / N)
    return opaque("weighted", per_class)


def _instances_general(per_class):
    mean = instance_mean(per_class, C, TRACE, N - TRACE)
    return opaque("samples", per_class) if mean is None else sympy.cancel(mean)


# --- binary forms (2 x 2 matrix; values: class 0's and class 1's) -------------------------


def _instances_binary(per_class, values):
    mean = instance_mean(per_class, 2, A + D, B + Cc)
    return opaque("samples", per_class) if mean is None else mean


@dataclass(frozen=True)
class Mode:
    r"""One averaging mode and what it means to each stage.

    ``call``: written as a call in formulas (``macro(recall)``). ``pools``: the formula is
    applied to the counts summed over classes. ``per_instance``: the counts are per instance
    of multi-label data. ``per_class``: one value per class is kept (no average).
    ``positive_class``: the value of the positive class (``pos_label``). ``takes_weights``: a
    call may give class weights, a ``class_vector`` parameter (``weighted(recall, w)``), and
    ``uniform`` names the mode it is when every class has the same positive weight. ``general``: per-class formula -> the average for any C (None: one
    opaque symbol). ``binary``: (per-class formula, (class 0's value, class 1's)) -> the
    average on a 2 x 2 matrix. ``summed``: (value of class k, k, pooled formula, support of
    class k) -> the average as sums over the classes (None: not written so). ``sample``:
    (per-row values ``(C, B)``, class weights) -> the average ``(B,)`` and where it is defined.
    ``words``: what the mode does, in words. ``display``: the average as a sympy display
    formula of a :class:`Display`. ``latex`` / ``latex_by_class``: the average written out
    (of a :class:`Display` of LaTeX strings) / over the per-class values ``m_k`` (None: always
    written out), written out only while the formula takes at most ``1 / latex_share`` of a
    line. ``curve_words`` / ``latex_curve``: the mode over per-class curves (None: not offered
    there). ``latex_values``: over the per-class values ``v`` of a matrix or score formula,
    ``{0}`` the class index, and ``latex_score_values`` where a score formula's differs (a
    score formula has no matrix: the support of class k is its number of samples);
    ``refused_for_values``: why such values do not take it.
    """

    name: str
    call: bool
    binary: Callable[[sympy.Expr, tuple[sympy.Expr, sympy.Expr]], sympy.Expr] | None
    sample: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, object]]
    words: str
    display: Callable[[object], sympy.Expr]
    latex: Callable[[object], str]
    latex_by_class: str | None
    general: Callable[[sympy.Expr], sympy.Expr] | None = None
    summed: Callable | None = None
    pools: bool = False
    per_instance: bool = False
    per_class: bool = False
    positive_class: bool = False
    takes_weights: bool = False
    uniform: str | None = None
    latex_share: int = 2
    curve_words: str | None = None
    latex_curve: str | None = None
    latex_values: str | None = None
    latex_score_values: str | None = None
    refused_for_values: str | None = None

    def general_form(self, per_class: sympy.Expr) -> sympy.Expr:
        return opaque(self.name, per_class) if self.general is None else self.general(per_class)


def _mean(per_row, weights):
    return per_row.mean(axis=0), True


def _support_weighted(per_row, weights):
    total = np.sum(weights, axis=0)
    return np.sum(weights * per_row, axis=0) / np.where(total == 0, 1, total), total > 0


_WEIGHTS = r"w_k = \mathit{TP}_k + \mathit{FN}_k \text{ (support) unless weights are given}"
_POOLED_COUNTS = ", ".join(rf"\textstyle\sum_k \mathit{{{c}}}_k" for c in ("TP", "FP", "FN", "TN"))

MODES = MappingProxyType({m.name: m for m in (
    Mode("none", call=False, binary=None, per_class=True,
         sample=lambda per_row, weights: (per_row, True),
         words="for each class k = 1, ..., C",
         display=lambda d: sympy.Eq(sympy.IndexedBase("m")[d.k], d.value, evaluate=False),
         latex=lambda d: rf"m_k = {d.value}, \quad k = 1, \dots, C",
         latex_by_class=(r"m_k = m(\mathit{TP}_k, \mathit{FP}_k, \mathit{FN}_k, \mathit{TN}_k), \quad k = 1, \dots, C"
                         r" \quad \text{(the simplified formula on the counts of class } k\text{)}"),
         curve_words="the value on the curve of each class against the rest",
         latex_curve=r"m_k \text{ on the curve of class } k \text{ against the rest}, \quad k = 1, \dots, C",
         latex_values=r"\texttt{{none}}: the vector $(v_0, \dots, v_{{C-1}})$"),
    Mode("binary", call=False, binary=lambda per_class, values: values[1], positive_class=True,
         sample=lambda per_row, weights: (per_row[min(1, per_row.shape[0] - 1)], True),
         words="for the positive class c (pos_label)",
         display=lambda d: d.at(sympy.Symbol("c")),
         latex=lambda d: rf"m_c = {d.value.replace('_{k}', '_{c}')} \quad \text{{for the positive class }} c",
         latex_by_class=r"m_c \quad \text{for the positive class } c",
         curve_words="the value on the curve of the positive class",
         latex_curve=r"m_c \text{ on the curve of the positive class } c",
         latex_values=r"\texttt{{binary}}: $v_{{\mathit{{pos}}}}$ of the class \texttt{{pos\_label}}"),
    Mode("micro", call=True, general=_pooled_general, pools=True,
         binary=lambda per_class, values: per_class.xreplace({TP: A + D, FP: B + Cc, FN: B + Cc, TN: A + D}),
         summed=lambda value, k, pooled, support: pooled,
         sample=_mean,
         words="the counts of all classes pooled, then the formula",
         display=lambda d: d.pooled,
         latex=lambda d: d.pooled,
         latex_by_class=rf"m\bigl({_POOLED_COUNTS}\bigr) \quad \text{{(the formula on the pooled counts)}}",
         curve_words="the value on one curve over all (sample, class) pairs",
         latex_curve=r"m \text{ on one curve over all } n C \text{ (sample, class) pairs}",
         refused_for_values=("micro pools each class's TP, FP, FN and TN before applying a formula of those four counts; "
                             "a per-class {level} formula reads the whole {input}, so there is nothing to pool")),
    Mode("macro", call=True, binary=lambda per_class, values: (values[0] + values[1]) / 2,
         summed=lambda value, k, pooled, support: sympy.Sum(value, (k, 0, C - 1)) / C,
         sample=_mean,
         words="the mean of the per-class values",
         display=lambda d: sympy.Mul(1 / d.count, sympy.Sum(d.value, (d.k, 1, d.count)), evaluate=False),
         latex=lambda d: rf"\frac{{1}}{{C}} \sum_{{k=1}}^{{C}} {d.value}",
         latex_by_class=r"\frac{1}{C} \sum_{k=1}^{C} m_k",
         curve_words="the mean of the per-class values",
         latex_curve=r"\frac{1}{C} \sum_{k=1}^{C} m_k",
         latex_values=r"\texttt{{macro}}: $\frac{{1}}{{C}} \sum_{{{0}=0}}^{{C-1}} v_{0}$"),
    Mode("weighted", call=True, general=_support_weighted_general, takes_weights=True, uniform="macro",
         binary=lambda per_class, values: ((A + B) * values[0] + (Cc + D) * values[1]) / (A + B + Cc + D),
         summed=lambda value, k, pooled, support: sympy.Sum(support * value, (k, 0, C - 1)) / sympy.Sum(support, (k, 0, C - 1)),
         sample=_support_weighted,
         words="w_k = TP_k + FN_k (support) unless weights are given",
         display=lambda d: sympy.Mul(sympy.Sum(sympy.Mul(sympy.IndexedBase("w")[d.k], d.value, evaluate=False), (d.k, 1, d.count)),
                                     sympy.Pow(sympy.Sum(sympy.IndexedBase("w")[d.k], (d.k, 1, d.count)), -1), evaluate=False),
         latex=lambda d: rf"\frac{{\sum_{{k=1}}^{{C}} w_k \, {d.value}}}{{\sum_{{k=1}}^{{C}} w_k}}, \quad " + _WEIGHTS,
         latex_by_class=r"\frac{\sum_{k=1}^{C} w_k \, m_k}{\sum_{k=1}^{C} w_k}, \quad " + _WEIGHTS,
         latex_share=3,  # the support note leaves less room
         curve_words="the mean of the per-class values weighted by support (or given weights)",
         latex_curve=r"\frac{\sum_{k=1}^{C} w_k \, m_k}{\sum_{k=1}^{C} w_k}, \quad w_k = P_k \text{ (support) unless weights are given}",
         latex_values=r"\texttt{{weighted}}: $\sum_{{{0}=0}}^{{C-1}} t_{0} v_{0} / n$ (by support)",
         latex_score_values=r"\texttt{{weighted}}: $\sum_{{{0}=0}}^{{C-1}} \left(\sum_{{s}} Y_{{s{0}}}\right) v_{0} / n$ (by support)"),
    Mode("geometric", call=True, binary=lambda per_class, values: sympy.sqrt(values[0] * values[1]),
         summed=lambda value, k, pooled, support: sympy.Product(value, (k, 0, C - 1)) ** (1 / C),
         sample=lambda per_row, weights: (np.prod(per_row, axis=0) ** (1 / per_row.shape[0]), True),
         words="the geometric mean of the per-class values",
         display=lambda d: sympy.Pow(sympy.Product(d.value, (d.k, 1, d.count)), 1 / d.count, evaluate=False),
         latex=lambda d: rf"\Bigl(\prod_{{k=1}}^{{C}} {d.value}\Bigr)^{{1/C}}",
         latex_by_class=r"\Bigl(\prod_{k=1}^{C} m_k\Bigr)^{1/C}",
         refused_for_values="the geometric mean is offered for class-level formulas only"),
    Mode("samples", call=True, general=_instances_general, binary=_instances_binary, per_instance=True,
         sample=_mean,
         words="over the N instances of multi-label data, counts of instance s over its labels",
         display=lambda d: sympy.Mul(1 / sympy.Symbol("N"), sympy.Sum(d.instance_value, (d.instance, 1, sympy.Symbol("N"))),
                                     evaluate=False),
         latex=lambda d: (rf"\frac{{1}}{{N}} \sum_{{s=1}}^{{N}} {d.instance_value}, \quad "
                          r"\text{counts of instance } s \text{ over its labels, } N \text{ instances}"),
         latex_by_class=None,
         refused_for_values="samples averages per-instance counts of multi-label data; a {level} formula takes {what}"),
)})

# The modes written as calls in formulas: ``macro(recall)``.
CALLS = tuple(name for name, mode in MODES.items() if mode.call)
PER_CLASS = next(name for name, mode in MODES.items() if mode.per_class)  # none: the per-class values themselves


# A mode by name, read by its row: None (a per-class term, or a metric of one value per matrix) has no field set.


def per_instance(mode: str | None) -> bool:
    """Whether a term's mode averages per-instance counts of multi-label data."""
    return mode is not None and MODES[mode].per_instance


def per_class(mode: str | None) -> bool:
    """Whether ``mode`` keeps one value per class (``none``): class by class, no average."""
    return mode is not None and MODES[mode].per_class


def positive_class(mode: str | None) -> bool:
    """Whether ``mode`` is the value of the positive class (``binary``)."""
    return mode is not None and MODES[mode].positive_class
