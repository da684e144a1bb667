"""Counting in the input's namespace (runtime/xp_counts.py) equals numpy's counting and stays there."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from metricc.core.errors import InputError
from metricc.runtime import confusion
from metricc.runtime.namespace import count_dtype, device, array_namespace, to_host
from metricc.runtime.xp_counts import confusion_counts, multilabel_counts, threshold_counts

from tests.array_api.namespaces import load, params, put, same_place

pytestmark = pytest.mark.parametrize("name", params())


@st.composite
def labelled(draw):
    """Labels of a random class set (some classes never occur), a random number of samples."""
    classes = sorted(draw(st.sets(st.integers(-5, 40), min_size=1, max_size=9)))
    used = draw(st.lists(st.sampled_from(classes), min_size=1, max_size=len(classes), unique=True))
    n = draw(st.integers(0, 60))
    truth = draw(st.lists(st.sampled_from(used), min_size=n, max_size=n))
    predicted = draw(st.lists(st.sampled_from(used), min_size=n, max_size=n))
    return classes, np.array(truth, dtype=np.int64), np.array(predicted, dtype=np.int64)


@settings(max_examples=25, deadline=None)
@given(data=labelled())
def test_confusion_counts_equal_numpys(name, data):
    library = load(name)
    classes, truth, predicted = data
    t, p = put(library, name, truth), put(library, name, predicted)
    counts = confusion_counts(t, p, put(library, name, classes))
    expected = confusion.confusion_matrix(truth, predicted, labels=classes) if truth.size else np.zeros((len(classes),) * 2)
    np.testing.assert_array_equal(to_host(counts), expected)
    assert same_place(counts, t)
    assert counts.dtype == count_dtype(array_namespace(t), device(t))


@settings(max_examples=25, deadline=None)
@given(data=labelled(), bools=st.booleans())
def test_numbered_classes_count_like_the_class_array(name, data, bools):
    """``classes=C`` (labels 0 .. C - 1, their own codes) counts what ``arange(C)`` does, labels
    outside the range (negative, too large, float, boolean) included."""
    library = load(name)
    _, truth, predicted = data
    n_classes = 1 + int(max(truth.max(initial=0), predicted.max(initial=0))) // 2  # some labels outside 0 .. C - 1
    if bools:
        truth, predicted = truth % 2 == 0, predicted % 3 == 0
        n_classes = 2
    for cast in (lambda y: y, lambda y: y.astype(np.float64)):
        t, p = put(library, name, cast(truth)), put(library, name, cast(predicted))
        numbered = confusion_counts(t, p, n_classes, validate=False)
        listed = confusion_counts(t, p, put(library, name, list(range(n_classes))), validate=False)
        np.testing.assert_array_equal(to_host(numbered), to_host(listed))
        assert same_place(numbered, t)


def test_labels_outside_the_classes(name):
    library = load(name)
    t, p = put(library, name, [0, 1, 7]), put(library, name, [0, 1, 1])
    with pytest.raises(InputError, match="label 7 is not one of"):
        confusion_counts(t, p, put(library, name, [0, 1]))
    unchecked = confusion_counts(t, p, put(library, name, [0, 1]), validate=False)
    assert to_host(unchecked).tolist() == [[1, 0], [0, 1]]  # the sample with label 7 is not counted


def test_boolean_and_float_labels(name):
    library = load(name)
    t, p = put(library, name, [True, False, True]), put(library, name, [True, True, False])
    assert to_host(confusion_counts(t, p, put(library, name, [0, 1]))).tolist() == [[0, 1], [1, 1]]
    t, p = put(library, name, [0.0, 2.0]), put(library, name, [2.0, 2.0])
    assert to_host(confusion_counts(t, p, put(library, name, [0, 2]))).tolist() == [[0, 1], [0, 1]]


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40), columns=st.integers(1, 6))
def test_multilabel_counts_equal_numpys(name, seed, n, columns):
    library = load(name)
    rng = np.random.default_rng(seed)
    truth, predicted = rng.integers(0, 2, (n, columns)), rng.integers(0, 2, (n, columns))
    t, p = put(library, name, truth), put(library, name, predicted)
    per_class = multilabel_counts(t, p)
    per_sample = multilabel_counts(t, p, axis=1)
    np.testing.assert_array_equal(to_host(per_class), np.stack(confusion.multilabel_counts(truth, predicted)))
    np.testing.assert_array_equal(to_host(per_sample), np.stack(confusion.samplewise_counts(truth, predicted)))
    assert same_place(per_class, t) and same_place(per_sample, t)


def test_multilabel_counts_want_indicators(name):
    library = load(name)
    with pytest.raises(InputError, match="0/1 indicators"):
        multilabel_counts(put(library, name, [[0.5, 1.0]]), put(library, name, [[1, 0]]))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40), columns=st.integers(1, 4))
def test_threshold_counts_equal_a_comparison_per_threshold(name, seed, n, columns):
    library = load(name)
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, (n, columns))
    scores = np.round(rng.random((n, columns)), 1)  # ties with each other and with the thresholds
    scores[0, 0] = -np.inf
    thresholds = np.array([-np.inf, 0.0, 0.3, 0.5, 1.0, 2.0])
    s = put(library, name, scores)
    counts = threshold_counts(put(library, name, truth), s, put(library, name, thresholds))
    above = scores[:, :, None] >= thresholds
    positive = truth[:, :, None] == 1
    expected = np.stack([(above & positive).sum(0), (above & ~positive).sum(0),
                         (~above & positive).sum(0), (~above & ~positive).sum(0)])
    np.testing.assert_array_equal(to_host(counts), expected)
    assert same_place(counts, s)
    single = threshold_counts(put(library, name, truth[:, 0]), put(library, name, scores[:, 0]),
                              put(library, name, thresholds))
    np.testing.assert_array_equal(to_host(single), expected[:, 0])


def test_threshold_counts_refuse_nan_scores(name):
    library = load(name)
    with pytest.raises(InputError, match="NaN"):
        threshold_counts(put(library, name, [1, 0]), put(library, name, [0.5, np.nan]), put(library, name, [0.5]))
