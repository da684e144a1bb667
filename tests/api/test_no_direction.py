"""Statistics with no better direction (``higher_is_better: null``): every consumer of the
direction refuses them with an InputError saying so, or prints "no better direction"."""

from __future__ import annotations

import pytest

import metricc as mc
from metricc import cli
from metricc.core.errors import InputError

NO_DIRECTION = ["chi_squared", "reference_entropy", "prevalence", "overall_racc", "kl_divergence"]


@pytest.mark.parametrize("metric_id", NO_DIRECTION)
def test_registry_says_no_direction(metric_id):
    assert mc.metric(metric_id).higher_is_better is None


def test_normalized_refuses_a_statistic_with_no_direction():
    with pytest.raises(InputError, match="no better direction"):
        mc.normalized("prevalence", 0.3)


def test_sklearn_scorer_refuses_a_statistic_with_no_direction():
    pytest.importorskip("sklearn")
    from metricc.bridges import sklearn as bridge

    with pytest.raises(InputError, match="no better direction"):
        bridge.scorer("chi_squared")
    assert bridge.scorer("accuracy").greater_is_better is True


def test_rankings_plot_refuses_a_statistic_with_no_direction():
    pytest.importorskip("matplotlib")
    from metricc.bridges import plot

    with pytest.raises(InputError, match="no better direction"):
        plot.rankings([[[3, 1], [1, 3]], [[2, 2], [1, 3]]], ["accuracy", "chi_squared"])


@pytest.mark.parametrize(("metric_id", "direction"), [
    ("chi_squared", "no better direction"), ("accuracy", "higher is better"), ("error_rate", "lower is better")])
def test_explain_prints_the_direction(capsys, metric_id, direction):
    assert cli.main(["explain", metric_id]) == 0
    assert direction in capsys.readouterr().out
