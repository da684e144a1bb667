"""Every generated metric, every averaging mode, against exact rational arithmetic (issue 12).

The reference is :mod:`exact_reference`: each metric's simplified formula evaluated exactly
(sympy Integers and Rationals; irrational results rounded once to 60 digits), averaged by the
runtime's documented rules. Inputs are random and adversarial confusion matrices (C from 1
to 5, counts 0 to 1e15 with totals within 2**53: uniform, one huge cell among tiny ones, one
dominating class, an all-zero row or column, all zero, perfect), as int64 and as
integer-valued float64, and score matrices with ties, zeros and extreme probabilities.

Each call must give, with ``zero_division`` NaN and 0.25: a value within 1e-12 relative of
the exact one wherever that is defined (exactly 0 where it is 0; a metric with a documented
``conditioning`` within 1e-12 times its scale), the zero_division value exactly where it is
undefined, the same undefined cases as the compiler derives, no numpy warning, never -0.0,
and an InputError exactly where a pooled count passes 2**53. ``benchmarks/exactness.py``
runs the same comparison on thousands of inputs per metric.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from metricc.generated import CATALOG

from . import exact_reference as ref

ON_COUNTS = sorted(i for i in CATALOG if CATALOG[i].level in ("class", "aggregate", "matrix"))
ON_SCORES = sorted(i for i in CATALOG if CATALOG[i].level in ("curve", "score"))
# No shrinking: one evaluation takes up to a second (every mode, both zero_division values,
# exact arithmetic), and hypothesis would shrink a failure for up to five minutes. The
# falsifying input is printed as found; benchmarks/exactness.py finds more of them. Six inputs
# per metric and test (each checked in every mode with both zero_division values; the edge
# matrices below are checked on every metric too); the benchmark draws thousands.
EXAMPLES = settings(max_examples=6, deadline=None, phases=(Phase.explicit, Phase.reuse, Phase.generate),
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example])


class Compiled(dict):
    """The compiled IR by metric id, shown briefly in hypothesis's falsifying examples."""

    def __repr__(self) -> str:
        return f"<{len(self)} compiled metrics>"


@pytest.fixture(scope="module")
def ir(compiled_metrics):
    return Compiled(compiled_metrics)


class Draws:
    """The ``random.Random`` methods :mod:`exact_reference`'s generators use, as hypothesis
    draws: one generator for the test (shrinkable) and the benchmark (seeded)."""

    def __init__(self, draw) -> None:
        self.draw = draw

    def randint(self, low: int, high: int) -> int:
        return self.draw(st.integers(low, high))

    def randrange(self, stop: int) -> int:
        return self.draw(st.integers(0, stop - 1))

    def choice(self, options):
        return self.draw(st.sampled_from(options))

    def random(self) -> float:
        return self.draw(st.floats(0, 1, exclude_max=True))


def failures(outcomes: list[ref.Outcome]) -> str:
    return "\n".join(f"  average={o.mode} zero_division={o.zero_division} {o.kwargs}: {o.problem}: {o.detail}"
                     for o in outcomes if o.problem)


@pytest.mark.parametrize("metric_id", ON_COUNTS)
@EXAMPLES
@given(data=st.data())
def test_exact_on_confusion_matrices(ir, metric_id, data):
    metric, info = ir[metric_id], CATALOG[metric_id]
    c = data.draw(st.integers(1, 5), label="C")
    kind = data.draw(st.sampled_from(ref.MATRIX_KINDS), label="kind")
    dtype = data.draw(st.sampled_from((np.int64, np.float64)), label="dtype")
    matrix = np.array(ref.random_matrix(Draws(data.draw), c, kind), dtype=dtype)
    kwargs = data.draw(st.sampled_from(ref.parameter_settings(metric)), label="parameters")
    wrong = failures(ref.check_matrix_input(metric, info, matrix, kwargs, ir))
    assert not wrong, f"{metric_id} on {matrix.tolist()} ({dtype.__name__}):\n{wrong}"


@pytest.mark.parametrize("metric_id", ON_COUNTS)
@EXAMPLES
@given(data=st.data())
def test_exact_near_zero(ir, metric_id, data):
    """Every metric on matrices that push chance-corrected values near 0 (issue 27: the random
    kinds above rarely land there, so Gwet's AC1, 1.7e-11 off at 2.2e-6, passed them)."""
    metric, info = ir[metric_id], CATALOG[metric_id]
    c = data.draw(st.integers(2, 5), label="C")
    kind = data.draw(st.sampled_from(ref.NEAR_ZERO_KINDS), label="kind")
    dtype = data.draw(st.sampled_from((np.int64, np.float64)), label="dtype")
    matrix = np.array(ref.random_matrix(Draws(data.draw), c, kind), dtype=dtype)
    kwargs = data.draw(st.sampled_from(ref.parameter_settings(metric)), label="parameters")
    wrong = failures(ref.check_matrix_input(metric, info, matrix, kwargs, ir))
    assert not wrong, f"{metric_id} on {matrix.tolist()} ({dtype.__name__}):\n{wrong}"


@pytest.mark.parametrize("metric_id", ON_SCORES)
@EXAMPLES
@given(data=st.data())
def test_exact_on_scores(ir, metric_id, data):
    metric, info = ir[metric_id], CATALOG[metric_id]
    c = data.draw(st.integers(2, 4), label="C")
    n = data.draw(st.integers(2, 8), label="samples")
    y, scores = ref.random_scores(Draws(data.draw), n, c)
    assert_exact_on_scores(metric, info, data, y, scores)


def assert_exact_on_scores(metric, info, data, y, scores) -> None:
    """Judge ``scores`` against exact arithmetic, with the truth the metric reads in place of ``y``."""
    n, c = len(scores), len(scores[0])
    if metric.truth == "indicator":
        y = ref.random_indicator(Draws(data.draw), n, c)
    elif metric.truth == "relevance":
        y = ref.random_relevance(Draws(data.draw), n, c)
    kwargs = data.draw(st.sampled_from(ref.parameter_settings(metric)), label="parameters")
    wrong = failures(ref.check_scores_input(metric, info, y, scores, kwargs))
    assert not wrong, f"{metric.id} on y={y}, scores={scores}:\n{wrong}"


@pytest.mark.parametrize("metric_id", ON_SCORES)
@EXAMPLES
@given(data=st.data())
def test_exact_near_zero_scores(ir, metric_id, data):
    """Every score and curve metric on scores near the prior or near uniform, where skill-type
    values are near 0 (issue 27: the near-zero regime was drawn for count metrics only)."""
    metric, info = ir[metric_id], CATALOG[metric_id]
    c = data.draw(st.integers(2, 4), label="C")
    n = data.draw(st.integers(2, 8), label="samples")
    kind = data.draw(st.sampled_from(ref.NEAR_ZERO_SCORE_KINDS), label="kind")
    assert_exact_on_scores(metric, info, data, *ref.near_zero_scores(Draws(data.draw), n, c, kind))


EDGE_MATRICES = {
    "cancelling kappa and mcc": [[10 ** 12, 1], [1, 1]],
    "adjusted g-mean, class with TP = 0 and no negatives": [[0, 5], [0, 0]],
    "one huge cell": [[10 ** 15, 0, 3], [2, 0, 0], [0, 1, 0]],
    "single class": [[7]],
    "perfect": [[2 ** 50, 0], [0, 1]],
    "independent": [[3, 6], [5, 10]],
    "shares near 1 (entropies)": [[1, 10 ** 8], [0, 1]],
    "odds ratio below 2**-53": [[1, 10 ** 8], [10 ** 8, 1]],
    "pooled total beyond 2**53": [[2 ** 52, 0], [0, 1]],
    "near uniform: Gwet's AC1 2.2e-6 (issue 27)": [[32493, 33199], [32337, 33041]],
    "per-class values of both signs (youden macro)": [[27, 0, 9], [10 ** 15, 0, 20], [0, 0, 0]],
}


@pytest.mark.parametrize("name", sorted(EDGE_MATRICES))
@pytest.mark.parametrize("metric_id", ON_COUNTS)
def test_exact_on_edge_matrices(compiled_metrics, metric_id, name):
    """Named inputs of issue 12, at every parameter setting, as int64 and as float64."""
    metric, info = compiled_metrics[metric_id], CATALOG[metric_id]
    wrong = []
    for dtype in (np.int64, np.float64):
        matrix = np.array(EDGE_MATRICES[name], dtype=dtype)
        for kwargs in ref.parameter_settings(metric):
            text = failures(ref.check_matrix_input(metric, info, matrix, kwargs, compiled_metrics))
            if text:
                wrong.append(f"{matrix.tolist()} ({dtype.__name__}):\n{text}")
    assert not wrong, f"{metric_id}: " + "\n".join(wrong)


def test_reference_sees_what_it_must(compiled_metrics):
    """The reference itself: exact kappa where float64 cancels, the strong zero of an indicator,
    an undefined value where a denominator vanishes, +inf for log loss of a zero probability."""
    a = 10 ** 12
    matrix = [[a, 1], [1, 1]]
    kappa = ref.formula_calls(compiled_metrics["cohen_kappa"], ref.class_counts(matrix), {}, compiled_metrics, matrix)[0]
    n, chance = a + 3, (a + 1) ** 2 + 2 ** 2
    assert kappa.expected == Fraction(n * (a + 1) - chance, n ** 2 - chance)
    agm = ref.PerClass.of(compiled_metrics["adjusted_g_mean"], compiled_metrics["adjusted_g_mean"],
                          ref.class_counts([[0, 5], [0, 0]]), {}, compiled_metrics)
    assert agm.values[0] == 0  # indicator(TP != 0) = 0 makes the product 0
    precision = ref.PerClass.of(compiled_metrics["precision"], compiled_metrics["precision"],
                                ref.class_counts([[0, 5], [0, 0]]), {}, compiled_metrics)
    assert precision.values == [None, 0]
    log_loss = ref.score_calls(compiled_metrics["log_loss"], [0, 1], [[0.0, 1.0], [0.0, 1.0]])[0].expected
    assert log_loss == float("inf")


def test_judge_flags_what_it_must():
    """The comparison can fail: a digit lost, a NaN for a value, -0.0, a numpy warning, an
    input the runtime should have refused."""
    third = ref.sympy.Rational(1, 3)
    assert ref.judge(1 / 3, third)[1] == ""  # the float nearest 1/3: 5.6e-17 relative
    assert ref.judge(1 / 3 + 1e-12, third)[1] == "inexact"
    assert ref.judge(float("nan"), third)[1] == "undefined mismatch"
    assert ref.judge(0.0, None)[1] == "undefined mismatch"
    assert ref.judge(-0.0, ref.sympy.S.Zero)[1] == "signed zero"
    assert ref.judge(1e-300, ref.sympy.S.Zero)[1] == "inexact"
    assert ref.judge(1e-13, ref.sympy.S.Zero, scale=ref.sympy.S.One) == (1e-13, "")
    warns = ref.run(lambda x: np.log(x), (np.array(0.0),), ref.Call("-", 0.0, {}, -ref.sympy.oo))
    assert warns.problem == "warning"
    refused = ref.run(lambda x: x, (1.0,), ref.Call("-", 0.0, {}, ref.Refused("pooled count beyond 2**53")))
    assert refused.problem == "not refused"


def test_d2_brier_score_near_zero_within_its_conditioning(compiled_metrics):
    """1 - 0.49999999999999994 rounds to 0.5, so float64 gives 0.0 where the exact value on
    these inputs is -(2**-54 + 2**-108) (issue 27): within the spec's conditioning bound."""
    y, scores = [1, 0], [[0.5, 0.49999999999999994], [0.5, 0.5]]
    outcomes = ref.check_scores_input(compiled_metrics["d2_brier_score"], CATALOG["d2_brier_score"], y, scores, {})
    assert not failures(outcomes)
    expected = 1 - (Fraction(1, 4) + (1 - Fraction(0.49999999999999994)) ** 2 + Fraction(1, 2)) / 1
    assert expected == -(Fraction(1, 2 ** 54) + Fraction(1, 2 ** 108))
    assert abs(float(CATALOG["d2_brier_score"].function(y, scores)) - float(expected)) <= 1e-12 * 2


def test_d2_log_loss_score_near_zero_within_its_conditioning(compiled_metrics):
    """The same inputs: log(0.5 - 2**-54) + log(0.5) over the null's 2 log(0.5) leaves
    -2**-54 / log 2 = -8.0e-17 exactly, which float64 gives as -1.6e-16 (issue 30): within the
    spec's conditioning bound, 1e-12 times about 2."""
    import sympy

    y, scores = [1, 0], [[0.5, 0.49999999999999994], [0.5, 0.5]]
    outcomes = ref.check_scores_input(compiled_metrics["d2_log_loss_score"], CATALOG["d2_log_loss_score"], y, scores, {})
    assert not failures(outcomes)
    half = sympy.Rational(1, 2)
    exact = 1 - (sympy.log(sympy.Rational(0.49999999999999994)) + sympy.log(half)) / (2 * sympy.log(half))
    assert float(sympy.N(exact, 30)) == pytest.approx(-(2.0 ** -54) / math.log(2), rel=1e-12)
    assert abs(float(CATALOG["d2_log_loss_score"].function(y, scores)) - float(sympy.N(exact, 30))) <= 1e-12 * 2
