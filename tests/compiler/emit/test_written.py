"""Formulas as their authors wrote them (compiler/emit/written.py)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from metricc.compiler.emit.written import written_latex, written_mathml
from metricc.compiler.errors import InternalError


@pytest.mark.parametrize(("text", "expected"), [
    ("TP / (TP + FP)", r"\frac{\mathit{TP}}{\mathit{TP} + \mathit{FP}}"),
    ("(1 + 0.5**2) * TN", r"\left(1 + {0.5}^{2}\right) \cdot \mathit{TN}"),
    ("a - (b - c)", r"a - \left(b - c\right)"),
    ("-(TP + FN)", r"-\left(\mathit{TP} + \mathit{FN}\right)"),
    ("Sum(pair_auc[j, k], k != j)", r"\sum_{k \neq j} \mathrm{pair\_auc}_{j, k}"),
    ("(Sum(Max(M[i, j], j), i) - Max(p[k], k)) / n", r"\frac{\sum_{i} \max_{j} M_{i, j} - \max_{k} p_{k}}{n}"),
    ("Min(M[i, j] + 1, (i, j))", r"\min_{i, j} \left(M_{i, j} + 1\right)"),
    ("indicator(TP != 0) * g_mean", r"\left[\mathit{TP} \neq 0\right] \cdot \mathrm{g\_mean}"),
    ("log(x, 10) + abs(a - b)", r"\log_{10}\left(x\right) + \left|a - b\right|"),
    ("macro(recall) + f_beta(beta=2)", r"\operatorname{macro}\left(\mathrm{recall}\right) + \mathrm{f\_beta}\left(\beta = 2\right)"),
])
def test_latex_follows_the_text(text, expected):
    assert written_latex(text) == expected


def test_mathml_is_well_formed_and_keeps_numbers_as_written():
    element = ET.fromstring(written_mathml("sqrt(f_beta(beta=2) * (1 + 0.5**2) * TN / (FN + TN))", display=True))
    assert element.get("display") == "block"
    assert [n.text for n in element.iter("{http://www.w3.org/1998/Math/MathML}mn")] == ["2", "1", "0.5", "2"]


def test_an_unknown_construct_raises_instead_of_vanishing():
    with pytest.raises(InternalError, match="Lambda"):
        written_latex("lambda x: x")
