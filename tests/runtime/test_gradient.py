"""The emitted gradients (analysis/delta.py -> generated ``gradient``) against finite
differences of the emitted values, for every metric that has one, under every averaging."""

import hashlib

import numpy as np
import pytest

from metricc.api.evaluate import catalog
from metricc.runtime import averaging, namespace
from metricc.runtime import gradient as grad
from tests.array_api import namespaces

RNG = np.random.default_rng(7)
MATRIX = RNG.uniform(4.0, 30.0, size=(3, 3))  # floats: the finite differences move single cells
WITH_GRADIENT = sorted(info.id for info in catalog().values() if info.gradient)


def _counts(matrix):
    tp = np.diagonal(matrix, axis1=-2, axis2=-1)
    fp, fn = matrix.sum(axis=-2) - tp, matrix.sum(axis=-1) - tp
    return tp, fp, fn, matrix.sum(axis=(-2, -1))[..., None] - tp - fp - fn


def _value(info, matrix, average):
    if info.level == "matrix":  # a per-class one (averages) is averaged as a class metric
        return info.function(matrix, average=average) if info.averages else info.function(matrix)
    if info.level == "aggregate":
        return info.function(*_counts(matrix))
    return info.function(*_counts(matrix), average=average)


def _cells(info, matrix, average):
    if info.level == "matrix":
        return info.gradient(matrix, average=average) if info.averages else info.gradient(matrix)
    if info.level == "aggregate":
        return grad.cell_gradient(info.gradient(*_counts(matrix)))
    return grad.cell_gradient(info.gradient(*_counts(matrix), average=average))


def _numeric(info, matrix, average, step=1e-5):
    out = np.zeros(np.shape(_value(info, matrix, average)) + matrix.shape)  # (C, C, C) per class
    for i, j in np.ndindex(matrix.shape):
        shift = np.zeros_like(matrix)
        shift[i, j] = step
        out[..., i, j] = (_value(info, matrix + shift, average) - _value(info, matrix - shift, average)) / (2 * step)
    return out


def _variants():
    for metric_id in WITH_GRADIENT:
        info = catalog()[metric_id]
        if info.level == "class":
            modes = [m for m in info.averages if m not in ("none", "samples")]
        else:  # a per-class matrix formula: every averaging, none included (one gradient per class)
            modes = list(info.averages) or [None]
        yield from ((metric_id, mode) for mode in modes)


@pytest.mark.parametrize("metric_id, average", list(_variants()))
def test_the_cell_gradient_matches_finite_differences(metric_id, average, monkeypatch):
    # Finite differences step off whole counts: pair-counting metrics (counts: whole) refuse
    # such matrices at run time, so their continuous extension is taken with the check off.
    from metricc.runtime import terms

    monkeypatch.setattr(terms, "_require_whole", lambda matrix: None)
    info = catalog()[metric_id]
    np.testing.assert_allclose(_cells(info, MATRIX, average), _numeric(info, MATRIX, average), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("metric_id", [m for m in WITH_GRADIENT if catalog()[m].level == "class" and "none" in catalog()[m].averages])
def test_per_class_partials_are_those_of_each_class_value(metric_id):
    info = catalog()[metric_id]
    counts = np.stack(_counts(MATRIX))  # (4, C)
    partials = info.gradient(*counts, average="none")
    for k in range(4):
        shift = np.zeros_like(counts)
        shift[k] = 1e-5
        numeric = (info.function(*(counts + shift), average="none") - info.function(*(counts - shift), average="none")) / 2e-5
        np.testing.assert_allclose(partials[:, k], numeric, rtol=1e-6, atol=1e-8)


def test_a_batch_of_matrices_gives_the_gradients_of_each():
    batch = np.stack([MATRIX, MATRIX.T, MATRIX + 1])
    for metric_id in ("mcc", "cohen_kappa", "f1_of_macro_averages"):
        info = catalog()[metric_id]
        stacked = _cells(info, batch, None)
        for b in range(3):
            np.testing.assert_allclose(stacked[b], _cells(info, batch[b], None), rtol=1e-13)
    for average in ("none", "weighted"):  # a per-class matrix formula: (B, C, C, C) and (B, C, C)
        stacked = _cells(catalog()["class_mcen"], batch, average)
        for b in range(3):
            np.testing.assert_allclose(stacked[b], _cells(catalog()["class_mcen"], batch[b], average), rtol=1e-13)


def test_recall_and_accuracy_have_the_binomial_variance():
    """The delta method reproduces p (1 - p) / trials for a proportion."""
    matrix = np.array([[30.0, 10.0], [5.0, 55.0]])
    recall = catalog()["recall"]
    partials = recall.gradient(*_counts(matrix), average="none")
    counts = np.stack(_counts(matrix), axis=-1)
    variance = grad.delta_variance(partials, counts, axes=1)
    assert variance[1] == pytest.approx((55 / 60) * (5 / 60) / 60, rel=1e-13)
    accuracy = catalog()["accuracy"]
    assert grad.delta_variance(accuracy.gradient(matrix), matrix) == pytest.approx(0.85 * 0.15 / 100, rel=1e-13)


def test_undefined_partials_are_nan_and_empty_cells_take_no_part():
    matrix = np.array([[5.0, 0.0], [0.0, 0.0]])  # class 1 never occurs: its recall is undefined
    partials = catalog()["recall"].gradient(*_counts(matrix), average="none")
    assert np.isnan(partials[1]).all() and np.isfinite(partials[0]).all()
    gradient = np.array([[1.0, np.nan], [np.nan, np.nan]])
    assert grad.delta_variance(gradient, matrix) == 0.0  # one occupied cell: no variance, NaN ignored
    assert np.isnan(grad.delta_variance(np.ones((2, 2)), np.zeros((2, 2))))


def test_every_metric_of_the_confusion_matrix_has_a_gradient_or_a_reason():
    for info in catalog().values():
        assert bool(info.gradient) != bool(info.no_delta), info.id
    assert len(WITH_GRADIENT) >= 88  # 72 before the x log x family, zero guards, gwet_ac1 and weighted_accuracy;
    # 84 before the per-class matrix formulas class_cen and class_mcen, and iba (chain rule through base);
    # 87 before preference_driven (chain rule through its default kappa)
    # every metric of the confusion matrix without one is not differentiable in the counts
    reasons = {info.no_delta for info in catalog().values() if info.no_delta}
    assert all(r.startswith(("not differentiable", "a curve-level", "a score-level", "a term averages over instances"))
               for r in reasons), reasons


def _mode_cases():
    """Per-class partials and cells with undefined classes, under each zero division, class
    weights or supports, and both positive classes."""
    rng = np.random.default_rng(11)
    for zero_division in (np.nan, 0.0, "skip"):
        for weights in (None, [0.5, 2.0, 1.0]):
            for pos_label in (1, 0):
                undefined = np.array([[False, True, False], [False, False, False]])
                values = np.where(undefined, np.nan if zero_division != 0.0 else 0.0, rng.uniform(0.1, 1.0, (2, 3)))
                partials = np.where(undefined[..., None], np.nan, rng.normal(size=(2, 3, 4)))
                cells = np.where(rng.uniform(size=(2, 3, 3, 3)) < 0.1, np.nan, rng.normal(size=(2, 3, 3, 3)))
                support = rng.integers(1, 6, (2, 3)).astype(float)
                yield (partials, np.nanmean(values, axis=-1), values, undefined, support, weights, pos_label,
                       zero_division), (cells, None, values, np.isnan(values), support, weights, pos_label, zero_division)


@pytest.mark.parametrize("name", namespaces.NAMES)
def test_the_modes_gradients_are_computed_in_the_arrays_namespace(name):
    """Each mode's gradient and cell gradient take the namespace as combine does: the arrays'
    library gives numpy's numbers, and the result stays in that library and on its device."""
    library = namespaces.load(name)
    for by_counts, by_cells in _mode_cases():
        for mode in averaging.MODES.values():
            for derivative, fields in ((mode.gradient, by_counts), (mode.cell_gradient, by_cells)):
                if derivative is None:
                    continue
                with np.errstate(all="ignore"):
                    expected = derivative(np, averaging.PerClassPartials(*fields))
                arrays = [namespaces.put(library, name, f) if isinstance(f, np.ndarray) else f for f in fields]
                xp = namespace.array_namespace(arrays[0])
                with np.errstate(all="ignore"):  # array-api-strict computes with numpy
                    found = derivative(xp, averaging.PerClassPartials(*arrays))
                assert namespaces.same_place(found, arrays[0]), (mode.name, name)
                host = namespace.to_host(found)
                tolerance = 1e-12 if host.dtype == np.float64 else 1e-5
                np.testing.assert_allclose(host, expected, rtol=tolerance, atol=tolerance, err_msg=f"{mode.name} on {name}")


def test_the_modes_gradients_on_numpy_are_bit_for_bit_those_before_the_namespace():
    """The digest of every mode's gradients over :func:`_mode_cases`, recorded with the
    numpy-only functions (commit abaf67b) before they took the namespace."""
    digest = hashlib.sha256()
    for by_counts, by_cells in _mode_cases():
        for mode in averaging.MODES.values():
            for derivative, fields in ((mode.gradient, by_counts), (mode.cell_gradient, by_cells)):
                if derivative is not None:
                    with np.errstate(all="ignore"):
                        digest.update(np.ascontiguousarray(derivative(np, averaging.PerClassPartials(*fields))).tobytes())
    assert digest.hexdigest() == "0453c2a47f5e8aa2a1cae3e935fa703626b685150e141a76c02a374820f2ba0c"


def _helper_cases():
    """Class partials with NaN, the matrix cells (empty ones included) and an aggregate's chain."""
    rng = np.random.default_rng(5)
    for shape in [(3,), (2, 4), (5, 2, 3)]:
        partials = np.where(rng.uniform(size=(*shape, 4)) < 0.1, np.nan, rng.normal(size=(*shape, 4)))
        cells = rng.integers(0, 4, (*shape[:-1], shape[-1], shape[-1])).astype(float)
        outer = [rng.normal(size=shape[:-1]) for _ in range(3)]
        inner = [rng.normal(size=(*shape[:-1], shape[-1], shape[-1])) for _ in range(3)]
        yield partials, cells, rng.integers(0, 3, partials.shape).astype(float), outer, inner, rng.uniform(size=shape[:-1]) < 0.3


def _helpers(xp, partials, cells, class_cells, outer, inner, undefined):
    gradient = grad.cell_gradient(partials, xp=xp)
    return (gradient, grad.delta_variance(gradient, cells, xp=xp), grad.delta_variance(partials, class_cells, axes=1, xp=xp),
            grad.combine_gradients(outer, inner, undefined, xp=xp))


def test_the_gradient_helpers_on_numpy_are_bit_for_bit_those_before_the_namespace():
    """Digest recorded with the numpy-only helpers (commit fcb0d15)."""
    digest = hashlib.sha256()
    for case in _helper_cases():
        with np.errstate(all="ignore"):
            for found in _helpers(np, *case):
                digest.update(np.ascontiguousarray(found).tobytes())
    assert digest.hexdigest() == "8583354e7dd1343cffe761c554e3dd574728bca218db83dc241244daf0d31db0"


@pytest.mark.parametrize("name", namespaces.NAMES)
def test_the_gradient_helpers_are_computed_in_the_arrays_namespace(name):
    library = namespaces.load(name)
    for case in _helper_cases():
        partials, cells, class_cells, outer, inner, undefined = case
        with np.errstate(all="ignore"):
            expected = _helpers(np, *case)
            arrays = [namespaces.put(library, name, a) for a in (partials, cells, class_cells)]
            chain = ([namespaces.put(library, name, o) for o in outer], [namespaces.put(library, name, i) for i in inner],
                     namespaces.put(library, name, undefined))
            xp = namespace.array_namespace(arrays[0])
            found = _helpers(xp, *arrays, *chain)
        for what, value, reference in zip(("cells", "variance", "class variance", "chain"), found, expected):
            assert namespaces.same_place(value, arrays[0]), (what, name)
            host = namespace.to_host(value)
            tolerance = 1e-12 if host.dtype == np.float64 else 1e-5
            np.testing.assert_allclose(host, reference, rtol=tolerance, atol=tolerance, err_msg=f"{what} on {name}")
