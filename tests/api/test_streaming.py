"""``metricc.api.streaming``: batches fed to a metric object give the value of all the data."""

from __future__ import annotations

import numpy as np
import pytest

import metricc as mc
from metricc.core.errors import InputError
from metricc.api.streaming import StreamingMetric


def _batches(n, size):
    return [slice(k, k + size) for k in range(0, n, size)]


def test_a_training_loop_of_batches_equals_evaluate_on_the_epoch():
    rng = np.random.default_rng(11)
    y_true, y_pred = rng.integers(0, 5, 1000), rng.integers(0, 5, 1000)
    f1 = StreamingMetric("f1", average="weighted")
    several = StreamingMetric(["accuracy", "cohen_kappa", "f_beta"], params={"beta": 2}, average="macro")
    for s in _batches(1000, 64):
        f1.update(y_true[s], y_pred[s])
        several.update(y_true[s], y_pred[s])
    assert f1.compute() == mc.evaluate("f1", y_true=y_true, y_pred=y_pred, average="weighted")["f1"]
    assert several.compute() == mc.evaluate(["accuracy", "cohen_kappa", "f_beta"], y_true=y_true, y_pred=y_pred,
                                            average="macro", params={"beta": 2})


def test_reset_starts_a_new_epoch_and_keeps_fixed_labels():
    metric = StreamingMetric("recall", labels=["a", "b", "c"], average="none")
    metric.update(["a", "a"], ["b", "a"])
    metric.reset().update(["c"], ["c"])
    np.testing.assert_array_equal(metric.compute(), [np.nan, np.nan, 1.0])
    assert np.isnan(metric.reset().compute()).all()  # no samples of any fixed class: undefined
    with pytest.raises(InputError, match="no data yet"):
        StreamingMetric("recall").compute()


def test_merge_adds_another_workers_batches():
    a = StreamingMetric("mcc").update([0, 1, 1], [0, 1, 0])
    b = StreamingMetric("mcc").update([2, 2], [2, 1])
    assert a.merge(b).compute() == mc.evaluate("mcc", y_true=[0, 1, 1, 2, 2], y_pred=[0, 1, 0, 2, 1])["mcc"]
    with pytest.raises(InputError, match="same metrics"):
        a.merge(StreamingMetric("f1"))


def test_curve_metrics_stream_scores():
    rng = np.random.default_rng(2)
    y, scores = rng.integers(0, 3, 200), rng.dirichlet(np.ones(3), 200)
    auc = StreamingMetric("roc_auc", labels=[0, 1, 2], average="weighted")
    for s in _batches(200, 30):
        auc.update(y[s], scores[s])
    assert auc.compute() == mc.evaluate("roc_auc", y_true=y, scores=scores, average="weighted")["roc_auc"]


def test_multilabel_batches():
    rng = np.random.default_rng(4)
    y_true, y_pred = rng.integers(0, 2, (90, 3)), rng.integers(0, 2, (90, 3))
    jaccard = StreamingMetric("jaccard", multilabel=True, average="micro")
    for s in _batches(90, 25):
        jaccard.update(y_true[s], y_pred[s])
    assert jaccard.compute() == mc.evaluate("jaccard", y_true=y_true, y_pred=y_pred, multilabel=True, average="micro")["jaccard"]


def test_what_cannot_stream_is_refused_up_front():
    with pytest.raises(InputError, match="score-level metrics"):
        StreamingMetric("log_loss")
    with pytest.raises(InputError, match="one StreamingMetric for each"):
        StreamingMetric(["roc_auc", "f1"], labels=[0, 1])
    with pytest.raises(InputError, match="score-column order"):
        StreamingMetric("average_precision")
    with pytest.raises(InputError, match="unknown metric 'f2'"):
        StreamingMetric("f2")
