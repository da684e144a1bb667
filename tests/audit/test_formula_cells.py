"""A 2 x 2 table's cells a, b, c, d (audit/formula_readings.py, audit/formula_scanner.py), printed
at random: lower or upper case, products written ``ad``, ``a d``, ``a \\cdot d``, ``a \\times d``,
``\\div`` for a division, spacing. Each generated formula is evaluated directly on the cells in
each layout and every match identify reports must equal it (catalog oracle: ``metricc.api.evaluate``)
in the layout its reading names -- never a misread; the metric the formula was built from is
among the matches."""

import random

import numpy as np
import pytest

import metricc.api as mc
from metricc.audit.identify import identify

PRODUCTS = ("{}{}", "{} {}", r"{} \cdot {}", r"{} \times {}")
LAYOUTS = {"prediction": ("TP", "FP", "FN", "TN"), "truth": ("TP", "FN", "FP", "TN")}  # a, b, c, d row by row
# (formula over cells in the layout by prediction, its value on a, b, c, d, catalog metric)
BASES = [
    (r"\frac{{{ad}}}{{{bc}}}", lambda a, b, c, d: a * d / (b * c), "diagnostic_odds_ratio"),
    (r"\frac{{{a} + {d}}}{{{a} + {b} + {c} + {d}}}", lambda a, b, c, d: (a + d) / (a + b + c + d), "accuracy"),
    (r"({a} + {d}) \div ({a} + {b} + {c} + {d})", lambda a, b, c, d: (a + d) / (a + b + c + d), "accuracy"),
    (r"\frac{{{ad} - {bc}}}{{\sqrt{{({a}+{b})({c}+{d})({a}+{c})({b}+{d})}}}}",
     lambda a, b, c, d: (a * d - b * c) / np.sqrt((a + b) * (c + d) * (a + c) * (b + d)), "mcc"),
]
MATRICES = [np.array([[7, 2], [3, 5]]), np.array([[11, 4], [1, 9]])]


def _cells(matrix, layout: str) -> tuple:
    counts = {"TN": matrix[0, 0], "FP": matrix[0, 1], "FN": matrix[1, 0], "TP": matrix[1, 1]}
    return tuple(counts[c] for c in LAYOUTS[layout])


def generated(seed: int) -> dict:
    rng = random.Random(seed)
    template, value, metric = rng.choice(BASES)
    a, b, c, d = "abcd" if rng.random() < 0.5 else "ABCD"
    product = rng.choice(PRODUCTS)
    text = template.format(a=a, b=b, c=c, d=d, ad=product.format(a, d), bc=product.format(b, c))
    return {"text": text.replace(" + ", rng.choice(("+", " + ", r"\,+\,"))), "value": value, "metric": metric}


@pytest.mark.parametrize("seed", range(10))
def test_generated_cell_formulas_are_read_in_a_layout_that_holds(seed):
    case = generated(seed)
    result = identify(case["text"])
    assert case["metric"] in {m.metric for m in result.matches}, (case["text"], result.text())
    for match in result.matches:
        layouts = [name for name in LAYOUTS if any(name in r for r in match.reading)] or list(LAYOUTS)
        for matrix in MATRICES:
            found = float(mc.evaluate(match.metric, matrix=matrix, average=match.average)[match.metric])
            assert any(np.isclose(found, case["value"](*_cells(matrix, layout))) for layout in layouts), \
                (case["text"], match)


def test_a_run_of_capitals_after_a_sum_bounded_by_its_first_letter_is_a_product():
    """``\\frac{1}{NL}``: N bounds the sum over the samples, so NL is N times L, not one name."""
    result = identify(r"\frac{1}{NL}\sum_{i=1}^{N}|Y_i \Delta Z_i|")
    assert ("hamming_loss", "samples") in {(m.metric, m.average) for m in result.matches}, result.text()
    assert "NL" not in result.text()


@pytest.mark.parametrize("seed", range(4))
def test_a_total_printed_against_a_numbered_cell_is_a_product(seed):
    """``nn_{11}``: the total n times the cell n_{11} (the letters of the margins' table), written
    without an operator; the phi coefficient over margins, generated with random spellings."""
    rng = random.Random(seed)
    letter = rng.choice("nNf")
    product = rng.choice(("{x}{x}_{{11}}", "{x} {x}_{{11}}", r"{x} \cdot {x}_{{11}}")).format(x=letter)
    row, column = f"{letter}_{{1\\bullet}}", f"{letter}_{{\\bullet1}}"
    text = (r"\frac{%s-%s%s}{\sqrt{%s%s(%s-%s)(%s-%s)}}"
            % (product, row, column, row, column, letter, row, letter, column))
    result = identify(text)
    assert "mcc" in {m.metric for m in result.matches}, (text, result.text())
    for match in result.matches:
        for matrix in MATRICES:
            found = float(mc.evaluate(match.metric, matrix=matrix, average=match.average)[match.metric])
            assert np.isclose(found, float(mc.evaluate("mcc", matrix=matrix)["mcc"])), (text, match)
