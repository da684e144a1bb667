"""Properties of the generated metrics, looped over the registry (``metricc.generated.CATALOG``).

In the manner of scikit-learn's ``sklearn/metrics/tests/test_common.py``: every metric and
every averaging mode it declares is checked for its declared range, batch == loop, the
identities of single-label data, the proved equivalences of the IR, and input errors.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from metricc.generated import CATALOG
from metricc.core.errors import InputError

FAST = settings(max_examples=40, deadline=None)
# Tests run once per metric draw 20 inputs each; a property of one identity (a
# single test) keeps FAST's 40.
PER_METRIC = settings(max_examples=20, deadline=None)
INFOS = sorted(CATALOG.values(), key=lambda info: info.id)
CLASS_LEVEL = [info for info in INFOS if info.level == "class"]
ON_COUNTS = [info.id for info in INFOS if info.level in ("class", "aggregate", "matrix")]  # confusion matrix input
ON_SCORES = [info.id for info in INFOS if info.level in ("curve", "score")]  # labels and score matrix input


def counts_of(matrix):
    """(TP, FP, FN, TN), each (..., C), from matrices (..., C, C) with true classes in rows."""
    matrix = np.asarray(matrix, dtype=np.int64)
    tp = np.diagonal(matrix, axis1=-2, axis2=-1)
    fp = matrix.sum(axis=-2) - tp
    fn = matrix.sum(axis=-1) - tp
    tn = matrix.sum(axis=(-2, -1))[..., None] - tp - fp - fn
    return tp, fp, fn, tn


def one_hot_instance_counts(matrix):
    """Per-instance (TP, FP, FN, TN), each (n,), of the samples of one matrix read as one-hot
    indicator rows: a correct sample is (1, 0, 0, C - 1), a wrong one (0, 1, 1, C - 2)."""
    c = matrix.shape[-1]
    true, predicted = np.divmod(np.repeat(np.arange(c * c), np.asarray(matrix).ravel()), c)
    tp = (true == predicted).astype(np.int64)
    return tp, 1 - tp, 1 - tp, c - 2 + tp


def value(info, mode, matrix, raw=False, **kwargs):
    """The metric (under ``mode`` when class level) on confusion matrices ``(..., C, C)``.

    Variants that average over instances (``samples``) see the matrix's samples as one-hot
    indicator rows, one matrix at a time (NaN for a matrix without samples); with ``raw``
    they take the per-class counts as if they were per-instance counts, which any
    non-negative counts may be.
    """
    if info.level == "matrix":
        return info.function(matrix, **kwargs)
    if info.level == "class":
        kwargs["average"] = mode
    if not raw and (info.per_instance or mode == "samples"):
        matrix = np.asarray(matrix)
        if matrix.ndim > 2:
            return np.array([value(info, mode, m, **kwargs) for m in matrix])
        counts = one_hot_instance_counts(matrix)
        return info.function(*counts, **kwargs) if counts[0].size else math.nan
    return info.function(*counts_of(matrix), **kwargs)


def random_matrices(rng, batch: int, c: int, sparse: float = 0.3) -> np.ndarray:
    matrix = rng.integers(0, 31, size=(batch, c, c))
    return np.where(rng.random((batch, c, c)) < sparse, 0, matrix)


@st.composite
def confusion_matrices(draw, sizes=st.integers(2, 5), batch=()):
    c = draw(sizes)
    entries = st.integers(0, 30)
    if draw(st.booleans()):
        entries = st.one_of(st.just(0), entries)
    return draw(hnp.arrays(np.int64, (*batch, c, c), elements=entries))


def raises_input_error(argument: str):
    """InputError whose ``argument`` is ``argument`` and whose message starts with it."""
    return pytest.raises(InputError, match=rf"^{argument.replace('.', '[.]')}: ")


# ---------------------------------------------------------------- range, batch == loop

def draw_params(metric, draw, n_classes: int) -> dict:
    """Parameter values inside their declared domains: scalars, and class vectors (or None)."""
    out = {}
    for p in metric.params:
        if p.kind == "metric":  # any class-level metric of the catalog, by id
            out[p.name] = draw(st.sampled_from([info.id for info in CLASS_LEVEL if "none" in info.averages]))
            continue
        pool = [p.default] if p.default.is_number else []
        pool += [sympy.Rational(v) for v in ("0", "1/4", "1/2", "1", "2", "3")]
        pool = sorted({v for v in pool if all(bool(rel.subs(p.symbol, v)) for rel in p.domain)}, key=float)
        if p.kind == "scalar":
            out[p.name] = float(draw(st.sampled_from(pool)))
        elif p.kind == "class_matrix":
            if draw(st.booleans()):  # a user (C, C) matrix; otherwise the default of i, j and C
                row = st.lists(st.sampled_from(pool), min_size=n_classes, max_size=n_classes)
                out[p.name] = [[float(v) for v in draw(row)] for _ in range(n_classes)]
        elif draw(st.booleans()):  # a user vector; otherwise the computed default
            out[p.name] = [float(v) for v in draw(st.lists(st.sampled_from(pool), min_size=n_classes, max_size=n_classes))]
    return out


@pytest.mark.parametrize("metric_id", ON_COUNTS)
@PER_METRIC
@given(data=st.data())
def test_value_within_declared_range_or_nan(compiled_metrics, metric_id, data):
    info = CATALOG[metric_id]
    matrix = data.draw(confusion_matrices(), label="matrix")
    params = draw_params(compiled_metrics[metric_id], data.draw, matrix.shape[-1])
    low, high = info.range
    for mode in info.averages or (None,):
        for zero_division in (math.nan, "skip"):  # skip: means over the defined classes only
            result = np.atleast_1d(np.asarray(value(info, mode, matrix, zero_division=zero_division, **params), dtype=float))
            defined = result[~np.isnan(result)]
            assert np.all(defined >= low - 1e-12) and np.all(defined <= high + 1e-12), (mode, zero_division, result)


@pytest.mark.parametrize("metric_id", ON_COUNTS)
@PER_METRIC
@given(data=st.data())
def test_batch_equals_loop(compiled_metrics, metric_id, data):
    """7 matrices stacked on a leading axis give the values of 7 separate calls."""
    info = CATALOG[metric_id]
    matrices = data.draw(confusion_matrices(batch=(7,)), label="matrices")
    params = draw_params(compiled_metrics[metric_id], data.draw, matrices.shape[-1])
    for mode in info.averages or (None,):
        for zero_division in (math.nan, 0.0, "skip"):
            kwargs = dict(params, zero_division=zero_division)
            batched = np.asarray(value(info, mode, matrices, raw=True, **kwargs), dtype=float)
            looped = np.array([value(info, mode, m, raw=True, **kwargs) for m in matrices], dtype=float)
            assert batched.shape == looped.shape, mode
            np.testing.assert_allclose(batched, looped, rtol=1e-12, atol=0, equal_nan=True, err_msg=str(mode))


@pytest.mark.parametrize("metric_id", ON_COUNTS)
def test_counts_of_billions_do_not_overflow(metric_id):
    """Where doubling the counts leaves a value unchanged, so does multiplying them by 1e9
    (products of int64 counts of a few billion, e.g. pixels, must not wrap around)."""
    info = CATALOG[metric_id]
    matrices = random_matrices(np.random.default_rng(5), 20, 3) + 1
    for mode in info.averages or (None,):
        small = np.asarray(value(info, mode, matrices, raw=True), dtype=float)
        doubled = np.asarray(value(info, mode, 2 * matrices, raw=True), dtype=float)
        invariant = np.isclose(small, doubled, rtol=1e-12, atol=0) | (np.isnan(small) & np.isnan(doubled))
        huge = np.asarray(value(info, mode, 10**9 * matrices, raw=True), dtype=float)
        # atol: RCI near 0 is within its documented conditioning (1e-12 of a scale near 1), not
        # relative: at an independent matrix it is -1.4e-16 at small counts, 0.0 at huge ones.
        np.testing.assert_allclose(huge[invariant], small[invariant], rtol=1e-9, atol=1e-12, err_msg=str(mode))


def test_batch_equals_loop_with_user_weights():
    rng = np.random.default_rng(7)
    matrices = random_matrices(rng, 7, 4)
    weights = [1.0, 0.0, 2.5, 3.0]
    for info in CLASS_LEVEL:
        if "weighted" in info.averages:
            batched = value(info, "weighted", matrices, weights=weights)
            looped = [value(info, "weighted", m, weights=weights) for m in matrices]
            np.testing.assert_allclose(batched, looped, rtol=1e-12, equal_nan=True, err_msg=info.id)


# ---------------------------------------------------------------- identities

@FAST
@given(matrix=confusion_matrices())
def test_micro_precision_recall_f1_equal_accuracy_on_single_label_data(matrix):
    accuracy = CATALOG["accuracy"].function(matrix)
    for metric_id in ("precision", "recall", "f1", "f_beta"):
        micro = value(CATALOG[metric_id], "micro", matrix)
        np.testing.assert_allclose(micro, accuracy, rtol=1e-12, equal_nan=True, err_msg=metric_id)
    if matrix.sum() > 0:
        assert not math.isnan(accuracy)


@FAST
@given(matrix=confusion_matrices())
def test_weighted_recall_equals_accuracy(matrix):
    """Also when a class is predicted but never true: its recall is 0/0, its weight 0."""
    weighted = value(CATALOG["recall"], "weighted", matrix)
    np.testing.assert_allclose(weighted, CATALOG["accuracy"].function(matrix), rtol=1e-12, equal_nan=True)


@FAST
@given(matrix=confusion_matrices())
def test_macro_recall_equals_balanced_accuracy(matrix):
    macro_recall = value(CATALOG["recall"], "macro", matrix)
    balanced = value(CATALOG["balanced_accuracy"], None, matrix)
    np.testing.assert_allclose(balanced, macro_recall, rtol=1e-12, equal_nan=True)


@FAST
@given(matrix=confusion_matrices(sizes=st.just(2)))
def test_mcc_equals_binary_mcc_per_class_for_two_classes(matrix):
    mcc = CATALOG["mcc"].function(matrix)
    for pos_label in (0, 1):
        per_class = CATALOG["mcc_per_class"].function(*counts_of(matrix), average="binary", pos_label=pos_label)
        np.testing.assert_allclose(per_class, mcc, rtol=1e-12, atol=1e-15, equal_nan=True)


@pytest.mark.parametrize("metric_id", [i.id for i in CLASS_LEVEL if "weighted" in i.averages])
@PER_METRIC
@given(matrix=confusion_matrices(sizes=st.just(4)), weights=st.lists(st.integers(0, 9), min_size=4, max_size=4))
def test_user_weights_with_weighted_average(metric_id, matrix, weights):
    info = CATALOG[metric_id]
    counts = counts_of(matrix)
    per_class = info.function(*counts, average="none")
    result = info.function(*counts, average="weighted", weights=weights)
    if sum(weights) == 0:
        assert math.isnan(result)
    else:
        # A class of weight 0 takes no part, even where its value is undefined.
        expected = np.average(np.where(np.asarray(weights) == 0, 0.0, per_class), weights=weights)
        np.testing.assert_allclose(result, expected, rtol=1e-12, equal_nan=True)
    support = counts[0] + counts[2]
    np.testing.assert_allclose(info.function(*counts, average="weighted", weights=support),
                               info.function(*counts, average="weighted"), rtol=1e-12, equal_nan=True)


def _equivalences(compiled_metrics):
    return [(metric_id, e) for metric_id, metric in sorted(compiled_metrics.items()) for e in metric.equivalences]


def _bound(metric_id, bindings, n_classes):
    """Parameter bindings of a statement as keyword arguments (class vectors: every class)."""
    return {name: np.full(n_classes, float(v)) if kind == "class_vector" else float(v) for name, v, kind in bindings}


def test_every_proved_equivalence_holds_numerically(compiled_metrics):
    """Scope "all" on C = 2..5, scope "binary" on C = 2; compared wherever both sides are defined."""
    rng = np.random.default_rng(2022)
    batches = {c: random_matrices(rng, 60, c) for c in (2, 3, 4, 5)}
    equivalences = _equivalences(compiled_metrics)
    assert equivalences, "the catalog proves no equivalence"
    for metric_id, e in equivalences:
        sizes = (2, 3, 4, 5) if e.scope == "all" else (2,)
        for c in sizes:
            left = np.asarray(value(CATALOG[metric_id], e.mode, batches[c], **_bound(metric_id, e.bindings, c)), dtype=float)
            right = np.asarray(value(CATALOG[e.other], e.other_mode, batches[c], **_bound(e.other, e.other_bindings, c)), dtype=float)
            both = ~np.isnan(left) & ~np.isnan(right)
            label = f"{metric_id}({e.mode}) == {e.other}({e.other_mode}) [{e.scope}], C={c}"
            assert both.sum() >= 10, f"{label}: too few matrices where both sides are defined"
            np.testing.assert_allclose(left[both], right[both], rtol=1e-9, atol=1e-12, err_msg=label)


def test_geometric_averaging_only_for_non_negative_metrics():
    for info in CLASS_LEVEL:
        if "geometric" in info.averages:
            assert info.range[0] >= 0, info.id


# ---------------------------------------------------------------- errors

MATRIX = np.array([[3, 1, 0], [2, 4, 1], [0, 1, 5]])


@pytest.mark.parametrize("metric_id", [i.id for i in CLASS_LEVEL])
def test_bad_average_name(metric_id):
    with raises_input_error("average"):
        value(CATALOG[metric_id], "macroo", MATRIX)


@pytest.mark.parametrize("metric_id", [i.id for i in CLASS_LEVEL if "weighted" in i.averages])
def test_wrong_length_weights(metric_id):
    with raises_input_error("weights"):
        value(CATALOG[metric_id], "weighted", MATRIX, weights=[1.0, 2.0])
    with raises_input_error("weights"):
        value(CATALOG[metric_id], "weighted", MATRIX, weights=[1.0, -2.0, 1.0])


def test_class_vector_parameter_of_wrong_length():
    with_vectors = [(info, p) for info in INFOS for p in info.params if p.kind == "class_vector"]
    if not with_vectors:
        pytest.skip("no metric of the catalog has a class_vector parameter yet")
    for info, param in with_vectors:
        mode = next((m for m in info.averages if m != "micro"), None)
        with raises_input_error(param.name):
            value(info, mode, MATRIX, **{param.name: [1.0, 2.0]})


@pytest.mark.parametrize("metric_id", [i.id for i in INFOS if i.level in ("class", "aggregate")])
@pytest.mark.parametrize("field", ["true_positives", "false_positives", "false_negatives", "true_negatives"])
def test_negative_or_nan_counts(metric_id, field):
    info = CATALOG[metric_id]
    index = ("true_positives", "false_positives", "false_negatives", "true_negatives").index(field)
    extra = {"average": info.default_average} if info.level == "class" else {}
    for bad in (-1, math.nan):
        counts = [np.array(c, dtype=float) for c in counts_of(MATRIX)]
        counts[index][1] = bad
        with raises_input_error(f"counts.{field}"):
            info.function(*counts, **extra)


@pytest.mark.parametrize("metric_id", [i.id for i in INFOS if i.level == "matrix"])
def test_bad_matrices(metric_id):
    info = CATALOG[metric_id]
    for bad in (np.ones((2, 3)), np.ones(3), [[1, -1], [0, 2]], [[1.0, math.nan], [0.0, 2.0]]):
        with raises_input_error("matrix"):
            info.function(bad)


# ---------------------------------------------------------------- curve and score levels

@st.composite
def labelled_scores(draw):
    """Labels 0..C-1 with at least two classes present; probability rows with many ties."""
    c = draw(st.integers(2, 4))
    n = draw(st.integers(2, 12))
    y = draw(st.lists(st.integers(0, c - 1), min_size=n, max_size=n).filter(lambda v: len(set(v)) >= 2))
    weights = np.array(draw(st.lists(st.lists(st.integers(0, 3), min_size=c, max_size=c), min_size=n, max_size=n)), dtype=float)
    weights[weights.sum(axis=1) == 0, -1] = 1.0
    return np.array(y), weights / weights.sum(axis=1, keepdims=True)


# Not invariant to the order of the classes, by definition: ties between classes go to the
# later (scikit-learn's top-k) or the first (torch.max) column, or one column is read.
CLASS_ORDER_MATTERS = {"top_k_accuracy", "calibration_error", "rms_calibration_error", "binary_calibration_error",
                      "max_calibration_error", "binary_max_calibration_error",
                      "binary_hinge_loss"}  # class 1 is the positive class


@pytest.mark.parametrize("metric_id", ON_SCORES)
@PER_METRIC
@given(data=labelled_scores(), seed=st.integers(0, 2**16))
def test_score_metrics_in_range_and_invariant_to_sample_and_class_order(compiled_metrics, metric_id, data, seed):
    """Range; the same value for shuffled samples; classes renamed consistently permute the values."""
    info = CATALOG[metric_id]
    y, scores = data
    rng = np.random.default_rng(seed)
    order, columns = rng.permutation(y.size), rng.permutation(scores.shape[1])
    renamed = np.argsort(columns)[y]  # the class in column q is the old class columns[q]
    if compiled_metrics[metric_id].truth == "relevance":  # graded: ties, zeros, an all-zero row
        y = rng.integers(0, 4, size=scores.shape) * rng.choice([1.0, 0.37])
        y[rng.integers(y.shape[0])] = 0.0
    elif info.indicator_truth:  # multi-label metrics take the indicator matrix (here one-hot)
        y = np.eye(scores.shape[1], dtype=int)[y]
    low, high = info.range
    for mode in [m for m in info.averages if m != "binary"] or [None]:
        kwargs = {"average": mode} if mode else {}
        result = np.atleast_1d(np.asarray(info.function(y, scores, **kwargs), dtype=float))
        defined = result[~np.isnan(result)]
        assert np.all(defined >= low - 1e-12) and np.all(defined <= high + 1e-12), (mode, result)
        shuffled = np.atleast_1d(info.function(y[order], scores[order], **kwargs))
        np.testing.assert_allclose(shuffled, result, rtol=1e-12, atol=1e-15, equal_nan=True, err_msg=str(mode))
        if metric_id in CLASS_ORDER_MATTERS:
            continue
        truth = renamed if not info.indicator_truth else y[:, columns]
        relabelled = np.atleast_1d(info.function(truth, scores[:, columns], labels=list(range(scores.shape[1])), **kwargs))
        expected = result[columns] if mode == "none" else result
        np.testing.assert_allclose(relabelled, expected, rtol=1e-12, atol=1e-15, equal_nan=True, err_msg=str(mode))


@pytest.mark.parametrize("metric_id", ON_SCORES)
def test_score_metrics_reject_nan_scores_and_misaligned_labels(metric_id):
    function = CATALOG[metric_id].function
    with raises_input_error("scores"):
        function([0, 1, 1], [[0.5, 0.5], [math.nan, 1.0], [0.2, 0.8]])
    with raises_input_error("y_true"):
        function([0, 1], [[0.5, 0.5], [0.0, 1.0], [0.2, 0.8]])
