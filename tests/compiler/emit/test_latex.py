"""The PDF catalog (compiler/emit/latex.py, errata_math.py): display forms that fit the page,
condensed equivalences, errata formulas as math, and a compile without overfull lines."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import sympy

from metricc.compiler.emit import latex
from metricc.compiler.emit.errata_math import errata_latex
from metricc.compiler.emit.text import display_form, plain
from metricc.compiler.language import load

REPO = Path(__file__).resolve().parents[3]
TP, FP, FN, TN = sympy.symbols("TP FP FN TN", positive=True)


def test_display_form_factors_what_sympy_expanded():
    fowlkes_mallows = TP / sympy.sqrt(FN * FP + FN * TP + FP * TP + TP**2)
    shown = display_form(fowlkes_mallows)
    assert sympy.cancel(shown**2 - fowlkes_mallows**2) == 0  # both positive: equal squares, equal values
    assert plain(shown) == "TP/(sqrt(FN + TP)*sqrt(FP + TP))"


def test_a_long_form_is_broken_into_numerator_and_denominator_lines(compiled_metrics):
    metric = compiled_metrics["optimized_precision"]
    text = latex.broken(display_form(metric.simplified), metric.terms)
    assert text.startswith(r"\begin{align*}") and r"\frac{N}{D}" in text
    assert text.count(r"\\") >= 3  # N over two lines, then D
    short = latex.broken(compiled_metrics["precision"].simplified)
    assert short.startswith(r"\[ ") and "align" not in short


def test_equivalences_are_condensed_by_partner(compiled_catalog):
    fragment = compiled_catalog["docs/metrics/f1.tex"].split(r"\paragraph{Proved equivalences.}")[1]
    assert fragment.count(r"\mathrm{f\_beta}") == 1
    assert r"averaged alike: \texttt{binary}, \texttt{macro}, \texttt{none} (class by class), \texttt{weighted}" in fragment


def test_formula_as_written_is_the_authors(compiled_catalog):
    fragment = compiled_catalog["docs/metrics/adjusted_f_measure.tex"]
    written = fragment.split(r"\paragraph{Formula as written.}")[1].split(r"\paragraph")[0]
    assert "{0.5}^{2}" in written and r"\sqrt{5}" not in written


def test_errata_formulas_are_math_and_prose_is_text():
    assert errata_latex("p_w = 1/n * sum_j TP_j   (weights = support)") == (
        r"$p_{w} = 1 / n \cdot \sum_{j} \mathit{TP}_{j}$   (weights = support)")
    assert errata_latex("the recall of class_accuracy") == r"the recall of class\_accuracy"
    assert errata_latex("0.793") == "0.793"


def test_catalog_groups_by_family_with_a_summary(compiled_catalog, compiled_metrics):
    catalog = compiled_catalog["docs/metrics.tex"]
    assert r"\usepackage{lmodern}" in catalog
    sections = re.findall(r"\\section\{([^}]*)\}", catalog)
    assert sections == ["Conventions", "Summary", *latex.FAMILIES.values()]
    assert catalog.count(r"\hyperref[metric:") == len(compiled_metrics)


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed (CI installs texlive)")
def test_pdf_has_no_overfull_lines_settled_labels_and_vector_fonts(compiled_catalog, tmp_path):
    for name, text in compiled_catalog.items():
        if name.startswith("docs/"):
            path = tmp_path / name.removeprefix("docs/")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    for _ in range(3):
        done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "metrics.tex"],
                              cwd=tmp_path, capture_output=True, text=True, errors="replace")
        assert done.returncode == 0, done.stdout[-3000:]
    log = (tmp_path / "metrics.log").read_text(errors="replace")
    assert "Rerun to get" not in log
    assert re.findall(r"Overfull \\hbox.*", log) == []
    if shutil.which("pdffonts"):
        fonts = subprocess.run(["pdffonts", str(tmp_path / "metrics.pdf")], capture_output=True, text=True).stdout
        assert "Type 3" not in fonts and "LMRoman" in fonts


def test_a_case_of_xlogy_at_zero_states_only_its_weight():
    """``xlogy(indicator(TP != 3), 0)`` is undefined where ``TP != 3``: no ``0 = 0`` beside it."""
    from metricc.compiler.language import symbols

    assert latex._case(sympy.KroneckerDelta(3, symbols.TP)) == r"$\mathit{TP} \neq 3$"
