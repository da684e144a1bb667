"""TrainingMetric (api/training.py) equals ``evaluate`` on all the batches at once, in every namespace."""

from __future__ import annotations

import numpy as np
import pytest

import metricc as mc
from metricc.core.errors import InputError
from metricc.runtime.namespace import to_host

from tests.array_api.namespaces import load, params, put, same_place

ENTRIES = ["f1:macro", "mcc", "accuracy", "preference_driven", "recall:weighted"]
KAPPA = {"kappa": [0.2, 0.5, 0.9, 0.1]}


def _batches(seed: int, classes: list, sizes=(7, 0, 13, 30)):
    rng = np.random.default_rng(seed)
    return [(rng.choice(classes[:-1], size), rng.choice(classes[:-1], size)) for size in sizes]  # the last class never occurs


@pytest.mark.parametrize("name", params())
@pytest.mark.parametrize("classes", [[0, 1, 2, 3], [-2, 3, 10, 11]], ids=["range", "labels"])
def test_batches_equal_evaluate_on_all_the_data(name, classes):
    library = load(name)
    batches = _batches(0, classes)
    training = mc.TrainingMetric(ENTRIES, classes=4 if classes == [0, 1, 2, 3] else classes, params=KAPPA)
    for truth, predicted in batches:
        training.update(put(library, name, truth), put(library, name, predicted))
    values = training.compute()
    everything = [np.concatenate(part) for part in zip(*batches)]
    expected = mc.evaluate(ENTRIES, y_true=everything[0], y_pred=everything[1], labels=classes, params=KAPPA)
    reference = put(library, name, batches[0][0])
    for entry in ENTRIES:
        assert same_place(values[entry], reference), entry
        np.testing.assert_allclose(to_host(values[entry]), expected[entry], rtol=1e-6 if name == "jax.numpy" else 1e-12)


@pytest.mark.parametrize("name", params())
@pytest.mark.parametrize("classes", [[0, 1, 2, 3], [-2, 3, 10, 11]], ids=["range", "labels"])
def test_weighted_batches_equal_the_weighted_matrix(name, classes):
    """Sample weights on the device: batches with and without weights (an unweighted batch counts
    1 a sample) give the values of numpy's weighted matrix of all the data."""
    library = load(name)
    rng = np.random.default_rng(5)
    batches = _batches(3, classes)
    weights = [rng.random(len(truth)) * 10 if i != 2 else None for i, (truth, _) in enumerate(batches)]
    training = mc.TrainingMetric(ENTRIES, classes=4 if classes == [0, 1, 2, 3] else classes, params=KAPPA)
    for (truth, predicted), weight in zip(batches, weights):
        training.update(put(library, name, truth), put(library, name, predicted),
                        sample_weight=None if weight is None else put(library, name, weight))
    everything = [np.concatenate(part) for part in zip(*batches)]
    every_weight = np.concatenate([np.ones(len(t)) if w is None else w for (t, _), w in zip(batches, weights)])
    matrix = mc.confusion_matrix(*everything, labels=classes, sample_weight=every_weight)
    np.testing.assert_allclose(to_host(training.counts), matrix, rtol=1e-6 if name == "jax.numpy" else 1e-12)
    expected = mc.evaluate(ENTRIES, matrix=matrix, labels=classes, params=KAPPA)
    values = training.compute()
    for entry in ENTRIES:
        assert same_place(values[entry], put(library, name, batches[0][0])), entry
        np.testing.assert_allclose(to_host(values[entry]), expected[entry], rtol=1e-5 if name == "jax.numpy" else 1e-12)


@pytest.mark.parametrize("name", params())
def test_weights_are_checked_on_the_device(name):
    library = load(name)
    training = mc.TrainingMetric("accuracy", classes=2)
    t = put(library, name, [0, 1, 1])
    for weights, message in (([1.0, -1.0, 2.0], "finite and non-negative"), ([1.0, np.nan, 2.0], "finite"),
                             ([1.0, 2.0], r"shape \(3,\)")):
        with pytest.raises(InputError, match=message):
            training.update(t, t, sample_weight=put(library, name, weights))
    multilabel = mc.TrainingMetric("f1:macro", classes=["a", "b"], multilabel=True)
    rows = put(library, name, [[1, 0], [1, 1], [0, 1]])
    multilabel.update(rows, put(library, name, [[1, 1], [0, 1], [0, 1]]), sample_weight=put(library, name, [2.0, 0.5, 1.0]))
    tp, fp, fn, tn = to_host(multilabel.counts)
    np.testing.assert_allclose([tp, fp, fn, tn], [[2.0, 1.5], [0.0, 2.0], [0.5, 0.0], [1.0, 0.0]])


@pytest.mark.parametrize("name", params())
def test_merge_and_reset(name):
    library = load(name)
    (t1, p1), (t2, p2) = _batches(1, [0, 1, 2], sizes=(20, 25))
    one = mc.TrainingMetric("mcc", classes=3).update(put(library, name, t1), put(library, name, p1))
    other = mc.TrainingMetric("mcc", classes=3).update(put(library, name, t2), put(library, name, p2))
    both = mc.TrainingMetric("mcc", classes=3)
    both.update(put(library, name, t1), put(library, name, p1)).update(put(library, name, t2), put(library, name, p2))
    np.testing.assert_array_equal(to_host(one.merge(other).counts), to_host(both.counts))
    with pytest.raises(InputError, match="no data yet"):
        both.reset().compute()
    with pytest.raises(InputError, match="same metrics"):
        one.merge(mc.TrainingMetric("accuracy", classes=3))


@pytest.mark.parametrize("name", params())
def test_multilabel_counts_per_class(name):
    library = load(name)
    rng = np.random.default_rng(2)
    batches = [(rng.integers(0, 2, (n, 3)), rng.integers(0, 2, (n, 3))) for n in (10, 17)]
    entries = ["f1:macro", "precision:micro", "jaccard:weighted", "recall:none"]
    training = mc.TrainingMetric(entries, classes=["tag", "cat", "dog"], multilabel=True)
    for truth, predicted in batches:
        training.update(put(library, name, truth), put(library, name, predicted))
    everything = [np.concatenate(part) for part in zip(*batches)]
    expected = mc.evaluate(entries, y_true=everything[0], y_pred=everything[1], multilabel=True, labels=["tag", "cat", "dog"])
    values = training.compute()
    if name == "numpy":
        assert values["recall:none"].labels == ["tag", "cat", "dog"]  # columns keep their order
    for entry in entries:
        np.testing.assert_allclose(to_host(values[entry]), expected[entry], rtol=1e-6 if name == "jax.numpy" else 1e-12)


def test_what_counts_cannot_compute():
    with pytest.raises(InputError, match="per-sample counts"):
        mc.TrainingMetric("f1:samples", classes=2, multilabel=True)
    with pytest.raises(InputError, match="number of classes or distinct numeric labels"):
        mc.TrainingMetric("f1", classes=["cat", "dog"])


def test_a_label_outside_the_classes_names_it():
    with pytest.raises(InputError, match="label 5 is not one of"):
        mc.TrainingMetric("accuracy", classes=3).update(np.array([0, 5]), np.array([0, 1]))


SCORED = ["roc_auc:macro", "average_precision:weighted", "calibration_error", "log_loss", "f1:macro"]


def _scored_batches(seed: int, sizes=(9, 1, 25, 14)):
    rng = np.random.default_rng(seed)
    out = []
    for n in sizes:
        truth = rng.integers(0, 3, n)
        scores = rng.dirichlet(np.ones(3), n).round(2)  # ties across batches
        scores /= scores.sum(axis=1, keepdims=True)
        out.append((truth, scores.argmax(axis=1), scores))
    return out


@pytest.mark.parametrize("name", params())
def test_score_metrics_keep_the_batches_and_equal_evaluate(name):
    """Curve and score metrics beside counted ones: batches kept on the device, joined at compute,
    the values those of evaluate on all the data at once, in the input's namespace."""
    library = load(name)
    batches = _scored_batches(4)
    training = mc.TrainingMetric(SCORED, classes=3)
    other = mc.TrainingMetric(SCORED, classes=3)
    for k, (truth, predicted, scores) in enumerate(batches):
        (training if k % 2 else other).update(put(library, name, truth), put(library, name, predicted),
                                              scores=put(library, name, scores))
    values = training.merge(other).compute()
    truth, predicted, scores = (np.concatenate(part) for part in zip(*batches))
    expected = mc.evaluate(SCORED, y_true=truth, y_pred=predicted, scores=scores, labels=[0, 1, 2])
    for entry in SCORED:
        assert same_place(values[entry], put(library, name, truth)), entry
        np.testing.assert_allclose(to_host(values[entry]), expected[entry], rtol=1e-5 if name == "jax.numpy" else 1e-12)
    binary = mc.TrainingMetric("roc_auc", classes=2)
    binary.update(put(library, name, truth % 2), scores=put(library, name, scores[:, 1]))
    np.testing.assert_allclose(to_host(binary.compute()),
                               mc.evaluate("roc_auc", y_true=truth % 2, scores=scores[:, 1])["roc_auc"], rtol=1e-6)


def test_score_metrics_say_what_an_update_lacks():
    truth, predicted, scores = _scored_batches(5, sizes=(6,))[0]
    both = mc.TrainingMetric(["roc_auc:macro", "mcc"], classes=3)
    with pytest.raises(InputError, match="scores=") as error:
        both.update(truth, predicted)
    assert error.value.argument == "scores"
    with pytest.raises(InputError, match="update\\(y_true, y_pred\\)"):
        both.update(truth, scores=scores)
    with pytest.raises(InputError, match="not weighted"):
        both.update(truth, predicted, sample_weight=np.ones(6), scores=scores)
    with pytest.raises(InputError, match=r"scores \(N, 3\)"):
        both.update(truth, predicted, scores=scores[:, :2])
    with pytest.raises(InputError, match="one row of scores per sample"):
        both.update(truth, predicted, scores=scores[:4])
    with pytest.raises(InputError, match="no data yet"):
        mc.TrainingMetric("roc_auc:macro", classes=3).compute()
    torch = pytest.importorskip("torch")
    only = mc.TrainingMetric("calibration_error", classes=3).update(truth, scores=scores)
    with pytest.raises(InputError, match="another array library"):
        only.update(torch.asarray(truth), scores=torch.asarray(scores))
