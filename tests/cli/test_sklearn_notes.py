"""``metricc eval`` notes where its number differs from scikit-learn's function of the same name
(:mod:`metricc.cli.sklearn_notes`); each note is checked against scikit-learn itself:
a note where the numbers agree, or none where they differ, fails."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from metricc import cli

sklearn = pytest.importorskip("sklearn.metrics")


def run(capsys, *argv) -> tuple[dict, str]:
    code = cli.main([*map(str, argv), "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out), err


def labels(values) -> str:
    return json.dumps(list(values))


@pytest.mark.parametrize("y_true, y_pred", [([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 0]), ([0, 1, 1, 0, 1], [0, 1, 0, 0, 1])])
def test_hamming_loss_of_single_label_data(capsys, y_true, y_pred):
    got, err = run(capsys, "eval", "--y-true", labels(y_true), "--y-pred", labels(y_pred), "--metric", "hamming_loss")
    theirs = sklearn.hamming_loss(y_true, y_pred)
    differs = not np.isclose(got["hamming_loss"], theirs)
    assert differs == ("scikit-learn's hamming_loss" in err)  # three classes differ, two agree


def test_undefined_values_where_scikit_learn_prints_zero(capsys):
    y_true, y_pred = [0, 1, 2, 0], [0, 1, 1, 0]  # class 2 never predicted: its precision is 0/0
    got, err = run(capsys, "eval", "--y-true", labels(y_true), "--y-pred", labels(y_pred), "--metric", "precision:macro")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = sklearn.precision_score(y_true, y_pred, average="macro")
    assert np.isnan(got["precision:macro"])  # metricc's NaN, scikit-learn's 0 for that class
    assert np.isfinite(theirs) and "precision_score returns 0" in err
    _, err = run(capsys, "eval", "--y-true", labels(y_true), "--y-pred", labels(y_pred), "--metric", "precision:macro",
                 "--zero-division", "0")
    assert err == ""  # the same number as scikit-learn's: nothing to say


def test_mcc_undefined_is_zero_in_scikit_learn(capsys):
    y_true, y_pred = [0, 1, 0, 1], [1, 1, 1, 1]
    _, err = run(capsys, "eval", "--y-true", labels(y_true), "--y-pred", labels(y_pred), "--metric", "mcc")
    assert sklearn.matthews_corrcoef(y_true, y_pred) == 0.0 and "matthews_corrcoef returns 0.0" in err


def test_log_loss_of_a_zero_probability(capsys):
    y_true, scores = [0, 1], [[1.0, 0.0], [1.0, 0.0]]
    got, err = run(capsys, "eval", "--y-true", labels(y_true), "--scores", json.dumps(scores), "--metric", "log_loss")
    assert np.isfinite(sklearn.log_loss(y_true, scores)) and "clips probabilities" in err


def test_no_note_where_the_numbers_agree(capsys):
    y_true, y_pred = [0, 1, 2, 2, 1, 0, 1], [0, 2, 2, 1, 1, 0, 1]
    got, err = run(capsys, "eval", "--y-true", labels(y_true), "--y-pred", labels(y_pred), "--metric", "f1:macro",
                   "--metric", "mcc", "--metric", "balanced_accuracy", "--metric", "accuracy")
    assert err == ""
    assert got["f1:macro"] == pytest.approx(sklearn.f1_score(y_true, y_pred, average="macro"))
    assert got["mcc"] == pytest.approx(sklearn.matthews_corrcoef(y_true, y_pred))
