"""Delta-method standard errors of the x log x family, of zero-guarded formulas, and of gwet_ac1.

The multinomial variance ``n (sum p G**2 - (sum p G)**2)`` weighs only cells with ``p > 0``:
where a cell has a positive count, every log argument of the gradient is positive, so the
standard error is defined wherever the value is, empty cells included. Checked against an
independent computation (central differences of the value over the occupied cells, then the
same variance formula) and against the plug-in formulas of the literature.
"""

import json
import warnings

import numpy as np
import pytest

import metricc as mc
from metricc import cli
from metricc.api.evaluate import catalog

NEWLY_DERIVED = ["cen", "conditional_entropy", "joint_entropy", "kl_divergence", "marginal_cross_entropy",
                 "mutual_information", "overall_mcen", "rci", "reference_entropy", "response_entropy",
                 "gwet_ac1",  # by the quotient rule (analysis/delta.py: _quotient_rule)
                 "weighted_accuracy"]  # its per-class terms written in the cells (_inlined)
FULL = np.array([[40.0, 10, 3], [5, 45, 7], [2, 6, 30]])
WITH_EMPTY = np.array([[40.0, 0, 3], [5, 45, 0], [0, 6, 30]])  # every class occurs and is predicted
PERFECT_CLASS = np.array([[10.0, 0, 0], [0, 20, 5], [0, 3, 30]])  # class 0: no confusion, MCEN's e[0] = 0


def _value(metric_id, matrix):
    return float(catalog()[metric_id].function(matrix))


def _delta(metric_id, matrix):
    return mc.evaluate(metric_id, matrix=matrix, interval="delta")[metric_id]


@pytest.mark.parametrize("metric_id", NEWLY_DERIVED)
@pytest.mark.parametrize("matrix", [FULL, WITH_EMPTY, PERFECT_CLASS], ids=["all cells > 0", "empty cells", "perfect class"])
def test_the_standard_error_is_the_finite_difference_delta_method(metric_id, matrix, finite_difference_se):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # what an empty cell gives numpy (log 0) stays inside the runtime
        found = _delta(metric_id, matrix)
    assert np.isfinite(found.se) and found.se > 0
    assert found.se == pytest.approx(float(finite_difference_se(lambda m: _value(metric_id, m), matrix)), rel=1e-8)


@pytest.mark.parametrize("matrix", [FULL, WITH_EMPTY], ids=["all cells > 0", "empty cells"])
def test_the_entropy_has_basharin_s_variance(matrix):
    """Basharin 1959, On a statistical estimate for the entropy of a sequence of independent
    random variables: Var H ~ (sum p log^2 p - H^2) / n, here in bits (the catalog's base)."""
    n = matrix.sum()
    share = matrix[matrix > 0] / n
    entropy = -np.sum(share * np.log2(share))
    expected = np.sqrt((np.sum(share * np.log2(share) ** 2) - entropy ** 2) / n)
    assert _delta("joint_entropy", matrix).se == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("matrix", [FULL, WITH_EMPTY], ids=["all cells > 0", "empty cells"])
def test_mutual_information_has_the_plug_in_variance(matrix):
    """The plug-in estimator's asymptotic variance (Basharin 1959 for the entropy; e.g. Hutter
    2002, Distribution of mutual information, Eq. for Var[I] to first order; Paninski 2003,
    Estimation of entropy and mutual information, Sec. 5): Var I ~ (sum p_ij log^2(p_ij /
    (p_i. p_.j)) - I^2) / n, in bits."""
    n = matrix.sum()
    joint = matrix / n
    rows, columns = np.nonzero(matrix)
    ratio = np.log2(joint[rows, columns] / (joint.sum(axis=1)[rows] * joint.sum(axis=0)[columns]))
    information = np.sum(joint[rows, columns] * ratio)
    expected = np.sqrt((np.sum(joint[rows, columns] * ratio ** 2) - information ** 2) / n)
    found = _delta("mutual_information", matrix)
    assert found.value == pytest.approx(information, rel=1e-12)
    assert found.se == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize("metric_id", ["mutual_information", "cen", "kl_divergence", "rci", "gwet_ac1"])
def test_delta_agrees_with_the_bootstrap_on_large_counts(metric_id):
    matrix = FULL * 70
    delta = _delta(metric_id, matrix)
    boot = mc.evaluate(metric_id, matrix=matrix, interval="bootstrap", n_resamples=1000, random_state=3)[metric_id]
    assert boot.se == pytest.approx(delta.se, rel=0.08)


def test_an_undefined_value_has_an_undefined_standard_error():
    one_true_class = np.array([[30.0, 10.0], [0.0, 0.0]])  # H(truth) = 0: rci is 0 / 0
    never_predicted = np.array([[30.0, 0.0], [10.0, 0.0]])  # class 1 occurs, never predicted: KL is infinite
    with np.errstate(all="ignore"):
        assert np.isnan(_delta("rci", one_true_class).se)
        assert np.isnan(_delta("kl_divergence", never_predicted).se)
        assert np.isnan(_delta("joint_entropy", np.zeros((2, 2))).se)


def test_weighted_accuracy_takes_its_class_weights_and_zero_division():
    weights = np.array([1.0, 2.0, 5.0])
    found = mc.evaluate("weighted_accuracy", matrix=FULL, params={"class_weights": weights}, interval="delta")
    found = found["weighted_accuracy"]
    recall = np.diag(FULL) / FULL.sum(axis=1)
    # the recall of class k moves only with row k: Var = sum_k (w_k / W)**2 r_k (1 - r_k) / t_k
    expected = np.sqrt(np.sum((weights / weights.sum()) ** 2 * recall * (1 - recall) / FULL.sum(axis=1)))
    assert found.se == pytest.approx(expected, rel=1e-12)
    absent = np.array([[40.0, 10, 3], [5, 45, 7], [0, 0, 0]])  # class 2 never occurs: its recall is undefined
    assert np.isnan(_delta("weighted_accuracy", absent).se)
    replaced = mc.evaluate("weighted_accuracy", matrix=absent, zero_division=0.0, interval="delta")["weighted_accuracy"]
    assert np.isfinite(replaced.se) and replaced.se > 0


def test_a_class_absent_from_truth_and_predictions_leaves_the_kl_standard_error_defined(finite_difference_se):
    """The zero guard keeps 0 / 0 out of the value; its derivative is 0 wherever the multinomial moves."""
    matrix = np.array([[40.0, 10, 0], [5, 45, 0], [0, 0, 0]])
    found = _delta("kl_divergence", matrix)
    assert found.se == pytest.approx(float(finite_difference_se(lambda m: _value("kl_divergence", m), matrix)), rel=1e-8)


def test_the_cli_prints_the_delta_interval(capsys):
    code = cli.main(["eval", "--matrix", json.dumps(WITH_EMPTY.tolist()), "--metric", "mutual_information",
                     "--interval", "delta", "--format", "json"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert json.loads(out)["mutual_information"] == _delta("mutual_information", WITH_EMPTY)._asdict()
