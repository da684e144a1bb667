"""``evaluate(..., interval=...)``: every method on every input, and the delta method against the bootstrap."""

import math

import numpy as np
import pytest

import metricc as mc
from metricc.api.intervals import Interval
from metricc.api.uncertainty import methods_for

MATRIX = [[40, 10, 3], [5, 45, 7], [2, 6, 30]]
RNG = np.random.default_rng(5)
Y_TRUE = RNG.integers(0, 3, 400)
Y_PRED = np.where(RNG.random(400) < 0.7, Y_TRUE, RNG.integers(0, 3, 400))


def test_a_value_comes_with_its_interval_and_standard_error():
    found = mc.evaluate(["accuracy", "mcc", "f1:macro"], matrix=MATRIX, interval="wald")
    plain = mc.evaluate(["accuracy", "mcc", "f1:macro"], matrix=MATRIX)
    for key, interval in found.items():
        assert isinstance(interval, Interval) and interval.value == plain[key] and interval.scale == "identity"
        assert interval.lower < interval.value < interval.upper and interval.se > 0
        assert interval.upper - interval.value == pytest.approx(1.959963984540054 * interval.se, rel=1e-12)


def test_the_delta_interval_is_formed_on_a_scale_where_the_range_is_the_whole_line():
    """Issue 25/27: the Wald interval of recall 0.949 reached 1.0052; on the logit scale (Fisher
    z for [-1, 1]) the same standard error gives bounds inside the range, skewed away from 1."""
    matrix = [[8, 1], [2, 37]]  # recall of class 1: 37/39 = 0.949
    wald = mc.evaluate("recall:binary", matrix=matrix, interval="wald", pos_label=1)["recall:binary"]
    delta = mc.evaluate("recall:binary", matrix=matrix, interval="delta", pos_label=1)["recall:binary"]
    assert wald.upper > 1 and wald.scale == "identity"
    assert delta.scale == "logit" and delta.se == wald.se
    logit = math.log(delta.value / (1 - delta.value))
    half = 1.959963984540054 * delta.se / (delta.value * (1 - delta.value))
    assert (delta.lower, delta.upper) == pytest.approx((1 / (1 + math.exp(half - logit)),
                                                        1 / (1 + math.exp(-logit - half))), rel=1e-12)
    assert 0 < delta.lower < delta.value < delta.upper < 1
    mcc = mc.evaluate("mcc", matrix=MATRIX, interval="delta")["mcc"]
    z = math.atanh(mcc.value)
    spread = 1.959963984540054 * mcc.se / (1 - mcc.value ** 2)
    assert mcc.scale == "fisher_z" and (mcc.lower, mcc.upper) == pytest.approx((math.tanh(z - spread),
                                                                                  math.tanh(z + spread)), rel=1e-12)


@pytest.mark.parametrize("matrix", [[[48, 0], [0, 20]], [[48, 0], [5, 20]], [[0, 5], [0, 9]]])
def test_a_value_on_an_end_of_its_range_gets_an_interval_from_smoothed_counts(matrix):
    """48/48: the Wald interval collapses to [1, 1] with se 0; the delta interval takes its
    scale and standard error from the counts plus one half and holds the value."""
    for key in ("recall:none", "accuracy", "mcc", "f1:macro"):
        wald = mc.evaluate(key, matrix=matrix, interval="wald")[key]
        delta = mc.evaluate(key, matrix=matrix, interval="delta")[key]
        value, lower, upper, se = (np.asarray(part, dtype=float) for part in delta[:4])
        defined = ~np.isnan(value)
        assert np.all(((lower <= value) & (value <= upper) & (lower < upper) & (se > 0))[defined]), (key, delta)
        info = mc.catalog()[key.split(":")[0]]
        assert np.all(((info.range[0] <= lower) & (upper <= info.range[1]))[defined])
        stuck = np.asarray(wald.se, dtype=float) == 0
        assert np.all(np.asarray(wald.lower, dtype=float)[stuck & defined] == np.asarray(wald.upper, dtype=float)[stuck & defined])


def test_per_class_intervals_carry_the_class_labels():
    labels = np.array(["a", "b", "c"])
    found = mc.evaluate("recall", y_true=labels[Y_TRUE], y_pred=labels[Y_PRED], average="none", interval="wilson")
    assert found["recall"].lower.labels == ["a", "b", "c"] == found["recall"].se.labels
    assert (found["recall"].lower < found["recall"].value).all()


def test_a_wider_confidence_gives_a_wider_interval():
    narrow = mc.evaluate("mcc", matrix=MATRIX, interval="delta", confidence=0.8)["mcc"]
    wide = mc.evaluate("mcc", matrix=MATRIX, interval="delta", confidence=0.99)["mcc"]
    assert wide.lower < narrow.lower and wide.upper > narrow.upper and wide.se == narrow.se


def test_a_batch_of_matrices_gives_each_its_interval():
    batch = np.array([MATRIX, np.array(MATRIX).T])
    found = mc.evaluate(["mcc", "recall:macro"], matrix=batch, interval="delta")
    for b in range(2):
        single = mc.evaluate(["mcc", "recall:macro"], matrix=batch[b], interval="delta")
        for key in found:
            assert found[key].se[b] == pytest.approx(single[key].se, rel=1e-12)


@pytest.mark.parametrize("key", ["accuracy", "mcc", "cohen_kappa", "f1:macro", "f1:weighted", "recall:micro",
                                 "balanced_accuracy", "f1_of_macro_averages", "youden_j:macro", "g_mean:macro"])
def test_delta_agrees_with_the_bootstrap_on_large_counts(key):
    """At n = 10,000 the first-order approximation is close: standard errors within 5%."""
    matrix = np.array(MATRIX) * 70
    delta = mc.evaluate(key, matrix=matrix, interval="delta")[key]
    boot = mc.evaluate(key, matrix=matrix, interval="bootstrap", n_resamples=1500, random_state=3)[key]
    assert boot.se == pytest.approx(delta.se, rel=0.05)
    assert boot.lower == pytest.approx(delta.lower, abs=0.3 * delta.se)


@pytest.mark.parametrize("method", ["delta", "wilson", "clopper_pearson"])
def test_binary_is_the_positive_class_of_the_per_class_intervals(method):
    labels = np.array(["no", "yes"])
    y_true, y_pred = labels[(Y_TRUE > 0).astype(int)], labels[(Y_PRED > 0).astype(int)]
    binary = mc.evaluate("recall", y_true=y_true, y_pred=y_pred, average="binary", pos_label="no", interval=method)
    per_class = mc.evaluate("recall", y_true=y_true, y_pred=y_pred, average="none", interval=method)
    assert binary["recall"][:4] == pytest.approx(tuple(float(part[0]) for part in per_class["recall"][:4]), rel=1e-13)
    assert binary["recall"].scale == per_class["recall"].scale


def test_labels_and_their_matrix_give_the_same_intervals():
    from_labels = mc.evaluate(["mcc", "precision:none"], y_true=Y_TRUE, y_pred=Y_PRED, interval="delta")
    matrix = mc.confusion_matrix(Y_TRUE, Y_PRED)
    from_matrix = mc.evaluate(["mcc", "precision:none"], matrix=matrix, interval="delta")
    for key in from_labels:
        np.testing.assert_allclose(from_labels[key].se, from_matrix[key].se, rtol=1e-13)


def test_the_bootstrap_is_reproducible_with_a_seed():
    first = mc.evaluate(["mcc", "f1:none"], matrix=MATRIX, interval="bootstrap_bca", n_resamples=300, random_state=4)
    again = mc.evaluate(["mcc", "f1:none"], matrix=MATRIX, interval="bootstrap_bca", n_resamples=300, random_state=4)
    assert first["mcc"] == again["mcc"]
    np.testing.assert_array_equal(np.asarray(first["f1:none"].lower), np.asarray(again["f1:none"].lower))


def test_the_bootstrap_covers_metrics_without_a_gradient():
    found = mc.evaluate(["cen", "overlap_coefficient:macro"], matrix=MATRIX, interval="bootstrap",
                        n_resamples=300, random_state=0)
    for interval in found.values():
        assert interval.lower <= interval.value <= interval.upper


def test_scores_and_multilabel_data_are_resampled_by_instance():
    scores = np.clip(np.eye(3)[Y_PRED[:120]] * 0.6 + RNG.random((120, 3)) * 0.4, 0, None)
    scores /= scores.sum(axis=1, keepdims=True)
    found = mc.evaluate("roc_auc:macro", y_true=Y_TRUE[:120], scores=scores, interval="bootstrap",
                        n_resamples=100, random_state=0)["roc_auc:macro"]
    assert found.lower < found.value < found.upper
    indicators_true, indicators_pred = RNG.integers(0, 2, (80, 3)), RNG.integers(0, 2, (80, 3))
    found = mc.evaluate("f1:samples", y_true=indicators_true, y_pred=indicators_pred, multilabel=True,
                        interval="bootstrap", n_resamples=100, random_state=0)["f1:samples"]
    assert found.lower < found.value < found.upper


@pytest.mark.parametrize("key, method, says", [
    ("mcc", "wilson", "wilson does not apply to mcc: not a proportion of counts; methods for it: delta, wald, bootstrap"),
    ("recall:macro", "clopper_pearson", "a proportion per class, binary or micro only"),
    ("no_information_rate", "delta", "not differentiable in the counts (a maximum over an index of the data)"),
    ("fpr:micro", "wilson", "a proportion per class, binary or micro only"),
    ("mcc", "jackknife", "expected one of delta, wald, wilson"),
])
def test_a_method_that_does_not_apply_is_refused_with_those_that_do(key, method, says):
    with pytest.raises(mc.InputError, match="interval") as caught:
        mc.evaluate(key, matrix=MATRIX, interval=method)
    assert says in str(caught.value)


def test_inputs_the_method_cannot_use_are_refused():
    counts = mc.counts_from_matrix(MATRIX)
    assert mc.evaluate("recall", counts=counts, average="none", interval="delta")["recall"].se.shape == (3,)
    with pytest.raises(mc.InputError, match="needs a confusion matrix"):
        mc.evaluate("recall", counts=counts, average="macro", interval="delta")
    with pytest.raises(mc.InputError, match="per-class counts alone"):
        mc.evaluate("recall", counts=counts, average="macro", interval="bootstrap")
    with pytest.raises(mc.InputError, match="confidence"):
        mc.evaluate("mcc", matrix=MATRIX, interval="delta", confidence=95)


def test_every_metric_of_the_catalog_has_an_interval_method():
    for info in mc.catalog().values():
        for mode in info.averages or (None,):
            assert "bootstrap" in methods_for(info, mode)
            if info.gradient is not None and mode != "samples":
                assert methods_for(info, mode)[0] == "delta"


def test_scores_beside_labels_keep_the_count_methods_for_label_metrics():
    scores = np.eye(3)[Y_PRED] * 0.5 + 0.5 / 3
    found = mc.evaluate(["f1:macro", "roc_auc:macro"], y_true=Y_TRUE, y_pred=Y_PRED, scores=scores,
                        interval="bootstrap", n_resamples=100, random_state=0)
    assert all(i.lower <= i.value <= i.upper for i in found.values())
    assert mc.evaluate("f1:macro", y_true=Y_TRUE, y_pred=Y_PRED, scores=scores, interval="delta")["f1:macro"].se > 0
    with pytest.raises(mc.InputError, match="delta does not apply to roc_auc:macro"):
        mc.evaluate("roc_auc:macro", y_true=Y_TRUE, y_pred=Y_PRED, scores=scores, interval="delta")


def test_several_metrics_and_one_method_apply_it_where_it_applies():
    """Issue 25: one metric the method does not fit no longer fails the whole request; it keeps
    its value, its bounds are NaN and ``note`` says why and which methods fit it."""
    scores = np.eye(3)[Y_PRED] * 0.5 + 0.5 / 3
    found = mc.evaluate(["f1:macro", "roc_auc:macro"], y_true=Y_TRUE, y_pred=Y_PRED, scores=scores, interval="delta")
    assert found["f1:macro"].se > 0 and found["f1:macro"].note == ""
    auc = found["roc_auc:macro"]
    assert auc.value == mc.evaluate("roc_auc:macro", y_true=Y_TRUE, scores=scores)["roc_auc:macro"]
    assert math.isnan(auc.lower) and math.isnan(auc.upper) and math.isnan(auc.se)
    assert auc.note.startswith("delta does not apply to roc_auc:macro") and "bootstrap" in auc.note
    mixed = mc.evaluate(["accuracy", "recall:none", "mcc"], matrix=MATRIX, interval="wilson")
    assert mixed["accuracy"].scale == "score" and mixed["recall:none"].lower.labels == [0, 1, 2]
    assert "wilson does not apply to mcc" in mixed["mcc"].note


def test_a_probabilistic_matrix_takes_the_bootstrap_only():
    scores = np.eye(3)[Y_PRED[:100]] * 0.5 + 0.5 / 3
    with pytest.raises(mc.InputError, match="the bootstrap applies"):
        mc.evaluate("mcc", y_true=Y_TRUE[:100], scores=scores, probabilistic="relative", interval="delta")
    found = mc.evaluate("mcc", y_true=Y_TRUE[:100], scores=scores, probabilistic="relative", interval="bootstrap",
                        n_resamples=100, random_state=0)["mcc"]
    assert found.lower <= found.value <= found.upper


def _inputs_for(info) -> dict:
    """Small data each metric takes: a matrix, labels with scores, or multi-label rows."""
    rng = np.random.default_rng(11)
    if info.indicator_truth:
        return {"y_true": rng.integers(0, 2, (40, 3)), "scores": rng.random((40, 3)), "multilabel": True}
    if info.per_instance or info.default_average == "samples":
        return {"y_true": rng.integers(0, 2, (40, 3)), "y_pred": rng.integers(0, 2, (40, 3)), "multilabel": True}
    if info.level in ("score", "curve"):
        scores = rng.dirichlet([1, 1, 1], 60)
        return {"y_true": rng.integers(0, 3, 60), "scores": scores}
    return {"matrix": MATRIX}


def test_the_bootstrap_runs_for_every_metric_of_the_catalog():
    """Not only offered (the test above) but computed, on the input each metric takes."""
    for info in mc.catalog().values():
        metric_id = info.id
        mode = None if not info.averages else "macro" if "macro" in info.averages else info.default_average
        by_instance = info.per_instance or info.default_average == "samples"
        kwargs = {"average": mode} if mode and info.level != "matrix" and not by_instance else {}
        found = mc.evaluate(metric_id, **_inputs_for(info), **kwargs, interval="bootstrap", n_resamples=100,
                            random_state=0)[metric_id]
        assert np.all((found.lower <= found.value) | np.isnan(found.value)), metric_id
