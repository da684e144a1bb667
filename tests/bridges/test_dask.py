"""``metricc.bridges.dask``: counts of Dask collections split into many uneven chunks equal the
in-memory counts exactly, for every level that reads counts (class, aggregate, matrix,
multi-label and per-instance, curve). Skipped without ``pip install "metricc[dask]"``."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")

import metricc as mc  # noqa: E402
from metricc.bridges import dask as bridge  # noqa: E402
from metricc.generated import CATALOG  # noqa: E402
from metricc.core.errors import InputError  # noqa: E402

UNEVEN = (1, 7, 2, 90, 13, 1, 200, 3, 33, 150)  # 500 rows in 10 chunks of very different sizes
LABEL_METRICS = [i.id for i in CATALOG.values() if i.level in ("class", "aggregate", "matrix")
                 and not i.per_instance and i.default_average != "samples"]


def _same(a, b):
    np.testing.assert_array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float))


@pytest.fixture(scope="module")
def labels():
    rng = np.random.default_rng(8)
    names = np.array(["bird", "cat", "dog", "eel", "fox"])
    return names[rng.integers(0, 5, 500)], names[rng.integers(0, 5, 500)]


@pytest.mark.parametrize("scheduler", ["sync", "threads"])
def test_uneven_array_chunks_give_the_in_memory_matrix_and_every_metric(labels, scheduler):
    y_true, y_pred = labels
    counts = bridge.accumulate(da.from_array(y_true, chunks=(UNEVEN,)), da.from_array(y_pred, chunks=97),
                               split_every=3, scheduler=scheduler)
    assert counts.matrix.dtype.kind == "i"
    _same(counts.matrix, mc.confusion_matrix(y_true, y_pred))
    assert counts.classes.tolist() == mc.class_labels(y_true, y_pred).tolist()
    for name in LABEL_METRICS:  # binary on more than two classes is refused: such metrics take macro here
        options = {"average": "macro"} if mc.metric(name).default_average == "binary" else {}
        _same(counts.compute(name, **options)[name], mc.evaluate(name, y_true=y_true, y_pred=y_pred, **options)[name])


def test_a_class_missing_from_most_chunks_and_fixed_labels(labels):
    y_true, y_pred = labels
    y_true = y_true.copy()
    y_true[-1] = "yak"  # only in the last chunk
    grown = bridge.accumulate(da.from_array(y_true, chunks=(UNEVEN,)), da.from_array(y_pred, chunks=(UNEVEN,)),
                              scheduler="sync")
    _same(grown.matrix, mc.confusion_matrix(y_true, y_pred))
    order = ["yak", "fox", "eel", "dog", "cat", "bird"]
    fixed = bridge.accumulate(da.from_array(y_true, chunks=50), da.from_array(y_pred, chunks=50), labels=order,
                              scheduler="sync")
    _same(fixed.matrix, mc.confusion_matrix(y_true, y_pred, labels=order))
    with pytest.raises(InputError, match=r"label 'yak' is not one of the labels .* \(in chunk 9\)"):
        bridge.accumulate(da.from_array(y_true, chunks=50), da.from_array(y_pred, chunks=50), labels=order[1:],
                          scheduler="sync")


def test_dataframe_columns_and_parquet(labels, tmp_path):
    y_true, y_pred = labels
    frame = pd.DataFrame({"truth": y_true, "prediction": y_pred})
    dd.from_pandas(frame, npartitions=7).to_parquet(tmp_path / "labels")
    table = dd.read_parquet(tmp_path / "labels")
    counts = bridge.accumulate(table["truth"], table["prediction"], scheduler="sync")
    _same(counts.matrix, mc.confusion_matrix(y_true, y_pred))
    mixed = bridge.accumulate(table["truth"], da.from_array(y_pred, chunks=(UNEVEN,)), scheduler="threads")
    _same(mixed.matrix, counts.matrix)


def test_series_partitioned_otherwise_are_aligned_and_errors_name_the_partition(labels):
    y_true, y_pred = labels
    truth = dd.from_pandas(pd.DataFrame({"truth": y_true}), npartitions=7)["truth"]
    predicted = dd.from_pandas(pd.DataFrame({"prediction": y_pred}), npartitions=3)["prediction"]
    _same(bridge.accumulate(truth, predicted, scheduler="sync").matrix, mc.confusion_matrix(y_true, y_pred))
    y_true = y_true.copy()
    y_true[-1] = "yak"  # only in the last partition
    frame = dd.from_pandas(pd.DataFrame({"truth": y_true, "prediction": y_pred}), npartitions=5)
    with pytest.raises(InputError, match=r"label 'yak' is not one of the labels .* \(in chunk 4\)"):
        bridge.accumulate(frame["truth"], frame["prediction"], labels=["bird", "cat", "dog", "eel", "fox"],
                          scheduler="sync")


def test_multilabel_and_per_instance_counts():
    rng = np.random.default_rng(1)
    y_true, y_pred = rng.integers(0, 2, (500, 4)), rng.integers(0, 2, (500, 4))
    counts = bridge.accumulate(da.from_array(y_true, chunks=(UNEVEN, 2)), da.from_array(y_pred, chunks=(61, 4)),
                               multilabel=True, scheduler="sync")
    _same(np.stack(counts.counts), np.stack(mc.multilabel_counts(y_true, y_pred)))
    expected = mc.evaluate(["f1", "hamming_loss"], y_true=y_true, y_pred=y_pred, multilabel=True, average="micro")
    got = counts.compute(["f1", "hamming_loss"], average="micro")
    for name in expected:
        _same(got[name], expected[name])
    np.testing.assert_allclose(counts.compute("jaccard", average="samples", zero_division=0)["jaccard"],
                               mc.evaluate("jaccard", y_true=y_true, y_pred=y_pred, multilabel=True,
                                           average="samples", zero_division=0)["jaccard"], rtol=1e-12)


def test_threshold_counts_for_curve_level_metrics():
    rng = np.random.default_rng(6)
    y, scores = rng.integers(0, 3, 500), np.round(rng.dirichlet(np.ones(3), 500), 2)
    counts = bridge.accumulate(da.from_array(y, chunks=(UNEVEN,)), scores=da.from_array(scores, chunks=(45, 3)),
                               labels=[0, 1, 2], scheduler="threads")
    for name in [i.id for i in CATALOG.values() if i.level == "curve"]:
        _same(counts.compute(name)[name], mc.evaluate(name, y_true=y, scores=scores)[name])


def test_sample_weight_gives_the_in_memory_weighted_matrix(labels, tmp_path):
    y_true, y_pred = labels
    weights = np.random.default_rng(2).integers(0, 4, 500) / 4  # quarters: every sum exact, in any order
    expected = mc.confusion_matrix(y_true, y_pred, sample_weight=weights)
    counts = bridge.accumulate(da.from_array(y_true, chunks=(UNEVEN,)), da.from_array(y_pred, chunks=97),
                               sample_weight=da.from_array(weights, chunks=41), split_every=3, scheduler="sync")
    assert counts.matrix.dtype.kind == "f"
    _same(counts.matrix, expected)
    for name in ("accuracy", "mcc", "cohen_kappa"):
        _same(counts.compute(name)[name], mc.evaluate(name, matrix=expected)[name])
    frame = pd.DataFrame({"truth": y_true, "prediction": y_pred, "weight": weights})
    dd.from_pandas(frame, npartitions=7).to_parquet(tmp_path / "weighted")
    table = dd.read_parquet(tmp_path / "weighted")
    _same(bridge.accumulate(table["truth"], table["prediction"], sample_weight=table["weight"], scheduler="sync").matrix,
          expected)
    mixed = bridge.accumulate(table["truth"], da.from_array(y_pred, chunks=(UNEVEN,)),
                              sample_weight=da.from_array(weights, chunks=100), scheduler="threads")
    _same(mixed.matrix, expected)
    with pytest.raises(InputError, match="^sample_weight: expected 500 rows like y_true, got 499$"):
        bridge.accumulate(da.from_array(y_true, chunks=50), da.from_array(y_pred, chunks=50),
                          sample_weight=da.from_array(weights[1:], chunks=50))
    with pytest.raises(InputError, match="^sample_weight: weights apply to single-label predictions"):
        bridge.accumulate(da.from_array(y_true, chunks=50), scores=da.from_array(weights, chunks=50), labels=[0, 1],
                          sample_weight=da.from_array(weights, chunks=50))


def test_inputs_that_cannot_be_counted_are_refused():
    y = da.from_array(np.array([0, 1, 1]), chunks=2)
    with pytest.raises(InputError, match="y_pred: give y_pred"):
        bridge.accumulate(y)
    with pytest.raises(InputError, match="y_pred: expected 3 rows like y_true, got 2$"):
        bridge.accumulate(y, da.from_array(np.array([0, 1]), chunks=1))
    with pytest.raises(InputError, match="expected a dask.array"):
        bridge.accumulate(y, [0, 1, 1])
    with pytest.raises(InputError, match="split_every"):
        bridge.accumulate(y, y, split_every=1)
    with pytest.raises(InputError, match="labels: give the classes in score-column order"):
        bridge.accumulate(y, scores=da.from_array(np.array([0.1, 0.2, 0.9]), chunks=2))


def test_docstring_example():
    assert doctest.testmod(bridge).failed == 0
