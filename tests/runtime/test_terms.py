"""A matrix read once (runtime/terms.py): the same values as reading it per metric, never stale."""

from __future__ import annotations

import numpy as np
import pytest

from metricc.generated import CATALOG
from metricc.runtime import kernel, matrices
from metricc.core.errors import InputError
from metricc.runtime.terms import matrix_counts, matrix_terms, read_matrix

MATRIX_METRICS = sorted(i.id for i in CATALOG.values() if i.level == "matrix")


@pytest.mark.parametrize("metric_id", MATRIX_METRICS)
def test_terms_give_what_the_raw_matrix_gives(metric_id):
    matrices = np.random.default_rng(5).integers(0, 30, (20, 4, 4))
    function = CATALOG[metric_id].function
    shared = function(read_matrix(matrices))
    assert np.array_equal(shared, function(matrices), equal_nan=True)
    assert np.array_equal(shared, function(matrices.astype(float)), equal_nan=True)


def test_nothing_remembered_outlives_a_call_or_reaches_the_caller_s_array():
    matrices = np.ones((3, 2, 2), dtype=np.int64)
    accuracy = CATALOG["accuracy"].function
    assert accuracy(matrices).tolist() == [0.5] * 3
    matrices[:, 0, 1] = 0  # changed in place between calls
    assert accuracy(matrices).tolist() == pytest.approx([2 / 3] * 3)


def test_integer_matrices_stay_int64_unless_read_entry_by_entry():
    M, C, t, p, n = matrix_terms(np.ones((2, 3, 3), dtype=np.int32))
    assert M.dtype == np.int64 and C == 3 and t.dtype == np.float64 and n.tolist() == [9.0, 9.0]
    assert matrix_terms(np.ones((2, 3, 3), dtype=np.int32), elementwise=True)[0].dtype == np.float64
    terms = read_matrix(np.ones((2, 3, 3), dtype=np.int32))
    assert kernel.diagonal(M).dtype == np.float64 and terms.diagonal.dtype == np.float64
    assert terms.whole(terms.t) and terms.integer(terms.t).dtype == np.int64 and not terms.whole(terms.t.copy())
    assert not read_matrix(np.full((2, 2), 0.5)).whole(read_matrix(np.full((2, 2), 0.5)).t)


def test_counts_of_terms_are_those_of_the_matrix_and_read_only():
    matrix = [[5, 1, 0], [2, 7, 1], [0, 3, 4]]
    counts = matrix_counts(read_matrix(matrix))
    assert all(np.array_equal(a, b) for a, b in zip(counts, matrix_counts(matrix)))
    with pytest.raises(ValueError):
        counts.true_positives[0] = 9


@pytest.mark.parametrize("matrix, message", [
    ([[1, -1], [0, 1]], "negative entries"),
    ([[1.0, np.nan], [0.0, 1.0]], "NaN or infinity"),
    ([[2 ** 53 + 1, 0], [0, 0]], "exceeds 2\\*\\*53"),
    ([[2 ** 52, 2 ** 52], [1, 0]], "the total of the matrix exceeds 2\\*\\*53"),
])
def test_one_pass_checks_refuse_what_check_matrix_refuses(matrix, message):
    with pytest.raises(InputError, match=f"^matrix: .*{message}"):
        read_matrix(np.array(matrix))


@pytest.mark.parametrize("dtype", [np.int64, np.float64, np.uint64, np.int32])
def test_a_stack_read_chunk_by_chunk_has_the_totals_of_separate_passes(monkeypatch, dtype):
    # Chunks of 2 matrices (stacks of at least 4 chunks are read that way): the same totals,
    # diagonal and metric values as the separate passes over the whole stack.
    stack = np.random.default_rng(7).integers(0, 30, (13, 2, 3, 3)).astype(dtype)
    expected = read_matrix(stack)
    monkeypatch.setattr(matrices, "_STACK_CHUNK_BYTES", 2 * 9 * 8)
    terms = read_matrix(stack)
    if dtype in (np.int64, np.float64):
        assert matrices._stack_totals(np.asarray(stack)) is not None  # the chunked path is the one tested
    for got, want in ((terms.t, expected.t), (terms.p, expected.p), (terms.n, expected.n),
                      (kernel.diagonal(terms.matrix), kernel.diagonal(expected.matrix))):
        assert got.dtype == want.dtype and np.array_equal(got, want)
    assert all(np.array_equal(a, b) for a, b in zip(terms.counts(), expected.counts()))
    for metric_id in ("mcc", "accuracy", "cohen_kappa"):
        assert np.array_equal(CATALOG[metric_id].function(terms), CATALOG[metric_id].function(stack), equal_nan=True)


@pytest.mark.parametrize("bad, message", [(-1, "negative entries"), (np.nan, "NaN or infinity"),
                                          (2.0 ** 53 + 2, "exceeds 2\\*\\*53")])
def test_a_bad_entry_in_a_late_chunk_is_refused(monkeypatch, bad, message):
    monkeypatch.setattr(matrices, "_STACK_CHUNK_BYTES", 2 * 4 * 8)
    stack = np.ones((12, 2, 2), dtype=np.int64 if bad == -1 else np.float64)
    stack[-1, 1, 0] = bad
    with pytest.raises(InputError, match=f"^matrix: .*{message}"):
        read_matrix(stack)
    stack[-1, 1, 0] = -0.0 if bad != -1 else 0  # a negative zero is a count of 0
    assert read_matrix(stack).n.tolist() == [4.0] * 11 + [3.0]


def test_a_stack_whose_total_exceeds_2_53_is_refused(monkeypatch):
    monkeypatch.setattr(matrices, "_STACK_CHUNK_BYTES", 2 * 4 * 8)
    stack = np.ones((12, 2, 2), dtype=np.int64)
    stack[5] = [[2 ** 52, 2 ** 52], [1, 0]]
    with pytest.raises(InputError, match="the total of the matrix exceeds 2\\*\\*53"):
        read_matrix(stack)
