"""PyCM's overall statistics against the catalog on random confusion matrices.

``OVERALL_STATISTICS`` maps every PyCM 4 overall statistic that the catalog computes to the
metric entry (``"id"`` or ``"id:average"``) and parameters that reproduce it; the coverage
test keeps that table honest against PyCM's own list. Where PyCM gives "None" metricc's value
must be undefined (NaN) too, except for the cases listed in ``WHERE_PYCM_SAYS_NONE`` that
docs/differences.md explains.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import metricc as mc

pycm = pytest.importorskip("pycm")

# PyCM name -> (metricc entry, parameters)
OVERALL_STATISTICS = {
    "Overall ACC": ("accuracy", {}), "Hamming Loss": ("error_rate", {}), "Zero-one Loss": ("misclassification_count", {}),
    "Kappa": ("cohen_kappa", {}), "Kappa Unbiased": ("scott_pi", {}), "Scott PI": ("scott_pi", {}),
    "Kappa No Prevalence": ("kappa_no_prevalence", {}), "Gwet AC1": ("gwet_ac1", {}), "Bennett S": ("bennett_s", {}),
    "Krippendorff Alpha": ("krippendorff_alpha", {}), "Bangdiwala B": ("bangdiwala_b", {}),
    "Overall RACC": ("overall_racc", {}), "Overall RACCU": ("overall_raccu", {}),
    "Chi-Squared": ("chi_squared", {}), "Phi-Squared": ("phi_squared", {}), "Cramer V": ("cramers_v", {}),
    "Pearson C": ("pearson_c", {}), "Chi-Squared DF": ("chi_squared_df", {}),
    "Reference Entropy": ("reference_entropy", {}), "Response Entropy": ("response_entropy", {}),
    "Cross Entropy": ("marginal_cross_entropy", {}), "Joint Entropy": ("joint_entropy", {}),
    "Conditional Entropy": ("conditional_entropy", {}), "Mutual Information": ("mutual_information", {}),
    "KL Divergence": ("kl_divergence", {}), "Overall CEN": ("cen", {}), "Overall MCEN": ("overall_mcen", {}),
    "Overall MCC": ("mcc", {}), "RR": ("global_performance_index", {}), "ARI": ("adjusted_rand_index", {}),
    "CBA": ("cba:macro", {}), "AUNU": ("crisp_auc:macro", {}), "AUNP": ("crisp_auc:weighted", {}), "RCI": ("rci", {}),
    "CSI": ("icsi:macro", {}), "ACC Macro": ("class_accuracy:macro", {}),
    "TPR Macro": ("recall:macro", {}), "TPR Micro": ("recall:micro", {}),
    "TNR Macro": ("specificity:macro", {}), "TNR Micro": ("specificity:micro", {}),
    "PPV Macro": ("precision:macro", {}), "PPV Micro": ("precision:micro", {}),
    "NPV Macro": ("npv:macro", {}), "NPV Micro": ("npv:micro", {}),
    "FPR Macro": ("fpr:macro", {}), "FPR Micro": ("fpr:micro", {}),
    "FNR Macro": ("fnr:macro", {}), "FNR Micro": ("fnr:micro", {}),
    "F1 Macro": ("f1:macro", {}), "F1 Micro": ("f1:micro", {}),
    "Lambda A": ("goodman_kruskal_lambda_a", {}), "Lambda B": ("goodman_kruskal_lambda_b", {}),
    "NIR": ("no_information_rate", {}),
    "P-Value": ("p_value", {}),
}

# Computed by PyCM from the matrix but not yet in the catalog.
NOT_YET_IN_CATALOG: set[str] = set()
# Standard errors and confidence intervals (issue 9, section 2) and the interpretation bands
# SOA1-SOA10 (issue 9, interpretation) are other parts of the issue, not statistics of their own.
ELSEWHERE = {"Kappa Standard Error", "Kappa 95% CI", "Standard Error", "95% CI"} | {
    f"SOA{i}({band})" for i, band in enumerate(
        ["Landis & Koch", "Fleiss", "Altman", "Cicchetti", "Cramer", "Matthews", "Lambda A", "Lambda B",
         "Krippendorff Alpha", "Pearson C"], start=1)}

# Defined differently by PyCM where a class is absent from the truth or the predictions
# (docs/differences.md; pinned in the tests at the end of this file).
DIFFER_ON_ABSENT_CLASSES = {"Cross Entropy", "KL Divergence", "Overall CEN", "Overall MCEN", "AUNP"}


def random_matrices(count: int, seed: int):
    """Square count matrices of 2 to 5 classes, with empty rows and columns now and then."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        c = int(rng.integers(2, 6))
        matrix = rng.integers(0, 12, size=(c, c))
        matrix[rng.random((c, c)) < 0.2] = 0
        if c > 2 and rng.random() < 0.15:  # a class absent from the matrix
            absent = int(rng.integers(c))
            matrix[absent, :] = matrix[:, absent] = 0
        if matrix.sum() == 0:
            matrix[0, 0] = 1
        yield matrix


def has_absent_class(matrix: np.ndarray) -> bool:
    return bool((matrix.sum(axis=0) == 0).any() or (matrix.sum(axis=1) == 0).any())


def pycm_matrix(matrix: np.ndarray):
    c = matrix.shape[0]
    return pycm.ConfusionMatrix(matrix={i: {j: int(matrix[i, j]) for j in range(c)} for i in range(c)})


def number(value) -> float:
    return math.nan if value in ("None", None) or isinstance(value, str) else float(value)


@pytest.mark.parametrize("name", sorted(OVERALL_STATISTICS))
def test_overall_statistic_equals_pycm(name):
    entry, params = OVERALL_STATISTICS[name]
    compared = undefined = 0
    for matrix in random_matrices(60, seed=sum(map(ord, name))):
        theirs = number(pycm_matrix(matrix).overall_stat[name])
        ours = float(mc.evaluate(entry, matrix=matrix, params=params)[entry])
        if name in DIFFER_ON_ABSENT_CLASSES and has_absent_class(matrix):
            continue
        assert math.isnan(ours) == math.isnan(theirs), f"{name} on {matrix.tolist()}: {ours} vs PyCM {theirs}"
        if math.isnan(ours):
            undefined += 1
            continue
        assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-12), f"{name} on {matrix.tolist()}"
        compared += 1
    assert compared >= 30


def test_every_pycm_overall_statistic_is_mapped_or_listed():
    names = set(pycm_matrix(np.array([[2, 1], [1, 2]])).overall_stat)
    assert names - set(OVERALL_STATISTICS) - {"Overall J"} - ELSEWHERE == NOT_YET_IN_CATALOG
    assert not (set(OVERALL_STATISTICS) | NOT_YET_IN_CATALOG) - names, "a mapped name PyCM no longer has"


ONE_TRUE_CLASS = [[3, 1, 2], [0, 0, 0], [0, 0, 0]]  # every sample of true class 0
ONE_PREDICTED_CLASS = [[3, 0, 0], [1, 0, 0], [2, 0, 0]]  # every sample predicted as class 0


@pytest.mark.parametrize(("name", "entry", "matrix"), [
    ("Lambda A", "goodman_kruskal_lambda_a", ONE_TRUE_CLASS),
    ("Lambda B", "goodman_kruskal_lambda_b", ONE_PREDICTED_CLASS),
])
def test_lambda_is_undefined_where_one_class_takes_every_sample(name, entry, matrix):
    """n - max_k t_k = 0 (lambda A) or n - max_k p_k = 0 (lambda B): nothing to reduce; PyCM's
    division fails and it says "None"."""
    assert pycm_matrix(np.array(matrix)).overall_stat[name] == "None"
    assert math.isnan(float(mc.evaluate(entry, matrix=np.array(matrix))[entry]))


def test_lambdas_guess_the_truth_from_the_prediction_and_back():
    """Which lambda is which: A maximises over the true class in each predicted column (guessing
    the truth), B over the predicted class in each true row. Lambda A of a matrix is lambda B of
    its transpose, as in PyCM."""
    matrix = np.array([[5, 0, 1], [4, 0, 1], [0, 3, 2]])
    a = float(mc.evaluate("goodman_kruskal_lambda_a", matrix=matrix)["goodman_kruskal_lambda_a"])
    b = float(mc.evaluate("goodman_kruskal_lambda_b", matrix=matrix)["goodman_kruskal_lambda_b"])
    assert a == pytest.approx((5 + 3 + 2 - 6) / (16 - 6), rel=1e-15)
    assert b == pytest.approx((5 + 4 + 3 - 9) / (16 - 9), rel=1e-15)
    transposed = float(mc.evaluate("goodman_kruskal_lambda_b", matrix=matrix.T)["goodman_kruskal_lambda_b"])
    assert transposed == a
    stats = pycm_matrix(matrix).overall_stat
    assert (stats["Lambda A"], stats["Lambda B"]) == pytest.approx((a, b), rel=1e-12)


def test_pycm_overall_jaccard_is_the_sum_and_the_macro_average_of_jaccard():
    """PyCM's Overall J is a pair, (Sum J_k, mean J_k): C * jaccard:macro and jaccard:macro."""
    for matrix in random_matrices(30, seed=11):
        theirs = pycm_matrix(matrix).overall_stat["Overall J"]
        ours = float(mc.evaluate("jaccard:macro", matrix=matrix)["jaccard:macro"])
        if theirs == "None":  # a class absent from the matrix: its Jaccard index is 0/0
            assert math.isnan(ours)
            continue
        total, mean = theirs
        assert ours == pytest.approx(mean, rel=1e-12, abs=1e-12)
        assert ours * matrix.shape[0] == pytest.approx(total, rel=1e-12, abs=1e-12)


NEVER_PREDICTED = [[3, 1, 0], [1, 4, 0], [2, 0, 0]]  # class 2 occurs, never predicted
NEVER_TRUE = [[3, 1, 2], [1, 4, 0], [0, 0, 0]]  # class 2 predicted, never true
ABSENT = [[3, 1, 0], [1, 4, 0], [0, 0, 0]]  # class 2 in neither


@pytest.mark.parametrize(("name", "entry", "matrix", "ours_defined", "pycm_defined"), [
    # Cross entropy of the predicted distribution is infinite when a class occurs but is never
    # predicted; PyCM leaves that class out of its sum.
    ("Cross Entropy", "marginal_cross_entropy", NEVER_PREDICTED, False, True),
    ("Cross Entropy", "marginal_cross_entropy", NEVER_TRUE, True, True),
    # KL divergence: an absent true class contributes 0 log 0 = 0 in metricc, None in PyCM.
    ("KL Divergence", "kl_divergence", NEVER_PREDICTED, False, False),
    ("KL Divergence", "kl_divergence", NEVER_TRUE, True, False),
    ("KL Divergence", "kl_divergence", ABSENT, True, False),
    # CEN and MCEN: a class absent from the matrix carries no misclassification (0 in metricc);
    # PyCM's per-class term divides by zero.
    ("Overall CEN", "cen", ABSENT, True, False),
    ("Overall MCEN", "overall_mcen", ABSENT, True, False),
    ("Overall MCEN", "overall_mcen", NEVER_TRUE, True, True),
    # AUNP weights each class's crisp AUC by its prevalence: an absent class weighs 0 and is
    # left out of the weighted mean in metricc; PyCM multiplies its None AUC by 0 and gets None.
    ("AUNP", "crisp_auc:weighted", ABSENT, True, False),
])
def test_where_pycm_differs_on_absent_classes(name, entry, matrix, ours_defined, pycm_defined):
    """The cases docs/differences.md lists, pinned: which side is defined, and equal where both are."""
    theirs = number(pycm_matrix(np.array(matrix)).overall_stat[name])
    ours = float(mc.evaluate(entry, matrix=np.array(matrix))[entry])
    assert (math.isfinite(ours), math.isfinite(theirs)) == (ours_defined, pycm_defined)
    if ours_defined and pycm_defined:
        assert ours == pytest.approx(theirs, rel=1e-12)


def test_p_value_against_pycm_up_to_a_thousand_samples():
    """PyCM's P-Value sums 1 - Sum_{j < T} C(n, j) NIR^j (1 - NIR)^(n - j) in floats: equal at
    1e-12 (absolute: the tail is a probability, its small values below any relative sense)
    on matrices of up to a thousand samples, where PyCM's float of C(n, j) does not overflow."""
    rng = np.random.default_rng(29)
    compared = 0
    for _ in range(40):
        c = int(rng.integers(2, 5))
        matrix = rng.integers(0, int(rng.choice([5, 40, 250])), size=(c, c)) + np.diag(rng.integers(0, 60, size=c))
        if matrix.sum() == 0 or matrix.sum() > 1000:
            continue
        theirs = number(pycm_matrix(matrix).overall_stat["P-Value"])
        ours = float(mc.evaluate("p_value", matrix=matrix)["p_value"])
        assert ours == pytest.approx(theirs, rel=0, abs=1e-12), f"P-Value on {matrix.tolist()}"
        compared += 1
    assert compared >= 30


@pytest.mark.parametrize(("matrix", "pycm_says"), [
    ([[600, 100], [60, 700]], "None"),  # n = 1460: float(C(1460, j)) overflows in PyCM's sum
    ([[5000, 1000], [500, 8000]], "None"),
])
def test_p_value_where_pycm_gives_up(matrix, pycm_says):
    """From about 1030 samples on PyCM says "None" (OverflowError converting C(n, j) to a
    float); metricc's value is the exact tail (docs/differences.md)."""
    from metricc.compiler.language.binomial_reference import tail

    matrix = np.array(matrix)
    assert pycm_matrix(matrix).overall_stat["P-Value"] == pycm_says
    n, trace, largest = int(matrix.sum()), int(np.trace(matrix)), int(matrix.sum(axis=1).max())
    ours = float(mc.evaluate("p_value", matrix=matrix)["p_value"])
    assert ours == pytest.approx(float(tail(trace, n, largest, n, 80)), rel=1e-12, abs=1e-300)


def test_p_value_pycm_can_be_negative():
    """1 - (a float sum that rounds above 1) is below 0 in PyCM; metricc stays in [0, 1]."""
    matrix = np.array([[45, 0], [0, 55]])  # every sample right: the tail is NIR**n, about 1e-26
    theirs = number(pycm_matrix(matrix).overall_stat["P-Value"])
    ours = float(mc.evaluate("p_value", matrix=matrix)["p_value"])
    assert theirs < 0 < ours == pytest.approx(0.55 ** 100, rel=1e-12)
    assert abs(theirs - ours) < 1e-12  # within the 1e-12 the differential test asks
