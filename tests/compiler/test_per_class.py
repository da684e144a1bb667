"""Matrix formulas with one value per class (``per_class: j``): emission over a batch, the
averaging modes, what is refused, and Wang et al.'s Eq. 10 proved on the compiled formulas."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy

import metricc as mc
from metricc.compiler.language import symbols
from metricc.generated import CATALOG
from metricc.core.errors import InputError
from metricc.runtime.kernel import average_class_values

MATRIX = np.array([[3, 1, 0], [2, 5, 1], [0, 0, 0]])  # class 2 never true, predicted once


def _cells(size: int) -> sympy.Matrix:
    return sympy.Matrix(size, size, lambda i, j: sympy.Symbol(f"m{i}{j}", positive=True))


def _at(expr: sympy.Expr, cells: sympy.Matrix, bound: dict) -> sympy.Expr:
    """``expr`` on the matrix ``cells`` (every class present), sums expanded."""
    size = cells.shape[0]
    expr = expr.subs(symbols.N_CLASSES, size).subs(bound).doit()
    entries = {}
    for atom in expr.atoms(sympy.Indexed):
        first = int(atom.indices[0])
        if atom.base == symbols.M:
            entries[atom] = cells[first, int(atom.indices[1])]
        elif atom.base == symbols.ROW_TOTAL:
            entries[atom] = sum(cells[first, :])
        elif atom.base == symbols.COLUMN_TOTAL:
            entries[atom] = sum(cells[:, first])
    return expr.xreplace(entries).subs(symbols.N_TOTAL, sum(cells))


@pytest.mark.parametrize("size", [2, 3, 4])
def test_cen_is_the_p_j_weighted_sum_of_class_cen(compiled_metrics, size):
    """Wang et al. Eq. 10-11: CEN = sum_j P_j CEN_j, P_j = (t_j + p_j) / (2n), exactly."""
    cen, class_cen = compiled_metrics["cen"], compiled_metrics["class_cen"]
    j = symbols.index_symbol(class_cen.per_class)
    cells = _cells(size)
    weighted = sum((sum(cells[k, :]) + sum(cells[:, k])) / (2 * sum(cells)) * _at(class_cen.simplified, cells, {j: k})
                   for k in range(size))
    assert sympy.expand(_at(cen.simplified, cells, {}) - weighted) == 0


def test_a_batch_of_matrices_gives_one_row_of_class_values_each():
    batch = np.stack([MATRIX, MATRIX.T, np.eye(3, dtype=int) * 4])
    values = CATALOG["class_cen"].function(batch)
    assert values.shape == (3, 3)
    np.testing.assert_array_equal(values[0], CATALOG["class_cen"].function(MATRIX))
    np.testing.assert_array_equal(values[2], [0.0, 0.0, 0.0])  # no confusion: 0, not -0.0
    assert not np.signbit(values[2]).any()
    assert CATALOG["class_cen"].function(batch, average="macro").shape == (3,)


def test_averaging_modes_of_per_class_values():
    f = CATALOG["class_cen"].function
    values = f(MATRIX)
    assert f(MATRIX, average="binary", pos_label=0) == values[0]
    assert f(MATRIX, average="macro") == pytest.approx(values.mean(), rel=1e-15)
    support = MATRIX.sum(axis=1)
    assert f(MATRIX, average="weighted") == pytest.approx((support * values).sum() / support.sum(), rel=1e-15)
    assert f(MATRIX, average="weighted", weights=[0, 1, 1]) == pytest.approx((values[1] + values[2]) / 2, rel=1e-15)


def test_an_undefined_class_follows_zero_division_and_skip():
    absent = np.array([[3, 1, 0], [2, 5, 0], [0, 0, 0]])  # class 2 absent: t + p = 0
    f = CATALOG["class_cen"].function
    values = f(absent)
    assert math.isnan(values[2]) and not np.isnan(values[:2]).any()
    assert math.isnan(f(absent, average="macro"))
    assert f(absent, average="macro", zero_division=0.0) == pytest.approx(values[:2].sum() / 3, rel=1e-15)
    assert f(absent, average="macro", zero_division="skip") == pytest.approx(values[:2].mean(), rel=1e-15)
    assert f(absent, average="weighted") == pytest.approx((values[:2] * [4, 7]).sum() / 11, rel=1e-15)


@pytest.mark.parametrize("call, argument", [
    (lambda: CATALOG["class_cen"].function(MATRIX, average="micro"), "average"),
    (lambda: CATALOG["class_cen"].function(MATRIX, average="macro", weights=[1, 1, 1]), "weights"),
    (lambda: CATALOG["class_cen"].function(MATRIX, average="binary", pos_label=3), "pos_label"),
    (lambda: mc.evaluate("class_cen:micro", matrix=MATRIX), "metrics"),
    (lambda: mc.evaluate("class_cen", matrix=MATRIX, interval="wilson"), "interval"),  # delta: tests/api
    (lambda: mc.evaluate("class_cen", counts=([1, 2], [0, 1], [1, 0], [3, 2])), "input"),
])
def test_what_per_class_values_refuse(call, argument):
    with pytest.raises(InputError) as error:
        call()
    assert error.value.argument == argument


def test_evaluate_labels_the_classes_and_bootstraps_the_averages():
    found = mc.evaluate(["class_mcen", "class_mcen:weighted"], y_true=["a", "b", "c", "b"], y_pred=["a", "c", "c", "b"])
    assert list(found["class_mcen"].labels) == ["a", "b", "c"]
    interval = mc.evaluate("class_cen:macro", matrix=MATRIX + 1, interval="bootstrap", random_state=0, n_resamples=100)
    assert interval["class_cen:macro"].lower <= interval["class_cen:macro"].value <= interval["class_cen:macro"].upper


def test_average_class_values_broadcasts_a_mask_without_the_class_axis():
    assert average_class_values([[1.0, 3.0]], np.array([[False]]), np.array([[1.0, 1.0]]), average="macro",
                                averages=("macro",)) == pytest.approx([2.0])


def test_report_shows_per_class_matrix_metrics_as_columns_with_their_averages():
    from metricc.api.report import report

    found = report(["class_cen", "cen"], matrix=MATRIX)
    assert found.class_metrics == ["class_cen"] and list(found.overall) == ["cen"]
    np.testing.assert_array_equal(found.per_class["class_cen"], CATALOG["class_cen"].function(MATRIX))
    assert set(found.averages) == {"macro", "weighted"}
