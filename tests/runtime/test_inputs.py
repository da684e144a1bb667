"""Tests of :mod:`metricc.runtime.inputs`: containers read by one set of rules (issue 25).

Reproducers: score columns of a DataFrame are matched by name, not position (defect 1);
labels shaped (n, 1) are one label per sample (defect 2); binary averaging of labels that
are not numbers needs ``pos_label`` (defect 4); JSON-free runtime refusals (datetime64).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metricc.api import evaluate
from metricc.runtime import inputs
from metricc.core.errors import InputError

Y = np.array(["b", "a", "c", "b", "a", "c", "b", "c"])
PROBA = np.random.default_rng(5).dirichlet([1, 1, 1], size=len(Y))  # columns a, b, c (sorted)


def raises(argument: str, fragment: str):
    return pytest.raises(InputError, match=f"^{argument}: .*{fragment}")


def test_named_score_columns_are_matched_by_name():
    """Defect 1: pd.DataFrame(proba, columns=model.classes_) in any order gives the sorted-order value."""
    expected = evaluate(["roc_auc", "log_loss"], y_true=Y, scores=PROBA, average="macro")
    for order in (["c", "a", "b"], ["b", "c", "a"]):
        frame = pd.DataFrame(PROBA, columns=["a", "b", "c"])[order]
        got = evaluate(["roc_auc", "log_loss"], y_true=Y, scores=frame, average="macro")
        assert got["roc_auc"] == pytest.approx(expected["roc_auc"], abs=1e-12)
        assert got["log_loss"] == pytest.approx(expected["log_loss"], abs=1e-12)
        with_labels = evaluate("roc_auc", y_true=Y, scores=frame, labels=["a", "b", "c"], average="macro")
        assert with_labels["roc_auc"] == pytest.approx(expected["roc_auc"], abs=1e-12)


def test_named_columns_supply_classes_absent_from_y_true():
    frame = pd.DataFrame(PROBA, columns=["a", "b", "c"])[["c", "b", "a"]]
    values = evaluate("roc_auc", y_true=Y[Y != "c"], scores=frame[Y != "c"], average="none")["roc_auc"]
    assert values.labels == ["a", "b", "c"]  # the columns are the classes, sorted


def test_default_column_names_are_positions():
    """pandas' RangeIndex 0..C-1 numbers positions: no names, the columns are the sorted classes."""
    frame = pd.DataFrame(PROBA)
    assert inputs.column_names(frame) is None
    assert evaluate("roc_auc", y_true=Y, scores=frame, average="macro")["roc_auc"] == pytest.approx(
        evaluate("roc_auc", y_true=Y, scores=PROBA, average="macro")["roc_auc"])


def test_named_columns_that_are_not_the_classes_are_refused():
    frame = pd.DataFrame(PROBA, columns=["a", "b", "x"])
    with raises("scores", "no column for the class 'c'"):
        evaluate("roc_auc", y_true=Y, scores=frame, labels=["a", "b", "c"], average="macro")
    with raises("scores", "named twice"):
        evaluate("roc_auc", y_true=Y, scores=pd.DataFrame(PROBA, columns=["a", "a", "c"]), average="macro")


def test_numeric_labels_match_text_column_names():
    """A CSV header read as text names the integer classes."""
    row = np.array([[2.0, 0.0, 1.0]])  # each column holds its class
    assert inputs.in_class_order(row, ["2", "0", "1"], [0, 1, 2]).tolist() == [[0.0, 1.0, 2.0]]


@pytest.mark.parametrize("shape", ["numpy", "list", "frame", "categorical-frame"])
def test_labels_of_one_column_are_one_label_per_sample(shape):
    """Defect 2: y.reshape(-1, 1) and df[["label"]] are n labels, not n batches of one sample."""
    y_true, y_pred = np.array([0, 1, 2, 2, 1, 0]), np.array([0, 2, 2, 2, 1, 1])
    wrap = {"numpy": lambda y: y[:, None], "list": lambda y: [[v] for v in y.tolist()],
            "frame": lambda y: pd.DataFrame({"label": y}),
            "categorical-frame": lambda y: pd.DataFrame({"label": pd.Categorical(y)})}[shape]
    got = evaluate(["accuracy", "f1"], y_true=wrap(y_true), y_pred=wrap(y_pred), average="macro")
    expected = evaluate(["accuracy", "f1"], y_true=y_true, y_pred=y_pred, average="macro")
    assert np.ndim(got["f1"]) == 0
    assert got == pytest.approx(expected)


def test_a_table_of_several_columns_is_not_a_label_vector():
    with raises("y_true", "a table of 2 columns"):
        evaluate("accuracy", y_true=pd.DataFrame({"a": [0, 1], "b": [1, 0]}), y_pred=[0, 1])


def test_torch_tensors_are_read_as_numpy():
    torch = pytest.importorskip("torch")
    y = torch.tensor([0, 1, 1, 0])
    scores = torch.tensor([0.1, 0.8, 0.6, 0.3], requires_grad=True)
    assert evaluate("roc_auc", y_true=y, scores=scores)["roc_auc"] == 1.0
    assert evaluate("accuracy", y_true=y.reshape(-1, 1), y_pred=y)["accuracy"] == 1.0


def test_binary_average_of_named_classes_needs_pos_label():
    """Defect 4: the second sorted label is no answer a reader can see; scikit-learn refuses too."""
    y_true, y_pred = ["benign", "malignant", "malignant"], ["benign", "benign", "malignant"]
    with raises("pos_label", "are not numbers: name the positive class"):
        evaluate("f1", y_true=y_true, y_pred=y_pred, average="binary")
    with raises("pos_label", "are not numbers"):
        evaluate("g_mean", y_true=y_true, y_pred=y_pred)  # binary by default
    with raises("pos_label", "are not numbers"):
        evaluate("roc_auc", y_true=y_true, scores=[0.2, 0.9, 0.4], average="binary")
    assert evaluate("recall", y_true=y_true, y_pred=y_pred, average="binary",
                    pos_label="malignant")["recall"] == 0.5
    assert evaluate("recall", y_true=[0, 1, 1], y_pred=[0, 0, 1], average="binary")["recall"] == 0.5  # numbers


def test_datetime_labels_are_refused():
    dates = np.array(["2024-01-01", "2024-01-02"], dtype="datetime64[D]")
    with raises("y_true", "dates and durations are not classes"):
        evaluate("accuracy", y_true=dates, y_pred=dates)
    with raises("y_true", "dates and durations are not classes"):
        evaluate("accuracy", y_true=pd.Series(pd.to_datetime(["2024-01-01", "2024-01-02"])), y_pred=[0, 1])


def test_multilabel_frames_are_matched_by_column_name():
    truth = pd.DataFrame({"x": [1, 0, 1, 0], "y": [0, 1, 1, 0], "z": [1, 1, 0, 0]})
    scores = np.random.default_rng(1).random((4, 3))
    frame = pd.DataFrame(scores, columns=["x", "y", "z"])
    expected = evaluate("lrap", y_true=truth.to_numpy(), scores=scores, multilabel=True)["lrap"]
    got = evaluate("lrap", y_true=truth[["z", "x", "y"]], scores=frame[["y", "z", "x"]], multilabel=True)["lrap"]
    assert got == pytest.approx(expected, abs=1e-12)
    per_class = evaluate("roc_auc", y_true=truth, scores=frame[["z", "y", "x"]], multilabel=True,
                         average="none")["roc_auc"]
    assert per_class.labels == ["x", "y", "z"]


def test_text_column_names_name_numeric_classes():
    """pd.read_csv reads a header 0,1,2 as texts: they name the integer classes of y_true."""
    y = np.array([0, 2, 1, 1, 0, 2, 2, 1])
    frame = pd.DataFrame(PROBA, columns=["0", "1", "2"])[["2", "0", "1"]]
    got = evaluate("roc_auc", y_true=y, scores=frame, average="none")["roc_auc"]
    assert got.labels == [0, 1, 2]
    assert got.tolist() == pytest.approx(evaluate("roc_auc", y_true=y, scores=PROBA, average="none")["roc_auc"].tolist())
