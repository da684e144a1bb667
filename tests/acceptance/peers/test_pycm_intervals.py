"""Against PyCM 4.x: its kappa standard error and interval, and ``CI()`` for class statistics.

PyCM reads its critical value from a table (1.96 for alpha = 0.05, not 1.959964...): the
tests ask metricc for the confidence level whose quantile is exactly 1.96. Where PyCM's
formula is not the multinomial delta method, the test pins how the two relate.
"""

import math

import numpy as np
import pytest

import metricc as mc

pycm = pytest.importorskip("pycm")

LEVEL_OF_1_96 = math.erf(1.96 / math.sqrt(2))  # 2 Phi(1.96) - 1
MATRICES = [
    [[40, 10, 3], [5, 45, 7], [2, 6, 30]],
    [[12, 3], [7, 25]],
    [[50, 2, 0, 1], [4, 33, 5, 0], [1, 6, 41, 2], [0, 1, 3, 20]],
]
# PyCM statistic -> (metricc metric, its per-class proportion)
CLASS_STATISTICS = {"TPR": "recall", "TNR": "specificity", "PPV": "precision", "NPV": "npv", "FNR": "fnr",
                    "FPR": "fpr", "ACC": "class_accuracy"}
METHODS = {"normal-approx": "wald", "wilson": "wilson", "agresti-coull": "agresti_coull"}


def _pycm(matrix):
    return pycm.ConfusionMatrix(matrix={i: {j: int(v) for j, v in enumerate(row)} for i, row in enumerate(matrix)})


@pytest.mark.parametrize("matrix", MATRICES)
@pytest.mark.parametrize("statistic, metric_id", sorted(CLASS_STATISTICS.items()))
@pytest.mark.parametrize("binom_method, method", sorted(METHODS.items()))
def test_class_statistic_intervals_match_pycm(matrix, statistic, metric_id, binom_method, method):
    theirs = _pycm(matrix).CI(statistic, binom_method=binom_method)
    ours = mc.evaluate(metric_id, matrix=matrix, average="none", interval=method, confidence=LEVEL_OF_1_96)[metric_id]
    for k in range(len(matrix)):
        se, (low, high) = theirs[k]
        assert ours.se[k] == pytest.approx(se, rel=1e-12)
        assert (ours.lower[k], ours.upper[k]) == pytest.approx((low, high), rel=1e-12)


def test_agresti_coull_is_clipped_to_the_unit_interval_where_pycm_is_not():
    """statsmodels clips too; PyCM returns bounds above 1 for a proportion of 1."""
    matrix = [[20, 0], [3, 17]]
    theirs = _pycm(matrix).CI("PPV", binom_method="agresti-coull")[1][1]  # class 1: 17 of 17
    ours = mc.evaluate("precision", matrix=matrix, average="none", interval="agresti_coull", confidence=LEVEL_OF_1_96)
    assert theirs[1] > 1 and ours["precision"].upper[1] == 1.0
    assert ours["precision"].lower[1] == pytest.approx(theirs[0], rel=1e-12)


@pytest.mark.parametrize("matrix", MATRICES)
def test_overall_accuracy_matches_pycm(matrix):
    for binom_method, method in METHODS.items():
        se, (low, high) = _pycm(matrix).CI("Overall ACC", binom_method=binom_method)
        ours = mc.evaluate("accuracy", matrix=matrix, interval=method, confidence=LEVEL_OF_1_96)["accuracy"]
        assert (ours.se, ours.lower, ours.upper) == pytest.approx((se, low, high), rel=1e-12)


@pytest.mark.parametrize("matrix", MATRICES)
def test_likelihood_ratio_standard_errors_are_pycm_s_on_the_log_scale(matrix):
    """PyCM's PLR/NLR SE is that of log(LR), sqrt(1/TP - 1/P + 1/FP - 1/N); the delta method in
    the counts gives the SE of LR itself: LR times PyCM's (d log LR = d LR / LR)."""
    cm = _pycm(matrix)
    for statistic, metric_id in (("PLR", "positive_likelihood_ratio"), ("NLR", "negative_likelihood_ratio")):
        theirs = cm.CI(statistic)
        ours = mc.evaluate(metric_id, matrix=matrix, average="none", interval="wald")[metric_id]
        for k in range(len(matrix)):
            assert ours.se[k] == pytest.approx(ours.value[k] * theirs[k][0], rel=1e-12)


def _kappa_variance(matrix):
    """The large-sample variance of Fleiss, Cohen and Everitt (1969), Eq. 13: the delta method
    under the multinomial, written out by hand."""
    p = np.asarray(matrix, dtype=float) / np.sum(matrix)
    rows, columns = p.sum(axis=1), p.sum(axis=0)
    t1, t2 = np.trace(p), rows @ columns
    t3 = np.sum(np.diagonal(p) * (rows + columns))
    t4 = np.sum(p * (columns[:, None] + rows[None, :]) ** 2)
    return (t1 * (1 - t1) / (1 - t2) ** 2 + 2 * (1 - t1) * (2 * t1 * t2 - t3) / (1 - t2) ** 3
            + (1 - t1) ** 2 * (t4 - 4 * t2 ** 2) / (1 - t2) ** 4) / np.sum(matrix)


@pytest.mark.parametrize("matrix", MATRICES)
def test_kappa_standard_error_is_the_full_delta_method_and_pycm_s_its_first_term(matrix):
    cm = _pycm(matrix)
    ours = mc.evaluate("cohen_kappa", matrix=matrix, interval="wald", confidence=LEVEL_OF_1_96)["cohen_kappa"]
    assert ours.value == pytest.approx(cm.Kappa, rel=1e-12)
    assert ours.se ** 2 == pytest.approx(_kappa_variance(matrix), rel=1e-12)
    # PyCM holds chance agreement fixed: sqrt(PA (1 - PA) / (n (1 - PE)**2)), the first term only
    pa, pe, n = cm.overall_stat["Overall ACC"], cm.overall_stat["Overall RACC"], np.sum(matrix)
    assert cm.Kappa_SE == pytest.approx(math.sqrt(pa * (1 - pa) / (n * (1 - pe) ** 2)), rel=1e-12)
    assert cm.Kappa_CI == pytest.approx((cm.Kappa - 1.96 * cm.Kappa_SE, cm.Kappa + 1.96 * cm.Kappa_SE), rel=1e-12)
    assert ours.se != pytest.approx(cm.Kappa_SE, rel=1e-3)
