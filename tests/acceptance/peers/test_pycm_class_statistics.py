"""PyCM's class statistics against the catalog, per class, on random confusion matrices.

``CLASS_STATISTICS`` maps every PyCM 4 class statistic to the catalog metric that computes it
(raw counts excluded); the coverage test keeps that table honest against PyCM's own list.
Where PyCM gives "None" (0/0 in its code), metricc's value is undefined too (NaN).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import metricc as mc

pycm = pytest.importorskip("pycm")

# PyCM name -> (metricc id, parameters)
CLASS_STATISTICS = {
    "TPR": ("recall", {}), "TNR": ("specificity", {}), "PPV": ("precision", {}), "NPV": ("npv", {}),
    "FNR": ("fnr", {}), "FPR": ("fpr", {}), "FDR": ("fdr", {}), "FOR": ("false_omission_rate", {}),
    "ACC": ("class_accuracy", {}), "ERR": ("class_error_rate", {}),
    "F1": ("f1", {}), "F0.5": ("f_beta", {"beta": 0.5}), "F2": ("f_beta", {"beta": 2}),
    "MCC": ("mcc_per_class", {}), "BM": ("youden_j", {}), "Y": ("youden_j", {}), "GI": ("youden_j", {}),
    "MK": ("markedness", {}), "PLR": ("positive_likelihood_ratio", {}), "NLR": ("negative_likelihood_ratio", {}),
    "DOR": ("diagnostic_odds_ratio", {}), "G": ("g_measure", {}), "OOC": ("g_measure", {}),
    "J": ("jaccard", {}), "IS": ("information_score", {}), "LS": ("lift_score", {}),
    "AUC": ("crisp_auc", {}), "AUPR": ("crisp_aupr", {}), "dInd": ("distance_index", {}),
    "Q": ("yule_q", {}), "OC": ("overlap_coefficient", {}),
    "BB": ("braun_blanquet", {}), "ICSI": ("icsi", {}), "BCD": ("bray_curtis_dissimilarity", {}),
    "HD": ("hamming_distance", {}), "GM": ("g_mean", {}), "OP": ("optimized_precision", {}),
    "DP": ("discriminant_power", {}), "AGM": ("adjusted_g_mean", {}), "AGF": ("adjusted_f_measure", {}),
    "sInd": ("similarity_index", {}), "AM": ("automatic_manual", {}), "PRE": ("prevalence", {}), "PR": ("prevalence", {}),
    "TOPR": ("detection_prevalence", {}), "RACC": ("racc", {}), "RACCU": ("raccu", {}),
    "CEN": ("class_cen", {}), "MCEN": ("class_mcen", {}),  # per-class matrix formulas (per_class: j)
}
RAW_COUNTS = {"TP", "FP", "FN", "TN", "P", "N", "POP", "TOP", "TON"}
# Reproduced by a combination of catalog metrics, not one entry (test_pycm_iba_is_the_product_compiler_peers_yaml_names).
COMBINATIONS = {"IBA"}
# Interpretation bands of AUC, DP, MCC, NLR, PLR and Q: issue 9's interpretation part.
INTERPRETATIONS = {"AUCI", "DPI", "MCCI", "NLRI", "PLRI", "QI"}
# Not yet in the catalog: none (CEN and MCEN, which need the class's whole row and column, are
# matrix formulas with one value per class).
NOT_YET_IN_CATALOG: set[str] = set()


def _random_matrices(count: int, seed: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        c = int(rng.integers(2, 6))
        matrix = rng.integers(0, 12, size=(c, c))
        matrix[rng.random((c, c)) < 0.15] = 0  # empty rows and columns now and then
        if matrix.sum() == 0:
            matrix[0, 0] = 1
        yield matrix


def _pycm(matrix: np.ndarray):
    c = matrix.shape[0]
    return pycm.ConfusionMatrix(matrix={i: {j: int(matrix[i, j]) for j in range(c)} for i in range(c)})


def _number(value) -> float:
    return math.nan if value in ("None", None) or isinstance(value, str) else float(value)


@pytest.mark.parametrize("name", sorted(CLASS_STATISTICS))
def test_class_statistic_equals_pycm(name):
    metric, params = CLASS_STATISTICS[name]
    compared = 0
    for matrix in _random_matrices(60, seed=sum(map(ord, name))):
        theirs = _pycm(matrix).class_stat[name]
        ours = np.asarray(mc.evaluate(metric, matrix=matrix, average="none", params=params)[metric], dtype=float)
        expected = np.array([_number(theirs[k]) for k in range(matrix.shape[0])])
        both = ~np.isnan(expected) & ~np.isnan(ours)
        np.testing.assert_allclose(ours[both], expected[both], rtol=1e-12, atol=1e-12, err_msg=f"{name} on {matrix.tolist()}")
        compared += int(both.sum())
    assert compared > 100


def test_every_pycm_class_statistic_is_mapped_or_listed_as_missing():
    names = set(_pycm(np.array([[2, 1], [1, 2]])).class_stat)
    assert names - set(CLASS_STATISTICS) - RAW_COUNTS - COMBINATIONS - INTERPRETATIONS == NOT_YET_IN_CATALOG
    assert not set(CLASS_STATISTICS) - names, "a mapped name PyCM no longer has"


def test_pycm_iba_is_the_product_compiler_peers_yaml_names():
    """PyCM's IBA (alpha = 1) is Garcia et al.'s: (1 + alpha (TPR - TNR)) TPR TNR, the product of
    the entries peers.yaml lists, each with its parameters (issue 27: the table said
    ``iba(base=g_mean) * g_mean`` without alpha = 1, and a user following it was 0.04-0.2 off)."""
    from metricc.audit import peers

    entry = next(n for n in peers.load_peers()["PyCM"].names if n.name == "IBA")
    for matrix in _random_matrices(40, seed=7):
        theirs = np.array([_number(v) for v in _pycm(matrix).class_stat["IBA"].values()])
        ours = np.ones(len(matrix))
        for spelled in entry.metrics:
            metric, params, _ = peers.parse_entry(spelled)
            ours = ours * np.asarray(mc.evaluate(metric, matrix=matrix, average="none", params=params)[metric], dtype=float)
        both = ~np.isnan(theirs) & ~np.isnan(ours)
        np.testing.assert_allclose(ours[both], theirs[both], rtol=1e-12, atol=1e-12)


def test_similarity_index_keeps_its_digits_near_the_worst_corner():
    """1 - dInd / sqrt(2) subtracts two nearly equal numbers where both rates near 1 (PyCM's
    plain form keeps about 4 of 16 digits at 1e12 errors per hit); metricc's form over the
    counts, (2 - dInd^2) / (2 + sqrt(2) dInd), keeps them: checked against 50-digit arithmetic."""
    import sympy

    for hits, errors in ((1, 10**12), (3, 10**13), (10**6, 10**6 + 1), (0, 7)):
        matrix = np.array([[hits, errors], [errors + 5, hits + 2]])
        tp, fn, fp, tn = (sympy.Integer(int(v)) for v in (matrix[1, 1], matrix[1, 0], matrix[0, 1], matrix[0, 0]))
        distance = sympy.sqrt((fp / (fp + tn)) ** 2 + (fn / (fn + tp)) ** 2)
        exact = float(sympy.N(1 - distance / sympy.sqrt(2), 50))
        ours = float(mc.evaluate("similarity_index", matrix=matrix, average="binary")["similarity_index"])
        assert ours == pytest.approx(exact, rel=1e-12, abs=0)


@pytest.mark.parametrize("name", ["CEN", "MCEN"])
def test_class_cen_and_mcen_are_undefined_exactly_where_pycm_gives_none(name):
    """PyCM's class CEN and MCEN divide by t_j + p_j (MCEN: t_j + p_j - M[j, j]), which is 0
    only for a class absent from the matrix: "None" there, NaN in metricc, and nowhere else."""
    metric = CLASS_STATISTICS[name][0]
    absent = 0
    for matrix in _random_matrices(60, seed=11):
        matrix[:, -1] = matrix[-1, :] = 0  # the last class absent
        if matrix.sum() == 0:
            matrix[0, 0] = 1
        theirs = np.array([_number(v) for v in _pycm(matrix).class_stat[name].values()])
        ours = np.asarray(mc.evaluate(metric, matrix=matrix)[metric], dtype=float)
        np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs), err_msg=f"{name} on {matrix.tolist()}")
        absent += int(np.isnan(ours).sum())
    assert absent >= 60


def test_overall_cen_is_the_weighted_sum_of_class_cen():
    """Wang et al. Eq. 10: CEN = sum_j P_j CEN_j with P_j = (t_j + p_j) / (2n) (Eq. 11); an
    absent class has P_j = 0 and an undefined CEN_j, and takes no part."""
    for matrix in _random_matrices(60, seed=10):
        share = (matrix.sum(axis=0) + matrix.sum(axis=1)) / (2 * matrix.sum())
        per_class = np.asarray(mc.evaluate("class_cen", matrix=matrix, zero_division=0.0)["class_cen"], dtype=float)
        overall = mc.evaluate("cen", matrix=matrix)["cen"]
        assert float(np.sum(share * per_class)) == pytest.approx(float(overall), rel=1e-12, abs=1e-15)
        theirs = _pycm(matrix).overall_stat["Overall CEN"]
        if theirs != "None":
            assert float(overall) == pytest.approx(float(theirs), rel=1e-12, abs=1e-15)
