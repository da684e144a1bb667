"""Multi-output labels as indicator rows (:func:`metricc.api.multioutput_indicators`)."""

import numpy as np
import pytest

import metricc as mc


def test_each_output_is_one_hot_in_its_block_of_columns():
    rows_true, rows_pred = mc.multioutput_indicators([["a", "b"], ["c", "c"]], [["a", "b"], ["c", "a"]])
    assert rows_true.tolist() == [[1, 0, 0, 0, 1, 0], [0, 0, 1, 0, 0, 1]]
    assert rows_pred.tolist() == [[1, 0, 0, 0, 1, 0], [0, 0, 1, 1, 0, 0]]
    assert (rows_true.sum(axis=1) == 2).all()  # one class per output


def test_a_row_matches_exactly_when_every_output_does():
    rng = np.random.default_rng(3)
    y_true = rng.integers(0, 3, (200, 2, 3))
    y_pred = np.where(rng.random(y_true.shape) < 0.85, y_true, rng.integers(0, 3, y_true.shape))
    rows_true, rows_pred = mc.multioutput_indicators(y_true, y_pred)
    ours = mc.evaluate("exact_match_ratio", y_true=rows_true, y_pred=rows_pred, multilabel=True)["exact_match_ratio"]
    assert ours == np.mean((y_true == y_pred).reshape(200, -1).all(axis=1))


@pytest.mark.parametrize("y_true, y_pred, labels, says", [
    ([0, 1], [0, 1], None, "y_true: expected several labels per sample"),
    ([[0, 1]], [[0, 1, 2]], None, "y_pred: expected shape (1, 2) like y_true"),
    ([[0, 1]], [[0, 5]], [0, 1], "y_pred: label 5 at index (0, 1) is not in labels"),
    ([[0, None]], [[0, 1]], None, "y_true: None at index (0, 1) is not a label"),
])
def test_bad_labels_are_refused_with_the_argument_and_position(y_true, y_pred, labels, says):
    with pytest.raises(mc.InputError) as caught:
        mc.multioutput_indicators(y_true, y_pred, labels=labels)
    assert says in str(caught.value)


def test_too_many_indicators_are_refused_before_allocating(monkeypatch):
    from metricc.api import multioutput

    monkeypatch.setattr(multioutput, "MAX_INDICATORS", 100)
    with pytest.raises(mc.InputError, match="above the limit of 100"):
        mc.multioutput_indicators(np.zeros((10, 6), int), np.ones((10, 6), int))
