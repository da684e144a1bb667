"""scikit-learn's classification metrics of scores against the catalog, at 1e-12.

Random score matrices (seeded) with ties and absent classes; where scikit-learn's value and
metricc's differ by convention (clipping, a one-class data set), the test pins both.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from metricc.generated import CATALOG

skm = pytest.importorskip("sklearn.metrics")

RELATIVE = 1e-12


def ours(metric_id: str, y_true, scores, **kwargs) -> float:
    return float(CATALOG[metric_id].function(y_true, scores, **kwargs))


def close(actual: float, expected: float) -> None:
    assert actual == pytest.approx(expected, rel=RELATIVE, abs=1e-15), (actual, expected)


def _probabilities(rng, n: int, c: int, *, ties: bool) -> np.ndarray:
    """Rows on the simplex; with ``ties`` rows rounded to tenths, so equal scores are common."""
    if ties:
        raw = rng.integers(1, 6, size=(n, c)).astype(float)
        return raw / raw.sum(axis=1, keepdims=True)
    return rng.dirichlet(np.ones(c), size=n)


def _labelled(seed: int):
    """(y_true, probabilities) of 2 to 5 classes, every class present (scikit-learn infers
    the classes from y_true), some rows with ties."""
    rng = np.random.default_rng(seed)
    c = int(rng.integers(2, 6))
    n = int(rng.integers(c, 40))
    y = np.r_[np.arange(c), rng.integers(0, c, size=n - c)]
    rng.shuffle(y)
    return y, _probabilities(rng, n, c, ties=bool(seed % 2))


@pytest.mark.parametrize("seed", range(12))
def test_d2_log_loss_score(seed):
    y, proba = _labelled(seed)
    close(ours("d2_log_loss_score", y, proba), skm.d2_log_loss_score(y, proba))


@pytest.mark.parametrize("seed", range(12))
def test_d2_brier_score(seed):
    y, proba = _labelled(seed)
    close(ours("d2_brier_score", y, proba), skm.d2_brier_score(y, proba))


def test_d2_scores_of_a_positive_class_vector():
    """A 1-D vector is the probability of the second class, as in scikit-learn."""
    rng = np.random.default_rng(7)
    y, p = np.r_[0, 1, rng.integers(0, 2, 30)], rng.random(32)
    close(ours("d2_log_loss_score", y, p), skm.d2_log_loss_score(y, p))
    close(ours("d2_brier_score", y, p), skm.d2_brier_score(y, p))


def test_d2_scores_with_labels_absent_from_y_true():
    """``labels=`` names a class no sample has: its null probability is 0 and adds nothing."""
    y, proba = np.array([0, 2, 2, 0, 2]), _probabilities(np.random.default_rng(3), 5, 3, ties=False)
    close(ours("d2_log_loss_score", y, proba, labels=[0, 1, 2]),
          skm.d2_log_loss_score(y, proba, labels=[0, 1, 2]))
    close(ours("d2_brier_score", y, proba, labels=[0, 1, 2]), skm.d2_brier_score(y, proba, labels=[0, 1, 2]))


def test_d2_log_loss_of_one_class_is_undefined():
    """One class: the null log loss is 0. scikit-learn clips the null probability 1 to
    1 - eps and divides by a rounding residue (a huge negative number); metricc says undefined."""
    y, proba = np.zeros(4, dtype=int), np.array([[0.9, 0.1], [0.6, 0.4], [0.7, 0.3], [1.0, 0.0]])
    assert math.isnan(ours("d2_log_loss_score", y, proba, labels=[0, 1]))
    assert ours("d2_log_loss_score", y, proba, labels=[0, 1], zero_division=0.0) == 0.0
    assert skm.d2_log_loss_score(y, proba, labels=[0, 1]) < -1e12


@pytest.mark.parametrize("seed", range(8))
def test_log_loss_with_labels(seed):
    """``labels=`` naming a class no sample has (its column still counts in the rows)."""
    y, proba = _labelled(seed)
    y = np.where(y == 0, 1, y)  # class 0 absent from y_true
    labels = list(range(proba.shape[1]))
    close(ours("log_loss", y, proba, labels=labels), skm.log_loss(y, proba, labels=labels))


def test_log_loss_labels_order_differs():
    """metricc's ``labels=`` is the column order; scikit-learn sorts ``labels`` (with a warning)
    and reads the columns in sorted order whatever order they are given in."""
    y, proba = np.array(["b", "a", "a", "b"]), np.array([[0.9, 0.1], [0.2, 0.8], [0.3, 0.7], [0.6, 0.4]])
    close(ours("log_loss", y, proba, labels=["b", "a"]), skm.log_loss(y, proba[:, ::-1]))
    with pytest.warns(UserWarning, match="ordered lexicographically"):
        close(skm.log_loss(y, proba, labels=["b", "a"]), skm.log_loss(y, proba))
    assert ours("log_loss", y, proba, labels=["b", "a"]) != pytest.approx(skm.log_loss(y, proba))


@pytest.mark.parametrize("seed", range(8))
def test_brier_score_is_unhalved_brier_score_loss(seed):
    y, proba = _labelled(seed)
    close(ours("brier_score", y, proba), skm.brier_score_loss(y, proba, scale_by_half=False))


# ---------------------------------------------------------------- multi-label ranking metrics

RANKING = {
    "label_ranking_loss": skm.label_ranking_loss,
    "coverage_error": skm.coverage_error,
    "lrap": skm.label_ranking_average_precision_score,
}


def _multilabel(seed: int):
    """An indicator matrix (rows with no, some and every label) and scores with many ties."""
    rng = np.random.default_rng(seed)
    n, c = int(rng.integers(1, 25)), int(rng.integers(2, 7))
    truth = (rng.random((n, c)) < rng.choice([0.2, 0.5, 0.8])).astype(int)
    scores = np.round(rng.normal(size=(n, c)), 1 if seed % 2 else 6)
    return truth, scores


@pytest.mark.parametrize("metric_id", sorted(RANKING))
@pytest.mark.parametrize("seed", range(15))
def test_label_ranking_metrics(metric_id, seed):
    truth, scores = _multilabel(seed)
    close(ours(metric_id, truth, scores), RANKING[metric_id](truth, scores))


@pytest.mark.parametrize("metric_id", sorted(RANKING))
def test_label_ranking_edge_cases(metric_id):
    """Rows with no true label, every label true, and all scores tied."""
    truth = np.array([[0, 0, 0], [1, 1, 1], [1, 0, 1], [0, 1, 0]])
    scores = np.array([[0.5, 0.2, 0.1], [0.3, 0.3, 0.3], [0.4, 0.4, 0.4], [0.1, 0.9, 0.9]])
    close(ours(metric_id, truth, scores), RANKING[metric_id](truth, scores))
    close(ours(metric_id, truth[:1], scores[:1]), RANKING[metric_id](truth[:1], scores[:1]))


def test_label_ranking_metrics_through_evaluate():
    from metricc.api import evaluate
    from metricc.core.errors import InputError

    truth, scores = _multilabel(3)
    values = evaluate(sorted(RANKING), y_true=truth, scores=scores, multilabel=True)
    for metric_id, function in RANKING.items():
        close(float(values[metric_id]), function(truth, scores))
    with pytest.raises(InputError, match="multilabel=True"):
        evaluate("coverage_error", y_true=truth, scores=scores)
    with pytest.raises(InputError, match="indicator matrix of shape"):
        ours("coverage_error", truth.argmax(axis=1), scores)


# ---------------------------------------------------------------- top-k accuracy

@pytest.mark.parametrize("seed", range(12))
def test_top_k_accuracy(seed):
    """Three to six classes, scores rounded so that ties are common: scikit-learn ranks the
    later of two tied classes higher (a stable sort, reversed), and so does the spec."""
    rng = np.random.default_rng(seed)
    c = int(rng.integers(3, 7))
    n = int(rng.integers(c, 40))
    y = np.r_[np.arange(c), rng.integers(0, c, size=n - c)]
    scores = np.round(rng.random((n, c)), 1 if seed % 2 else 8)
    for k in range(1, c):
        close(ours("top_k_accuracy", y, scores, top=k), skm.top_k_accuracy_score(y, scores, k=k))


def test_top_k_accuracy_with_labels_and_default():
    """scikit-learn's default k is 2, as ``top``'s; ``labels=`` names a class no sample has."""
    rng = np.random.default_rng(5)
    y, scores = rng.choice([0, 2, 3], size=30), rng.random((30, 4))
    close(ours("top_k_accuracy", y, scores, labels=[0, 1, 2, 3]),
          skm.top_k_accuracy_score(y, scores, labels=[0, 1, 2, 3]))
    assert ours("top_k_accuracy", y, scores, labels=[0, 1, 2, 3], top=4) == 1.0


def test_top_k_accuracy_binary_vector_differs_at_the_threshold():
    """A 1-D vector is column 1 beside 1 - vector: top-1 predicts class 1 where the vector is
    at least 1/2 (a tie goes to the later class). scikit-learn predicts class 1 above 0.5
    for probabilities and above 0 for other scores; off those thresholds they agree."""
    y = np.array([0, 1, 1, 0])
    agreeing = np.array([0.3, 0.8, 0.4, 0.1])
    close(ours("top_k_accuracy", y, agreeing, top=1), skm.top_k_accuracy_score(y, agreeing, k=1))
    at_half = np.array([0.5, 0.8, 0.4, 0.1])
    assert ours("top_k_accuracy", y, at_half, top=1) == 0.5
    assert skm.top_k_accuracy_score(y, at_half, k=1) == 0.75
    margins = np.array([-0.5, 0.8, 0.4, -0.1])  # decision values: scikit-learn thresholds at 0
    assert skm.top_k_accuracy_score(y, margins, k=1) == 1.0
    assert ours("top_k_accuracy", y, margins, top=1) == 0.75


def test_top_k_accuracy_refuses_top_below_one():
    from metricc.core.errors import InputError

    with pytest.raises(InputError, match="top"):
        ours("top_k_accuracy", [0, 1, 2], np.eye(3), top=0)


# ---------------------------------------------------------------- hinge loss

@pytest.mark.parametrize("seed", range(12))
def test_hinge_loss_crammer_singer(seed):
    """Three to six classes, decision values of both signs, ties within rows now and then."""
    rng = np.random.default_rng(seed)
    c = int(rng.integers(3, 7))
    n = int(rng.integers(c, 40))
    y = np.r_[np.arange(c), rng.integers(0, c, size=n - c)]
    decision = np.round(rng.normal(scale=2.0, size=(n, c)), 1 if seed % 2 else 8)
    close(ours("hinge_loss", y, decision), skm.hinge_loss(y, decision))
    labels = list(range(c + 1))  # a class no sample has, with its own column
    wider = np.c_[decision, rng.normal(size=n)]
    close(ours("hinge_loss", y, wider, labels=labels), skm.hinge_loss(y, wider, labels=labels))


def test_hinge_loss_of_two_classes_differs():
    """For two classes scikit-learn takes one decision value d per sample, max(0, 1 - y d)
    with y = +-1; the spec's 1-D reading is the scores (1 - d, d), margin +-(2 d - 1)."""
    y, d = np.array([0, 1, 1, 0]), np.array([-0.5, 0.8, 0.2, 0.4])
    close(ours("hinge_loss", y, d), np.mean(np.maximum(0, 1 - np.where(y == 1, 2 * d - 1, 1 - 2 * d))))
    close(skm.hinge_loss(y, d), np.mean(np.maximum(0, 1 - np.where(y == 1, d, -d))))
    close(ours("binary_hinge_loss", y, d), skm.hinge_loss(y, d))  # scikit-learn's two-class form


@pytest.mark.parametrize("seed", range(8))
def test_binary_hinge_loss_is_scikit_learns_two_class_hinge(seed):
    """Decision values of both signs, 1-D or as column 1 of a score matrix; labels 0/1 and
    another pair of labels (the greater is the positive class, as scikit-learn's)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 60))
    y = np.r_[0, 1, rng.integers(0, 2, size=n - 2)]
    d = np.round(rng.normal(scale=1.5, size=n), 1 if seed % 2 else 8)
    close(ours("binary_hinge_loss", y, d), skm.hinge_loss(y, d))
    close(ours("binary_hinge_loss", y, np.c_[rng.normal(size=n), d]), skm.hinge_loss(y, d))
    named = np.where(y == 1, 7, 3)
    close(ours("binary_hinge_loss", named, d), skm.hinge_loss(named, d))


def test_top_k_accuracy_through_evaluate_with_params():
    from metricc.api import evaluate

    y, scores = [0, 1, 2], [[0.5, 0.3, 0.2], [0.1, 0.2, 0.7], [0.3, 0.3, 0.4]]
    assert float(evaluate("top_k_accuracy", y_true=y, scores=scores, params={"top": 1})["top_k_accuracy"]) == \
        skm.top_k_accuracy_score(y, scores, k=1)
    assert float(evaluate("top_k_accuracy", y_true=y, scores=scores)["top_k_accuracy"]) == \
        skm.top_k_accuracy_score(y, scores)


def _graded(seed: int):
    """(relevance, scores): grades 0 to 3 scaled by a non-whole factor, an all-zero row, scores
    rounded to tenths (ties within rows) or continuous."""
    rng = np.random.default_rng(seed)
    n, c = int(rng.integers(1, 12)), int(rng.integers(2, 7))
    relevance = rng.integers(0, 4, size=(n, c)) * rng.choice([1.0, 0.37, 2.5])
    relevance[rng.integers(0, n)] = 0.0
    scores = rng.random((n, c))
    return relevance, np.round(scores, 1) if seed % 2 else scores


@pytest.mark.parametrize("seed", range(24))
def test_dcg_and_ndcg_against_scikit_learn(seed):
    relevance, scores = _graded(seed)
    for k in (None, 1, 2, 3, 10):
        top = 0 if k is None else k
        for log_base in (2, 10, math.e):
            close(ours("dcg", relevance, scores, top=top, log_base=log_base),
                  skm.dcg_score(relevance, scores, k=k, log_base=log_base))
        close(ours("ndcg", relevance, scores, top=top), skm.ndcg_score(relevance, scores, k=k))


def test_dcg_and_ndcg_of_scikit_learns_docstrings():
    """The literal examples of scikit-learn's dcg_score and ndcg_score docstrings, to the
    digits printed there (its doctests compare floats to the precision written)."""
    true_relevance = [[10, 0, 0, 1, 5]]
    printed = [("dcg", [[.1, .2, .3, 4, 70]], {}, 9.49), ("dcg", [[.1, .2, .3, 4, 70]], {"top": 2}, 5.63),
               ("dcg", [[1, 0, 0, 0, 1]], {"top": 1}, 7.5),  # ties: (10 + 5) / 2
               ("ndcg", [[.1, .2, .3, 4, 70]], {}, 0.69), ("ndcg", [[.05, 1.1, 1., .5, .0]], {}, 0.49),
               ("ndcg", [[.05, 1.1, 1., .5, .0]], {"top": 4}, 0.35), ("ndcg", true_relevance, {"top": 4}, 1.0),
               ("ndcg", [[1, 0, 0, 0, 1]], {"top": 1}, 0.75)]  # ties: (10 / 10 + 5 / 10) / 2
    for metric_id, scores, params, value in printed:
        assert ours(metric_id, true_relevance, scores, **params) == pytest.approx(value, abs=1e-2), (metric_id, params)
    close(ours("dcg", true_relevance, [[1, 0, 0, 0, 1]], top=1), 7.5)


def test_ndcg_of_a_sample_without_relevant_labels_is_zero():
    """scikit-learn's convention: a sample whose ideal DCG is 0 scores 0 (not undefined)."""
    relevance, scores = [[0, 0, 0], [0, 2, 1]], [[.3, .2, .1], [.1, .9, .5]]
    assert ours("ndcg", relevance, scores) == 0.5
    close(ours("ndcg", relevance, scores), skm.ndcg_score(relevance, scores))


@pytest.mark.parametrize(("relevance", "message"), [
    ([[1, -1], [0, 2]], "y_true: relevance must be >= 0; row 0, column 1 holds -1"),
    ([[1, float("nan")], [0, 2]], "y_true: relevance must be finite; row 0, column 1 holds nan"),
    ([[1, 0], [float("inf"), 2]], "y_true: relevance must be finite; row 1, column 0 holds inf"),
    ([1, 0], "y_true: expected a relevance matrix of finite reals >= 0 of shape (2, 2)"),
])
def test_relevance_is_checked(relevance, message):
    from metricc.core.errors import InputError
    with pytest.raises(InputError, match=re.escape(message)):
        ours("ndcg", relevance, [[.5, .2], [.1, .3]])


def test_graded_truth_through_evaluate():
    import metricc as mc
    from metricc.core.errors import InputError
    values = mc.evaluate(["dcg_score", "ndcg_score"], y_true=[[10, 0, 0, 1, 5]], scores=[[.1, .2, .3, 4, 70]],
                         multilabel=True, params={"top": 2})
    close(values["dcg_score"], skm.dcg_score([[10, 0, 0, 1, 5]], [[.1, .2, .3, 4, 70]], k=2))
    with pytest.raises(InputError, match="pass multilabel=True"):
        mc.evaluate("ndcg", y_true=[[1, 0], [0, 2]], scores=[[.5, .2], [.1, .3]])
