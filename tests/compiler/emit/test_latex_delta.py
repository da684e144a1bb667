"""The "Standard error" paragraph of the LaTeX pages (compiler/emit/latex_delta.py), as built."""

from pathlib import Path

import pytest

import metricc as mc

DOCS = Path(__file__).resolve().parents[3] / "generated" / "docs" / "metrics"


def _paragraph(metric_id: str) -> str:
    text = (DOCS / f"{metric_id}.tex").read_text()
    return text.split(r"\paragraph{Standard error.}")[1].split(r"\paragraph{")[0]


def test_a_class_metric_shows_its_non_zero_partials_and_its_proportion():
    text = _paragraph("recall")
    assert r"\frac{\partial f}{\partial \mathit{TP}}" in text and r"\frac{\partial f}{\partial \mathit{FN}}" in text
    assert r"\partial \mathit{FP}" not in text
    assert r"$\mathit{TP}$ successes of $\mathit{TP} + \mathit{FN}$ trials" in text


def test_a_matrix_metric_shows_its_gradient_in_a_cell():
    assert r"\frac{\partial F}{\partial M_{ab}}" in _paragraph("cohen_kappa")
    assert r"$\sum_k M_{kk}$ successes of $n$ trials" in _paragraph("accuracy")


@pytest.mark.parametrize("metric_id", sorted(mc.catalog()))
def test_every_page_says_how_its_interval_is_found(metric_id):
    info, text = mc.metric(metric_id), _paragraph(metric_id)
    if info.gradient is None:
        assert "No delta-method standard error" in text and "bootstrap" in text
    else:
        assert "Delta method under a multinomial model" in text and r"\partial" in text
