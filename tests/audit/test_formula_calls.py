"""PyCM's matrix notation (audit/formula_calls.py): ``Matrix(i,j)``, ``Max(Matrix(-,j))``,
``Max(P)``, generated with random index letters, brackets and totals. The generator's formula is
computed directly on random matrices and checked against the catalog (the oracle:
``metricc.api.evaluate``); identify must name that metric and nothing unequal to it."""

import random

import numpy as np
import pytest

import metricc.api as mc
from metricc.audit.identify import identify

BRACKETS = (("(", ")"), (r"\Big(", r"\Big)"), (r"\left(", r"\right)"))
MATRICES = [np.array([[5, 2, 1], [3, 7, 2], [0, 4, 6]]), np.array([[9, 1, 3, 0], [2, 4, 1, 1], [0, 2, 8, 3], [1, 0, 2, 5]])]


def _lambda(matrix, by_columns: bool) -> float:
    """Goodman and Kruskal's lambda: A (truth guessed from the predicted column), B (the reverse)."""
    n = matrix.sum()
    cells = matrix.max(axis=0).sum() if by_columns else matrix.max(axis=1).sum()
    modal = (matrix.sum(axis=1) if by_columns else matrix.sum(axis=0)).max()
    return (cells - modal) / (n - modal)


def generated(seed: int) -> dict:
    rng = random.Random(seed)
    left, right = rng.choice(BRACKETS)
    index = rng.choice("ijkl")
    total = rng.choice(("POP", "n"))
    by_columns = rng.random() < 0.5
    cell, vector = (f"Matrix(-,{index})", "P") if by_columns else (f"Matrix({index},-)", "TOP")
    text = (r"\frac{\sum_{%s=1}^{|C|}Max%s%s%s-Max(%s)}{%s-Max(%s)}"
            % (index, left, cell, right, vector, total, vector))
    return {"text": text, "metric": "goodman_kruskal_lambda_a" if by_columns else "goodman_kruskal_lambda_b",
            "by_columns": by_columns}


@pytest.mark.parametrize("seed", range(6))
def test_pycm_matrix_notation_is_its_metric_and_nothing_else(seed):
    case = generated(seed)
    for matrix in MATRICES:  # the generator against the oracle
        assert np.isclose(_lambda(matrix, case["by_columns"]), mc.evaluate(case["metric"], matrix=matrix)[case["metric"]])
    result = identify(case["text"])
    assert [m.metric for m in result.matches] == [case["metric"]], (case["text"], result.text())


def test_a_cell_of_the_matrix_by_pycm_name():
    result = identify(r"\frac{\sum_{i=1}^{|C|} Matrix(i,i)}{POP}")
    assert "accuracy" in {m.metric for m in result.matches}, result.text()
