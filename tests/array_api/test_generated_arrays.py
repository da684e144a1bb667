"""generated/arrays (compiler/emit/array_module.py, runtime/xp_kernel.py): every count-level
metric in every averaging mode, computed in each namespace on its device, equals numpy's."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import metricc as mc
from metricc.api.evaluate_arrays import values_of_counts
from metricc.core.errors import InputError
from metricc.generated import CATALOG
from metricc.generated.arrays import FALLBACK, FUNCTIONS
from metricc.runtime import xp_kernel
from metricc.runtime.namespace import to_host

from tests.array_api.namespaces import load, params, put, same_place

COUNT_LEVELS = [info for info in dict.fromkeys(CATALOG[name] for name in CATALOG) if info.level in ("class", "aggregate", "matrix")]


def _entries(info) -> list[str]:
    if not info.per_class:
        return [] if info.per_instance else [info.id]
    return [f"{info.id}:{mode}" for mode in info.averages if mode != "samples"]


ENTRIES = [entry for info in COUNT_LEVELS for entry in _entries(info)]
# Class 3 never predicted, class 2 never true: undefined per-class values in every mode.
MATRIX = np.array([[9, 2, 1, 0], [3, 11, 0, 0], [0, 0, 0, 0], [1, 2, 4, 6]])


def _close(found, expected, name: str, entry: str) -> None:
    found, expected = np.asarray(to_host(found), dtype=np.float64), np.asarray(expected, dtype=np.float64)
    tolerance = 2e-5 if name == "jax.numpy" else 1e-12  # JAX without x64: float32, about 7 digits
    assert found.shape == expected.shape, entry
    assert np.array_equal(np.isnan(found), np.isnan(expected)), (entry, found, expected)
    assert np.array_equal(np.isinf(found), np.isinf(expected)), (entry, found, expected)
    finite = np.isfinite(expected)
    error = np.abs(found[finite] - expected[finite])
    assert np.all(error <= tolerance * np.maximum(1.0, np.abs(expected[finite]))), (entry, found, expected)


def test_every_metric_has_an_array_module():
    assert set(FUNCTIONS) == {info.id for info in dict.fromkeys(CATALOG[name] for name in CATALOG)}
    assert all(isinstance(note, str) and "numpy on the host" in note for note in FALLBACK.values())
    assert sorted(name for name in FALLBACK if CATALOG[name].level in ("class", "aggregate", "matrix")) == ["iba", "p_value"]


@pytest.mark.parametrize("name", params())
@pytest.mark.parametrize("zero_division", [math.nan, 0.0, "skip"], ids=["nan", "zero", "skip"])
def test_the_catalog_equals_numpy_on_a_matrix(name, zero_division):
    library = load(name)
    matrix = put(library, name, MATRIX)
    entries = ENTRIES if zero_division != "skip" else [e for e in ENTRIES if e.split(":")[-1] in (
        "macro", "weighted", "geometric")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xp_kernel.HostFallbackWarning)
        found = values_of_counts(entries, mc.metric, matrix=matrix, pos_label=1, zero_division=zero_division)
    expected = mc.evaluate(entries, matrix=MATRIX, pos_label=1, zero_division=zero_division)
    for entry in entries:
        assert same_place(found[entry], matrix), entry
        _close(found[entry], expected[entry], name, entry)


@pytest.mark.parametrize("name", params())
def test_a_stack_of_matrices_gives_one_value_each(name):
    library = load(name)
    stack = np.stack([MATRIX, MATRIX.T + 1, np.eye(4, dtype=np.int64) * 5])
    for entry in ["mcc", "cohen_kappa", "f1:macro", "recall:micro", "precision:weighted"]:
        metric, _, average = entry.partition(":")
        function = FUNCTIONS[metric]
        data = put(library, name, stack)
        if CATALOG[metric].level == "matrix":
            found = function(data)
        else:
            found = function(xp_kernel.class_counts(data), average=average)
        expected = [mc.evaluate(entry, matrix=m)[entry] for m in stack]
        assert same_place(found, data)
        _close(found, expected, name, entry)


@pytest.mark.parametrize("name", params())
def test_evaluate_returns_arrays_where_the_labels_are(name):
    library = load(name)
    rng = np.random.default_rng(3)
    truth, predicted = rng.integers(0, 5, 300), rng.integers(0, 5, 300)
    entries = ["f1:macro", "mcc", "accuracy", "recall:none", "balanced_accuracy", "cohen_kappa"]
    y_true = put(library, name, truth)
    found = mc.evaluate(entries, y_true=y_true, y_pred=put(library, name, predicted))
    expected = mc.evaluate(entries, y_true=truth, y_pred=predicted)
    for entry in entries:
        if name != "numpy":
            assert same_place(found[entry], y_true), entry
        _close(found[entry], np.asarray(expected[entry]), name, entry)


@pytest.mark.parametrize("name", params())
def test_multilabel_indicators_and_samples_averaging(name):
    library = load(name)
    rng = np.random.default_rng(4)
    truth, predicted = rng.integers(0, 2, (40, 3)), rng.integers(0, 2, (40, 3))
    entries = ["f1:samples", "f1:macro", "jaccard:samples", "precision:micro", "hamming_loss", "f1_of_sample_averages"]
    y_true = put(library, name, truth)
    found = mc.evaluate(entries, y_true=y_true, y_pred=put(library, name, predicted), multilabel=True)
    expected = mc.evaluate(entries, y_true=truth, y_pred=predicted, multilabel=True)
    for entry in entries:
        if name != "numpy":
            assert same_place(found[entry], y_true), entry
        _close(found[entry], expected[entry], name, entry)


@pytest.mark.parametrize("name", params())
def test_a_fallback_says_so(name):
    library = load(name)
    matrix = put(library, name, MATRIX)
    fallback = "p_value"  # the binomial tail: a special function
    info = CATALOG[fallback]
    with pytest.warns(xp_kernel.HostFallbackWarning, match="numpy on the host"):
        found = values_of_counts([fallback], mc.metric, matrix=matrix, pos_label=1)
    expected = mc.evaluate([fallback], matrix=MATRIX, pos_label=1)
    assert same_place(found[fallback], matrix), info.id
    _close(found[fallback], expected[fallback], name, fallback)


@pytest.mark.parametrize("name", params())
def test_parameters_and_weights_on_the_device(name):
    library = load(name)
    matrix = put(library, name, MATRIX)
    options = dict(params={"kappa": [0.2, 0.5, 0.9, 0.1], "beta": 2.0, "distance": np.ones((4, 4)) - np.eye(4)})
    entries = ["preference_driven:macro", "f_beta:macro", "f_beta:micro", "quadratic_weighted_kappa"]
    found = values_of_counts(entries, mc.metric, matrix=matrix, **options)
    expected = mc.evaluate(entries, matrix=MATRIX, **options)
    weights = [1.0, 0.0, 2.0, 3.0]
    found |= values_of_counts(["recall:weighted"], mc.metric, matrix=matrix, weights=weights)
    expected |= mc.evaluate(["recall:weighted"], matrix=MATRIX, weights=weights)
    for entry in [*entries, "recall:weighted"]:
        assert same_place(found[entry], matrix), entry
        _close(found[entry], expected[entry], name, entry)


@pytest.mark.parametrize("name", params())
def test_evaluate_on_arrays_checks_its_inputs(name):
    library = load(name)
    if name == "numpy":
        pytest.skip("numpy input is evaluate's own path")
    with pytest.raises(InputError, match="non-negative"):
        mc.evaluate("mcc", matrix=put(library, name, -MATRIX))
    with pytest.raises(InputError, match="label 7"):
        mc.evaluate("f1:macro", y_true=put(library, name, [0, 1, 7]), y_pred=put(library, name, [0, 1, 1]), labels=[0, 1])
    with pytest.raises(InputError, match="name that class"):
        mc.evaluate("f1:binary", y_true=put(library, name, [0, 1, 2]), y_pred=put(library, name, [0, 1, 1]))
    found = mc.evaluate(["f1:binary", "recall:none"], y_true=put(library, name, [3, 5, 5, 9]),
                        y_pred=put(library, name, [3, 5, 9, 9]), labels=[3, 5, 9, 11], pos_label=9)
    expected = mc.evaluate(["f1:binary", "recall:none"], y_true=[3, 5, 5, 9], y_pred=[3, 5, 9, 9],
                           labels=[3, 5, 9, 11], pos_label=9)
    for entry in found:
        _close(found[entry], expected[entry], name, entry)
