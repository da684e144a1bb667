"""api/evaluate_plan.py: the fused steps of a small call give, to the last bit, what each
generated class-level function gives on its own, and a call is fused only where that holds."""

from __future__ import annotations

import math

import numpy as np
import pytest

import metricc.api as mc
from metricc.api import evaluate_counts, evaluate_plan
from metricc.api.read_inputs import from_counts, from_matrix
from metricc.api.request import checked_entries
from metricc.compiler.emit import numpy_module
from metricc.runtime.confusion import counts_from_matrix
from tests.api.test_evaluate_counts import _matrices as counts_matrices

FUSED_MODES = ("macro", "weighted", "micro")
ENTRIES = [(info, mode) for info in (mc.catalog()[name] for name in mc.catalog())
           if info.class_kernel is not None for mode in FUSED_MODES if mode in info.averages]
AGGREGATES = [info for info in (mc.catalog()[name] for name in mc.catalog()) if info.term_kernel is not None]


def _matrices():
    """test_evaluate_counts' matrices (empty rows and columns among them), and a batch."""
    yield from counts_matrices()
    yield np.random.default_rng(131).integers(0, 9, (3, 2, 4, 4))


def _same(together, alone) -> bool:
    return np.asarray(together).tobytes() == np.asarray(alone).tobytes()  # -0.0 and NaN bits too


@pytest.mark.parametrize("zero_division", [math.nan, 0.0, 1.0])
def test_fused_values_equal_each_generated_function_alone_to_the_bit(zero_division):
    keys = [f"{info.id}:{mode}" for info, mode in ENTRIES]
    steps = evaluate_counts._steps(checked_entries((tuple(keys), True, mc.metric, None, frozenset()))[0]).steps
    fused = sum(step.fused is not None for step in steps)
    assert fused > 60  # most of the catalog's class-level metrics take the fused path
    for matrix in _matrices():
        together = mc.evaluate(keys, matrix=matrix, zero_division=zero_division)
        for key, (info, mode) in zip(keys, ENTRIES):
            alone = info.function(*counts_from_matrix(matrix), average=mode, zero_division=zero_division)
            assert _same(together[key], alone), (key, together[key], alone)


@pytest.mark.parametrize("zero_division", [math.nan, 0.0])
def test_fused_aggregates_equal_their_generated_function_to_the_bit(zero_division):
    keys = [info.id for info in AGGREGATES]
    assert "balanced_accuracy" in keys and all(mode in FUSED_MODES for info in AGGREGATES for _, mode in info.class_terms)
    for matrix in _matrices():
        together = mc.evaluate(keys, matrix=matrix, zero_division=zero_division)
        for info in AGGREGATES:
            alone = info.function(*counts_from_matrix(matrix), zero_division=zero_division)
            assert _same(together[info.id], alone), (info.id, together[info.id], alone)


def test_labels_and_integer_counts_are_fused_as_matrices_are():
    y_true, y_pred = [0, 1, 2, 2, 1, 0, 2], [0, 2, 2, 1, 1, 0, 0]
    keys = ["f1:macro", "precision:weighted", "recall:micro", "jaccard:macro"]
    counts = counts_from_matrix(mc.confusion_matrix(y_true, y_pred))
    by_labels = mc.evaluate(keys, y_true=y_true, y_pred=y_pred)
    by_counts = mc.evaluate(keys, counts=counts)
    for key in keys:
        name, mode = key.split(":")
        alone = mc.metric(name).function(*counts, average=mode)
        assert _same(by_labels[key], alone) and _same(by_counts[key], alone), key


def test_a_call_is_fused_only_where_the_generated_path_needs_no_check_of_its_own():
    matrix = np.array([[5, 1], [2, 7]])
    counted = from_matrix(matrix, "true-rows", None)
    assert evaluate_plan.fused_call(counted, math.nan, None) is not None
    assert evaluate_plan.fused_call(counted, "skip", None) is None  # a rule of the means, not a value
    assert evaluate_plan.fused_call(counted, 0, None) is None  # an int: checked by the generated path
    assert evaluate_plan.fused_call(counted, math.nan, [1.0, 2.0]) is None
    weighted = from_matrix(np.array([[0.5, 1.0], [2.0, 7.25]]), "true-rows", None)
    assert evaluate_plan.fused_call(weighted, math.nan, None) is None  # real-valued: maybe rescaled
    assert evaluate_plan.fused_call(from_counts(counts_from_matrix(matrix), None), math.nan, None) is not None


def test_a_pos_label_is_looked_up_once_and_refused_as_before():
    y_true, y_pred = ["a", "b", "b", "c"], ["a", "b", "c", "c"]
    named = mc.evaluate(["f1:macro", "recall:micro"], y_true=y_true, y_pred=y_pred, pos_label="b")
    assert named == mc.evaluate(["f1:macro", "recall:micro"], y_true=y_true, y_pred=y_pred)
    with pytest.raises(mc.InputError, match="'d' is not one of the labels"):
        mc.evaluate(["f1:macro"], y_true=y_true, y_pred=y_pred, pos_label="d")


def test_the_compiler_emits_terms_alone_for_the_modes_the_plan_fuses():
    assert numpy_module._FUSED_MODES == frozenset(evaluate_plan._MODES) == frozenset(FUSED_MODES)


def test_steps_with_parameters_or_other_modes_are_not_fused():
    assert evaluate_plan.fused_step(mc.metric("f1"), "macro") is not None
    assert evaluate_plan.fused_step(mc.metric("f1"), "binary") is None
    assert evaluate_plan.fused_step(mc.metric("f1"), "none") is None  # the caller's own array comes back
    assert evaluate_plan.fused_step(mc.metric("f_beta"), "macro") is None  # a parameter
    assert evaluate_plan.fused_step(mc.metric("mcc"), None) is None  # matrix level
    assert evaluate_plan.fused_step(mc.metric("balanced_accuracy"), None) is not None  # macro(recall)
    assert evaluate_plan.fused_step(mc.metric("f_beta_of_macro_averages"), None) is None  # a parameter


def test_micro_beyond_2_53_is_refused_as_by_the_generated_function():
    tp = np.full(5, 2 ** 51, dtype=np.int64)  # each class's total is fine, the pooled TP is not
    counts = (tp, np.zeros(5, dtype=np.int64), np.zeros(5, dtype=np.int64), np.zeros(5, dtype=np.int64))
    with pytest.raises(mc.InputError, match="micro averaging pools"):
        mc.metric("precision").function(*counts, average="micro")
    with pytest.raises(mc.InputError, match="micro averaging pools"):
        mc.evaluate("precision:micro", counts=counts)
