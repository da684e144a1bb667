"""runtime/trusted_batch.py: unchecked batches give what evaluate gives on the same matrices.

To the last bit or one: a class-averaged value sums its classes over a strided view here and a
contiguous array in evaluate (einsum's order of additions differs), both within 1e-12 of exact.
"""

import numpy as np
import pytest

import metricc as mc
from metricc.api import trusted_batch


def _same(ours, expected, err_msg=""):
    np.testing.assert_allclose(ours, expected, rtol=1e-15, atol=0, err_msg=err_msg)

METRICS = [("mcc", None), ("cohen_kappa", None), ("f1", "macro"), ("precision", "weighted"), ("recall", "micro"),
           ("f1_of_macro_averages", None), ("g_mean", "macro"), ("balanced_accuracy", None)]


@pytest.mark.parametrize("classes", [2, 3])
def test_batch_last_views_give_the_values_of_evaluate(classes):
    rng = np.random.default_rng(classes)
    matrices = rng.integers(0, 40, size=(500, classes, classes))
    stored = np.ascontiguousarray(np.moveaxis(matrices, 0, -1))  # (C, C, B), as the consistency search keeps them
    terms = trusted_batch.matrix_terms(np.moveaxis(stored, -1, 0))
    counts = trusted_batch.counts_of(terms)
    for metric_id, average in METRICS:
        info = mc.metric(metric_id)
        if info.level == "matrix":
            ours = info.function(terms)
        elif average is None:
            ours = info.function(*counts, context=counts)
        else:
            ours = info.function(*counts, average=average, context=counts)
        expected = mc.evaluate(metric_id, matrix=matrices, **({"average": average} if average else {}))[metric_id]
        _same(ours, expected, err_msg=metric_id)


def test_one_class_is_the_binary_value():
    matrices = np.random.default_rng(5).integers(0, 30, size=(200, 2, 2))
    counts = trusted_batch.counts_of(trusted_batch.matrix_terms(matrices))
    one = trusted_batch.one_class(counts, 1)
    positive = mc.metric("f1").function(*one, average="binary", pos_label=0, context=one)
    _same(positive, mc.evaluate("f1", matrix=matrices, average="binary")["f1"])


@pytest.mark.parametrize("classes", [2, 4])
def test_counts_straight_from_the_cells_are_those_of_evaluate(classes):
    matrices = np.random.default_rng(10 + classes).integers(0, 30, size=(300, classes, classes))
    cells = np.ascontiguousarray(np.moveaxis(matrices, 0, -1))
    for average in ("macro", "weighted", "micro"):
        counts = trusted_batch.counts_of_cells(cells)
        ours = mc.metric("f1").function(*counts, average=average, context=counts)
        _same(ours, mc.evaluate("f1", matrix=matrices, average=average)["f1"])
    for index in range(classes):
        ours = mc.metric("precision").function(*trusted_batch.counts_of_cells(cells, index), average="binary", pos_label=0)
        expected = mc.evaluate("precision", matrix=matrices, average="none")["precision"][:, index]
        _same(ours, expected)


def test_only_int64_matrices_are_taken():
    with pytest.raises(TypeError, match="int64"):
        trusted_batch.matrix_terms(np.ones((2, 2, 2)))
    with pytest.raises(TypeError, match="int64"):
        trusted_batch.counts_of_cells(np.ones((2, 2, 2)))
