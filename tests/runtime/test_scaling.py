"""Powers of two for values of degree 0 in their inputs (runtime/scaling.py, terms.rescaled)."""

from __future__ import annotations

import numpy as np

from metricc.runtime.scaling import rescaled_rows, unit_exponents
from metricc.runtime.terms import read_matrix, rescaled, rescaled_counts
from metricc.runtime.context import CallContext
from metricc.runtime.counts import ClassCounts


def test_only_rows_far_from_1_are_scaled_and_exactly():
    gains = np.array([[1e308, 2.5e307, 0.0], [3.0, 1.0, 0.0], [1e-300, 3e-301, 1e-310], [0.0, 0.0, 0.0]])
    scaled = rescaled_rows(gains)
    assert scaled[1].tolist() == [3.0, 1.0, 0.0] and scaled[3].tolist() == [0.0, 0.0, 0.0]
    for row in (0, 2):
        assert 0.5 <= scaled[row].max() < 1
        shift = np.frexp(gains[row])[1] - np.frexp(scaled[row])[1]
        assert np.array_equal(np.frexp(scaled[row])[0], np.frexp(gains[row])[0])  # the same digits: nothing rounded
        assert len(set(shift[gains[row] > 0].tolist())) == 1  # one power of two per row
    ordinary = np.array([[3.0, 1.0]])
    assert rescaled_rows(ordinary) is ordinary and unit_exponents(np.array([1.0, 0.0])) is None


def test_a_tiny_matrix_is_scaled_per_matrix_once_per_call_and_an_integer_one_never():
    stack = np.array([[[7.0, 5.0], [5.0, 7.0]], [[7.5, 5.0], [5.0, 7.0]]]) * np.array([2.0 ** -1070, 1.0])[:, None, None]
    terms = read_matrix(stack)
    scaled = rescaled(terms)
    assert rescaled(terms) is scaled
    assert 0.5 <= float(scaled.n[0]) < 1 and np.array_equal(scaled.matrix[1], stack[1])
    integer = read_matrix([[7, 5], [5, 7]])
    assert rescaled(integer) is integer


def test_tiny_counts_get_a_context_of_their_own():
    counts = ClassCounts(*(np.array([3.0, 1.0]) * 2.0 ** -1070 for _ in range(4)))
    context = CallContext(counts)
    scaled, own = rescaled_counts(context.counts, context)
    assert own is not context and own.holds(tuple(scaled))
    assert float(scaled.true_positives[0]) == 3 * float(scaled.true_positives[1])
    assert rescaled_counts(context.counts, context)[1] is own  # made once per call
