"""generated/arrays' score and curve modules (compiler/emit/array_scores.py, runtime/xp_scores.py,
runtime/xp_curves.py): every score- and curve-level metric, every averaging mode, computed in
each namespace on its device, equals numpy's; ``evaluate`` with scores of such a library
returns values of it.

The scores are multiples of 1/16 (exact in float32, many ties): JAX without x64 computes in
float32 on the same numbers, so its ties are numpy's and only the arithmetic rounds (2e-5).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import metricc as mc
from metricc.core.errors import InputError
from metricc.generated import CATALOG
from metricc.generated.arrays import FALLBACK, FUNCTIONS
from metricc.runtime import xp_kernel, xp_scores
from metricc.runtime.namespace import to_host

from tests.array_api.namespaces import load, params, put, same_place

SCORED = [info for info in dict.fromkeys(CATALOG[name] for name in CATALOG) if info.level in ("score", "curve")]
GRADED = {"dcg", "ndcg"}  # relevance truth
N, C = 48, 4


def _data():
    rng = np.random.default_rng(7)
    parts = np.sort(rng.integers(0, 17, (N, C - 1)), axis=1)
    edges = np.concatenate([np.zeros((N, 1)), parts, np.full((N, 1), 16)], axis=1)
    scores = np.diff(edges, axis=1) / 16  # rows of multiples of 1/16 summing to 1
    labels = rng.integers(0, C, N)
    labels[:C] = np.arange(C)
    indicators = rng.integers(0, 2, (N, C))
    indicators[0], indicators[1] = 1, 0
    return labels, scores, indicators, rng.integers(0, 4, (N, C)).astype(float)


LABELS, SCORES, INDICATORS, RELEVANCE = _data()


def _truth(info):
    return RELEVANCE if info.id in GRADED else INDICATORS if info.indicator_truth else LABELS


def _modes(info) -> list[dict]:
    if not info.averages:
        return [{}]
    return [{"average": mode} for mode in info.averages if mode not in ("binary", "samples")]


def _close(found, expected, name: str, entry: str) -> None:
    found, expected = np.asarray(to_host(found), dtype=np.float64), np.asarray(expected, dtype=np.float64)
    tolerance = 2e-5 if name == "jax.numpy" else 1e-12  # JAX without x64: float32, about 7 digits
    assert found.shape == expected.shape, entry
    assert np.array_equal(np.isnan(found), np.isnan(expected)), (entry, found, expected)
    finite = np.isfinite(expected)
    error = np.abs(found[finite] - expected[finite])
    assert np.all(error <= tolerance * np.maximum(1.0, np.abs(expected[finite]))), (entry, found, expected)


def test_every_score_and_curve_metric_has_an_array_module():
    assert {info.id for info in SCORED} <= set(FUNCTIONS)
    assert sorted(FALLBACK) == ["iba", "p_value"]  # count levels: every score and curve metric runs natively


@pytest.mark.parametrize("name", params())
@pytest.mark.parametrize("info", SCORED, ids=lambda info: info.id)
def test_every_mode_equals_numpy(name, info):
    library = load(name)
    truth, scores = put(library, name, _truth(info)), put(library, name, SCORES)
    for options in _modes(info):
        with warnings.catch_warnings():
            warnings.simplefilter("error", xp_kernel.HostFallbackWarning)  # none goes to the host
            found = FUNCTIONS[info.id](truth, scores, **options)
        expected = info.function(_truth(info), SCORES, **options)
        assert same_place(found, scores), (info.id, options)
        _close(found, expected, name, f"{info.id} {options}")


@pytest.mark.parametrize("name", params())
def test_curves_of_multilabel_indicators_and_named_labels(name):
    library = load(name)
    scores = put(library, name, SCORES)
    for metric in ("roc_auc", "average_precision", "partial_roc_auc", "equal_error_rate"):
        for average in ("macro", "micro", "none"):
            found = FUNCTIONS[metric](put(library, name, INDICATORS), scores, average=average, multilabel=True)
            expected = CATALOG[metric].function(INDICATORS, SCORES, average=average, multilabel=True)
            _close(found, expected, name, f"{metric}:{average} multilabel")
    named = np.array([10, 20, 30, 40])[LABELS]
    for metric in ("log_loss", "roc_auc", "hinge_loss"):
        found = FUNCTIONS[metric](put(library, name, named), scores, labels=[40, 30, 20, 10][::-1])
        _close(found, CATALOG[metric].function(named, SCORES, labels=[10, 20, 30, 40]), name, metric)
        found = FUNCTIONS[metric](put(library, name, named), scores)  # the sorted distinct labels are the columns
        _close(found, CATALOG[metric].function(named, SCORES), name, metric)


@pytest.mark.parametrize("name", params())
def test_two_class_score_vectors_and_parameters(name):
    library = load(name)
    truth, positive = LABELS % 2, SCORES[:, 0]
    for entry, options in [("roc_auc", {}), ("binary_calibration_error", {"bins": 4.0}), ("log_loss", {}),
                           ("binary_hinge_loss", {"power": 2.0}), ("partial_roc_auc", {"max_fpr": 0.5}),
                           ("recall_at_fixed_precision", {"min_precision": 0.5}), ("top_k_accuracy", {"top": 1.0})]:
        found = FUNCTIONS[entry](put(library, name, truth), put(library, name, positive), **options)
        _close(found, CATALOG[entry].function(truth, positive, **options), name, entry)


@pytest.mark.parametrize("name", params())
def test_evaluate_keeps_scores_where_they_are(name):
    library = load(name)
    y_true, scores = put(library, name, LABELS), put(library, name, SCORES)
    entries = ["roc_auc", "average_precision:weighted", "log_loss", "calibration_error", "brier_score",
               "top_k_accuracy", "f1:macro"]
    predicted = np.argmax(SCORES, axis=1)
    found = mc.evaluate(entries, y_true=y_true, scores=scores, y_pred=put(library, name, predicted),
                        params={"bins": 10.0, "top": 2.0})
    expected = mc.evaluate(entries, y_true=LABELS, scores=SCORES, y_pred=predicted, params={"bins": 10.0, "top": 2.0})
    for entry in entries:
        if name != "numpy":
            assert same_place(found[entry], scores), entry
        _close(found[entry], np.asarray(expected[entry]), name, entry)


@pytest.mark.parametrize("name", params())
def test_a_host_fallback_says_so_and_answers_on_the_device(name):
    library = load(name)
    scores = put(library, name, SCORES)
    with pytest.warns(xp_kernel.HostFallbackWarning, match="ndcg: the reason"):
        found = xp_scores.scores_on_host(CATALOG["ndcg"].function, "ndcg", "the reason", put(library, name, RELEVANCE),
                                         scores)
    assert same_place(found, scores)
    _close(found, CATALOG["ndcg"].function(RELEVANCE, SCORES), name, "ndcg")


@pytest.mark.parametrize("name", params())
def test_bad_scores_are_input_errors_in_numpy_words(name):
    library = load(name)
    y_true = put(library, name, LABELS)
    off = SCORES.copy()
    off[3, 0] += 0.25
    with pytest.raises(InputError, match="row 3 sums to 1.25"):
        FUNCTIONS["log_loss"](y_true, put(library, name, off))
    with pytest.raises(InputError, match="NaN or infinity"):
        FUNCTIONS["roc_auc"](y_true, put(library, name, np.where(SCORES == SCORES.max(), math.nan, SCORES)))
    with pytest.raises(InputError, match="label 3 is not one of the labels"):
        FUNCTIONS["roc_auc"](y_true, put(library, name, SCORES), labels=[0, 1, 2, 5])
    with pytest.raises(InputError, match="only one class is present"):
        FUNCTIONS["roc_auc"](put(library, name, np.zeros(N, dtype=np.int64)), put(library, name, SCORES[:, 0]))
    with pytest.raises(InputError, match="score metric|reads scores"):
        from metricc.api.evaluate_arrays import values_of_counts

        values_of_counts(["roc_auc"], mc.metric, matrix=put(library, name, np.eye(2, dtype=np.int64)))


@pytest.mark.parametrize("name", params())
def test_labels_given_as_an_array_of_the_library(name):
    library = load(name)
    named = np.array([10, 20, 30, 40])[LABELS]
    found = FUNCTIONS["roc_auc"](put(library, name, named), put(library, name, SCORES),
                                 labels=put(library, name, np.array([10, 20, 30, 40])))
    _close(found, CATALOG["roc_auc"].function(named, SCORES, labels=[10, 20, 30, 40]), name, "roc_auc")
