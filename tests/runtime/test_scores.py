"""Curve- and score-level metrics: Wang et al. 2013 Section 3, scikit-learn, brute force, errors."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

from metricc.generated import CATALOG
from metricc.api import evaluate, probabilistic_confusion_matrix
from metricc.runtime import curves
from metricc.core.errors import InputError
from metricc.runtime import scores as scores_module
from metricc.runtime.scores import rank_pairs

WANG = yaml.safe_load((Path(__file__).parents[1] / "acceptance" / "papers" / "data" / "wang2013.yaml").read_text(encoding="utf-8"))
CLASSIFIERS = ("M1", "M2", "M3")
FAST = settings(max_examples=40, deadline=None)


def wang(metric_id: str, classifier: str, **kwargs) -> float:
    data = WANG["classifiers"][classifier]
    return float(evaluate(metric_id, y_true=data["y_true"], scores=data["scores"], **kwargs)[metric_id])


# ---------------------------------------------------------------- Wang et al. 2013, Section 3

@pytest.mark.parametrize("metric_id, printed", [("au1u", WANG["au1u"]), ("aunu", WANG["aunu"])])
def test_wang_section_3_auc_values_at_printed_precision(metric_id, printed):
    assert [round(wang(metric_id, c), 2) for c in CLASSIFIERS] == printed


def test_aunu_is_macro_roc_auc_and_aunp_weighted_roc_auc():
    for c in CLASSIFIERS:
        assert wang("aunu", c) == pytest.approx(wang("roc_auc", c, average="macro"), rel=1e-12)
        assert wang("aunp", c) == pytest.approx(wang("roc_auc", c, average="weighted"), rel=1e-12)


def test_wang_section_3_mse_ranks_m2_ahead_of_m3():
    assert wang("mean_squared_error", "M2") < wang("mean_squared_error", "M3")


@pytest.mark.parametrize("metric_id", ["mean_absolute_error", "log_loss"])
def test_wang_section_3_mae_and_log_loss_cannot_differentiate_m2_and_m3(metric_id):
    assert wang(metric_id, "M2") == pytest.approx(wang(metric_id, "M3"), rel=1e-12)
    assert wang(metric_id, "M1") != pytest.approx(wang(metric_id, "M2"), rel=1e-3)


def test_au1p_of_a_perfect_ranking_is_one_not_one_over_m():
    """Eq. 17 as printed divides by m(m - 1): a perfect ranking would score 1/m (errata)."""
    y = [0, 0, 1, 1, 2, 2, 2]
    scores = np.eye(3)[y] * 0.8 + 0.2 / 3
    assert float(evaluate("au1p", y_true=y, scores=scores)["au1p"]) == pytest.approx(1.0)
    assert float(evaluate("au1u", y_true=y, scores=scores)["au1u"]) == pytest.approx(1.0)


# ---------------------------------------------------------------- scikit-learn

@st.composite
def scored(draw, classes=st.integers(2, 4), probabilities=True):
    """Labels 0..C-1 (at least two classes present) and scores with many ties."""
    c = draw(classes)
    n = draw(st.integers(4, 14))
    y = draw(st.lists(st.integers(0, c - 1), min_size=n, max_size=n).filter(lambda v: len(set(v)) >= 2))
    weights = np.array(draw(st.lists(st.lists(st.integers(0, 4), min_size=c, max_size=c), min_size=n, max_size=n)), dtype=float)
    weights[weights.sum(axis=1) == 0, 0] = 1.0
    if not probabilities:
        return np.array(y), weights
    return np.array(y), weights / weights.sum(axis=1, keepdims=True)


def value(metric_id, y, scores, **kwargs):
    return float(CATALOG[metric_id].function(y, scores, **kwargs))


@FAST
@given(data=scored(classes=st.just(2), probabilities=False))
def test_binary_roc_auc_and_average_precision_equal_sklearn(data):
    y, scores = data
    assert value("roc_auc", y, scores[:, 1], average="binary") == pytest.approx(skm.roc_auc_score(y, scores[:, 1]), rel=1e-12)
    assert value("average_precision", y, scores[:, 1], average="binary") == pytest.approx(
        skm.average_precision_score(y, scores[:, 1]), rel=1e-12)


@FAST
@given(data=scored(classes=st.integers(3, 4)))
def test_one_vs_rest_and_one_vs_one_auc_equal_sklearn(data):
    y, scores = data
    if len(set(y.tolist())) < scores.shape[1]:  # an absent class: its AUC is undefined (P = 0)
        assert math.isnan(value("roc_auc", y, scores, average="macro"))
        assert math.isnan(value("au1u", y, scores))
        return
    for average in ("macro", "weighted"):
        expected = skm.roc_auc_score(y, scores, multi_class="ovr", average=average)
        assert value("roc_auc", y, scores, average=average) == pytest.approx(expected, rel=1e-12)
    assert value("au1u", y, scores) == pytest.approx(skm.roc_auc_score(y, scores, multi_class="ovo"), rel=1e-12)


@FAST
@given(data=scored(classes=st.integers(2, 4), probabilities=False))
def test_average_precision_and_micro_auc_equal_sklearn_on_indicators(data):
    y, scores = data
    truth = np.eye(scores.shape[1])[y]
    present = truth.sum(axis=0) > 0
    per_class = CATALOG["average_precision"].function(y, scores, average="none")
    expected = skm.average_precision_score(truth[:, present], scores[:, present], average=None)
    np.testing.assert_allclose(per_class[present], expected, rtol=1e-12)
    assert value("average_precision", y, scores, average="micro") == pytest.approx(
        skm.average_precision_score(truth, scores, average="micro"), rel=1e-12)
    assert value("roc_auc", y, scores, average="micro") == pytest.approx(skm.roc_auc_score(truth, scores, average="micro"), rel=1e-12)


@FAST
@given(data=scored())
def test_log_loss_and_brier_equal_sklearn(data):
    y, scores = data
    labels = list(range(scores.shape[1]))
    true_probability = scores[np.arange(y.size), y]
    if np.all(true_probability > 0):
        assert value("log_loss", y, scores) == pytest.approx(skm.log_loss(y, scores, labels=labels), rel=1e-9)
    else:  # no clipping: a zero probability of the true class costs +inf (sklearn clips to eps)
        assert value("log_loss", y, scores) == math.inf
    if scores.shape[1] > 2:  # for two columns sklearn returns the binary score (see differences.md)
        assert value("brier_score", y, scores) == pytest.approx(skm.brier_score_loss(y, scores, labels=labels), rel=1e-12)
    else:
        binary = skm.brier_score_loss(y, scores[:, 1])
        assert value("mean_squared_error", y, scores) == pytest.approx(binary, rel=1e-12, abs=1e-15)
        assert value("brier_score", y, scores) == pytest.approx(2 * binary, rel=1e-12, abs=1e-15)


# ---------------------------------------------------------------- curves against brute force

def brute_force_curve(truth, score):
    """(TP, FP, FN, TN) at the origin and at each distinct threshold, highest first, by a loop."""
    truth = np.asarray(truth, dtype=bool)
    points = [(0, 0, int(truth.sum()), int((~truth).sum()))]
    for threshold in sorted(set(np.asarray(score).tolist()), reverse=True):
        predicted = np.asarray(score) >= threshold
        points.append((int(np.sum(predicted & truth)), int(np.sum(predicted & ~truth)),
                       int(np.sum(~predicted & truth)), int(np.sum(~predicted & ~truth))))
    return np.array(points, dtype=float).T


@FAST
@given(truth=st.lists(st.integers(0, 1), min_size=1, max_size=30), data=st.data())
def test_threshold_curve_equals_brute_force(truth, data):
    score = data.draw(st.lists(st.sampled_from([-1.5, 0.0, 0.25, 0.5, 2.0]), min_size=len(truth), max_size=len(truth)))
    curve = curves.threshold_curve(truth, score)
    np.testing.assert_array_equal(np.array(curve[:4]), brute_force_curve(truth, score))
    assert curve.valid.all() and curve.valid.size == len(set(score))


def test_padded_curves_only_sum_real_thresholds():
    y = [0, 0, 0, 1, 1, 2]
    scores = [[0.5, 0.5, 0.0], [0.4, 0.3, 0.3], [0.2, 0.5, 0.3], [0.1, 0.8, 0.1], [0.5, 0.5, 0.0], [0.3, 0.3, 0.4]]
    per_class, pooled = curves.score_curves(y, scores)
    assert per_class.valid.sum(axis=1).tolist() == [len(set(np.array(scores)[:, k])) for k in range(3)]
    assert pooled.tp.shape[0] == 1 and pooled.positives.tolist() == [6.0]
    np.testing.assert_allclose(CATALOG["roc_auc"].function(y, scores, average="none"),
                               [skm.roc_auc_score(np.array(y) == k, np.array(scores)[:, k]) for k in range(3)], rtol=1e-12)


def test_stacked_curves_are_each_column_s_threshold_curve_padded_by_its_last_point():
    rng = np.random.default_rng(31)
    truth, values = np.eye(4)[rng.integers(0, 4, 50)], rng.integers(0, 3, size=(50, 4)) / 2
    values[:, 2] = rng.random(50)  # the longest curve; the others padded
    per_class, pooled = curves.ScoreCurves(truth, values)
    for k in range(4):
        one = curves.threshold_curve(truth[:, k], values[:, k])
        size = one.valid.size
        for stacked, alone in zip(per_class[:4], one[:4]):
            assert np.array_equal(stacked[k, :size + 1], alone) and np.all(stacked[k, size + 1:] == alone[-1])
        assert per_class.valid[k].tolist() == [True] * size + [False] * (per_class.valid.shape[1] - size)
    flat = curves.threshold_curve(truth.ravel(), values.ravel())
    assert all(np.array_equal(a[0], b) for a, b in zip(pooled[:4], flat[:4]))


# ---------------------------------------------------------------- input errors

def raises(argument):
    return pytest.raises(InputError, match=rf"^{argument}: ")


def test_scores_must_be_probabilities_where_required():
    with raises("scores"):
        evaluate("log_loss", y_true=[0, 1], scores=[[0.5, 0.6], [0.2, 0.8]])
    with raises("scores"):
        evaluate("brier_score", y_true=[0, 1], scores=[1.2, -0.2])
    assert float(evaluate("roc_auc", y_true=[0, 1], scores=[-3.0, 7.5])["roc_auc"]) == 1.0  # rankings need no probabilities


@pytest.mark.parametrize("scores, message", [
    ([[0.5, 0.6], [0.2, 0.8]], "scores: each row must sum to 1 (within 1e-06); row 0 sums to 1.1"),
    ([[0.5, 0.5], [1.5, -0.5]], "scores: probabilities must lie in [0, 1]; row 1 holds 1.5"),
    ([[0.5, 0.5], [math.inf, 0.5]], "scores: contains NaN or infinity"),
])
def test_one_probability_check_for_score_metrics_and_probabilistic_matrices(scores, message):
    """log_loss (via curves.check_scores) and probabilistic_confusion_matrix say the same."""
    for call in (lambda: evaluate("log_loss", y_true=[0, 1], scores=scores),
                 lambda: probabilistic_confusion_matrix([0, 1], scores)):
        with pytest.raises(InputError) as info:
            call()
        assert str(info.value) == message


def test_probability_rows_may_miss_1_by_the_tolerance_only():
    close, far = [[0.5, 0.5 + 5e-7], [0.2, 0.8]], [[0.5, 0.5 + 2e-6], [0.2, 0.8]]
    assert float(evaluate("log_loss", y_true=[0, 1], scores=close)["log_loss"]) > 0
    assert probabilistic_confusion_matrix([0, 1], close)[0, 1] == pytest.approx(0.5 + 5e-7)
    with raises("scores"):
        evaluate("log_loss", y_true=[0, 1], scores=far)
    with raises("scores"):
        probabilistic_confusion_matrix([0, 1], far)
    assert probabilistic_confusion_matrix([0, 1], far, tolerance=1e-5)[0, 1] == pytest.approx(0.5 + 2e-6)


@pytest.mark.parametrize("row, bad", [(0, [1.0 + 2 ** -52, 0.0, 0.0]), (-1, [-0.0, 0.5, 0.5]), (-1, [np.nan, 0.5, 0.5]),
                                      (-1, [0.5, 0.5, 2e-6]), (-1, [1.5, -0.5, 0.0])])
def test_the_fast_probability_check_reads_every_block(row, bad):
    """A row the fast check cannot pass, first or last of several blocks, is left to the exact check."""
    values = np.full((scores_module._CHECK_BLOCK + 5, 3), 1 / 3)  # rows of 3: three blocks and a few rows
    assert scores_module.plainly_probabilities(values)
    values[row] = bad
    assert not scores_module.plainly_probabilities(values)


def test_probability_errors_locate_the_row_within_a_batch():
    batch = np.full((2, 3, 2), 0.5)
    batch[1, 2] = [0.7, 0.7]
    with pytest.raises(InputError, match=r"row 2 of batch \(1,\) sums to 1\.4"):
        probabilistic_confusion_matrix(np.zeros((2, 3), dtype=int), batch, kind="absolute")


def test_shape_nan_and_single_class_errors():
    with raises("y_true"):
        evaluate("roc_auc", y_true=[0, 1, 1], scores=[[0.5, 0.5], [0.2, 0.8]])
    with raises("scores"):
        evaluate("roc_auc", y_true=[0, 1], scores=[[[0.5, 0.5]], [[0.2, 0.8]]])
    with raises("scores"):
        evaluate("au1u", y_true=[0, 1], scores=[[math.nan, 0.5], [0.2, 0.8]])
    with raises("y_true"):
        evaluate("roc_auc", y_true=[1, 1], scores=[0.3, 0.8])
    with raises("labels"):
        evaluate("log_loss", y_true=["a", "b"], scores=[[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])


def test_evaluate_needs_scores_for_score_metrics_and_labels_for_the_rest():
    with raises("scores"):
        evaluate("roc_auc", y_true=[0, 1], y_pred=[0, 1])
    with raises("y_pred"):
        evaluate(["roc_auc", "accuracy"], y_true=[0, 1], scores=[0.2, 0.9])
    both = evaluate(["accuracy", "log_loss"], y_true=["no", "yes", "yes"], y_pred=["no", "yes", "no"], scores=[0.1, 0.9, 0.4])
    assert list(both) == ["accuracy", "log_loss"]
    assert both["log_loss"] == pytest.approx(skm.log_loss(["no", "yes", "yes"], [0.1, 0.9, 0.4]), rel=1e-12)


def test_labels_order_the_score_columns_and_pos_label_names_the_class():
    y = ["cat", "dog", "dog", "cat", "dog"]
    s = [0.2, 0.7, 0.4, 0.5, 0.9]
    binary = evaluate("roc_auc", y_true=y, scores=s, average="binary", pos_label="dog")["roc_auc"]
    assert binary == pytest.approx(skm.roc_auc_score(y, s), rel=1e-12)
    swapped = evaluate("roc_auc", y_true=y, scores=np.c_[s, 1 - np.array(s)], labels=["dog", "cat"], average="binary", pos_label="cat")
    assert swapped["roc_auc"] == pytest.approx(binary, rel=1e-12)


# ---------------------------------------------------------------- the language and the command

def parse_error(text: str, level: str) -> str:
    from metricc.compiler import errors
    from metricc.compiler.language import parse
    from metricc.compiler.errors import Location

    with pytest.raises(errors.FormulaError) as caught:
        parse.parse_formula(text, parse.Scope(level=level), lambda offset: Location("spec.yaml", 1, offset + 1), "$.formula")
    return caught.value.diagnostics[0].message


@pytest.mark.parametrize("text, level, message", [
    ("TP / P", "curve", "'TP' is a count at each threshold: write TP[i] (or TP[i - 1]) inside Sum(..., i)"),
    ("Sum(TP[i - 2], i)", "curve", "a threshold index is the index of the enclosing Sum, e.g. TP[i], or the previous point, TP[i - 1]"),
    ("Sum(Sum(TP[i], j), i)", "curve", "a curve formula sums once over the thresholds: Sum(expr, i), not nested"),
    ("Sum(P, i)", "curve", "the summed expression must use the threshold index 'i', e.g. TP[i]"),
    ("Sum(Sum(S[k, s], k), s)", "score", "'S' takes a sample index (s, u, v) and a class index, e.g. S[s, k]"),
    ("Y / n", "score", "'Y' needs a sample and a class index, e.g. Y[s, k]"),
    ("Sum(Sum(S[s, k], k), s)", "matrix", "unknown indexed name 'S'"),
])
def test_curve_and_score_formula_errors(text, level, message):
    assert parse_error(text, level).startswith(message)


def test_eval_command_with_a_score_file(capsys, tmp_path):
    from metricc import cli

    (tmp_path / "y.txt").write_text("cat\ndog\nbird\ncat\n", encoding="utf-8")
    (tmp_path / "s.csv").write_text("0.2,0.7,0.1\n0.1,0.1,0.8\n0.6,0.2,0.2\n0.3,0.4,0.3\n", encoding="utf-8")
    assert cli.main(["eval", "--y-true", str(tmp_path / "y.txt"), "--scores", str(tmp_path / "s.csv"),
                     "--metric", "au1u", "--metric", "log_loss", "--format", "json"]) == 0
    values = yaml.safe_load(capsys.readouterr().out)
    y, s = ["cat", "dog", "bird", "cat"], np.loadtxt(tmp_path / "s.csv", delimiter=",")
    assert values["au1u"] == pytest.approx(skm.roc_auc_score(y, s, multi_class="ovo"), rel=1e-12)
    assert values["log_loss"] == pytest.approx(skm.log_loss(y, s), rel=1e-12)
    assert cli.main(["eval", "--scores", str(tmp_path / "s.csv"), "--metric", "roc_auc"]) == 2
    assert "--y-true" in capsys.readouterr().err


# ---------------------------------------------------------------- pairwise AUC by ranking

def _rank_pairs_by_broadcasting(truth, scores):
    """The definition, O(n^2 C^2): every pair of samples for every pair of classes."""
    step = np.heaviside(scores[:, None, :] - scores[None, :, :], 0.5)  # (s, u, j)
    return np.einsum("sj,uk,suj->jk", truth, truth, step)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(2, 5), st.data())
def test_rank_pairs_is_the_pairwise_definition(n_classes, data):
    n = data.draw(st.integers(1, 30))
    codes = np.array(data.draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n)))
    scores = np.array(data.draw(st.lists(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=n_classes,
                                                  max_size=n_classes), min_size=n, max_size=n)))
    truth = np.eye(n_classes)[codes]
    assert np.array_equal(rank_pairs(truth, scores), _rank_pairs_by_broadcasting(truth, scores))


def test_au1u_is_sklearn_ovo_without_quadratic_memory():
    rng = np.random.default_rng(7)
    n, n_classes = 20_000, 4  # broadcast over pairs of samples: 25 GiB
    y = rng.integers(0, n_classes, n)
    scores = rng.random((n, n_classes)).round(2)  # ties
    scores /= scores.sum(axis=1, keepdims=True)
    values = evaluate(["au1u", "au1p"], y_true=y, scores=scores)
    assert values["au1u"] == pytest.approx(skm.roc_auc_score(y, scores, multi_class="ovo"), abs=1e-12)
    assert 0 <= values["au1p"] <= 1


def test_macro_roc_auc_does_not_build_the_pooled_curve():
    curves_of = curves.score_curves([0, 1, 2, 1], np.eye(3)[[0, 1, 2, 2]])
    macro = CATALOG["roc_auc"].function([0, 1, 2, 1], np.eye(3)[[0, 1, 2, 2]], average="macro")
    assert curves_of._pooled is None and 0 < macro <= 1
    per_class, pooled = curves_of  # unpacking reads (builds) the pooled curve
    assert pooled.tp.shape[0] == 1 and curves_of._pooled is pooled


# ---------------------------------------------------------------- one value per class (per_class: k)

# Classes 0, 1, 2 of four samples, decision values of either sign. The hinges max(0, 1 - y S[s, k])
# with y = +1 on the true class: class 0 (0.2, 1.2, 1.0, 2.5), class 1 (1.1, 0.5, 1.4, 1.5),
# class 2 (1.1, 1.3, 0.4, 1.0).
OVA_Y = [0, 1, 2, 1]
OVA_SCORES = [[0.8, 0.1, 0.1], [0.2, 0.5, 0.3], [0.0, 0.4, 0.6], [1.5, -0.5, 0.0]]


def test_one_vs_all_hinge_loss_by_hand():
    ova = CATALOG["one_vs_all_hinge_loss"].function
    np.testing.assert_allclose(ova(OVA_Y, OVA_SCORES), [4.9 / 4, 4.5 / 4, 3.8 / 4], rtol=1e-12)
    assert ova(OVA_Y, OVA_SCORES, average="macro") == pytest.approx(1.1, rel=1e-12)
    assert ova(OVA_Y, OVA_SCORES, average="weighted") == pytest.approx((4.9 + 2 * 4.5 + 3.8) / 16, rel=1e-12)  # support 1, 2, 1
    assert ova(OVA_Y, OVA_SCORES, average="binary", pos_label=2) == pytest.approx(0.95, rel=1e-12)
    assert ova(OVA_Y, OVA_SCORES, power=2)[0] == pytest.approx((0.04 + 1.44 + 1.0 + 6.25) / 4, rel=1e-12)


@FAST
@given(data=scored(classes=st.integers(2, 5), probabilities=False))
def test_one_vs_all_hinge_of_class_1_is_binary_hinge_loss(data):
    """Class 1 against the rest is the two-class hinge of column 1 (binary_hinge_loss)."""
    y, scores = data
    for power in (1, 2):
        assert value("one_vs_all_hinge_loss", y, scores, power=power, average="binary") == pytest.approx(
            value("binary_hinge_loss", y, scores, power=power), rel=1e-12)


def test_one_vs_all_hinge_loss_through_evaluate_is_labelled():
    names = np.array(["ant", "bee", "cat"])[OVA_Y]
    found = evaluate(["one_vs_all_hinge_loss", "one_vs_all_hinge_loss:macro"], y_true=names, scores=OVA_SCORES)
    assert found["one_vs_all_hinge_loss"].labels == ["ant", "bee", "cat"]
    assert found["one_vs_all_hinge_loss:macro"] == pytest.approx(1.1, rel=1e-12)
    assert evaluate("one_vs_all_hinge_loss", y_true=names, scores=OVA_SCORES, average="binary",
                    pos_label="cat")["one_vs_all_hinge_loss"] == pytest.approx(0.95, rel=1e-12)
    with pytest.raises(InputError, match="average: one_vs_all_hinge_loss does not support 'micro'"):
        evaluate("one_vs_all_hinge_loss", y_true=names, scores=OVA_SCORES, average="micro")
    with pytest.raises(InputError, match="with 3 classes name that class"):
        evaluate("one_vs_all_hinge_loss", y_true=names, scores=OVA_SCORES, average="binary")
    with pytest.raises(InputError, match="interval: delta does not apply to one_vs_all_hinge_loss"):
        evaluate("one_vs_all_hinge_loss", y_true=names, scores=OVA_SCORES, interval="delta")


def test_per_class_score_values_are_labelled_by_the_columns_when_a_class_is_absent():
    """y_true holds classes 0 and 1 of three score columns: the columns are the classes, also
    for the bootstrap, which fixes the labels before resampling."""
    y, scores = [0, 1, 1, 0], np.array(OVA_SCORES)
    found = evaluate("one_vs_all_hinge_loss", y_true=y, scores=scores)["one_vs_all_hinge_loss"]
    assert found.labels == [0, 1, 2] and found[2] == pytest.approx((1.1 + 1.3 + 1.6 + 1.0) / 4, rel=1e-12)
    interval = evaluate("one_vs_all_hinge_loss", y_true=y, scores=scores, interval="bootstrap", n_resamples=100,
                        random_state=0)["one_vs_all_hinge_loss"]
    assert interval.value.labels == [0, 1, 2] and np.all(interval.lower <= interval.upper)
