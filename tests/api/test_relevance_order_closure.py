"""The US-model's average ranks of a partial order (relevance_from_order), against a cubic
transitive closure of the order's matrix as the oracle, on random orders of random sizes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from metricc.api.relevance import average_ranks, relevance_from_order
from metricc.core.errors import InputError


def _warshall_ranks(pairs, n_classes):
    less = np.zeros((n_classes, n_classes), dtype=bool)
    for low, high in pairs:
        less[low, high] = True
    for k in range(n_classes):
        less |= less[:, k : k + 1] & less[k : k + 1, :]
    return np.sum(less, axis=0) + 1 + (n_classes - 1 - np.sum(less | less.T, axis=1)) / 2


@st.composite
def _orders(draw):
    n_classes = draw(st.integers(1, 14))
    rank = draw(st.permutations(range(n_classes)))  # a hidden linear order: the relations never cycle
    pairs = [(rank[i], rank[j]) for i in range(n_classes) for j in range(i + 1, n_classes) if draw(st.booleans())]
    return n_classes, pairs


@settings(max_examples=150)
@given(_orders())
def test_average_ranks_equal_the_closure_of_the_order(order):
    n_classes, pairs = order
    labels = [f"c{k}" for k in range(n_classes)]
    if not pairs:
        return
    given_pairs = [(labels[low], labels[high]) for low, high in pairs]
    np.testing.assert_array_equal(average_ranks(given_pairs, labels), _warshall_ranks(pairs, n_classes))


def test_a_long_chain_is_linear_work():
    """20,000 classes in one chain: ranks 1..C (the closure of the matrix would take hours)."""
    n_classes = 20_000
    labels = [f"c{k}" for k in range(n_classes)]
    relevance = relevance_from_order(" < ".join(labels), labels)
    np.testing.assert_array_equal(relevance, np.arange(1, n_classes + 1) / n_classes)


def test_only_the_classes_on_a_cycle_are_named():
    with pytest.raises(InputError, match=r"it puts a, b, c below themselves"):
        average_ranks("a < b, b < c, c < a, c < d, e < a", list("abcde"))
