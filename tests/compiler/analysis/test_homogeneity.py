"""Which metrics are of degree 0 in the counts (compiler/analysis/homogeneity.py): the ones
whose emitted functions scale tiny real-valued counts by a power of two first."""

from __future__ import annotations

import dataclasses

import pytest

from metricc.compiler.analysis.homogeneity import degree_zero
from metricc.compiler.language import symbols


@pytest.mark.parametrize("metric_id", ["mcc", "cohen_kappa", "f1", "racc", "class_cen", "weighted_kappa", "ndcg",
                                       "preference_driven", "pearson_c"])
def test_ratios_of_the_counts_are_of_degree_0(compiled_metrics, metric_id):
    assert degree_zero(compiled_metrics[metric_id])


@pytest.mark.parametrize("metric_id", ["chi_squared", "misclassification_count", "automatic_manual",
                                       "hamming_distance", "iba", "dcg"])
def test_counts_statistics_and_unprovable_metrics_are_not(compiled_metrics, metric_id):
    assert not degree_zero(compiled_metrics[metric_id])


def test_a_value_of_degree_0_only_at_a_parameter_s_default_is_not(compiled_metrics):
    """(TP + beta - 1) / n is a ratio at beta = 1, the default, and not for another beta."""
    f_beta = compiled_metrics["f_beta"]
    beta = f_beta.params[0].symbol
    shifted = (symbols.TP + beta - 1) / sum(symbols.COUNTS)
    assert degree_zero(dataclasses.replace(f_beta, simplified=symbols.TP / sum(symbols.COUNTS)))
    assert not degree_zero(dataclasses.replace(f_beta, simplified=shifted))
