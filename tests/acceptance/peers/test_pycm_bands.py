"""Interpretation bands against PyCM 4: SOA1-SOA4 and SOA6 (overall) and AUCI, DPI, MCCI, NLRI,
PLRI, QI (per class), on random matrices and on every band boundary.

PyCM reads every scale closed below (``a <= x < b``); so does metricc, except Cicchetti's,
where PyCM draws the lines at 0.59 and 0.74 and the paper at 0.60 and 0.75
(docs/differences.md): the boundary test pins the values where the two differ.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import metricc as mc

pycm = pytest.importorskip("pycm")
from pycm import interpret as pycm_interpret  # noqa: E402

# PyCM overall interpretation -> (its statistic, metricc metric, scale, PyCM's function)
OVERALL = {
    "SOA1(Landis & Koch)": ("Kappa", "cohen_kappa", "landis_koch", pycm_interpret.kappa_analysis_koch),
    "SOA2(Fleiss)": ("Kappa", "cohen_kappa", "fleiss", pycm_interpret.kappa_analysis_fleiss),
    "SOA3(Altman)": ("Kappa", "cohen_kappa", "altman", pycm_interpret.kappa_analysis_altman),
    "SOA4(Cicchetti)": ("Kappa", "cohen_kappa", "cicchetti", pycm_interpret.kappa_analysis_cicchetti),
    "SOA6(Matthews)": ("Overall MCC", "mcc", "matthews", pycm_interpret.MCC_analysis),
    "SOA7(Lambda A)": ("Lambda A", "goodman_kruskal_lambda_a", "pycm_lambda", pycm_interpret.lambda_analysis),
    "SOA8(Lambda B)": ("Lambda B", "goodman_kruskal_lambda_b", "pycm_lambda", pycm_interpret.lambda_analysis),
}
# PyCM class interpretation -> (its statistic, metricc metric, scale, PyCM's function)
CLASS = {
    "AUCI": ("AUC", "crisp_auc", "auci", pycm_interpret.AUC_analysis),
    "DPI": ("DP", "discriminant_power", "dpi", pycm_interpret.DP_analysis),
    "MCCI": ("MCC", "mcc_per_class", "matthews", pycm_interpret.MCC_analysis),
    "NLRI": ("NLR", "negative_likelihood_ratio", "nlri", pycm_interpret.NLR_analysis),
    "PLRI": ("PLR", "positive_likelihood_ratio", "plri", pycm_interpret.PLR_analysis),
    "QI": ("Q", "yule_q", "qi", pycm_interpret.Q_analysis),
}
# Where metricc follows the cited paper, not PyCM: (scale, values, metricc's label, PyCM's label).
FOLLOWS_THE_PAPER = {
    ("cicchetti", 0.59): ("Fair", "Good"), ("cicchetti", 0.595): ("Fair", "Good"),
    ("cicchetti", 0.74): ("Good", "Excellent"), ("cicchetti", 0.745): ("Good", "Excellent"),
}


def _matrices(count: int, seed: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        c = int(rng.integers(2, 5))
        matrix = rng.integers(0, 9, size=(c, c)) + np.diag(rng.integers(0, 15, size=c))
        matrix[rng.random((c, c)) < 0.1] = 0
        if matrix.sum() == 0:
            matrix[0, 0] = 1
        yield matrix


def _pycm(matrix):
    c = matrix.shape[0]
    return pycm.ConfusionMatrix(matrix={i: {j: int(matrix[i, j]) for j in range(c)} for i in range(c)})


def _theirs(label: str) -> str | None:
    return None if label == "None" else label


def _number(value) -> float:
    return math.nan if isinstance(value, str) or value is None else float(value)


@pytest.mark.parametrize("name", sorted(OVERALL))
def test_overall_interpretation_equals_pycm(name):
    statistic, metric, scale, _ = OVERALL[name]
    labels = set()
    for matrix in _matrices(150, seed=len(name)):
        cm = _pycm(matrix)
        theirs = _number(cm.overall_stat[statistic])
        ours = float(mc.evaluate(metric, matrix=matrix)[metric])
        assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-12, nan_ok=True)
        expected = _theirs(cm.overall_stat[name])
        if scale == "cicchetti" and (0.59 <= theirs < 0.6 or 0.74 <= theirs < 0.75):
            continue  # pinned in test_boundaries_follow_pycm_or_the_cited_paper
        assert mc.interpret(metric, theirs, scale=scale) == expected, (name, matrix.tolist(), theirs)
        labels.add(expected)
    assert len(labels) >= 3  # the random matrices reach several bands


@pytest.mark.parametrize("name", sorted(CLASS))
def test_class_interpretation_equals_pycm(name):
    statistic, metric, scale, _ = CLASS[name]
    labels = set()
    for matrix in _matrices(80, seed=len(name) + 100):
        cm = _pycm(matrix)
        theirs = [_number(cm.class_stat[statistic][k]) for k in range(matrix.shape[0])]
        ours = np.asarray(mc.evaluate(metric, matrix=matrix, average="none")[metric], dtype=float)
        both = ~np.isnan(ours) & ~np.isnan(theirs)  # Q where FP FN = 0: PyCM's OR is "None", ours 1 or -1
        np.testing.assert_allclose(ours[both], np.asarray(theirs)[both], rtol=1e-12, atol=1e-12)
        expected = [_theirs(cm.class_stat[name][k]) for k in range(matrix.shape[0])]
        assert mc.interpret(metric, theirs, scale=scale) == expected, (name, matrix.tolist())
        labels.update(expected)
    assert len(labels - {None}) >= 2


def _boundary_values(scale) -> list[float]:
    values = [0.595, 0.745]
    for band in scale.bands:
        for end in (band.low, band.high):
            if math.isfinite(end):
                values += [end, math.nextafter(end, -math.inf), math.nextafter(end, math.inf)]
    return values


@pytest.mark.parametrize("scale_name, metric, function", sorted(
    {(s, m, f) for _, m, s, f in [*OVERALL.values(), *CLASS.values()]}, key=lambda row: (row[0], row[1])))
def test_boundaries_follow_pycm_or_the_cited_paper(scale_name, metric, function):
    info = mc.metric(metric)
    scale = next(s for s in info.interpretation if s.id == scale_name)
    low, high = info.range
    for value in _boundary_values(scale):
        if not low <= value <= high:
            continue
        ours, theirs = mc.interpret(metric, value, scale=scale_name), _theirs(function(value))
        pinned = FOLLOWS_THE_PAPER.get((scale_name, value))
        if pinned is None and scale_name == "cicchetti" and (0.59 <= value < 0.6 or 0.74 <= value < 0.75):
            pinned = FOLLOWS_THE_PAPER[(scale_name, 0.595 if value < 0.7 else 0.745)]
        assert (ours, theirs) == (pinned if pinned else (theirs, theirs)), (scale_name, value)


def test_coverage_of_pycm_interpretations():
    """Every PyCM interpretation (its own benchmark lists) is either here or waits for its metric
    (SOA5, SOA7-SOA10: Cramer's V, lambda A/B, Krippendorff's alpha, Pearson's C come with their specs)."""
    from pycm import params

    overall = {params.OVERALL_BENCHMARK_MAP[name] for name in params.OVERALL_BENCHMARK_LIST}
    assert overall - set(OVERALL) == {"SOA5(Cramer)", "SOA9(Krippendorff Alpha)", "SOA10(Pearson C)"}
    assert set(params.CLASS_BENCHMARK_LIST) == set(CLASS)
