"""scikit-learn as an oracle, where its definitions agree with metricc's.

Where they differ (averages over undefined classes, MCC's undefined value, balanced accuracy
over absent classes, the binary class of single-class data), a test pins the difference down
instead; docs/differences.md lists each one and points back here.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import metricc as mc

FAST = settings(max_examples=40, deadline=None)
pytestmark = [
    pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning"),
    pytest.mark.filterwarnings("ignore:y_pred contains classes not in y_true"),
    pytest.mark.filterwarnings("ignore:A single label was found"),
]
ZERO_DIVISIONS = (0.0, 1.0, math.nan)


@st.composite
def label_pairs(draw, sizes=st.integers(2, 5)):
    """(C, y_true, y_pred): 1..60 integer labels in 0..C-1 (not every class need occur)."""
    c = draw(sizes)
    n = draw(st.integers(1, 60))
    labels = st.lists(st.integers(0, c - 1), min_size=n, max_size=n)
    return c, np.array(draw(labels)), np.array(draw(labels))


def ours(metric: str, y_true, y_pred, **kwargs):
    return np.asarray(mc.evaluate(metric, y_true=y_true, y_pred=y_pred, **kwargs)[metric], dtype=float)


def close(actual, expected, message: str = "") -> None:
    np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=1e-15, equal_nan=True, err_msg=message)


# ---------------------------------------------------------------- confusion matrices and counts

@FAST
@given(data=label_pairs())
def test_confusion_matrix_from_labels(data):
    c, y_true, y_pred = data
    np.testing.assert_array_equal(mc.confusion_matrix(y_true, y_pred), skm.confusion_matrix(y_true, y_pred))
    labels = list(range(c))[::-1]
    np.testing.assert_array_equal(mc.confusion_matrix(y_true, y_pred, labels=labels),
                                  skm.confusion_matrix(y_true, y_pred, labels=labels))


@FAST
@given(data=label_pairs())
def test_per_class_counts_equal_multilabel_confusion_matrix(data):
    c, y_true, y_pred = data
    counts = mc.counts_from_matrix(mc.confusion_matrix(y_true, y_pred, labels=list(range(c))))
    mcm = skm.multilabel_confusion_matrix(y_true, y_pred, labels=list(range(c)))
    for ours_, theirs in zip(counts, (mcm[:, 1, 1], mcm[:, 0, 1], mcm[:, 1, 0], mcm[:, 0, 0])):
        np.testing.assert_array_equal(ours_, theirs)


# ---------------------------------------------------------------- precision, recall, F, Jaccard

def _fbeta(beta):
    return lambda *a, **k: skm.fbeta_score(*a, beta=beta, **k)


SET_WISE = {  # case -> (metricc id, params, scikit-learn function, accepts zero_division=nan)
    "precision": ("precision", {}, skm.precision_score, True),
    "recall": ("recall", {}, skm.recall_score, True),
    "f1": ("f1", {}, skm.f1_score, True),
    "f_beta(0.5)": ("f_beta", {"beta": 0.5}, _fbeta(0.5), True),
    "f_beta(2)": ("f_beta", {"beta": 2.0}, _fbeta(2.0), True),
    # jaccard_score documents zero_division=np.nan but its parameter validation rejects it
    # (scikit-learn 1.9: "must be a float among {0, 1} or a str among {'warn'}").
    "jaccard": ("jaccard", {}, skm.jaccard_score, False),
}


@pytest.mark.parametrize("case", sorted(SET_WISE))
@FAST
@given(data=label_pairs(), all_labels=st.booleans())
def test_set_wise_metrics_agree_with_sklearn(case, data, all_labels):
    """none / micro / binary agree for every zero_division, NaN included; macro and weighted
    agree for finite zero_division (NaN: see the next test)."""
    metric, params, sk_function, nan_ok = SET_WISE[case]
    c, y_true, y_pred = data
    labels = list(range(c)) if all_labels else None
    modes = ["none", "micro", "macro", "weighted"] + (["binary"] if c == 2 else [])
    for zd in ZERO_DIVISIONS:
        if math.isnan(zd) and not nan_ok:
            continue
        for mode in modes:
            if math.isnan(zd) and mode in ("macro", "weighted"):
                continue
            # Binary: the class labelled 1 in both, even when the data hold one label only.
            their_labels = labels if mode != "binary" else None
            our_labels = labels if mode != "binary" else [0, 1]
            expected = sk_function(y_true, y_pred, labels=their_labels, average=None if mode == "none" else mode,
                                   zero_division=zd)
            actual = ours(metric, y_true, y_pred, labels=our_labels, average=mode, params=params, zero_division=zd)
            close(actual, expected, f"{case} average={mode} zero_division={zd}")


@pytest.mark.parametrize("case", [k for k, v in sorted(SET_WISE.items()) if v[3]])
@FAST
@given(data=label_pairs())
def test_nan_zero_division_macro_and_weighted_differ_from_sklearn(case, data):
    """With zero_division=NaN, scikit-learn leaves undefined classes out of macro and weighted
    means; metricc returns NaN once a class that takes part (weight > 0) is undefined."""
    metric, params, sk_function, _ = SET_WISE[case]
    c, y_true, y_pred = data
    per_class = ours(metric, y_true, y_pred, average="none", params=params)
    support = np.bincount(np.searchsorted(np.unique(np.r_[y_true, y_pred]), y_true), minlength=per_class.size)
    undefined = np.isnan(per_class)
    for mode, weights in (("macro", np.ones_like(support)), ("weighted", support)):
        expected = sk_function(y_true, y_pred, average=mode, zero_division=np.nan)
        actual = ours(metric, y_true, y_pred, average=mode, params=params)
        if (undefined & (weights > 0)).any():
            assert np.isnan(actual), mode
            kept = ~undefined
            if weights[kept].sum() > 0:
                close(expected, np.average(per_class[kept], weights=weights[kept]), mode)
        else:
            close(actual, expected, f"{case} {mode}")


@pytest.mark.parametrize("case", sorted(SET_WISE))
@FAST
@given(data=label_pairs())
def test_sklearn_default_zero_division_is_ours_with_zero(case, data):
    """scikit-learn's default zero_division='warn' returns 0 (with a warning); metricc's is NaN."""
    metric, params, sk_function, _ = SET_WISE[case]
    c, y_true, y_pred = data
    for mode in ("none", "micro", "macro", "weighted"):
        expected = sk_function(y_true, y_pred, average=None if mode == "none" else mode)
        close(ours(metric, y_true, y_pred, average=mode, params=params, zero_division=0.0), expected, mode)


@FAST
@given(data=label_pairs(sizes=st.just(2)))
def test_specificity_and_npv_are_recall_and_precision_of_the_other_class(data):
    c, y_true, y_pred = data
    for metric, sk_function in (("specificity", skm.recall_score), ("npv", skm.precision_score)):
        expected = sk_function(y_true, y_pred, labels=[0, 1], pos_label=0, zero_division=np.nan)
        close(ours(metric, y_true, y_pred, labels=[0, 1], average="binary"), expected, metric)


def test_binary_average_on_single_class_data_needs_labels():
    """With one label in the data, the positive class (index 1) does not exist: an error, not a guess."""
    y = [0, 0, 0]
    with pytest.raises(mc.InputError, match="^pos_label: "):
        ours("precision", y, y, average="binary")
    assert math.isnan(skm.precision_score(y, y, average="binary", zero_division=np.nan))
    assert math.isnan(ours("precision", y, y, labels=[0, 1], average="binary"))


def test_labels_must_cover_the_data():
    """scikit-learn's ``labels`` may select a subset of the classes (micro over a subset);
    metricc's ``labels`` only orders the classes and must contain every label seen."""
    y_true, y_pred = [0, 1, 2, 2], [0, 2, 1, 2]
    assert skm.precision_score(y_true, y_pred, labels=[0, 1], average="micro", zero_division=0.0) == 0.5
    with pytest.raises(mc.InputError, match="^y_true: "):
        mc.evaluate("precision", y_true=y_true, y_pred=y_pred, labels=[0, 1], average="micro")


# ---------------------------------------------------------------- F1 of macro averages

@FAST
@given(data=label_pairs())
def test_f1_macro_versus_f1_of_macro_averages(data):
    c, y_true, y_pred = data
    precision = skm.precision_score(y_true, y_pred, average="macro", zero_division=0.0)
    recall = skm.recall_score(y_true, y_pred, average="macro", zero_division=0.0)
    close(ours("f1", y_true, y_pred, average="macro", zero_division=0.0),
          skm.f1_score(y_true, y_pred, average="macro", zero_division=0.0))
    for metric, beta in (("f1_of_macro_averages", 1.0), ("f_beta_of_macro_averages", 2.0)):
        b2 = beta**2
        denominator = b2 * precision + recall
        expected = 0.0 if denominator == 0 else (1 + b2) * precision * recall / denominator
        params = {"beta": beta} if metric.startswith("f_beta") else {}
        close(ours(metric, y_true, y_pred, params=params, zero_division=0.0), expected, metric)


def test_f1_macro_and_f1_of_macro_averages_are_different_metrics():
    y_true, y_pred = [0, 0, 0, 1, 1, 2], [0, 1, 1, 1, 1, 1]
    mean_of_f1 = skm.f1_score(y_true, y_pred, average="macro", zero_division=0.0)
    assert float(ours("f1", y_true, y_pred, average="macro", zero_division=0.0)) == pytest.approx(mean_of_f1)
    assert float(ours("f1_of_macro_averages", y_true, y_pred, zero_division=0.0)) != pytest.approx(mean_of_f1)


# ---------------------------------------------------------------- one number per matrix

@FAST
@given(data=label_pairs())
def test_accuracy_and_error_rate(data):
    c, y_true, y_pred = data
    close(ours("accuracy", y_true, y_pred), skm.accuracy_score(y_true, y_pred))
    close(ours("error_rate", y_true, y_pred), skm.zero_one_loss(y_true, y_pred))
    close(ours("error_rate", y_true, y_pred), skm.hamming_loss(y_true, y_pred))


@FAST
@given(data=label_pairs())
def test_balanced_accuracy(data):
    """Equal when every class occurs in y_true; otherwise scikit-learn drops the classes
    without support (with a warning) and metricc returns NaN (their recall is 0/0)."""
    c, y_true, y_pred = data
    actual = ours("balanced_accuracy", y_true, y_pred)
    expected = skm.balanced_accuracy_score(y_true, y_pred)
    classes = np.unique(np.r_[y_true, y_pred])
    if np.isin(classes, y_true).all():
        close(actual, expected)
        # adjusted=True rescales chance (1 / C) to 0: adjusted_balanced_accuracy (issue 27)
        if classes.size > 1:
            close(ours("adjusted_balanced_accuracy", y_true, y_pred), skm.balanced_accuracy_score(y_true, y_pred, adjusted=True))
    else:
        assert np.isnan(actual)
        close(expected, np.nanmean(ours("recall", y_true, y_pred, average="none")))


@FAST
@given(data=label_pairs())
def test_mcc_multi_class(data):
    """Gorodkin's R_K in both; where it is undefined scikit-learn returns 0.0, metricc NaN."""
    c, y_true, y_pred = data
    expected = skm.matthews_corrcoef(y_true, y_pred)
    close(ours("mcc", y_true, y_pred, zero_division=0.0), expected)
    actual = ours("mcc", y_true, y_pred)
    if np.isnan(actual):
        assert expected == 0.0
    else:
        close(actual, expected)


@FAST
@given(data=label_pairs(sizes=st.just(2)))
def test_binary_mcc_per_class(data):
    c, y_true, y_pred = data
    actual = ours("mcc_per_class", y_true, y_pred, labels=[0, 1], average="binary", zero_division=0.0)
    close(actual, skm.matthews_corrcoef(y_true, y_pred))


@FAST
@given(data=label_pairs())
def test_cohen_kappa(data):
    """Same formula and, since scikit-learn 1.6 (replace_undefined_by=np.nan), same NaN."""
    c, y_true, y_pred = data
    close(ours("cohen_kappa", y_true, y_pred), skm.cohen_kappa_score(y_true, y_pred))


# ---------------------------------------------------------------- multi-label data

@st.composite
def indicator_pairs(draw):
    n, c = draw(st.integers(1, 12)), draw(st.integers(2, 5))
    rows = st.lists(st.lists(st.integers(0, 1), min_size=c, max_size=c), min_size=n, max_size=n)
    return np.array(draw(rows)), np.array(draw(rows))


@pytest.mark.parametrize("case", sorted(SET_WISE))
@FAST
@given(data=indicator_pairs())
def test_multilabel_and_samples_average(case, data):
    """Per-class averages of multi-label data, and scikit-learn's 'samples' average as
    metricc's samples average over per-instance counts (``samplewise_counts``)."""
    metric, params, sk_function, _ = SET_WISE[case]
    y_true, y_pred = data
    function = mc.metric(metric).function
    for mode in ("none", "micro", "macro", "weighted"):
        expected = sk_function(y_true, y_pred, average=None if mode == "none" else mode, zero_division=0.0)
        actual = function(*mc.multilabel_counts(y_true, y_pred), average=mode, zero_division=0.0, **params)
        close(actual, expected, mode)
    expected = sk_function(y_true, y_pred, average="samples", zero_division=0.0)
    actual = function(*mc.samplewise_counts(y_true, y_pred), average="samples", zero_division=0.0, **params)
    close(actual, expected, "samples")


@FAST
@given(data=label_pairs(sizes=st.just(2)))
def test_binary_youden_j_is_adjusted_balanced_accuracy(data):
    """For two classes, scikit-learn's balanced_accuracy_score(adjusted=True) is Youden's J."""
    c, y_true, y_pred = data
    if np.unique(y_true).size == 2:
        close(ours("youden_j", y_true, y_pred, labels=[0, 1], average="binary"),
              skm.balanced_accuracy_score(y_true, y_pred, adjusted=True))


# ---------------------------------------------------------------- other libraries: published examples
# PyCM and imbalanced-learn are not installed; these pin the values their documentation prints.

def test_pycm_readme_example():
    """PyCM README: ConfusionMatrix(actual_vector=y_actu, predict_vector=y_pred), overall statistics."""
    y_actu = [2, 0, 2, 2, 0, 1, 1, 2, 2, 0, 1, 2]
    y_pred = [0, 0, 2, 1, 0, 2, 1, 0, 2, 0, 2, 2]
    macro = mc.evaluate(["f1", "precision", "recall", "class_accuracy", "jaccard"], y_true=y_actu, y_pred=y_pred,
                        average="macro")
    overall = mc.evaluate(["accuracy", "cohen_kappa", "mcc", "error_rate"], y_true=y_actu, y_pred=y_pred)
    published = {  # PyCM name: (metricc value, printed value)
        "F1 Macro": (macro["f1"], 0.56515), "PPV Macro": (macro["precision"], 0.56667),
        "TPR Macro": (macro["recall"], 0.61111), "ACC Macro": (macro["class_accuracy"], 0.72222),
        "Overall J (mean)": (macro["jaccard"], 0.40833), "Overall ACC": (overall["accuracy"], 0.58333),
        "Kappa": (overall["cohen_kappa"], 0.35484), "Overall MCC": (overall["mcc"], 0.36667),
        "Hamming Loss": (overall["error_rate"], 0.41667),
    }
    for name, (value, printed) in published.items():
        assert round(float(value), 5) == printed, name


def test_imblearn_geometric_mean_docstring_example():
    """imbalanced-learn's geometric_mean_score docstring: 0.0 (multiclass), [0.866, 0, 0] (None),
    0.471 (macro = sqrt(macro sensitivity * macro specificity), not the mean of per-class G-means)."""
    y_true, y_pred = [0, 1, 2, 0, 1, 2], [0, 2, 1, 0, 0, 1]
    assert float(ours("recall", y_true, y_pred, average="geometric")) == 0.0
    close(ours("g_mean", y_true, y_pred, average="none"), [math.sqrt(3) / 2, 0.0, 0.0])
    macro_of_products = math.sqrt(ours("recall", y_true, y_pred, average="macro")
                                  * ours("specificity", y_true, y_pred, average="macro"))
    assert round(macro_of_products, 3) == 0.471
    assert round(float(ours("g_mean", y_true, y_pred, average="macro")), 3) == 0.289
