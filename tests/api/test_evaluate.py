"""``evaluate``, ``catalog`` and ``metric``: every kind of input, averaging, parameters, errors.

Data: ``y_true = [0, 1, 1, 2]``, ``y_pred = [0, 1, 2, 2]``, so the matrix is
``[[1, 0, 0], [0, 1, 1], [0, 0, 1]]``: recall per class 1, 1/2, 1; precision 1, 1, 1/2;
F1 1, 2/3, 2/3. Expected values are worked by hand from it.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

from metricc.runtime.confusion import ClassCounts
from metricc.core.errors import InputError
from metricc.api.evaluate import catalog, evaluate, metric
from metricc.runtime.registry import Catalog, MetricInfo, find_metric
from metricc.runtime.scores import check_score_memory

Y_TRUE, Y_PRED = [0, 1, 1, 2], [0, 1, 2, 2]
MATRIX = [[1, 0, 0], [0, 1, 1], [0, 0, 1]]
COUNTS = ClassCounts([1, 1, 1], [0, 0, 1], [0, 1, 0], [3, 2, 2])


def raises(argument: str, message: str = ""):
    return pytest.raises(InputError, match=rf"^{argument}: .*{message}")


def test_catalog_and_metric_resolve_ids_and_aliases():
    assert isinstance(catalog(), Catalog) and "precision" in catalog()
    info = metric("ppv")
    assert isinstance(info, MetricInfo) and info.id == "precision"
    assert find_metric("ppv") is info  # the metrics generated modules declared, for the kernel
    with raises("metric", "unknown metric 'precison'; did you mean 'precision'"):
        metric("precison")


@pytest.mark.parametrize("inputs", [
    {"y_true": Y_TRUE, "y_pred": Y_PRED},
    {"matrix": MATRIX},
    {"matrix": np.transpose(MATRIX), "orientation": "pred-rows"},
    {"counts": COUNTS},
])
def test_every_input_kind_gives_the_same_values(inputs):
    values = evaluate(["recall", "precision", "f1"], average="macro", **inputs)
    assert values["recall"] == pytest.approx(2.5 / 3)
    assert values["precision"] == pytest.approx(2.5 / 3)
    assert values["f1"] == pytest.approx(7 / 9)


def test_names_are_kept_as_given_and_each_metric_uses_its_default_average():
    values = evaluate(["ppv", "accuracy", "recall"], y_true=Y_TRUE, y_pred=Y_PRED)
    assert list(values) == ["ppv", "accuracy", "recall"]
    assert values["accuracy"] == 0.75
    assert evaluate("recall", matrix=MATRIX, average="none")["recall"].tolist() == [1.0, 0.5, 1.0]
    assert evaluate("recall", matrix=MATRIX, average="weighted")["recall"] == 0.75  # = micro recall
    assert evaluate("mcc", matrix=[[5, 1], [2, 4]])["mcc"] == pytest.approx(18 / math.sqrt(6 * 6 * 7 * 5))


def test_pos_label_is_a_label_or_an_index():
    y_true, y_pred = ["cat", "dog", "dog"], ["cat", "cat", "dog"]
    with raises("pos_label", "are not numbers: name the positive class"):  # scikit-learn refuses too
        evaluate("recall", y_true=y_true, y_pred=y_pred, average="binary")
    assert evaluate("recall", y_true=y_true, y_pred=y_pred, average="binary", pos_label="cat")["recall"] == 1.0
    assert evaluate("recall", matrix=MATRIX, average="binary", pos_label=2)["recall"] == 1.0
    with raises("pos_label", "'bird' is not one of the labels"):
        evaluate("recall", y_true=y_true, y_pred=y_pred, average="binary", pos_label="bird")


@pytest.mark.parametrize("zero_division, expected", [(0, 0.25), (1, 0.75), ("skip", 0.5)])
def test_zero_division_reaches_the_metric(zero_division, expected):
    """Class 1 is never predicted: its precision is undefined."""
    values = evaluate("precision", y_true=[0, 1], y_pred=[0, 0], average="macro", zero_division=zero_division)
    assert values["precision"] == expected


def test_zero_division_default_is_nan():
    assert math.isnan(evaluate("precision", y_true=[0, 1], y_pred=[0, 0], average="macro")["precision"])


def test_batches_of_matrices_give_one_value_per_matrix():
    values = evaluate(["accuracy", "recall"], matrix=[MATRIX, np.eye(3, dtype=int) * 2], average="macro")
    assert values["accuracy"].tolist() == [0.75, 1.0]
    assert values["recall"].tolist() == pytest.approx([2.5 / 3, 1.0])


def test_multilabel_counts_and_samples_averaging():
    y_true, y_pred = [[1, 0], [1, 1]], [[1, 1], [0, 1]]
    # per class: precision 1/1 (class 0), 1/2 (class 1); per instance: 1/2, 1/1
    per_class = evaluate("precision", y_true=y_true, y_pred=y_pred, multilabel=True, average="none")["precision"]
    assert per_class.tolist() == [1.0, 0.5]
    assert evaluate("recall", y_true=y_true, y_pred=y_pred, multilabel=True, average="samples")["recall"] == 0.75
    with raises("average", "pass indicator matrices"):
        evaluate("recall", y_true=Y_TRUE, y_pred=Y_PRED, average="samples")


def test_params_reach_every_metric_that_declares_them():
    values = evaluate(["f_beta", "recall"], matrix=[[5, 1], [2, 4]], average="binary", params={"beta": 2})
    # class 1: precision 4/5, recall 4/6; F2 = 5 P R / (4 P + R)
    assert values["f_beta"] == pytest.approx(5 * 0.8 * (2 / 3) / (4 * 0.8 + 2 / 3))
    # IBA with recall as its base: (1 + 0.1 (recall - specificity)) recall = (1 - 1/60) 2/3
    iba = evaluate("iba", matrix=[[5, 1], [2, 4]], average="binary", params={"base": "recall"})["iba"]
    assert iba == pytest.approx(118 / 180)


def test_relevance_as_vector_mapping_or_order():
    labels = {"y_true": ["a", "b", "b", "c"], "y_pred": ["a", "b", "c", "c"]}  # the matrix MATRIX
    assert evaluate("relevance_recall", **labels, relevance=[1, 1, 0])["relevance_recall"] == 0.75
    assert evaluate("relevance_recall", **labels, relevance={"a": 0, "b": 1, "c": 0})["relevance_recall"] == 0.5
    # "a < b, a < c": phi = 0.4, 1, 1 (Eq. 10); (0.4 * 1 + 1 * 0.5 + 1 * 1) / 2.4
    ordered = evaluate("relevance_recall", **labels, relevance_order="a < b, a < c")["relevance_recall"]
    assert ordered == pytest.approx(1.9 / 2.4)


@pytest.mark.parametrize("kwargs, argument, message", [
    ({"relevance": [1, 1, 0], "relevance_order": "a < b"}, "relevance_order", "give the relevance once"),
    ({"relevance": {"a": 1, "b": 1}}, "relevance", "no relevance for class c"),
    ({"relevance": "uniform"}, "relevance", "'prevalence'"),
])
def test_relevance_errors(kwargs, argument, message):
    with raises(argument, message):
        evaluate("relevance_recall", y_true=["a", "b", "b", "c"], y_pred=["a", "b", "c", "c"], **kwargs)


def test_scores_feed_curve_and_score_metrics():
    values = evaluate(["roc_auc", "accuracy"], y_true=[0, 0, 1, 1], y_pred=[0, 1, 0, 1], scores=[0.1, 0.4, 0.35, 0.8])
    assert values == {"roc_auc": 0.75, "accuracy": 0.5}


def test_probabilistic_matrices_feed_matrix_metrics():
    one_hot = [[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]]
    assert evaluate("cen", y_true=[0, 1, 1], scores=one_hot, probabilistic="absolute")["cen"] == 0.0
    with raises("probabilistic", "none was requested"):
        evaluate("recall", y_true=[0, 1, 1], scores=one_hot, probabilistic="relative")


@pytest.mark.parametrize("call, argument, message", [
    (lambda: evaluate([], matrix=MATRIX), "metrics", "at least one metric"),
    (lambda: evaluate("recall", matrix=MATRIX, counts=COUNTS), "input", "exactly one"),
    (lambda: evaluate("recall"), "input", "exactly one"),
    (lambda: evaluate("recall", y_true=Y_TRUE), "y_pred", "y_true needs y_pred"),
    (lambda: evaluate("recall", y_pred=Y_PRED, matrix=MATRIX), "y_pred", "y_pred needs y_true"),
    (lambda: evaluate("recall", matrix=MATRIX, params={"beta": 2}), "params", "no requested metric has a parameter"),
    (lambda: evaluate("f_beta", matrix=MATRIX, average="geometric"), "average", "f_beta does not support 'geometric'"),
    (lambda: evaluate("mcc", counts=COUNTS), "input", "mcc needs a confusion matrix"),
    (lambda: evaluate("recall", matrix=MATRIX, labels=["a", "b"]), "labels", "one label per class of the matrix"),
    (lambda: evaluate("recall", counts=COUNTS, labels=["a"]), "labels", "one label per class of the counts"),
    (lambda: evaluate("recall", matrix=MATRIX, relevance=[1, 1, 1]), "relevance", "no requested metric takes"),
    (lambda: evaluate("roc_auc", y_true=[0, 1], y_pred=[0, 1]), "scores", "needs scores"),
    (lambda: evaluate("roc_auc", scores=[0.2, 0.9]), "y_true", "scores need y_true"),
    (lambda: evaluate("recall", matrix=MATRIX, orientation="columns"), "orientation", "not one of"),
    (lambda: evaluate("recall", matrix=MATRIX, zero_division=math.inf), "zero_division", "finite"),
    # what is not a metric id, a parameter mapping or a label is refused by name, not a TypeError
    (lambda: evaluate(None, matrix=MATRIX), "metrics", "a metric id or a list of ids, got NoneType"),
    (lambda: evaluate(5, matrix=MATRIX), "metrics", "a metric id or a list of ids, got int"),
    (lambda: evaluate([["f1"]], matrix=MATRIX), "metrics", r"metric ids \(strings\), got \['f1'\]"),
    (lambda: evaluate({"f1": 1}, matrix=MATRIX), "metrics", "got dict"),
    (lambda: evaluate(b"f1", matrix=MATRIX), "metrics", "got bytes"),
    (lambda: evaluate("f1", matrix=MATRIX, params=[("beta", 2)]), "params", "a mapping"),
    (lambda: evaluate("f1", y_true=[[1, 0]], y_pred=[[1, 0]], multilabel="yes"), "multilabel", "True or False"),
    (lambda: evaluate("f1", y_true=[{"a": 1}, {"b": 2}], y_pred=["a", "b"]), "y_true", r"\{'a': 1\} at index 0 is not a label"),
    (lambda: evaluate("f1", y_true=["a", "b"], y_pred=[["a"], "b"]), "y_pred", "cannot be read as an array"),
    (lambda: evaluate("f1", y_true=["a", ""], y_pred=["a", "b"]), "y_true", "the empty string at index 1 is not a label"),
    (lambda: evaluate("f1", y_true=["a", None], y_pred=["a", "b"]), "y_true", "None at index 1 is not a label"),
    (lambda: evaluate("f1", matrix=MATRIX, labels=5), "labels", "got the single value 5"),
    (lambda: evaluate("f1", counts=COUNTS, labels=[{}, 1, 2]), "labels", "not a label"),
])
def test_errors_name_the_argument(call, argument, message):
    with raises(argument, message):
        call()


@pytest.mark.parametrize("metric_id", ["f_beta", "f_beta_of_macro_averages", "f_beta_of_micro_averages",
                                       "relevance_f_beta", "relevance_av_f_beta"])
@pytest.mark.parametrize("beta", [1e200, 1e154, 2.0 ** 53 * 1.5, -1e300, 10 ** 400],
                         ids=["1e200", "1e154", "1.5*2**53", "-1e300", "10**400"])
def test_a_huge_parameter_is_refused_not_overflowed(metric_id, beta):
    """beta**2 overflowed float64: an OverflowError (1e200) or a warning and NaN (1e154)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with raises("beta", "beyond the largest parameter magnitude 2\\*\\*53"):
            evaluate(metric_id, matrix=MATRIX, params={"beta": beta})
        assert 0 < evaluate(metric_id, matrix=MATRIX, params={"beta": 2.0 ** 53})[metric_id] <= 1


@pytest.mark.parametrize("inputs", [{"matrix": [[2 ** 62, 1], [1, 1]]}, {"matrix": [[2 ** 53, 1], [0, 0]]},
                                    {"counts": ([2 ** 62, 1], [1, 1], [1, 1], [1, 1])},
                                    {"matrix": np.array([[2 ** 63, 1], [1, 1]], dtype=np.uint64)}])
def test_counts_beyond_2_53_are_refused(inputs):
    argument = next(iter(inputs)) + (".true_positives" if "counts" in inputs else "")
    with raises(argument.replace(".", r"\."), "exceeds 2\\*\\*53"):
        evaluate(["accuracy", "f1"], **inputs)


@pytest.mark.parametrize("metric_id", ["au1u", "au1p"])
def test_pairwise_auc_ranks_instead_of_broadcasting_over_pairs(metric_id):
    n = 4000  # broadcast over pairs of samples: 8 * 4000**2 * 3**2 bytes = 1.07 GiB
    scores = np.full((n, 3), 1 / 3)
    assert evaluate([metric_id, "roc_auc"], y_true=np.arange(n) % 3, scores=scores) == {metric_id: 0.5, "roc_auc": 0.5}


def test_score_formulas_broadcasting_over_pairs_of_samples_are_refused_before_allocating():
    with raises("scores", r"pairs on 4000 samples and 3 classes needs arrays of 1\.1 GiB \(n\*\*2 \* C\*\*2 floats\), "
                          "above the limit of 1 GiB"):
        check_score_memory("pairs", 4000, 3, ((2, 2), (1, 1)))
    check_score_memory("au1u", 4000, 3, ((0, 2), (1, 1)))  # ranked, not broadcast: nothing to refuse


# ---------------------------------------------------------------- exactness at large counts
def _kappa(m) -> Fraction:
    n = sum(map(sum, m))
    t, p = [sum(row) for row in m], [sum(col) for col in zip(*m)]
    chance = sum(a * b for a, b in zip(t, p))
    return Fraction(n * sum(m[k][k] for k in range(len(m))) - chance, n * n - chance)


@pytest.mark.parametrize("matrix", [
    [[10 ** 12, 1], [1, 1]],  # float64 gave kappa 0.4999832 here (relative error 3.4e-5)
    [[10 ** 15, 3, 0], [2, 7, 1], [0, 0, 5]],  # int64 products would overflow: Python integers
    [[2 ** 27 + 1, 3], [5, 2 ** 27 + 7]],
])
def test_kappa_and_mcc_are_exact_where_float64_cancels(matrix):
    kappa = _kappa(matrix)
    got = evaluate(["cohen_kappa", "mcc"], matrix=matrix)
    assert abs(Fraction(got["cohen_kappa"]) - kappa) <= abs(kappa) * Fraction(1, 10 ** 15)
    if len(matrix) == 2:  # two classes: MCC is the phi coefficient
        (tp, fn), (fp, tn) = matrix
        phi_squared = Fraction((tp * tn - fp * fn) ** 2, (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
        assert abs(Fraction(got["mcc"]) ** 2 - phi_squared) <= phi_squared * Fraction(1, 10 ** 14)


def test_youden_j_difference_of_products_is_exact():
    tp, fp, fn, tn = 10 ** 15 + 1, 10 ** 15, 10 ** 6, 10 ** 6  # TP*TN - FN*FP = 10**6 of 10**21
    got = evaluate("youden_j", counts=ClassCounts([tp], [fp], [fn], [tn]), average="none")["youden_j"][0]
    exact = Fraction(tp * tn - fn * fp, (tp + fn) * (tn + fp))
    assert abs(Fraction(got) - exact) <= abs(exact) * Fraction(1, 10 ** 15)


def test_optimized_precision_difference_of_ratios_is_exact():
    tp, fp, fn, tn = 0, 1, 1, 796599824493688  # accuracy - 1: float64 gave 6% relative error
    got = evaluate("optimized_precision", counts=ClassCounts([tp], [fp], [fn], [tn]), average="none")
    exact = Fraction(-(fp + fn), tp + fp + fn + tn)
    assert abs(Fraction(got["optimized_precision"][0]) - exact) <= abs(exact) * Fraction(1, 10 ** 15)


def test_preference_near_one_does_not_cancel():
    tp, fp, fn, tn, kappa = 1, 10 ** 6, 0, 5, 1 - 2 ** -40  # FP - FP*kappa lost 1e-6 relative
    got = evaluate("preference_driven", counts=ClassCounts([tp], [fp], [fn], [tn]), average="none",
                   params={"kappa": [kappa]})["preference_driven"][0]
    exact = Fraction(kappa) * Fraction(tp, tp + fp) + (1 - Fraction(kappa)) * Fraction(tp, tp + fn)
    assert abs(Fraction(got) - exact) <= exact * Fraction(1, 10 ** 15)


def test_discriminant_power_near_zero_takes_the_logarithm_of_an_exact_difference():
    tp, fp, fn, tn = 10 ** 7 + 1, 10 ** 7, 10 ** 7, 10 ** 7  # TN*TP / (FN*FP) = 1 + 1e-7
    got = evaluate("discriminant_power", counts=ClassCounts([tp], [fp], [fn], [tn]), average="none")
    x = Fraction(tp * tn - fn * fp, fn * fp)
    log1p = sum((-1) ** (k + 1) * x ** k / k for k in range(1, 8))  # to far below 1e-40
    exact = float(log1p) * math.sqrt(3) / (math.pi * math.log(10))
    assert abs(got["discriminant_power"][0] - exact) <= abs(exact) * 1e-14


def _rci_and_scale(m):
    """RCI and its documented error scale (H_d + H_o) / H_d, to 50 digits."""
    import mpmath

    with mpmath.workdps(50):
        n, size = sum(map(sum, m)), len(m)
        t, p = [sum(row) for row in m], [sum(column) for column in zip(*m)]
        entropy = [sum(0 if a == 0 else -a * mpmath.log(mpmath.mpf(a) / b) for a, b in pairs) / n
                   for pairs in (zip(t, [n] * size), ((m[i][j], p[j]) for i in range(size) for j in range(size)))]
        h_d, h_o = entropy
        return (h_d - h_o) / h_d, (h_d + h_o) / h_d


@pytest.mark.parametrize("matrix", [
    [[10 ** 6, 10 ** 6 + 1], [10 ** 6, 10 ** 6]],
    [[10 ** 9, 10 ** 9 + 1], [10 ** 9, 10 ** 9]],  # exact RCI 4.5e-20; float64 gives about -1.7e-16
    [[3 * 10 ** 12, 10 ** 12 + 7, 5], [3 * 10 ** 12, 10 ** 12, 5], [6, 2, 1]],
])
def test_rci_near_independence_is_within_its_documented_scale(matrix):
    exact, scale = _rci_and_scale(matrix)
    got = evaluate("rci", matrix=matrix)["rci"]
    assert abs(got - exact) <= 1e-12 * scale
    assert abs(got - exact) > 1e-12 * abs(exact)  # why rci documents its conditioning


# ---------------------------------------------------------------- metrics with their own averaging

def test_entries_carry_their_own_averaging_and_are_keyed_as_requested():
    y_true, y_pred = [0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 0]
    values = evaluate(["accuracy", "f1:macro", ("f1", "weighted"), "recall"], y_true=y_true, y_pred=y_pred,
                      average="micro")
    assert list(values) == ["accuracy", "f1:macro", "f1:weighted", "recall"]
    for key, mode in (("f1:macro", "macro"), ("f1:weighted", "weighted")):
        assert values[key] == evaluate("f1", y_true=y_true, y_pred=y_pred, average=mode)["f1"]
    assert values["recall"] == evaluate("recall", y_true=y_true, y_pred=y_pred, average="micro")["recall"]


@pytest.mark.parametrize("entry, message", [
    ("accuracy:macro", "'accuracy:macro': accuracy is a matrix-level metric without averaging; ask for 'accuracy'"),
    (("f1", "mean"), "'f1:mean': f1 does not support 'mean' averaging; choose one of none, binary"),
    ("nope:macro", "nope"),
])
def test_entries_with_an_averaging_they_cannot_take_are_refused(entry, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        evaluate([entry], matrix=[[3, 1], [1, 3]])


def test_one_call_reads_the_matrix_once_and_gives_what_separate_calls_give():
    rng = np.random.default_rng(3)
    matrices = rng.integers(0, 20, (50, 4, 4))
    entries = ["accuracy", "mcc", "cen", "f1:macro", "precision:weighted", "weighted_accuracy"]
    together = evaluate(entries, matrix=matrices)
    for entry in entries:
        alone = evaluate(entry, matrix=matrices.astype(float))[entry]
        assert np.array_equal(together[entry], alone, equal_nan=True)
