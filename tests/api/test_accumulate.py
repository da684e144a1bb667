"""``metricc.api.accumulate`` and ``accumulate_curves``: counts added chunk by chunk equal
the counts of all the data, in any order and however the data are split or merged."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import metricc as mc
from metricc.generated import CATALOG
from metricc.api.accumulate import ConfusionAccumulator, MultilabelAccumulator
from metricc.api.accumulate_curves import ThresholdAccumulator
from metricc.core.errors import InputError

LABEL_METRICS = [i.id for i in CATALOG.values() if i.level in ("class", "aggregate", "matrix") and not i.per_instance
                 and "samples" != i.default_average]
CURVE_METRICS = [i.id for i in CATALOG.values() if i.level == "curve"]


def _split(n, cuts):
    edges = sorted({min(max(c, 0), n) for c in cuts} | {0, n})
    return [slice(a, b) for a, b in zip(edges, edges[1:])]


def _same(a, b):
    """Equal to the last bit (NaN equals NaN: an undefined value must stay undefined)."""
    if isinstance(a, dict):
        assert list(a) == list(b)
        for name in a:
            _same(a[name], b[name])
        return
    np.testing.assert_array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float))


# ---------------------------------------------------------------- order independence

labels = st.sampled_from(["ant", "bee", "cat", "dog"])


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.lists(st.tuples(labels, labels), min_size=2, max_size=40), st.lists(st.integers(0, 40), max_size=6),
       st.randoms(use_true_random=False))
def test_any_split_and_order_gives_the_matrix_of_all_data(pairs, cuts, random):
    y_true, y_pred = (list(x) for x in zip(*pairs))
    chunks = [(y_true[s], y_pred[s]) for s in _split(len(pairs), cuts)]
    random.shuffle(chunks)
    parts = [ConfusionAccumulator().update(t, p) for t, p in chunks]
    merged = ConfusionAccumulator()
    for k in random.sample(range(len(parts)), len(parts)):
        merged.merge(parts[k])
    _same(merged.matrix, mc.confusion_matrix(y_true, y_pred))
    assert merged.classes.tolist() == mc.class_labels(y_true, y_pred).tolist()
    _same(merged.compute(["f1", "mcc"], average="macro"), mc.evaluate(["f1", "mcc"], y_true=y_true, y_pred=y_pred, average="macro"))


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1), st.lists(st.integers(0, 30), max_size=5))
def test_multilabel_counts_do_not_depend_on_the_chunks(seed, cuts):
    rng = np.random.default_rng(seed)
    y_true, y_pred = rng.integers(0, 2, (30, 4)), rng.integers(0, 2, (30, 4))
    forward, backward = MultilabelAccumulator(), MultilabelAccumulator()
    pieces = _split(30, cuts)
    for s in pieces:
        forward.update(y_true[s], y_pred[s])
    for s in reversed(pieces):
        backward.update(y_true[s], y_pred[s])
    expected = mc.evaluate(["f1", "hamming_loss"], y_true=y_true, y_pred=y_pred, multilabel=True, average="micro")
    for acc in (forward, backward):
        _same(np.stack(acc.counts), np.stack(mc.multilabel_counts(y_true, y_pred)))
        _same(acc.compute(["f1", "hamming_loss"], average="micro"), expected)
    _same(forward.compute("f1", average="samples"), backward.compute("f1", average="samples"))
    np.testing.assert_allclose(forward.compute("f1", average="samples", zero_division=0)["f1"],
                               mc.evaluate("f1", y_true=y_true, y_pred=y_pred, multilabel=True, average="samples",
                                           zero_division=0)["f1"], rtol=1e-12)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1), st.lists(st.integers(0, 60), max_size=6))
def test_exact_threshold_counts_equal_the_curves_of_all_scores(seed, cuts):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, 60)
    scores = np.round(rng.dirichlet(np.ones(3), 60), 1)  # ties across chunks
    pieces = _split(60, cuts)
    acc = ThresholdAccumulator(labels=[0, 1, 2])
    for s in reversed(pieces):
        acc.merge(ThresholdAccumulator(labels=[0, 1, 2]).update(y[s], scores[s]))
    if len(set(y.tolist())) < 2:
        return
    for mode in ("none", "micro", "macro", "weighted"):
        expected = mc.evaluate(["roc_auc", "average_precision"] if mode != "macro" else ["roc_auc"],
                               y_true=y, scores=scores, labels=[0, 1, 2], average=mode)
        got = acc.compute(list(expected), average=mode)
        for name in expected:
            _same(got[name], expected[name])


# ---------------------------------------------------------------- every metric of the catalog

def test_every_label_level_metric_is_computed_from_the_accumulator():
    rng = np.random.default_rng(7)
    y_true, y_pred = rng.integers(0, 4, 500), rng.integers(0, 4, 500)
    acc = ConfusionAccumulator()
    for s in _split(500, [3, 4, 170, 171, 420]):
        acc.update(y_true[s], y_pred[s])
    for name in LABEL_METRICS:  # binary on more than two classes is refused: such metrics take macro here
        options = {"average": "macro"} if mc.metric(name).default_average == "binary" else {}
        _same(acc.compute(name, **options)[name], mc.evaluate(name, y_true=y_true, y_pred=y_pred, **options)[name])


def test_every_curve_level_metric_and_its_averages():
    rng = np.random.default_rng(3)
    y, scores = rng.integers(0, 3, 300), rng.dirichlet(np.ones(3), 300)
    acc = ThresholdAccumulator(labels=[0, 1, 2])
    for s in _split(300, [1, 50, 299]):
        acc.update(y[s], scores[s])
    for name in CURVE_METRICS:
        for mode in CATALOG[name].averages:
            if mode == "binary":
                continue
            expected = mc.evaluate(name, y_true=y, scores=scores, average=mode)[name]
            _same(acc.compute(name, average=mode)[name], expected)


def test_curve_metric_parameters_reach_the_accumulator():
    rng = np.random.default_rng(4)
    y, scores = rng.integers(0, 2, 200), np.round(rng.random(200), 2)
    acc = ThresholdAccumulator(labels=[0, 1]).update(y[:90], scores[:90]).update(y[90:], scores[90:])
    for name, params in (("precision_at_fixed_recall", {"min_recall": 0.8}), ("partial_roc_auc", {"max_fpr": 0.3})):
        expected = mc.evaluate(name, y_true=y, scores=scores, average="binary", params=params)[name]
        assert expected != mc.evaluate(name, y_true=y, scores=scores, average="binary")[name]
        _same(acc.compute(name, average="binary", params=params)[name], expected)


def test_curve_metrics_declare_the_kernel_the_accumulator_applies():
    for info in CATALOG.values():
        assert (info.curve_kernel is not None) == (info.level == "curve"), info.id
    # TP, FP, FN, TN from the highest threshold down: both positives, then the negative
    counts = (np.array([[0.0, 2.0, 2.0]]), np.array([[0.0, 0.0, 1.0]]), np.array([[2.0, 0.0, 0.0]]),
              np.array([[1.0, 1.0, 0.0]]))
    value, undefined = CATALOG["roc_auc"].curve_kernel(*(c[..., 1:] for c in counts), *(c[..., :-1] for c in counts),
                                                       np.array([2.0]), np.array([1.0]), np.array([[True, True]]))
    assert value.tolist() == [1.0] and not undefined.any()


def test_binned_threshold_counts_equal_exact_counts_of_binned_scores():
    rng = np.random.default_rng(5)
    y, scores = rng.integers(0, 2, 400), rng.random(400)
    edges = np.linspace(0, 1, 21)
    binned = ThresholdAccumulator(labels=[0, 1], bins=edges).update(y[:150], scores[:150]).update(y[150:], scores[150:])
    lower = edges[np.minimum(np.searchsorted(edges, scores, side="right") - 1, 19)]
    expected = mc.evaluate("roc_auc", y_true=y, scores=lower, average="binary")["roc_auc"]
    assert binned.compute("roc_auc", average="binary")["roc_auc"] == pytest.approx(expected, rel=1e-12)
    assert binned.per_class.values[0].size <= 21  # memory bounded by the bins, not the samples


def test_binary_pos_label_by_name():
    acc = ThresholdAccumulator(labels=["neg", "pos"]).update(["pos", "neg", "neg"], [0.9, 0.2, 0.6])
    assert acc.compute("roc_auc", average="binary", pos_label="pos")["roc_auc"] == 1.0
    with pytest.raises(InputError, match="pos_label: 'x' is not one of the labels"):
        acc.compute("roc_auc", average="binary", pos_label="x")


# ---------------------------------------------------------------- class sets and matrices

def test_fixed_labels_refuse_an_unknown_class_and_keep_their_order():
    acc = ConfusionAccumulator(labels=["b", "a"]).update(["a"], ["b"])
    assert acc.matrix.tolist() == [[0, 0], [1, 0]]
    with pytest.raises(InputError, match="label 'c' is not one of the labels"):
        acc.update(["c"], ["a"])
    assert acc.reset().classes.tolist() == ["b", "a"] and acc.matrix.sum() == 0


def test_grown_class_set_re_embeds_earlier_counts():
    acc = ConfusionAccumulator().update([2, 2], [2, 0]).update([1], [3])
    assert acc.classes.tolist() == [0, 1, 2, 3]
    _same(acc.matrix, mc.confusion_matrix([2, 2, 1], [2, 0, 3]))


def test_matrix_chunks_named_by_labels_or_by_position():
    named = ConfusionAccumulator().update(matrix=[[1, 2], [3, 4]], labels=["y", "z"]).update(matrix=[[5]], labels=["x"])
    assert named.classes.tolist() == ["x", "y", "z"]
    assert named.matrix.tolist() == [[5, 0, 0], [0, 1, 2], [0, 3, 4]]
    by_position = ConfusionAccumulator().update(matrix=[[1, 2], [3, 4]]).update(matrix=[[1, 0], [0, 1]], orientation="pred-rows")
    assert by_position.matrix.tolist() == [[2, 2], [3, 5]]
    with pytest.raises(InputError, match="holds matrices without labels"):
        by_position.update([0], [1])
    with pytest.raises(InputError, match="expected shape"):
        by_position.update(matrix=[[1]])


def test_weighted_chunks_give_the_weighted_matrix():
    acc = ConfusionAccumulator().update([0, 1], [0, 0], sample_weight=[0.5, 2.0]).update([1], [1])
    _same(acc.matrix, mc.confusion_matrix([0, 1, 1], [0, 0, 1], sample_weight=[0.5, 2.0, 1.0]))


def test_errors_name_the_argument():
    with pytest.raises(InputError, match="no data yet"):
        ConfusionAccumulator().compute("f1")
    with pytest.raises(InputError, match="y_pred: expected 2 labels"):
        ConfusionAccumulator().update([0, 1], [0])
    with pytest.raises(InputError, match="other: expected a ConfusionAccumulator"):
        ConfusionAccumulator().merge(MultilabelAccumulator())
    with pytest.raises(InputError, match="expected 3 labels"):
        MultilabelAccumulator().update([[1, 0, 1]], [[1, 0, 0]]).update([[1, 0]], [[0, 0]])
    with pytest.raises(InputError, match="log_loss is a score-level metric"):
        ThresholdAccumulator(labels=[0, 1]).update([0, 1], [0.2, 0.7]).compute("log_loss")
    with pytest.raises(InputError, match="outside the bins"):
        ThresholdAccumulator(labels=[0, 1], bins=[0, 0.5, 1]).update([0, 1], [0.2, 1.5])
    with pytest.raises(InputError, match="bins"):
        ThresholdAccumulator(labels=[0, 1], bins=[0, 0])
