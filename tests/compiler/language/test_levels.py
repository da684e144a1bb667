"""The levels as data: one row of ``levels.RULES`` per level, read instead of level strings."""

import pytest
import sympy

from metricc.compiler.language import levels, symbols
from metricc.compiler.language.levels import Average, Level
from metricc.compiler.language.parse import Scope, parse_formula
from metricc.compiler.errors import FormulaError, Location


def _parse(text: str, level: Level, **scope):
    return parse_formula(text, Scope(level=level, **scope), lambda offset: Location("spec.yaml", 1, offset + 1), "$.formula")


def test_every_level_has_one_row_and_strings_still_compare():
    assert set(levels.RULES) == set(Level)
    assert all(levels.RULES[level].level is level for level in Level)
    assert levels.rules("matrix") is levels.RULES[Level.MATRIX]
    assert Level.CLASS == "class" and str(Level.SCORE) == "score" and f"{Level.CURVE}" == "curve"


def test_the_averaging_modes_keep_the_order_documents_list():
    assert [str(a) for a in Average] == ["none", "binary", "micro", "macro", "weighted", "geometric", "samples"]


@pytest.mark.parametrize(("level", "text", "expected"), [
    (Level.CLASS, "TP / n", symbols.TP / (symbols.TP + symbols.FP + symbols.FN + symbols.TN)),
    (Level.MATRIX, "n / C", symbols.N_TOTAL / symbols.N_CLASSES),
    (Level.CURVE, "P * N", symbols.CURVE_TOTALS["P"] * symbols.CURVE_TOTALS["N"]),
    (Level.SCORE, "C", symbols.N_CLASSES),
])
def test_a_name_means_what_its_level_row_says(level, text, expected):
    assert sympy.simplify(_parse(text, level).expr - expected) == 0


@pytest.mark.parametrize(("level", "text", "message"), [
    (Level.AGGREGATE, "TP", "'TP' is a per-class count: aggregate formulas use averaged metrics, e.g. macro(recall)"),
    (Level.MATRIX, "TP", "'TP' is a per-class count; matrix formulas use M[i, j], t[k], p[k], n"),
    (Level.CURVE, "TP", "'TP' is a count at each threshold: write TP[i] (or TP[i - 1]) inside Sum(..., i)"),
    (Level.SCORE, "S", "'S' needs a sample and a class index, e.g. S[s, k]"),
    (Level.CLASS, "Sum(TP, k)", "Sum() is only allowed in matrix-, curve- and score-level formulas"),
])
def test_what_a_level_refuses_comes_from_its_row(level, text, message):
    with pytest.raises(FormulaError) as info:
        _parse(text, level)
    assert info.value.diagnostics[0].message == message


def test_summation_bounds_follow_the_level():
    k, s = symbols.index_symbol("k"), symbols.index_symbol("s")
    score = _parse("Sum(Sum(Y[s, k], s), k)", Level.SCORE).expr
    # s is a sample index (up to n - 1), k a class index (up to C - 1)
    assert score.limits == ((s, 0, symbols.N_TOTAL - 1), (k, 0, symbols.N_CLASSES - 1))
    assert _parse("Sum(M[k, k], k)", Level.MATRIX).expr.limits == ((k, 0, symbols.N_CLASSES - 1),)


def test_the_delta_method_reads_what_each_row_says_its_gradient_is_in():
    from metricc.compiler.analysis import delta

    differentiated = {level for level, row in levels.RULES.items() if row.partials is not None}
    assert differentiated == {level for level, row in levels.RULES.items() if row.of_confusion_matrix}
    assert set(delta._BY_PARTIALS) == set(levels.Partials)
