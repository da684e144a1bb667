"""Which metrics are of degree 0 in the counts (compiler/analysis/homogeneity.py): the ones
whose emitted functions scale tiny real-valued counts by a power of two first."""

from __future__ import annotations

import dataclasses

import pytest

from metricc.compiler.analysis.homogeneity import degree_zero
from metricc.compiler.language import symbols


@pytest.mark.parametrize("metric_id", ["mcc", "cohen_kappa", "f1", "racc", "class_cen", "weighted_kappa", "ndcg",
                                       "preference_driven", "pearson_c", "iba", "balanced_accuracy",
                                       "f_beta_of_macro_averages", "relevance_av_f_beta", "weighted_accuracy"])
def test_ratios_of_the_counts_are_of_degree_0(compiled_metrics, metric_id):
    assert degree_zero(compiled_metrics[metric_id])


@pytest.mark.parametrize("metric_id", ["chi_squared", "misclassification_count", "automatic_manual",
                                       "hamming_distance", "dcg"])
def test_counts_statistics_and_unprovable_metrics_are_not(compiled_metrics, metric_id):
    assert not degree_zero(compiled_metrics[metric_id])


def test_a_value_of_degree_0_only_at_a_parameter_s_default_is_not(compiled_metrics):
    """(TP + beta - 1) / n is a ratio at beta = 1, the default, and not for another beta."""
    f_beta = compiled_metrics["f_beta"]
    beta = f_beta.params[0].symbol
    shifted = (symbols.TP + beta - 1) / sum(symbols.COUNTS)
    assert degree_zero(dataclasses.replace(f_beta, simplified=symbols.TP / sum(symbols.COUNTS)))
    assert not degree_zero(dataclasses.replace(f_beta, simplified=shifted))


def test_a_term_of_degree_0_is_a_constant_of_the_scale_and_one_bound_to_a_count_is_not(compiled_metrics):
    """The proof composes: macro(f_beta(beta=beta)) is of degree 0; bound to beta = TP, f_beta's
    formula is not, nor is the aggregate built from it."""
    metric = compiled_metrics["relevance_av_f_beta"]
    term = metric.terms[0]
    beta = metric.param("beta").symbol
    assert degree_zero(metric)
    counted = dataclasses.replace(term, simplified=term.simplified.xreplace({beta: symbols.TP}))
    assert not degree_zero(dataclasses.replace(metric, terms=(counted,)))


def test_a_metric_parameter_is_an_atom_at_class_level_only(compiled_metrics):
    """iba's base is checked at the call (metric_param's scale_free); no other level checks it."""
    iba = compiled_metrics["iba"]
    assert degree_zero(iba)
    assert not degree_zero(dataclasses.replace(iba, simplified=iba.simplified * symbols.TP))
    assert not degree_zero(dataclasses.replace(iba, level=type(iba.level)("aggregate")))
