"""Weighted kappa against scikit-learn's ``cohen_kappa_score(weights="linear" | "quadratic")``,
and the class_matrix parameter ``distance`` it takes.

``weighted_kappa`` weighs true class i against predicted class j by ``distance[i, j]``, by
default ``|i - j|`` (scikit-learn's linear weights); ``quadratic_weighted_kappa`` is the same
formula with the default ``(i - j)**2``. Class indices follow ``labels`` (or the sorted
labels), as in scikit-learn's confusion matrix.
"""

from __future__ import annotations

import numpy as np
import pytest

import metricc as mc
from metricc import cli

metrics = pytest.importorskip("sklearn.metrics")

# scikit-learn's weights -> (metricc metric, its distance as a function of C, or None for the default)
CASES = [("linear", "weighted_kappa", None), ("quadratic", "quadratic_weighted_kappa", None),
         ("quadratic", "weighted_kappa", lambda c: np.subtract.outer(np.arange(c), np.arange(c)) ** 2.0)]


def _params(distance, c: int) -> dict:
    return {} if distance is None else {"distance": distance(c)}


@pytest.mark.parametrize("weights, metric, distance", CASES)
def test_weighted_kappa_equals_sklearn_on_random_labels(weights, metric, distance):
    rng = np.random.default_rng(len(metric) + (distance is None))
    compared = 0
    for _ in range(60):
        c = int(rng.integers(2, 7))
        size = int(rng.integers(5, 80))
        y_true = rng.integers(0, c, size)
        y_pred = np.where(rng.random(size) < 0.5, y_true, rng.integers(0, c, size))  # some agreement
        if len(set(y_true) | set(y_pred)) < 2:
            continue
        labels = list(range(c))
        theirs = metrics.cohen_kappa_score(y_true, y_pred, labels=labels, weights=weights)
        ours = mc.evaluate(metric, y_true=y_true, y_pred=y_pred, labels=labels, params=_params(distance, c))[metric]
        assert float(ours) == pytest.approx(theirs, rel=1e-12, abs=1e-12), (y_true.tolist(), y_pred.tolist())
        compared += 1
    assert compared > 50


@pytest.mark.parametrize("weights, metric, distance", CASES)
def test_weighted_kappa_equals_sklearn_on_random_matrices(weights, metric, distance):
    """A batch of matrices, each read back as labels: row i, column j, M[i, j] times."""
    rng = np.random.default_rng(7)
    batch = rng.integers(0, 9, size=(40, 4, 4))
    ours = mc.evaluate(metric, matrix=batch, params=_params(distance, 4))[metric]
    for matrix, value in zip(batch, np.asarray(ours)):
        rows, cols = np.nonzero(matrix)
        y_true, y_pred = np.repeat(rows, matrix[rows, cols]), np.repeat(cols, matrix[rows, cols])
        theirs = metrics.cohen_kappa_score(y_true, y_pred, labels=[0, 1, 2, 3], weights=weights)
        assert float(value) == pytest.approx(theirs, rel=1e-12, abs=1e-12), matrix.tolist()


def test_any_distance_matrix_is_cohens_weighted_kappa():
    """1 - sum(w * O) / sum(w * E) with E the outer product of the marginals, for random weights;
    the 0/1 distance gives Cohen's kappa."""
    rng = np.random.default_rng(3)
    for c in (2, 3, 5):
        matrix = rng.integers(0, 20, size=(c, c))
        distance = rng.random((c, c))
        expected = np.outer(matrix.sum(axis=1), matrix.sum(axis=0)) / matrix.sum()
        kappa = 1 - np.sum(distance * matrix) / np.sum(distance * expected)
        ours = mc.evaluate("weighted_kappa", matrix=matrix, params={"distance": distance})["weighted_kappa"]
        assert float(ours) == pytest.approx(kappa, rel=1e-12)
        plain = mc.evaluate("cohen_kappa", matrix=matrix)["cohen_kappa"]
        unweighted = mc.evaluate("weighted_kappa", matrix=matrix, params={"distance": 1 - np.eye(c)})["weighted_kappa"]
        assert float(unweighted) == pytest.approx(float(plain), rel=1e-12)


def test_a_stack_of_distances_gives_one_value_each():
    matrix = np.array([[5, 2, 1], [1, 6, 2], [0, 2, 7]])
    linear = np.abs(np.subtract.outer(np.arange(3), np.arange(3)))
    values = mc.evaluate("weighted_kappa", matrix=matrix, params={"distance": np.stack([1 - np.eye(3), linear])})
    single = [mc.evaluate("weighted_kappa", matrix=matrix, params={"distance": d})["weighted_kappa"] for d in (1 - np.eye(3), linear)]
    np.testing.assert_allclose(values["weighted_kappa"], single, rtol=1e-15)


def test_undefined_where_sklearn_is_nan():
    """Every rating in one class: no disagreement is expected by chance (0 / 0)."""
    with pytest.warns(Warning):
        theirs = metrics.cohen_kappa_score([2, 2, 2], [2, 2, 2], labels=[0, 1, 2], weights="linear")
    ours = mc.evaluate("weighted_kappa", y_true=[2, 2, 2], y_pred=[2, 2, 2], labels=[0, 1, 2])["weighted_kappa"]
    assert np.isnan(theirs) and np.isnan(ours)


@pytest.mark.parametrize("distance, message", [
    ([[0, 1], [1, 0]], r"shape \(3, 3\).*got shape \(2, 2\)"),
    ([[0, 1, 2], [1, 0, 1], [2, -1, 0]], "distance >= 0"),
    ([[0, 1, 2], [1, 0, 1], [2, np.nan, 0]], "NaN or infinity"),
    ("linear", r"\(3, 3\) array of numbers"),
])
def test_a_bad_distance_is_an_input_error_naming_it(distance, message):
    with pytest.raises(mc.InputError, match=message) as error:
        mc.evaluate("weighted_kappa", matrix=np.eye(3, dtype=int) + 1, params={"distance": distance})
    assert "distance" in str(error.value)


def test_sweep_refuses_a_class_matrix_parameter():
    with pytest.raises(mc.InputError, match="class_matrix"):
        mc.sweep("weighted_kappa", matrix=np.eye(3, dtype=int) + 1, grid=[1, 2], param="distance")


def test_cli_takes_the_distance_as_json(capsys):
    code = cli.main(["eval", "--matrix", "[[5, 2, 1], [1, 6, 2], [0, 2, 7]]", "--metric", "weighted_kappa",
                     "--metric", "cohen_kappa", "--param", "distance=[[0, 1, 1], [1, 0, 1], [1, 1, 0]]"])
    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    assert float(lines[0].split(": ")[1]) == pytest.approx(float(lines[1].split(": ")[1]), rel=1e-12)
    assert mc.metric("weighted_kappa").params[0].default == "abs(i - j)"
