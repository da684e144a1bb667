"""Functions defined on sets, then used (audit/formula_functions.py), generated at random.

Each case defines a function on two sets under random names and letters (``P(A, B) :=
\\frac{|A \\cap B|}{|B|}``, Jaccard, a set F1, recall) and uses it as scikit-learn's guide does:
over labels (``\\frac{1}{|L|}\\sum_{l \\in L} P(y_l, \\hat{y}_l)``), weighted by the true sizes, on
the whole sets (``P(y, \\hat{y})``) or over samples. The oracle is direct: the formula computed
from Python sets of (sample, label) pairs of random multi-label data, under the reading each
match names, against ``metricc.api`` for that match. The definition does not say what the sets
hold, so the answer is never forced, and the metric the use means is among the matches."""

import random

import numpy as np
import pytest

import metricc.api as mc
from metricc.audit.formula_functions import READINGS
from metricc.audit.identify import identify

BODIES = {  # printed body over parameters (a, b) = (truth, prediction), and its value on Python sets
    "precision": (r"\frac{\left| {a} \cap {b} \right|}{\left|{b}\right|}", lambda t, p: len(t & p) / len(p)),
    "recall": (r"\frac{|{a} \cap {b}|}{|{a}|}", lambda t, p: len(t & p) / len(t)),
    "jaccard": (r"\frac{|{a} \cap {b}|}{|{a} \cup {b}|}", lambda t, p: len(t & p) / len(t | p)),
    "f1": (r"\frac{2 |{a} \cap {b}|}{|{a}| + |{b}|}", lambda t, p: 2 * len(t & p) / (len(t) + len(p))),
}
USES = {"macro": r"\frac{1}{\left|L\right|} \sum_{l \in L} {f}(y_l, \hat{{y}}_l)",
        "weighted": r"\frac{1}{\sum_{l \in L} \left|y_l\right|} \sum_{l \in L} \left|y_l\right| {f}(y_l, \hat{{y}}_l)",
        "micro": r"{f}(y, \hat{{y}})", "samples": r"\frac{1}{\left|S\right|} \sum_{s \in S} {f}(y_s, \hat{{y}}_s)"}


def generated(seed: int) -> dict:
    rng = random.Random(seed)
    metric = rng.choice(sorted(BODIES))
    use = rng.choice(sorted(USES))
    name = rng.choice(("P", "R", "J", "M", r"\text{Score}"))
    a, b = rng.choice((("A", "B"), ("X", "Y"), ("S", "T"), ("U", "V")))
    body = BODIES[metric][0].replace("{a}", a).replace("{b}", b)
    text = USES[use].replace("{f}", name).replace("{{y}}", "{y}") + f", where {name}({a}, {b}) := {body}"
    return {"text": text, "metric": metric, "use": use}


def _data(seed: int):
    rng = np.random.default_rng(seed)
    y_true = (rng.random((14, 4)) < 0.45).astype(np.int64)
    y_pred = np.where(rng.random((14, 4)) < 0.7, y_true, 1 - y_true)
    y_true[np.arange(14), np.arange(14) % 4] = 1  # every sample and label has a true pair
    y_pred[np.arange(14), (np.arange(14) + 1) % 4] = 1
    return y_true, y_pred


def _direct(case, y_true, y_pred) -> float:
    """The use computed from sets of (sample, label) pairs (or of one sample's labels)."""
    value = BODIES[case["metric"]][1]
    pairs = lambda y: {(s, l) for s, l in zip(*np.nonzero(y))}  # noqa: E731
    by_label = [({p for p in pairs(y_true) if p[1] == l}, {p for p in pairs(y_pred) if p[1] == l})
                for l in range(y_true.shape[1])]
    if case["use"] == "micro":
        return value(pairs(y_true), pairs(y_pred))
    if case["use"] == "macro":
        return float(np.mean([value(t, p) for t, p in by_label]))
    if case["use"] == "weighted":
        return sum(len(t) * value(t, p) for t, p in by_label) / sum(len(t) for t, _ in by_label)
    return float(np.mean([value(set(np.nonzero(t)[0]), set(np.nonzero(p)[0])) for t, p in zip(y_true, y_pred)]))


def _check_uses(case, result, seed):
    """The metric the use means is among the matches of its reading, and each such match has the direct value."""
    wanted = "samples" if case["use"] == "samples" else case["use"]
    meant = READINGS["samples"] if case["use"] == "samples" else READINGS["pairs"]
    found = [m for m in result.matches if meant in m.reading and m.average == wanted]
    assert any(m.metric == case["metric"] for m in found), (case["text"], result.text())
    y_true, y_pred = _data(seed)
    direct = _direct(case, y_true, y_pred)
    for match in found:
        if match.params or match.holds != "all":
            continue
        value = mc.evaluate(match.metric, y_true=y_true, y_pred=y_pred, multilabel=True, average=match.average)
        assert float(value[match.metric]) == pytest.approx(direct, rel=1e-12), (case["text"], match)


@pytest.mark.parametrize("seed", range(12))
def test_a_function_on_sets_is_expanded_and_read_both_ways(seed):
    case = generated(seed)
    result = identify(case["text"])
    assert not result.forced, (case["text"], result.text())
    _check_uses(case, result, seed)


def test_a_definition_over_other_definitions_is_expanded():
    """scikit-learn's F-beta over its P and R, used macro-averaged."""
    result = identify(r"\frac{1}{\left|L\right|} \sum_{l \in L} F_\beta(y_l, \hat{y}_l), where "
                      r"P(A, B) := \frac{\left| A \cap B \right|}{\left|B\right|}, "
                      r"R(A, B) := \frac{\left| A \cap B \right|}{\left|A\right|}, "
                      r"F_\beta(A, B) := \left(1 + \beta^2\right) \frac{P(A, B) \times R(A, B)}{\beta^2 P(A, B) + R(A, B)}")
    assert ("f_beta", "macro") in {(m.metric, m.average) for m in result.matches}


NAMES = {"precision": ("P", "PPV", r"\text{Precision}"), "recall": ("R", "TPR", r"\mathrm{Recall}"),
         "jaccard": ("J", r"\text{Jaccard}"), "f1": ("F1", r"\text{F1}")}


def undefined(seed: int) -> dict:
    """A use of a metric's name on a true and a predicted set, with no definition, the arguments in either order."""
    rng = random.Random(1000 + seed)
    metric, use = rng.choice(sorted(NAMES)), rng.choice(sorted(USES))
    text = USES[use].replace("{f}", rng.choice(NAMES[metric])).replace("{{y}}", "{y}")
    if rng.random() < 0.5:  # the prediction first: the hat says which is which, not the place
        text = text.replace(r"(y_l, \hat{y}_l)", r"(\hat{y}_l, y_l)").replace(r"(y, \hat{y})", r"(\hat{y}, y)") \
            .replace(r"(y_s, \hat{y}_s)", r"(\hat{y}_s, y_s)")
    return {"text": text, "metric": metric, "use": use}


@pytest.mark.parametrize("seed", range(10))
def test_a_metric_name_used_on_sets_without_a_definition_is_read_by_the_catalogs(seed):
    case = undefined(seed)
    result = identify(case["text"])
    _check_uses(case, result, seed)


def test_a_metric_that_counts_true_negatives_is_not_written_in_sets():
    """Specificity needs TN, which no set holds: its use on sets is left unread."""
    with pytest.raises(Exception):
        identify(r"\frac{1}{\left|L\right|} \sum_{l \in L} TNR(y_l, \hat{y}_l)")
