"""Tests for the check of declared claims (:mod:`metricc.compiler.analysis.declared`).

The refusals of whole specs, with their rendered locations, are golden cases in
``specs_formula_invalid/`` (``range_contradicted``, ``range_contradicted_at_parameter``,
``higher_is_better_contradicted``, ``never_real``); here: the exact messages through the
build, the real catalog, every level's sampler (a flipped claim of a real metric is
refused), determinism and silence.
"""

from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path

import pytest
import sympy

from metricc.compiler import build, errors
from metricc.compiler.analysis import declared

REPO = Path(__file__).resolve().parents[3]
SPEC = """\
id: {id}
name: Test metric
description: A spec for the claim checks.
references: ["Test fixture"]
{params}formula: {formula}
averages: [none, macro]
default_average: macro
range: {range}
higher_is_better: {higher}
"""


def compile_spec(tmp_path: Path, monkeypatch, formula: str, range_: str = "[0, 1]", higher: str = "true",
                 params: str = "", metric_id: str = "claimed"):
    """Build a catalog of one class-level spec from ``tmp_path`` (locations read ``specs/...``)."""
    folder = tmp_path / "specs"
    folder.mkdir()
    text = SPEC.format(id=metric_id, params=params, formula=formula, range=range_, higher=higher)
    (folder / f"{metric_id}.yaml").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return build.analyzed_metrics(Path("specs"))


def refusal(tmp_path, monkeypatch, *args, **kwargs) -> errors.Diagnostic:
    with pytest.raises(errors.FormulaError) as info:
        compile_spec(tmp_path, monkeypatch, *args, **kwargs)
    (diagnostic,) = info.value.diagnostics
    return diagnostic


def test_range_refused_with_the_smallest_counterexample(tmp_path, monkeypatch):
    diagnostic = refusal(tmp_path, monkeypatch, "(TP - FP) / (TP + FP + FN + TN)")
    assert diagnostic.key == "$.range"
    assert diagnostic.message == ("range [0, 1] but TP=0, FP=1, FN=0, TN=0 gives -1; "
                                  "fix the formula or declare the range it has")
    assert str(diagnostic.location) == "specs/claimed.yaml:8:8"  # the range's value
    assert diagnostic.location.line_text == "range: [0, 1]"


def test_flipped_direction_refused(tmp_path, monkeypatch):
    diagnostic = refusal(tmp_path, monkeypatch, "TP / (TP + FP)", higher="false")
    assert diagnostic.key == "$.higher_is_better"
    assert diagnostic.message == (
        "higher_is_better: false but correcting one error raises the value at 2172 of 2172 sampled points where it "
        "changes, e.g. TP=0, FP=1, FN=1, TN=0 gives 0 but TP=1, FP=1, FN=0, TN=0 gives 0.5; "
        "declare higher_is_better: true or fix the formula")


def test_never_real_refused(tmp_path, monkeypatch):
    diagnostic = refusal(tmp_path, monkeypatch, "sqrt(-1 - TP)")
    assert diagnostic.key == "$.formula"
    assert diagnostic.message == (
        "the formula is never real: it gives no real number at any sampled point where it is defined, "
        "e.g. TP=0, FP=0, FN=0, TN=0 (a square root or logarithm of a negative value?); fix the formula")


def test_real_somewhere_is_refused(tmp_path, monkeypatch):
    """``sqrt(TP - FP)`` is real at TP >= FP only: generated code would take roots of negatives."""
    diagnostic = refusal(tmp_path, monkeypatch, "sqrt(TP - FP) / sqrt(TP + FP)", range_="[0, 1]")
    assert diagnostic.message.startswith("the formula is not real at TP=0, FP=1, FN=0, TN=0, where it is defined")


@pytest.mark.parametrize("formula", ["indicator(log(TP - 3) != 0)", "indicator(sqrt(TP - 3) == 0)",
                                     "1 - indicator(log(TP - 3) == 0)"])
def test_comparing_a_non_real_value_is_refused(tmp_path, monkeypatch, formula):
    """A bracket of a log or root of a negative count is NaN in the generated code (issue 30):
    sympy calls ``log(-3) != 0`` true, so the check compares as the runtime does, not as sympy."""
    with pytest.raises(errors.FormulaError) as info:
        compile_spec(tmp_path, monkeypatch, formula)
    (diagnostic,) = [d for d in info.value.diagnostics if d.key == "$.formula"]
    assert diagnostic.message.startswith("the formula is not real at TP=0, FP=0, FN=0, TN=0, where it is defined")


def test_guarded_nan_is_not_a_non_real_value(tmp_path, monkeypatch):
    """0/0 inside a factor that a guard zeroes (TP = 0 here) is not a root of a negative number."""
    compile_spec(tmp_path, monkeypatch, "indicator(TP != 0) * sqrt(TP / (TP + FN) * TN / (TN + FP))", range_="[0, 1]")


def test_range_of_minus_one_to_one_accepted(tmp_path, monkeypatch):
    mcc = "(TP * TN - FP * FN) / sqrt((TP + FP) * (TP + FN) * (TN + FP) * (TN + FN))"
    compile_spec(tmp_path, monkeypatch, mcc, range_="[-1, 1]")


def test_range_of_minus_one_to_one_too_narrow_for_zero_to_one(tmp_path, monkeypatch):
    mcc = "(TP * TN - FP * FN) / sqrt((TP + FP) * (TP + FN) * (TN + FP) * (TN + FN))"
    diagnostic = refusal(tmp_path, monkeypatch, mcc, range_="[0, 1]")
    assert diagnostic.message.startswith("range [0, 1] but TP=0, FP=1, FN=1, TN=0 gives -1;")


def test_conditioning_scale_below_the_value_refused(tmp_path, monkeypatch):
    conditioning = "TP / (TP + FP)\nconditioning:\n  scale: TP / (TP + FP + FN)\n  reason: A test."
    diagnostic = refusal(tmp_path, monkeypatch, conditioning)
    assert diagnostic.key == "$.conditioning"
    assert diagnostic.message.startswith("the conditioning scale must be at least |value| where the metric is defined, "
                                         "but TP=1, FP=0, FN=1, TN=0 gives 1 but the scale is 0.5")
    assert str(diagnostic.location) == "specs/claimed.yaml:7:3"  # the conditioning entry


def test_conditioning_scale_over_other_metrics_refused(tmp_path, monkeypatch):
    folder = tmp_path / "specs"
    folder.mkdir()
    (folder / "hit_rate.yaml").write_text(SPEC.format(id="hit_rate", params="", formula="TP / (TP + FN)",
                                                      range="[0, 1]", higher="true"), encoding="utf-8")
    conditioning = "TP / (TP + FP)\nconditioning:\n  scale: hit_rate + 1\n  reason: A test."
    (folder / "claimed.yaml").write_text(SPEC.format(id="claimed", params="", formula=conditioning,
                                                     range="[0, 1]", higher="true"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(errors.FormulaError) as info:
        build.analyzed_metrics(Path("specs"))
    (diagnostic,) = info.value.diagnostics
    assert diagnostic.key == "$.conditioning.scale" and "not other metrics" in diagnostic.message


def test_parameter_checked_inside_its_domain(tmp_path, monkeypatch):
    """At its default the claim holds; at the domain's upper end it does not."""
    params = "params:\n  weight:\n    kind: scalar\n    default: 1\n    domain: 0 <= weight <= 2\n"
    diagnostic = refusal(tmp_path, monkeypatch, "weight * TP / (TP + FN)", params=params)
    assert diagnostic.message == ("range [0, 1] but TP=1, FP=0, FN=0, TN=0 gives 2 (at weight=2); "
                                  "fix the formula or declare the range it has")


def test_parameter_inside_a_narrower_domain_accepted(tmp_path, monkeypatch):
    params = "params:\n  weight:\n    kind: scalar\n    default: 0.5\n    domain: 0 <= weight <= 1\n"
    compile_spec(tmp_path, monkeypatch, "weight * TP / (TP + FN)", params=params)


def test_real_catalog_accepted_silently(compiled_metrics):
    """The whole catalog passes without a warning (its speed is benchmarks/build.py's to measure)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert declared.check_declared(compiled_metrics) == compiled_metrics


# One real metric per level and sampler: a flipped direction and a halved range are refused.
LEVELS = ("precision", "accuracy", "balanced_accuracy", "f1_of_sample_averages", "weighted_accuracy",
          "roc_auc", "brier_score", "au1u", "lrap", "ndcg")


@pytest.mark.parametrize("metric_id", LEVELS)
def test_flipped_claims_of_real_metrics_refused(compiled_metrics, metric_id):
    metric = compiled_metrics[metric_id]
    flipped = dataclasses.replace(metric, higher_is_better=not metric.higher_is_better)
    with pytest.raises(errors.FormulaError) as info:
        declared.check_declared({metric_id: flipped})
    assert [d.key for d in info.value.diagnostics] == ["$.higher_is_better"]
    narrowed = dataclasses.replace(metric, range=(metric.range[0], sympy.Rational(1, 1000)))
    with pytest.raises(errors.FormulaError) as info:
        declared.check_declared({metric_id: narrowed})
    assert [d.key for d in info.value.diagnostics] == ["$.range"]


def test_relevance_sampler_draws_graded_rows(compiled_metrics):
    """DCG is at most 1 on 0/1 truth with one relevant label per row; graded rows exceed it."""
    bounded = dataclasses.replace(compiled_metrics["dcg"], range=(sympy.Integer(0), sympy.Integer(1)))
    with pytest.raises(errors.FormulaError) as info:
        declared.check_declared({"dcg": bounded})
    assert [d.key for d in info.value.diagnostics] == ["$.range"]
    assert "Y=[[" in info.value.render()


def test_refusals_are_deterministic(compiled_metrics):
    flipped = {k: dataclasses.replace(m, higher_is_better=not m.higher_is_better) for k, m in compiled_metrics.items()}
    messages = []
    for _ in range(2):
        with pytest.raises(errors.FormulaError) as info:
            declared.check_declared(flipped)
        messages.append(info.value.render())
    assert messages[0] == messages[1]


def test_a_free_sample_index_is_tried_at_every_sample():
    """An undefined case of one sample (``Sum(Y[s, k], k) = 0``: a sample with no true label)
    holds where any sample has it, the fifth of five too (not only the first C = 2)."""
    import numpy as np

    from metricc.compiler.analysis.declared_evaluate import Function
    from metricc.compiler.language import symbols

    s, k = symbols.index_symbol("s"), symbols.index_symbol("k")
    case = Function(sympy.Sum(symbols.TRUTH[s, k], (k, 0, symbols.N_CLASSES - 1)))
    truth = np.ones((5, 2, 2))
    truth[4, :, 1] = 0  # the second sampled truth: its last sample has no true label
    env = {"Y": truth, "n": np.int64(5), "C": np.int64(2)}
    assert case.vanishes(env, (2,)).tolist() == [False, True]
