"""runtime/context.py: counts checked once per call, shared by its metrics, and nothing else trusted."""

from __future__ import annotations

import numpy as np
import pytest

from metricc.core.errors import InputError
from metricc.generated import CATALOG
from metricc.runtime.confusion import ClassCounts
from metricc.runtime.context import CallContext, ScoreContext
from metricc.runtime.terms import read_matrix


def test_a_direct_call_checks_its_counts_with_or_without_a_context_of_other_arrays():
    f1 = CATALOG["f1"].function
    bad = ([1, 2], [0, -1], [1, 0], [3, 2])
    with pytest.raises(InputError, match="negative"):
        f1(*bad)
    other = CallContext(ClassCounts(*(np.array([1, 2]) for _ in range(4))))
    with pytest.raises(InputError, match="negative"):
        f1(*bad, context=other)  # a context whose arrays are not the ones given vouches for nothing


def test_the_context_s_own_counts_are_taken_as_they_are_and_its_values_made_once():
    context = read_matrix([[5, 1, 0], [2, 7, 1], [0, 3, 4]]).context
    precision = CATALOG["precision"].function
    micro = precision(*context.counts, average="micro", context=context)
    assert ("pooled", ("tp", "fp", "fn", "tn")) in context._shared and "support" not in context._shared
    recall = CATALOG["recall"].function(*context.counts, average="micro", context=context)
    pooled_sets = [key for key in context._shared if isinstance(key, tuple) and key[0] == "pooled"]
    assert len(pooled_sets) == 1  # totals in range: one pooled set serves every kernel
    weighted = precision(*context.counts, average="weighted", context=context)
    assert "support" in context._shared
    direct = [precision(*(np.array(c) for c in context.counts), average=a) for a in ("micro", "weighted")]
    assert [micro, weighted] == direct
    assert recall == CATALOG["recall"].function(*(np.array(c) for c in context.counts), average="micro")


def test_a_pooled_total_beyond_2_53_is_refused_only_to_the_kernels_that_read_it():
    big = 2.0 ** 52 + 2
    context = CallContext(ClassCounts(np.array([1.0, 2.0]), np.array([3.0, 1.0]), np.array([0.0, 2.0]),
                                      np.array([big, big])))
    precision = CATALOG["precision"].function(*context.counts, average="micro", context=context)
    assert precision == 3 / 7 and ("pooled", ("tp", "fp")) in context._shared
    with pytest.raises(InputError, match="2\\*\\*53"):
        CATALOG["specificity"].function(*context.counts, average="micro", context=context)


def test_context_counts_are_read_only():
    context = CallContext(ClassCounts(*(np.array([1, 2]) for _ in range(4))))
    with pytest.raises(ValueError):
        context.counts.true_positives[0] = 5
    assert context.real.false_positives.dtype == np.float64


def test_a_score_context_makes_the_curves_of_its_own_inputs_once_per_reading_of_the_truth():
    y, scores = [0, 1, 1], np.array([[0.6, 0.4], [0.3, 0.7], [0.5, 0.5]])
    context = ScoreContext(y, scores, None)
    made = []
    make = lambda: made.append(1) or len(made)  # noqa: E731
    assert context.curves(False, make) == context.curves(False, make) == 1 and context.curves(True, make) == 2
    assert context.holds(y, scores, None)
    assert not context.holds(list(y), scores, None) and not context.holds(y, scores.copy(), None)
    assert not context.holds(y, scores, [0, 1])
