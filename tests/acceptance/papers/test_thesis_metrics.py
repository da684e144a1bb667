"""The imbalanced-data metrics of Puertolas Molina (2022): printed results and oracles.

The thesis prints metric values for two binary OpenML runs (kc2, Fig. 4.2; kr-vs-kp,
Fig. 4.4) but shows their confusion matrices only as images (Figs. 4.1, 4.3). The class
counts are printed, and so are accuracy and balanced accuracy: together they pin down one
integer confusion matrix per run, which ``derived_matrix`` finds by exhaustive search and
asserts to be unique. Every other printed value is then a literal test at the printed
precision. The GCM run (Fig. 4.5, 14 classes) cannot be recovered this way and is not tested.

Differential tests: PyCM (AGM, AGF, OP, DP per class), imbalanced-learn (G-mean,
sensitivity/specificity), scikit-learn (kappa, Jaccard, balanced accuracy, MAE/MSE on class
indices). Differences are pinned in tests here and listed in docs/differences.md.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from imblearn import metrics as imm
from sklearn import metrics as skm

import metricc as mc

pycm = pytest.importorskip("pycm")

pytestmark = [
    pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning"),
    pytest.mark.filterwarnings("ignore:A single label was found"),
]


def derived_matrix(class_sizes: tuple[int, int], accuracy: float, balanced_accuracy: float, places: int = 6):
    """The unique 2 x 2 matrix (rows = true class, sorted labels) with the printed class sizes,
    accuracy and balanced accuracy; fails unless exactly one matrix matches."""
    first, second = class_sizes
    found = []
    for right_first in range(first + 1):
        for right_second in range(second + 1):
            acc = (right_first + right_second) / (first + second)
            bal = (right_first / first + right_second / second) / 2
            if round(acc, places) == round(accuracy, places) and round(bal, places) == round(balanced_accuracy, places):
                found.append([[right_first, first - right_first], [second - right_second, right_second]])
    assert len(found) == 1, found
    return np.array(found[0])


# kc2: 415 'no', 107 'yes' (labels sorted: index 0 = 'no', the majority).
KC2 = derived_matrix((415, 107), 0.842912, 0.700056)
# kr-vs-kp: 1527 'nowin', 1669 'won' (index 0 = 'nowin', the minority).
KR_VS_KP = derived_matrix((1527, 1669), 0.93836, 0.937082)


def test_derived_matrices():
    np.testing.assert_array_equal(KC2, [[391, 24], [58, 49]])
    np.testing.assert_array_equal(KR_VS_KP, [[1387, 140], [57, 1612]])


def value(metric: str, matrix, **kwargs) -> float:
    return float(mc.evaluate(metric, matrix=matrix, **kwargs)[metric])


# (metric, keyword arguments, kc2 printed, kr-vs-kp printed). The appendix code's positive
# class: G-mean, OP, MCC are symmetric; AGM takes the minority class as positive (code in
# A.1.2 branches on Nn > Np), which is the original definition (Batuwita and Palade 2009);
# AdjustedF1 and F1 use pos_label = truth.unique()[0], here index 0 in both runs.
PRINTED = [
    ("g_mean", {"average": "binary"}, 0.656856, 0.936641),
    ("balanced_accuracy", {}, 0.700056, 0.937082),
    ("accuracy", {}, 0.842912, 0.93836),
    ("mcc", {}, 0.465708, 0.877385),
    ("optimized_precision", {"average": "binary"}, 0.497065, 0.907664),
    ("f1", {"average": "binary", "pos_label": 0}, 0.905093, 0.933692),
    ("adjusted_f_measure", {"average": "binary", "pos_label": 0}, 0.754452, 0.923581),
]


@pytest.mark.parametrize("metric, kwargs, kc2, kr_vs_kp", PRINTED, ids=[p[0] for p in PRINTED])
def test_printed_results(metric, kwargs, kc2, kr_vs_kp):
    assert round(value(metric, KC2, **kwargs), 6) == kc2
    assert round(value(metric, KR_VS_KP, **kwargs), 6) == kr_vs_kp


def test_printed_adjusted_g_mean_takes_the_minority_class_as_positive():
    assert round(value("adjusted_g_mean", KC2, average="binary", pos_label=1), 6) == 0.783222
    assert round(value("adjusted_g_mean", KR_VS_KP, average="binary", pos_label=0), 6) == 0.946661


def test_adjusted_f_measure_original_convention_differs_from_kc2_printed():
    """Maratea et al. compute F2 on the minority (positive) class; the thesis' kc2 number puts
    the majority class there (erratum). kr-vs-kp's first label is its minority: no difference."""
    minority_positive = value("adjusted_f_measure", KC2, average="binary", pos_label=1)
    assert round(minority_positive, 6) == 0.657572
    assert round(minority_positive, 6) != 0.754452


def test_weighted_accuracy_section_3_1_2_example():
    """Three classes, 80 % 'A', everything predicted 'A': balanced accuracy 33.3 percent; weights
    (1.5, 0.75, 0.75) give 0.5 (the thesis divides by C = 3 = the sum of its weights)."""
    matrix = [[80, 0, 0], [10, 0, 0], [10, 0, 0]]
    assert round(value("balanced_accuracy", matrix) * 100, 1) == 33.3
    assert value("weighted_accuracy", matrix) == pytest.approx(1 / 3)
    assert value("weighted_accuracy", matrix, params={"class_weights": [1.5, 0.75, 0.75]}) == pytest.approx(0.5)
    # Only the ratios of the weights matter: the thesis' sum(weights) == C rule is a normalisation.
    assert value("weighted_accuracy", matrix, params={"class_weights": [3, 1.5, 1.5]}) == pytest.approx(0.5)


def test_weighted_accuracy_rejects_non_positive_weights():
    with pytest.raises(mc.InputError, match="class_weights"):
        value("weighted_accuracy", [[1, 0], [0, 1]], params={"class_weights": [1, 0]})


def test_adjusted_g_mean_is_zero_without_recognised_positives():
    """Batuwita and Palade: AGM = 0 when TPrate = 0 (Eq. 3.3 of the thesis omits the case)."""
    matrix = [[50, 0], [10, 0]]
    assert value("adjusted_g_mean", matrix, average="binary") == 0.0
    negatives = 50 / 60  # Eq. 3.3 as printed: (0 + 1 * Nn) / (Nn + 1) = 0.4545...
    assert (0 + 1.0 * negatives) / (negatives + 1) > 0.45


def test_adjusted_g_mean_is_undefined_without_positives():
    """Batuwita and Palade set AGM to 0 where TPR = 0. ``indicator(recall != 0)`` is a strong
    zero where recall is 0 (whatever specificity is there), and undefined where recall is:
    a class without positives (issue 27: the guard read TP != 0 and gave 0 there, so macro
    AGM was 0.412 where macro G-mean is NaN). PyCM agrees in both cases."""
    matrix = np.array([[0, 5], [0, 0]])  # class 0: TP = 0 < FN, TN = FP = 0; class 1: TP = FN = 0
    per_class = np.asarray(mc.evaluate("adjusted_g_mean", matrix=matrix, average="none")["adjusted_g_mean"], dtype=float)
    np.testing.assert_array_equal(per_class, [0.0, np.nan])
    np.testing.assert_array_equal(pycm_per_class(matrix, "AGM"), per_class)
    issue = np.array([[31, 23, 15], [1, 9, 32], [0, 0, 0]])
    per_class = np.asarray(mc.evaluate("adjusted_g_mean", matrix=issue, average="none")["adjusted_g_mean"], dtype=float)
    assert math.isnan(per_class[2]) and math.isnan(pycm_per_class(issue, "AGM")[2])
    assert math.isnan(value("adjusted_g_mean", issue, average="macro"))
    assert math.isnan(value("g_mean", issue, average="macro"))
    assert value("adjusted_g_mean", issue, average="macro", zero_division=0.0) == pytest.approx(np.nansum(per_class) / 3)
    assert math.isnan(value("adjusted_g_mean", [[5, 0], [0, 0]], average="binary", pos_label=0))


def test_discriminant_power_undefined_at_perfect_or_null_rates():
    assert math.isnan(value("discriminant_power", [[5, 0], [2, 4]], average="binary"))
    assert math.isnan(value("discriminant_power", [[5, 1], [4, 0]], average="binary"))
    assert value("discriminant_power", [[5, 1], [4, 0]], average="binary", zero_division=0.0) == 0.0


# ---------------------------------------------------------------- oracles

def random_matrices(count: int, seed: int, max_classes: int = 5):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        c = int(rng.integers(2, max_classes + 1))
        yield rng.integers(0, 12, size=(c, c))


def pycm_per_class(matrix, statistic: str) -> np.ndarray:
    """A PyCM class statistic in class order; "None" (undefined) becomes NaN."""
    table = {i: {j: int(matrix[i, j]) for j in range(len(matrix))} for i in range(len(matrix))}
    values = getattr(pycm.ConfusionMatrix(matrix=table), statistic)
    return np.array([math.nan if values[i] == "None" else float(values[i]) for i in range(len(matrix))])


@pytest.mark.parametrize("metric, statistic", [
    ("adjusted_g_mean", "AGM"), ("adjusted_f_measure", "AGF"),
    ("optimized_precision", "OP"), ("discriminant_power", "DP"), ("g_mean", "GM"),
])
def test_per_class_values_match_pycm(metric, statistic):
    for matrix in random_matrices(25, seed=3):
        if matrix.sum(axis=1).min() == 0 or matrix.sum(axis=0).min() == 0:
            continue  # PyCM drops or rejects absent classes
        ours = np.asarray(mc.evaluate(metric, matrix=matrix, average="none")[metric], dtype=float)
        theirs = pycm_per_class(matrix, statistic)
        if metric == "discriminant_power":  # PyCM: "None" also for log(0); ours: undefined, NaN
            theirs = np.where(np.isinf(theirs), np.nan, theirs)
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12, equal_nan=True, err_msg=f"{metric} on {matrix.tolist()}")


def labels_of(matrix):
    """y_true, y_pred with this confusion matrix (rows = true class)."""
    pairs = [(i, j) for i in range(len(matrix)) for j in range(len(matrix)) for _ in range(int(matrix[i, j]))]
    y_true, y_pred = zip(*pairs)
    return np.array(y_true), np.array(y_pred)


def test_imblearn_sensitivity_specificity_and_geometric_mean():
    for matrix in random_matrices(25, seed=5):
        if matrix.sum(axis=1).min() == 0:
            continue
        y_true, y_pred = labels_of(matrix)
        labels = list(range(len(matrix)))
        sensitivity, specificity, _ = imm.sensitivity_specificity_support(y_true, y_pred, labels=labels, average=None)
        np.testing.assert_allclose(mc.evaluate("recall", matrix=matrix, average="none")["recall"], sensitivity)
        np.testing.assert_allclose(mc.evaluate("specificity", matrix=matrix, average="none")["specificity"], specificity)
        np.testing.assert_allclose(mc.evaluate("recall", matrix=matrix, average="geometric")["recall"],
                                   imm.geometric_mean_score(y_true, y_pred, labels=labels, average="multiclass"))
        if len(matrix) == 2:
            np.testing.assert_allclose(value("g_mean", matrix, average="binary"),
                                       imm.geometric_mean_score(y_true, y_pred, average="binary"))


def test_sklearn_kappa_jaccard_balanced_accuracy_and_ordinal_errors():
    for matrix in random_matrices(25, seed=7):
        if matrix.sum(axis=1).min() == 0:
            continue
        y_true, y_pred = labels_of(matrix)
        labels = list(range(len(matrix)))
        np.testing.assert_allclose(value("cohen_kappa", matrix), skm.cohen_kappa_score(y_true, y_pred))
        np.testing.assert_allclose(mc.evaluate("jaccard", matrix=matrix, average="none")["jaccard"],
                                   skm.jaccard_score(y_true, y_pred, labels=labels, average=None))
        np.testing.assert_allclose(value("weighted_accuracy", matrix), skm.balanced_accuracy_score(y_true, y_pred))
        np.testing.assert_allclose(value("ordinal_mae", matrix), skm.mean_absolute_error(y_true, y_pred))
        np.testing.assert_allclose(value("ordinal_mse", matrix), skm.mean_squared_error(y_true, y_pred))
        np.testing.assert_allclose(value("ordinal_rmse", matrix), math.sqrt(skm.mean_squared_error(y_true, y_pred)))


def test_sklearn_sample_weight_is_not_class_weight():
    """balanced_accuracy_score's sample_weight reweights samples; weighted accuracy weights the
    per-class recalls. With sample weights constant within each true class they agree only for
    weights proportional to 1 / support (docs/differences.md)."""
    matrix = np.array([[6, 2], [2, 2]])
    y_true, y_pred = labels_of(matrix)
    class_weights = np.array([2.0, 1.0])
    ours = value("weighted_accuracy", matrix, params={"class_weights": class_weights})
    support = matrix.sum(axis=1)
    as_samples = skm.accuracy_score(y_true, y_pred, sample_weight=(class_weights / support)[y_true])
    assert ours == pytest.approx(as_samples)
    assert ours != pytest.approx(skm.balanced_accuracy_score(y_true, y_pred, sample_weight=class_weights[y_true]))


# ---------------------------------------------------------------- IBA, a metric transformer

@pytest.mark.parametrize("alpha", [0.0, 0.1, 0.5, 1.0])
def test_iba_matches_imblearn_make_index_balanced_accuracy(alpha):
    """imbalanced-learn's decorator with squared=False is (1 + alpha * Dom) * M; pass
    average='binary' so that Dom is the positive class's (its 'macro' Dom of two classes is 0)."""
    for matrix in random_matrices(25, seed=11, max_classes=2):
        if matrix.sum(axis=1).min() == 0 or matrix.sum(axis=0).min() == 0:
            continue
        y_true, y_pred = labels_of(matrix)
        for base, scorer in (("g_mean", imm.geometric_mean_score), ("f1", skm.f1_score), ("precision", skm.precision_score)):
            theirs = imm.make_index_balanced_accuracy(alpha=alpha, squared=False)(scorer)(y_true, y_pred, average="binary")
            ours = value("iba", matrix, average="binary", params={"base": base, "alpha": alpha})
            assert ours == pytest.approx(theirs, rel=1e-12), (base, matrix.tolist())
        squared = imm.make_index_balanced_accuracy(alpha=alpha, squared=True)(imm.geometric_mean_score)(y_true, y_pred, average="binary")
        dominance = value("recall", matrix, average="binary") - value("specificity", matrix, average="binary")
        assert (1 + alpha * dominance) * value("g_mean", matrix, average="binary") ** 2 == pytest.approx(squared, rel=1e-12)


def test_iba_with_a_bound_base_parameter_and_in_every_mode():
    matrix = np.array([[5, 2, 1], [1, 6, 0], [2, 1, 3]])
    as_tuple = mc.evaluate("iba", matrix=matrix, average="macro", params={"base": ("f_beta", {"beta": 2}), "alpha": 0.5})["iba"]
    recall = np.asarray(mc.evaluate("recall", matrix=matrix, average="none")["recall"])
    specificity = np.asarray(mc.evaluate("specificity", matrix=matrix, average="none")["specificity"])
    f2 = np.asarray(mc.evaluate("f_beta", matrix=matrix, average="none", params={"beta": 2})["f_beta"])
    per_class = (1 + 0.5 * (recall - specificity)) * f2
    assert as_tuple == pytest.approx(per_class.mean())
    tp, fp, fn, tn = (np.sum(c) for c in mc.counts_from_matrix(matrix))  # micro: the formula on pooled counts
    pooled = (1 + 0.1 * (tp / (tp + fn) - tn / (tn + fp))) * 2 * tp / (2 * tp + fp + fn)
    assert value("iba", matrix, average="micro", params={"base": "f1"}) == pytest.approx(pooled)


def test_iba_base_errors_name_the_argument():
    for base, message in (("nosuch", "unknown metric"), ("mcc", "no per-class values"), (("f1", {"beta": 2}), "no parameter 'beta'"), (3, "expected a metric id")):
        with pytest.raises(mc.InputError, match=message) as error:
            value("iba", [[3, 1], [2, 4]], params={"base": base})
        assert error.value.argument == "base"


def test_a_spec_binding_iba_inlines_the_bound_metric(tmp_path):
    """``macro(iba(base=f_beta(beta=2), alpha=0.5))`` in a spec: the compiler inlines F2 into
    IBA's formula; its per-class value equals the run-time binding base=("f_beta", {"beta": 2})."""
    import shutil

    import sympy

    from metricc.compiler import build
    from metricc.compiler.language import symbols

    folder = tmp_path / "specs"
    folder.mkdir()
    for name in ("iba", "g_mean", "recall", "specificity", "precision", "f_beta"):
        shutil.copy(Path(build.__file__).resolve().parents[1] / "specs" / f"{name}.yaml", folder)
    (folder / "iba_f2.yaml").write_text(
        "id: iba_f2\nname: IBA of F2\ndescription: Test.\nreferences: [Test]\nlevel: aggregate\n"
        "formula: macro(iba(base=f_beta(beta=2), alpha=0.5))\nrange: [-inf, inf]\nhigher_is_better: true\n", encoding="utf-8")
    term = build.compile_metrics(folder)["iba_f2"].terms[0]
    assert term.label == "macro(iba(alpha=1/2, base=f_beta(beta=2)))"
    matrix = np.array([[5, 2, 1], [1, 6, 0], [2, 1, 3]])
    counts = mc.counts_from_matrix(matrix)
    inlined = [float(term.expr.subs(dict(zip(symbols.COUNTS, (int(c[k]) for c in counts))))) for k in range(3)]
    runtime = mc.evaluate("iba", matrix=matrix, average="none", params={"base": ("f_beta", {"beta": 2}), "alpha": 0.5})["iba"]
    np.testing.assert_allclose(inlined, runtime, rtol=1e-12)
    assert not term.expr.atoms(sympy.core.function.AppliedUndef)

