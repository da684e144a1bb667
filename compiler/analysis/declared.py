"""Check what a spec declares about its formula: ``range``, ``higher_is_better``, realness,
the ``conditioning`` scale. The data are drawn by :mod:`.declared_data`, the metric evaluated
by :mod:`.declared_evaluate`; this module holds the checks.

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
from collections.abc import Mapping

import numpy as np
import sympy

from metricc.compiler.analysis import analyze
from metricc.compiler.analysis.declared_data import BATCHES, TRUTH_BATCHES, Batch
from metricc.compiler.analysis.declared_evaluate import (
    TOLERANCE, Compiled, compile_metric, evaluate, not_real_points, parameter_settings,
)
from metricc.compiler.errors import Diagnostic, FormulaError, InternalError
from metricc.compiler.language import ir, symbols
from metricc.compiler.language.levels import Level, rules

__all__ = ["check_declared", "TOLERANCE", "WRONG_SHARE"]

SEED = 11
WRONG_SHARE = 0.9  # share of moved values going the wrong way that contradicts the declared direction
MIN_MOVED = 20  # fewer moved values than this decide nothing


def _number(bound: sympy.Expr) -> str:
    return "inf" if bound == sympy.oo else "-inf" if bound == -sympy.oo else f"{float(bound):g}"


def _smallest(batch: Batch, points: np.ndarray, order: np.ndarray) -> tuple[float, float, int]:
    """``(data size, -order, index)`` of the point of ``points`` with the least data (ties: largest ``order``)."""
    found = np.flatnonzero(points)
    index = int(found[np.lexsort((-order[found], batch.weight[found]))[0]])
    return float(batch.weight[index]), -float(order[index]), index


def _check_setting(metric: ir.Metric, compiled: Compiled, label: str, setting, batches) -> dict[str, str]:
    """Problems under one parameter setting, by key."""
    low, high = (float(b) for b in metric.range)
    sign = 1.0 if metric.higher_is_better else -1.0
    defined_count = real_count = moved = wrong = 0
    first = outside_example = wrong_example = small_scale = not_real = None
    for batch, corrected in batches:
        values, defined, scale = evaluate(metric, compiled, setting, batch)
        real = defined & ~np.isnan(values)
        if scale is not None and small_scale is None:
            small = real & ~(scale >= np.abs(values) * (1 - TOLERANCE))
            if small.any():
                index = int(np.flatnonzero(small)[0])
                small_scale = f"{batch.describe(index)} gives {values[index]:.6g} but the scale is {scale[index]:.6g}"
        defined_count, real_count = defined_count + int(defined.sum()), real_count + int(real.sum())
        first = first or (defined.any() and batch.describe(int(np.flatnonzero(defined)[0])))
        if not_real is None and (defined & np.isnan(values)).any():
            found = not_real_points(compiled, setting, batch, metric, defined & np.isnan(values))
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
        after, after_defined, _ = evaluate(metric, compiled, setting, corrected)
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
    vanishing = _vanishing_log_in_sum(metric) if rules(metric.level).of_confusion_matrix else None
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
        compiled = compile_metric(metric, cache)
        with np.errstate(all="ignore", over="raise"):  # a value beyond float64 is no metric value
            for label, setting in parameter_settings(metric):
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
    def bound(batch: Batch | None, j: int) -> Batch | None:
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
            sampler = TRUTH_BATCHES.get(metric.truth, BATCHES[metric.level])
            batches[kind] = list(sampler(np.random.default_rng(SEED)))
        sampled = _per_class_batches(batches[kind], metric.per_class) if metric.per_class else batches[kind]
        problems.extend(_check_metric(metric, sampled, cache))
    if problems:
        raise FormulaError(sorted(problems, key=lambda d: (d.location.file, d.location.line, d.location.column)))
    return dict(metrics)
