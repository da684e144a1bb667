"""Delta-method standard errors of per-class matrix formulas (class_cen, class_mcen).

The compiler derives ``G[j, a, b] = df_j / dM[a, b]`` for each class ``j``; the runtime
averages it as it averages the values (none: one standard error per class; binary: the
pos_label's; macro: the mean; weighted by support, whose weights move with the rows too).
Checked against central differences of the averaged value over the occupied cells.
"""

import json
import warnings

import numpy as np
import pytest

import metricc as mc
from metricc import cli
from metricc.api.evaluate import catalog

FULL = np.array([[40.0, 10, 3], [5, 45, 7], [2, 6, 30]])
WITH_EMPTY = np.array([[40.0, 0, 3], [5, 45, 0], [0, 6, 30]])
PERFECT_CLASS = np.array([[10.0, 0, 0], [0, 20, 5], [0, 3, 30]])  # class 0: CEN 0, MCEN undefined (e[0] = 0)
ABSENT_CLASS = np.array([[10.0, 2, 0], [3, 20, 0], [0, 0, 0]])  # class 2: both undefined
MATRICES = {"all cells > 0": FULL, "empty cells": WITH_EMPTY, "perfect class": PERFECT_CLASS,
            "absent class": ABSENT_CLASS}
AVERAGES = [("none", {}), ("binary", {"pos_label": 0}), ("macro", {}), ("weighted", {}),
            ("weighted", {"weights": np.array([1.0, 2.0, 5.0])})]


def _value(metric_id, matrix, **options):
    return np.asarray(catalog()[metric_id].function(matrix, **options), dtype=float)


@pytest.mark.parametrize("metric_id", ["class_cen", "class_mcen"])
@pytest.mark.parametrize("matrix", MATRICES.values(), ids=MATRICES.keys())
@pytest.mark.parametrize("zero_division", [np.nan, 0.0, "skip"], ids=["nan", "0", "skip"])
def test_the_standard_error_is_the_finite_difference_delta_method(metric_id, matrix, zero_division, finite_difference_se):
    undefined = np.isnan(_value(metric_id, matrix, average="none"))
    for average, options in AVERAGES:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # log 0 and 0 / 0 of empty cells stay inside the runtime
            found = mc.evaluate(metric_id, matrix=matrix, average=average, zero_division=zero_division,
                                interval="wald", **options)[metric_id]
        with np.errstate(all="ignore"):
            expected = finite_difference_se(
                lambda m: _value(metric_id, m, average=average, zero_division=zero_division, **options), matrix)
        if average == "none":  # an undefined class has no standard error, as at the class level
            expected = np.where(undefined, np.nan, expected)
        elif np.isnan(_value(metric_id, matrix, average=average, zero_division=zero_division, **options)):
            expected = np.nan
        np.testing.assert_allclose(np.asarray(found.se, dtype=float), expected, rtol=1e-8, atol=1e-14,
                                   err_msg=f"{average} {options}")


def test_the_weighted_mean_moves_with_its_support():
    """Weighted by support t_j, the weights are counts too: against fixed weights equal to
    the same support, the standard error differs by the derivative of the weights."""
    support = FULL.sum(axis=1)
    moving = mc.evaluate("class_cen", matrix=FULL, average="weighted", interval="delta")["class_cen"]
    fixed = mc.evaluate("class_cen", matrix=FULL, average="weighted", weights=support, interval="delta")["class_cen"]
    assert moving.value == pytest.approx(fixed.value, rel=1e-14)
    assert abs(moving.se - fixed.se) > 1e-4 * fixed.se


@pytest.mark.parametrize("metric_id, average", [("class_cen", "macro"), ("class_mcen", "none")])
def test_delta_agrees_with_the_bootstrap_on_large_counts(metric_id, average):
    matrix = FULL * 70
    delta = mc.evaluate(metric_id, matrix=matrix, average=average, interval="delta")[metric_id]
    boot = mc.evaluate(metric_id, matrix=matrix, average=average, interval="bootstrap", n_resamples=1000,
                       random_state=3)[metric_id]
    np.testing.assert_allclose(np.asarray(boot.se, dtype=float), np.asarray(delta.se, dtype=float), rtol=0.08)


def test_the_cli_prints_one_interval_per_class(capsys):
    code = cli.main(["eval", "--matrix", json.dumps(WITH_EMPTY.tolist()), "--metric", "class_mcen",
                     "--interval", "delta", "--format", "json"])
    out, _ = capsys.readouterr()
    assert code == 0
    found = mc.evaluate("class_mcen", matrix=WITH_EMPTY, interval="delta")["class_mcen"]
    printed = json.loads(out)["class_mcen"]
    assert printed["se"] == {str(k): pytest.approx(float(v), rel=1e-15)
                             for k, v in enumerate(np.asarray(found.se, dtype=float))}
    assert all(0 < se < 1 for se in printed["se"].values())
