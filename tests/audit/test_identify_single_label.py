"""Labels of multi-label formulas judged on single-label data (audit/identify_single_label.py).

Generated at random: a formula over a sample's label sets (exact match through any indicator,
Jaccard, a sample's precision, recall or F1), in the usual letters, under a label drawn from
names of metrics that do and do not reduce to it on single-label data. The oracle is direct:
the formula evaluated in Python on single-label data sets (one true, one predicted label per
instance) against the labelled metric from ``metricc.api`` on the same data; ``label_agrees``
must say whether they are equal, never call a right label wrong or a wrong one right."""

import random

import numpy as np
import pytest

import metricc.api as mc
from metricc.audit.identify import identify
from metricc.audit.notation import label_metric

AVERAGE = r"\frac{1}{n}\sum_{i=1}^{n}"
INDICATORS = (r"1(\hat{y}_i = y_i)", r"\mathbb{1}[y_i = \hat{y}_i]", r"[[\hat{y}_i = y_i]]", r"I(y_i = \hat{y}_i)")
# per instance: the printed term and its value from the true and predicted label sets
TERMS = {
    "exact": (None, lambda t, p: float(t == p)),
    "jaccard": (r"\frac{|Y_i \cap Z_i|}{|Y_i \cup Z_i|}", lambda t, p: len(t & p) / len(t | p)),
    "precision": (r"\frac{|Y_i \cap Z_i|}{|Z_i|}", lambda t, p: len(t & p) / len(p)),
    "recall": (r"\frac{|Y_i \cap Z_i|}{|Y_i|}", lambda t, p: len(t & p) / len(t)),
    "f1": (r"\frac{2|Y_i \cap Z_i|}{|Y_i| + |Z_i|}", lambda t, p: 2 * len(t & p) / (len(t) + len(p))),
}
# (a macro label over a samples average agrees by the rule of Wenzel's r_M, p_M: identify._label_agrees)
LABELS = ("Accuracy", r"\text{Acc}", "Precision_{micro}", "Recall", "F1_{weighted}", r"\text{Recall}_{micro}",
          "Precision", "MCC", "Hamming loss", r"\text{Error rate}")


def generated(seed: int) -> dict:
    rng = random.Random(seed)
    kind = rng.choice(sorted(TERMS))
    printed, value = TERMS[kind]
    term = rng.choice(INDICATORS) if printed is None else printed
    label = rng.choice(LABELS)
    return {"text": f"{label} = {AVERAGE} {term}", "label": label, "value": value,
            "metric": "exact_match_ratio" if kind == "exact" else kind}


def _single_label(seed: int):
    rng = np.random.default_rng(seed)
    for instances, classes in ((15, 3), (24, 4), (11, 5)):
        y_true = rng.integers(0, classes, instances)
        y_pred = np.where(rng.random(instances) < 0.5, y_true, rng.integers(0, classes, instances))
        yield y_true, y_pred


def _agrees_directly(case) -> bool:
    """The formula against the labelled metric on single-label data sets of other seeds."""
    metric, mode = label_metric(case["label"])
    for y_true, y_pred in _single_label(1000):
        printed = np.mean([case["value"]({t}, {p}) for t, p in zip(y_true, y_pred)])
        labelled = float(mc.evaluate(metric, y_true=y_true, y_pred=y_pred, average=mode)[metric])
        if abs(printed - labelled) > 1e-12:
            return False
    return True


@pytest.mark.parametrize("seed", range(16))
def test_a_label_is_judged_where_its_metric_is_defined(seed):
    case = generated(seed)
    result = identify(case["text"])
    assert result.matches, (case["text"], result.text())
    metric, mode = label_metric(case["label"])
    named = metric == case["metric"] and mode in (None, "samples", "macro")  # the label names the formula itself
    assert result.label_agrees is (named or _agrees_directly(case)), (case["text"], result.text())


def test_accuracy_over_exact_matches_is_no_mislabel():
    """scikit-learn's guide: accuracy as the mean of 1(y_hat_i = y_i), an exact match ratio on
    multi-label data, is accuracy on single-label data."""
    result = identify(r"\texttt{accuracy}(y, \hat{y}) = \frac{1}{n_\text{samples}} "
                      r"\sum_{i=0}^{n_\text{samples}-1} 1(\hat{y}_i = y_i)")
    assert result.label_agrees is True
    assert "labelled" not in result.text()
