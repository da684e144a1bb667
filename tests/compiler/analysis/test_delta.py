"""The delta stage (:mod:`metricc.compiler.analysis.delta`): gradients, their absence, proportions.

The emitted gradients are checked numerically against finite differences for the whole
catalog in tests/runtime/test_gradient.py; here, the stage's own decisions."""

from __future__ import annotations

import dataclasses

import sympy

from metricc.compiler.analysis import budget, delta
from metricc.compiler.language import symbols

TP, FP, FN, TN = symbols.COUNTS
M, t, p, n = symbols.M, symbols.ROW_TOTAL, symbols.COLUMN_TOTAL, symbols.N_TOTAL
k = symbols.index_symbol("k")
C = symbols.N_CLASSES


def test_class_proportions_name_their_successes_and_trials():
    assert delta._class_proportion(TP / (TP + FN)) == (("tp",), ("tp", "fn"))
    assert delta._class_proportion((TP + TN) / (TP + FP + FN + TN)) == (("tp", "tn"), ("tp", "fp", "fn", "tn"))
    assert delta._class_proportion(2 * TP / (2 * TP + FP + FN)) is None  # F1: 2 TP is no count
    assert delta._class_proportion(TP / (FP + FN)) is None  # successes not among the trials
    assert delta._class_proportion(TP / (TP + FN) - FP / (FP + TN)) is None


def test_matrix_proportions_are_the_diagonal_or_the_rest_over_n():
    trace = sympy.Sum(M[k, k], (k, 0, C - 1))
    assert delta._matrix_proportion(trace / n) == (("diagonal",), ("all",))
    assert delta._matrix_proportion((n - trace) / n) == (("off_diagonal",), ("all",))
    assert delta._matrix_proportion(sympy.Sum(t[k] * p[k], (k, 0, C - 1)) / n ** 2) is None
    assert delta._matrix_proportion(M[0, 0] / n) is None


def test_kinks_of_the_data_have_no_gradient_and_say_which():
    assert "max" in delta._not_differentiable(sympy.Max(TP, FP) / (TP + FP))
    assert "abs" in delta._not_differentiable(sympy.Abs(TP - FP))
    assert delta._not_differentiable(symbols.xlogy(TP, TP / (TP + FN))) == ""  # differentiable where TP > 0
    assert delta._not_differentiable((1 - sympy.KroneckerDelta(TP + FN, 0)) * TP) == ""  # a zero guard
    assert "indicator" in delta._not_differentiable(sympy.KroneckerDelta(TP - FP, 0))  # counts may cross
    assert "indicator" in delta._not_differentiable(sympy.KroneckerDelta(TP, 3))
    assert delta._not_differentiable(sympy.sqrt(TP / (TP + FN))) == ""
    k = symbols.index_symbol("k")
    most = symbols.index_max(symbols.ROW_TOTAL[k], k, symbols.N_CLASSES - 1)
    assert "a maximum over an index" in delta._not_differentiable(most / symbols.N_TOTAL)


def test_a_sum_over_a_kronecker_delta_collapses_to_its_class():
    a = symbols.index_symbol("a")
    collapsed = delta._collapse(sympy.Sum(sympy.KroneckerDelta(k, a) * t[k] * p[k], (k, 0, C - 1)))
    assert collapsed == t[a] * p[a]


def test_the_matrix_gradient_reads_totals_as_sums_of_cells():
    """d/dM[a, b] of n = 1, of t[a'] = [a' = a], of the trace = [a = b]."""
    a, b = delta.cell_indices(n)
    assert delta._matrix_gradient(n) == 1
    trace = sympy.Sum(M[k, k], (k, 0, C - 1))
    assert sympy.simplify(delta._matrix_gradient(trace) - sympy.KroneckerDelta(a, b)) == 0


def test_a_partial_beyond_the_compile_budget_is_no_gradient_not_an_error(compiled_metrics, monkeypatch):
    recall = compiled_metrics["recall"]
    monkeypatch.setattr(budget, "problem", lambda expr: "too large")
    derived = delta.derive_metric(dataclasses.replace(recall, gradient=(), proportion=()))
    assert derived.gradient == () and derived.no_delta == "its gradient exceeds the compile budget"


def test_the_catalog_s_reasons(compiled_metrics):
    reasons = {m.id: m.no_delta for m in compiled_metrics.values()}
    assert reasons["roc_auc"] == "a curve-level metric is not a function of the confusion matrix"
    assert reasons["cen"] == reasons["kl_divergence"] == reasons["mutual_information"] == ""
    assert reasons["gwet_ac1"] == ""  # over the budget by the chain rule, within it by the quotient rule
    assert reasons["weighted_accuracy"] == ""  # its recall[k] written in the cells
    assert "indicator" in reasons["adjusted_g_mean"]  # a class formula's guard is not taken as a constant yet
    assert reasons["f1_of_sample_averages"].startswith("a term averages over instances")
    assert reasons["iba"] == ""  # by the chain rule through its base metric, bound at run time
    assert len(compiled_metrics["iba"].gradient) == 5  # TP, FP, FN, TN, then d iba / d base
    assert reasons["class_cen"] == reasons["class_mcen"] == ""  # one gradient per class
    assert reasons["mcc"] == reasons["f1"] == reasons["f1_of_macro_averages"] == ""
    assert compiled_metrics["accuracy"].proportion == (("diagonal",), ("all",))


def test_a_default_computed_from_the_counts_adds_its_partials(compiled_metrics):
    preference = compiled_metrics["preference_driven"]
    assert preference.no_delta == "" and len(preference.gradient) == 5  # TP, FP, FN, TN, then d f / d kappa
    (default,) = preference.default_gradients
    n = sum(symbols.COUNTS)
    expected = [(FP + TN) / n ** 2, -(TP + FN) / n ** 2, (FP + TN) / n ** 2, -(TP + FN) / n ** 2]
    assert default.name == "kappa"
    assert all(sympy.simplify(found - e) == 0 for found, e in zip(default.gradient, expected, strict=True))
    kappa = preference.param("kappa").symbol
    value = TP * (kappa / (TP + FP) + (1 - kappa) / (TP + FN))
    assert sympy.simplify(preference.gradient[4] - sympy.diff(value, kappa)) == 0


def test_a_default_that_is_not_differentiable_is_no_gradient_with_its_reason(compiled_metrics):
    preference = compiled_metrics["preference_driven"]
    kinked = dataclasses.replace(preference.param("kappa"), default=sympy.Abs(TP - FN) / sum(symbols.COUNTS))
    derived = delta.derive_metric(dataclasses.replace(preference, params=(kinked,), gradient=(), default_gradients=()))
    assert derived.gradient == () and derived.no_delta == "the default of kappa: not differentiable in the counts (abs of the data)"


def test_a_matrix_gradient_keeps_its_cell_indices_in_the_ir(compiled_metrics):
    """The emitters read the cell M[a, b] of dF/dM from the IR; class-level gradients have none."""
    kappa, recall = compiled_metrics["cohen_kappa"], compiled_metrics["recall"]
    row, column = kappa.gradient_cell
    assert (row, column) == delta.cell_indices(kappa.simplified) and symbols.is_index(row) and symbols.is_index(column)
    assert {row, column} <= kappa.gradient[0].free_symbols
    assert recall.gradient and recall.gradient_cell == ()
