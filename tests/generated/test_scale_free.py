"""Weighted matrices with subnormal weights (issue 30): every metric whose value does not change
when the matrix is scaled gives the same value for the matrix times 2**-1060.

Which metrics are so is read off their values here (the matrix times 2**-20, still far from
underflow), not taken from the compiler's proof, so a metric the proof misses fails too.
"""

from __future__ import annotations

import numpy as np
import pytest

import metricc as mc
from metricc.core.errors import InputError
from metricc.generated import CATALOG

# Dyadic weights: multiplied by 2**-1060 they are subnormal numbers, still exact.
MATRICES = {
    "three classes": np.array([[3.5, 1.25, 0.5], [2.0, 4.75, 1.0], [0.25, 1.5, 6.0]]),
    "two classes": np.array([[7.5, 1.25], [2.0, 4.75]]),
}
# Metrics built from other metrics (terms, iba's metric parameter) included: the proof composes.
COUNTED = sorted({i.id for i in CATALOG.values() if i.level in ("class", "aggregate", "matrix")})


def _value(metric_id, matrix):
    with np.errstate(all="ignore"):
        return np.asarray(mc.evaluate(metric_id, matrix=matrix)[metric_id], dtype=float)


@pytest.mark.parametrize("name", sorted(MATRICES))
@pytest.mark.parametrize("metric_id", COUNTED)
def test_a_metric_of_degree_0_in_the_counts_survives_subnormal_weights(metric_id, name):
    matrix = MATRICES[name]
    try:
        value = _value(metric_id, matrix)
    except InputError:
        pytest.skip(f"{metric_id} does not take this matrix")
    if not np.allclose(_value(metric_id, matrix * 2.0 ** -20), value, rtol=1e-12, atol=0, equal_nan=True):
        pytest.skip(f"{metric_id} changes with the scale of the counts")
    assert np.allclose(_value(metric_id, matrix * 2.0 ** -1060), value, rtol=1e-12, atol=0, equal_nan=True)


def test_mcc_and_kappa_of_a_subnormal_matrix_are_exactly_one_sixth():
    """The campaign's reproducer: both were NaN (products of the counts underflowed to 0 / 0)."""
    matrix = np.array([[7.0, 5.0], [5.0, 7.0]]) * 2.0 ** -1070
    values = mc.evaluate(["mcc", "cohen_kappa", "f1"], matrix=matrix)
    assert values["mcc"] == pytest.approx(1 / 6, rel=1e-15)
    assert values["cohen_kappa"] == pytest.approx(1 / 6, rel=1e-15)
    assert CATALOG["mcc"].function(matrix) == pytest.approx(1 / 6, rel=1e-15)


def test_iba_of_a_subnormal_matrix_is_that_of_the_matrix_and_its_base_binding_is_checked_at_the_call():
    """iba was 0 for tiny weights (its products underflowed): its base is now a degree-0 atom of
    the proof. Bound to a metric of degree 1 (hamming_distance: FN + FP), the counts are left as
    given (the base would see scaled counts): at 2**-100 its value is the counts' times 2**-100."""
    matrix = MATRICES["two classes"]
    assert _value("iba", matrix * 2.0 ** -1060) == pytest.approx(_value("iba", matrix), rel=1e-12)
    counts = [np.array([7.5, 4.75]), np.array([2.0, 1.25]), np.array([1.25, 2.0]), np.array([4.75, 7.5])]
    tiny = [c * 2.0 ** -1060 for c in counts]
    f_beta = ("f_beta", {"beta": 2.0})
    assert CATALOG["iba"].function(*tiny, base=f_beta) == pytest.approx(CATALOG["iba"].function(*counts, base=f_beta))
    small = [c * 2.0 ** -100 for c in counts]  # scaled if the proof held for any base (total < 2**-64), not underflowing
    hamming = CATALOG["iba"].function(*small, base="hamming_distance", average="none")
    assert hamming * 2.0 ** 100 == pytest.approx(CATALOG["iba"].function(*counts, base="hamming_distance", average="none"),
                                                 rel=1e-12)


def test_a_metric_that_scales_with_the_counts_is_not_rescaled():
    """chi-squared is of degree 1: its value for tiny weights is tiny, not the unscaled one."""
    matrix = MATRICES["two classes"]
    assert _value("chi_squared", matrix * 2.0 ** -20) == pytest.approx(_value("chi_squared", matrix) * 2.0 ** -20)
    assert _value("misclassification_count", matrix * 2.0 ** -1060) == pytest.approx(3.25 * 2.0 ** -1060, rel=1e-12)


SCORES = np.array([[0.5, 0.2, 0.9], [0.1, 0.8, 0.3]])


def _ndcg(gains):
    return float(mc.evaluate("ndcg", y_true=np.asarray(gains, dtype=float), scores=SCORES, multilabel=True)["ndcg"])


@pytest.mark.parametrize("scale", [2.0 ** 1021, 2.0 ** -1060, 2.0 ** 70, 2.0 ** -70])
def test_ndcg_does_not_change_with_the_scale_of_a_sample_s_gains(scale):
    gains = np.array([[3.0, 1.0, 0.0], [1.0, 2.0, 3.0]])
    first_row_scaled = gains * np.array([[scale], [1.0]])
    assert _ndcg(first_row_scaled) == pytest.approx(_ndcg(gains), rel=1e-12)


def test_ndcg_of_gains_1e308_and_1e_308_is_that_of_the_gains_divided_by_their_row_maximum():
    """The campaign's reproducer: the sums of gains 1e308 overflowed and ndcg was 0."""
    huge_and_tiny = [[1e308, 1e308, 0.0], [1e-308, 1e-308, 0.0]]
    assert _ndcg(huge_and_tiny) == pytest.approx(_ndcg([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0]]), rel=1e-12)
    assert _ndcg([[1e308, 0.0, 1e308], [0.0, 1e-308, 0.0]]) == pytest.approx(1.0)


def test_dcg_scales_with_the_gains_and_is_not_rescaled():
    gains = np.array([[3.0, 1.0, 0.0], [1.0, 2.0, 3.0]])
    dcg = [float(mc.evaluate("dcg", y_true=g, scores=SCORES, multilabel=True)["dcg"]) for g in (gains, gains * 2.0 ** 70)]
    assert dcg[1] == pytest.approx(dcg[0] * 2.0 ** 70, rel=1e-12)
