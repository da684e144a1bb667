"""Tests for metricc.runtime.confusion: hand-made examples, scikit-learn oracle, errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from metricc.runtime import labels as label_counting
from metricc.runtime.confusion import (
    ClassCounts,
    check_class_vector,
    check_counts,
    check_matrix,
    class_labels,
    classes_and_matrix,
    confusion_matrix,
    counts_from_matrix,
    multilabel_counts,
    orient,
    samplewise_counts,
)
from metricc.core.errors import InputError

FAST = settings(max_examples=50, deadline=None)


def raises_input_error(argument: str, fragment: str = ""):
    """Context manager: InputError for `argument` whose message contains `fragment`."""
    return pytest.raises(InputError, match=f"^{argument}: .*{fragment}")


def as_lists(counts) -> list:
    return [np.asarray(x).tolist() for x in counts]


# ---------------------------------------------------------------- literal examples

def test_confusion_matrix_hand_made():
    m = confusion_matrix([0, 0, 1, 2, 2, 2], [0, 1, 1, 2, 0, 2])
    assert m.dtype == np.int64
    assert m.tolist() == [[1, 1, 0], [0, 1, 0], [1, 0, 2]]


def test_confusion_matrix_strings_sorted_union():
    y_true = ["cat", "dog", "dog", "bird"]
    y_pred = ["dog", "dog", "cat", "bird"]
    assert class_labels(y_true, y_pred).tolist() == ["bird", "cat", "dog"]
    assert confusion_matrix(y_true, y_pred).tolist() == [[1, 0, 0], [0, 0, 1], [0, 1, 1]]


def test_labels_order_and_unseen_class():
    m = confusion_matrix([1, 2, 2], [2, 2, 1], labels=[2, 9, 1])
    assert m.tolist() == [[1, 0, 1], [0, 0, 0], [1, 0, 0]]
    assert class_labels([1, 2], [2, 1], labels=[2, 9, 1]).tolist() == [2, 9, 1]


def test_label_only_in_prediction_gets_a_row_of_zeros():
    assert confusion_matrix([0, 0], [0, 3]).tolist() == [[1, 1], [0, 0]]


def test_weighted_matrix_is_float():
    m = confusion_matrix([0, 1, 1], [0, 1, 0], sample_weight=[0.5, 2, 1])
    assert m.dtype == np.float64
    assert m.tolist() == [[0.5, 0.0], [1.0, 2.0]]


def test_mixed_object_labels_stay_distinct():
    # 1 and "1" are different labels; a plain list would let numpy turn 1 into "1".
    m = confusion_matrix([1, "1", "a"], [1, 1, "a"])
    assert class_labels([1, "1", "a"], [1, 1, "a"]).tolist() == [1, "1", "a"]
    assert m.tolist() == [[1, 0, 0], [1, 0, 0], [0, 0, 1]]


def test_uint64_and_int64_labels_compare_exactly():
    # numpy would promote uint64 with int64 to float64, merging 2**63 and 2**63 + 1.
    big = np.array([2**63, 2**63 + 1], dtype=np.uint64)
    assert confusion_matrix(big, np.array([0, 0], dtype=np.int64)).tolist() == [
        [0, 0, 0], [1, 0, 0], [1, 0, 0]]
    assert confusion_matrix(big, big, labels=[2**63 + 1, 2**63]).tolist() == [[1, 0], [0, 1]]


def test_batch_shares_classes():
    m = confusion_matrix([[0, 1], [1, 1]], [[0, 0], [1, 2]])
    assert m.shape == (2, 3, 3)
    assert m[0].tolist() == [[1, 0, 0], [1, 0, 0], [0, 0, 0]]
    assert m[1].tolist() == [[0, 0, 0], [0, 1, 1], [0, 0, 0]]


def test_batch_weights_broadcast_over_rows():
    y = np.array([[0, 1, 1], [1, 0, 1]])
    w = np.array([1.0, 2.0, 3.0])
    assert np.array_equal(confusion_matrix(y, y, sample_weight=w),
                          confusion_matrix(y, y, sample_weight=np.tile(w, (2, 1))))


def test_counts_from_matrix_hand_made():
    tp, fp, fn, tn = counts_from_matrix([[5, 1, 0], [2, 7, 1], [0, 3, 4]])
    assert tp.tolist() == [5, 7, 4]
    assert fp.tolist() == [2, 4, 1]
    assert fn.tolist() == [1, 3, 3]
    assert tn.tolist() == [15, 9, 15]
    assert tp.dtype == np.int64


def test_counts_from_probabilistic_matrix_is_float():
    counts = counts_from_matrix([[0.5, 0.5], [0.25, 0.75]])
    assert counts.true_positives.dtype == np.float64
    assert counts.false_positives.tolist() == [0.25, 0.5]


def test_multilabel_and_samplewise_hand_made():
    y_true = [[1, 0, 1], [0, 1, 1]]
    y_pred = [[1, 1, 0], [0, 1, 1]]
    assert as_lists(multilabel_counts(y_true, y_pred)) == [
        [1, 1, 1], [0, 1, 0], [0, 0, 1], [1, 0, 0]]
    assert as_lists(samplewise_counts(y_true, y_pred)) == [[1, 2], [1, 0], [1, 0], [0, 1]]


def test_orient():
    m = np.arange(8).reshape(2, 2, 2)
    assert orient(m) is not None and np.array_equal(orient(m), m)
    assert np.array_equal(orient(m, "pred-rows"), m.transpose(0, 2, 1))
    assert np.array_equal(orient(orient(m, "pred-rows"), "pred-rows"), m)


# ---------------------------------------------------------------- properties

labels_1d = st.integers(1, 30).flatmap(lambda n: st.tuples(
    hnp.arrays(np.int64, n, elements=st.integers(-3, 4)),
    hnp.arrays(np.int64, n, elements=st.integers(-3, 4))))


@pytest.mark.filterwarnings("ignore:A single label was found")
@FAST
@given(labels_1d)
def test_matches_sklearn(pair):
    metrics = pytest.importorskip("sklearn.metrics")
    y_true, y_pred = pair
    assert np.array_equal(confusion_matrix(y_true, y_pred),
                          metrics.confusion_matrix(y_true, y_pred))
    names = np.array(list("abcdefgh"))[y_true + 3], np.array(list("abcdefgh"))[y_pred + 3]
    assert np.array_equal(confusion_matrix(*names), metrics.confusion_matrix(*names))
    order = [4, 0, -3, 2, 1, -1, 3, -2]
    assert np.array_equal(confusion_matrix(y_true, y_pred, labels=order),
                          metrics.confusion_matrix(y_true, y_pred, labels=order))
    w = np.linspace(0.5, 2.0, len(y_true))
    assert np.allclose(confusion_matrix(y_true, y_pred, sample_weight=w),
                       metrics.confusion_matrix(y_true, y_pred, sample_weight=w))


@FAST
@given(st.integers(1, 4), st.integers(2, 12), st.data())
def test_batch_equals_loop(batch, n, data):
    """Batches (B, N) of N >= 2 samples: (B, 1) is B samples of one label each (issue 25)."""
    shape = (batch, n)
    y_true = data.draw(hnp.arrays(np.int64, shape, elements=st.integers(0, 3)))
    y_pred = data.draw(hnp.arrays(np.int64, shape, elements=st.integers(0, 3)))
    w = data.draw(hnp.arrays(np.float64, shape, elements=st.floats(0, 5)))
    classes = class_labels(y_true, y_pred)
    for kwargs in ({}, {"sample_weight": w}):
        batched = confusion_matrix(y_true, y_pred, **kwargs)
        for b in range(batch):
            one = {k: v[b] for k, v in kwargs.items()}
            expected = confusion_matrix(y_true[b], y_pred[b], labels=classes, **one)
            assert np.array_equal(batched[b], expected)
    counts = counts_from_matrix(confusion_matrix(y_true, y_pred))
    for b in range(batch):
        single = counts_from_matrix(confusion_matrix(y_true[b], y_pred[b], labels=classes))
        assert all(np.array_equal(x[b], y) for x, y in zip(counts, single))


@FAST
@given(hnp.arrays(np.int64, hnp.array_shapes(min_dims=2, max_dims=3, max_side=5),
                  elements=st.integers(0, 20)).filter(lambda m: m.shape[-1] == m.shape[-2])
       | st.integers(1, 5).flatmap(lambda c: hnp.arrays(np.int64, (c, c), elements=st.integers(0, 20))))
def test_counts_identities(matrix):
    tp, fp, fn, tn = counts_from_matrix(matrix)
    n = matrix.sum(axis=(-2, -1))
    assert np.array_equal(tp + fp + fn + tn, np.broadcast_to(n[..., None], tp.shape))
    assert np.array_equal(fp.sum(axis=-1), fn.sum(axis=-1))
    assert np.array_equal(tp + fn, matrix.sum(axis=-1))
    assert (tn >= 0).all()
    assert as_lists(check_counts((tp, fp, fn, tn))) == as_lists((tp, fp, fn, tn))


@FAST
@given(st.integers(1, 10), st.integers(2, 5), st.data())
def test_multilabel_matches_sklearn(n, c, data):
    # C >= 2: sklearn reads an (N, 1) indicator as a binary column, not as multi-label.
    metrics = pytest.importorskip("sklearn.metrics")
    y_true = data.draw(hnp.arrays(np.int64, (n, c), elements=st.integers(0, 1)))
    y_pred = data.draw(hnp.arrays(bool, (n, c)))
    for got, samplewise in ((multilabel_counts(y_true, y_pred), False),
                            (samplewise_counts(y_true, y_pred), True)):
        ref = metrics.multilabel_confusion_matrix(y_true, y_pred.astype(int), samplewise=samplewise)
        assert np.array_equal(got.true_negatives, ref[:, 0, 0])
        assert np.array_equal(got.false_positives, ref[:, 0, 1])
        assert np.array_equal(got.false_negatives, ref[:, 1, 0])
        assert np.array_equal(got.true_positives, ref[:, 1, 1])


def test_multilabel_batched():
    rng = np.random.default_rng(0)
    y_true, y_pred = rng.integers(0, 2, (2, 3, 6, 4)), rng.integers(0, 2, (2, 3, 6, 4))
    counts, per_sample = multilabel_counts(y_true, y_pred), samplewise_counts(y_true, y_pred)
    assert counts.true_positives.shape == (2, 3, 4)
    assert per_sample.true_positives.shape == (2, 3, 6)
    assert np.array_equal(counts.true_positives[1, 2],
                          multilabel_counts(y_true[1, 2], y_pred[1, 2]).true_positives)
    assert (sum(per_sample) == 4).all() and (sum(counts) == 6).all()


# ---------------------------------------------------------------- errors

@pytest.mark.parametrize(("y_true", "y_pred", "argument", "fragment"), [
    ([0, 1, 2, 0, 1], [0, 1, 2, 0], "y_pred", "expected 5 labels like y_true, got 4"),
    ([], [], "y_true", "empty"),
    ([[0, 1]], [[]], "y_pred", "empty"),
    (np.zeros((1, 2, 2)), np.zeros((1, 2, 2)), "y_true", r"shape \(1, 2, 2\)"),
    (3, 3, "y_true", "single value 3; pass a sequence"),
    ([0.0, np.nan], [0.0, 1.0], "y_true", "NaN at index 1"),
    ([0.0, 1.0], [0.0, np.nan], "y_pred", "NaN"),
    (np.array([1, None], dtype=object), [1, 2], "y_true", "None at index 1"),
    ([[0, 1], [1, 0]], [0, 1], "y_pred", "like y_true"),
    ([[0, 1], [1, 0]], [[0, 1], [1, 0], [0, 0]], "y_pred", r"expected shape \(2, 2\)"),
    ([1, 2], ["1", "2"], "y_pred", "string labels but y_true holds number"),
    ([[0, 1], [1]], [0, 1], "y_true", "rectangular"),
])
def test_label_errors(y_true, y_pred, argument, fragment):
    with raises_input_error(argument, fragment):
        confusion_matrix(y_true, y_pred)
    with raises_input_error(argument, fragment):
        class_labels(y_true, y_pred)


@pytest.mark.parametrize(("labels", "argument", "fragment"), [
    ([0, 1, 1], "labels", "1 appears more than once"),
    (["a", "b", "a"], "labels", "'a' appears more than once"),
    ([0, 2], "y_true", "label 1 at index 1 is not in labels"),
    ([0, 1], "y_pred", "label 3 at index 2 is not in labels"),
    (["0", "1", "3"], "y_true", "label 0 at index 0 is not in labels"),
    ([], "labels", "empty"),
    ([[0, 1]], "labels", r"shape \(N,\)"),
    ("ab", "labels", "single value 'ab'"),
    ([0, np.nan, 1, 3], "labels", "NaN"),
])
def test_labels_argument_errors(labels, argument, fragment):
    with raises_input_error(argument, fragment):
        confusion_matrix([0, 1, 1], [0, 1, 3], labels=labels)
    with raises_input_error(argument, fragment):
        class_labels([0, 1, 1], [0, 1, 3], labels=labels)


def test_label_not_in_labels_names_batch_position():
    with raises_input_error("y_pred", r"label 'z' at index \(1, 0\)"):
        confusion_matrix([["a", "b"], ["b", "a"]], [["a", "b"], ["z", "a"]], labels=["a", "b"])
    with raises_input_error("y_pred", r"label 'z' at index 1"):  # (n, 1): one label per sample, not a batch
        confusion_matrix([["a"], ["b"]], [["a"], ["z"]], labels=["a", "b"])


@pytest.mark.parametrize(("weights", "fragment"), [
    ([1.0, 1.0], "expected 3 weights like y_true"),
    ([1.0, np.nan, 1.0], "NaN or infinity"),
    ([1.0, np.inf, 1.0], "NaN or infinity"),
    ([1.0, -1.0, 1.0], "negative"),
    (["a", "b", "c"], "expected numbers"),
])
def test_sample_weight_errors(weights, fragment):
    with raises_input_error("sample_weight", fragment):
        confusion_matrix([0, 1, 1], [0, 1, 0], sample_weight=weights)


def test_batch_sample_weight_shape_error():
    with raises_input_error("sample_weight", r"expected shape \(2, 3\) or \(3,\)"):
        confusion_matrix([[0, 1, 1]] * 2, [[0, 1, 0]] * 2, sample_weight=[1.0, 2.0])


@pytest.mark.parametrize(("y_true", "y_pred", "argument", "fragment"), [
    ([[1, 0]], [[1, 0], [0, 1]], "y_pred", r"expected shape \(1, 2\)"),
    ([1, 0], [1, 0], "y_true", "indicator matrix"),
    ([[1, 2]], [[1, 0]], "y_true", "0/1"),
    ([[1, 0]], [[0.5, 0]], "y_pred", "0/1"),
    ([[1, 0]], [[np.nan, 0]], "y_pred", "0/1"),
    ([["a", "b"]], [[1, 0]], "y_true", "0/1"),
    (np.zeros((0, 3)), np.zeros((0, 3)), "y_true", "empty"),
    (np.zeros((2, 0)), np.zeros((2, 0)), "y_true", "empty"),
])
def test_indicator_errors(y_true, y_pred, argument, fragment):
    for func in (multilabel_counts, samplewise_counts):
        with raises_input_error(argument, fragment):
            func(y_true, y_pred)


@pytest.mark.parametrize(("matrix", "integer", "fragment"), [
    ([1, 2], True, "square"),
    ([[1, 2, 3], [4, 5, 6]], True, "square"),
    (np.zeros((0, 0)), True, "empty"),
    (np.zeros((0, 2, 2)), True, "empty"),
    ([[1, np.nan], [0, 1]], False, "NaN or infinity"),
    ([[1, np.inf], [0, 1]], False, "NaN or infinity"),
    ([[1, -1], [0, 1]], False, "negative"),
    ([[1.5, 0], [0, 1]], True, "non-integer"),
    ([["a", "b"], ["c", "d"]], True, "numeric"),
    ([[True, False], [False, True]], True, "numeric"),
    ([[1, None], [0, 1]], True, ""),
    ([[1, 2], [3]], True, "rectangular"),
    ([[10 ** 20, 1], [1, 10 ** 20]], True, r"a count exceeds 2\*\*53 = 9007199254740992"),
    ([[10 ** 400, 1], [1, 1]], True, r"a count exceeds 2\*\*53"),
    (np.array([[2 ** 62, 1], [1, 1]]), True, r"a count exceeds 2\*\*53"),
    ([[2 ** 53 + 2.0, 0], [0, 0]], False, r"a count exceeds 2\*\*53"),
    # float64 would add this total up to exactly 2**53: the total is taken in integers.
    ([[2 ** 52, 2 ** 52], [1, 0]], True, r"the total of the matrix exceeds 2\*\*53"),
])
def test_check_matrix_errors(matrix, integer, fragment):
    with raises_input_error("cm", fragment):
        check_matrix(matrix, argument="cm", integer=integer)


def test_check_matrix_returns_dtypes():
    assert check_matrix([[1.0, 2.0], [0.0, 3.0]]).dtype == np.int64
    assert check_matrix([[1, 2], [0, 3]], integer=False).dtype == np.float64
    assert check_matrix(np.ones((4, 3, 3), np.int32)).shape == (4, 3, 3)


def test_counts_from_matrix_validates():
    with raises_input_error("matrix", "negative"):
        counts_from_matrix([[1, -1], [0, 1]])


@pytest.mark.parametrize("orientation", ["rows", "True-Rows", None, 0])
def test_orient_rejects_unknown(orientation):
    with raises_input_error("orientation", r"\['true-rows', 'pred-rows'\]"):
        orient([[1, 0], [0, 1]], orientation)


def test_orient_rejects_vector():
    with raises_input_error("matrix", "expected shape"):
        orient([1, 2], "pred-rows")


def test_check_class_vector():
    assert check_class_vector([1, 2, 3], 3, argument="beta").dtype == np.float64
    assert check_class_vector(np.ones((2, 3)), 3, argument="beta").shape == (2, 3)
    with raises_input_error("beta", r"expected one value per class \(C=3\), got 2"):
        check_class_vector([1, 2], 3, argument="beta")
    with raises_input_error("beta", "got a scalar"):
        check_class_vector(1.0, 3, argument="beta")
    with raises_input_error("beta", "NaN"):
        check_class_vector([1, np.nan, 2], 3, argument="beta")
    with raises_input_error("beta", "numbers"):
        check_class_vector(["a", "b", "c"], 3, argument="beta")
    with pytest.raises(ValueError, match="n_classes"):
        check_class_vector([1.0], 0, argument="beta")


def test_check_counts():
    counts = check_counts(ClassCounts([1.0, 2.0], [0, 1], [1, 0], [3, 2]))
    assert all(x.dtype == np.int64 for x in counts)
    assert check_counts(([0.5], [0], [0], [1]), integer=False).true_positives.dtype == np.float64
    with raises_input_error("counts", "four arrays"):
        check_counts(([1], [2], [3]))
    with raises_input_error(r"counts\.false_negatives", r"expected shape \(2,\)"):
        check_counts(([1, 2], [0, 1], [1], [3, 2]))
    with raises_input_error(r"c\.true_negatives", "negative"):
        check_counts(([1], [0], [1], [-1]), argument="c")
    with raises_input_error(r"counts\.true_positives", "non-integer"):
        check_counts(([0.5], [0], [0], [1]), integer=True)
    with raises_input_error(r"counts\.false_positives", "NaN"):
        check_counts(([1], [np.nan], [0], [1]), integer=False)
    with raises_input_error(r"counts\.true_positives", "C >= 1"):
        check_counts((5, 0, 0, 1))
    with raises_input_error(r"counts\.true_negatives", r"a count exceeds 2\*\*53"):
        check_counts(([1], [0], [1], [2 ** 60]))
    with raises_input_error("counts", r"a class's total TP \+ FP \+ FN \+ TN exceeds 2\*\*53"):
        check_counts(([2 ** 52], [2 ** 52], [1], [0]))
    assert check_counts(([2 ** 52], [2 ** 52], [0], [0])).true_positives.tolist() == [2 ** 52]


def test_integer_path_has_no_python_loop_over_samples():
    # Many integer samples must stay quick (bincount, not a per-sample loop).
    rng = np.random.default_rng(1)
    y = rng.integers(0, 10, 300_000)
    assert confusion_matrix(y, y).trace() == 300_000


# ---------------------------------------------------------------- integer labels counted without sorting

@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.uint64, np.int64])
def test_small_integer_labels_give_the_sorted_classes_and_counts(dtype):
    y_true = np.array([7, 3, 3, 9, 7, 0], dtype=dtype)
    y_pred = np.array([7, 7, 3, 3, 9, 0], dtype=dtype)
    classes, matrix = classes_and_matrix(y_true, y_pred)
    assert classes.tolist() == [0, 3, 7, 9] and classes.dtype == dtype
    expected = confusion_matrix(y_true.astype(object), y_pred.astype(object))  # the sorting path
    assert np.array_equal(matrix, expected) and matrix.dtype == np.int64


def test_negative_large_and_weighted_integer_labels_take_the_general_path():
    assert class_labels([-1, 2], [2, 2]).tolist() == [-1, 2]
    assert confusion_matrix([10 ** 12, 0], [0, 0]).tolist() == [[1, 0], [1, 0]]
    weighted = confusion_matrix([0, 2], [0, 0], sample_weight=[1.5, 0.0])  # class 2 has weight 0: still a class
    assert weighted.tolist() == [[1.5, 0.0], [0.0, 0.0]]


@pytest.mark.parametrize("late", [None, 40, -3, 10 ** 6])
def test_chunked_integer_counts_equal_the_sorting_path(monkeypatch, late):
    # Chunks of 8 labels: the grid grows chunk by chunk; a negative or far label in a late
    # chunk sends all the labels to the sorting path, with the same matrix.
    monkeypatch.setattr(label_counting, "_CHUNK", 8)
    rng = np.random.default_rng(3)
    y_true, y_pred = rng.integers(0, 3, 43), rng.integers(0, 5, 43)
    y_true[30:] += 4  # classes appear only in later chunks
    if late is not None:
        y_pred[-1] = late
    weights = rng.random(43)
    classes, matrix = classes_and_matrix(y_true, y_pred)
    expected_classes, expected = classes_and_matrix(y_true.astype(object), y_pred.astype(object))
    assert classes.tolist() == expected_classes.tolist() and np.array_equal(matrix, expected)
    weighted = confusion_matrix(y_true, y_pred, sample_weight=weights)
    assert np.allclose(weighted, confusion_matrix(y_true.astype(object), y_pred.astype(object), sample_weight=weights),
                       rtol=1e-15, atol=0)


def test_a_matrix_too_large_to_allocate_is_an_input_error():
    """200,000 distinct labels (sample ids by mistake) were a 298 GiB MemoryError from numpy."""
    with pytest.raises(InputError, match=r"200000 classes make a confusion matrix of 200000 x 200000 counts, 298.0 GiB"):
        confusion_matrix(np.arange(200_000), np.arange(200_000))
    with pytest.raises(InputError, match=r"20 x 3000 x 3000 counts"):
        confusion_matrix(np.tile(np.arange(3000), (20, 1)), np.tile(np.arange(3000), (20, 1)))
    assert confusion_matrix(np.arange(4000), np.arange(4000)).trace() == 4000
