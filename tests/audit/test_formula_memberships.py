"""Sums over the samples of class indicators (audit/formula_memberships.py), generated at random.

Each formula is a metric written as Spark writes it, from sums over the samples of indicators
that a sample's truth or prediction is a class, in random notation: the modified delta of a
difference (``\\hat{\\delta}(\\mathbf{y}_i - \\ell)``), the Kronecker delta, ``1(...)``,
``\\mathbb{1}[...]``, Iverson brackets; bold or plain letters, ``\\ell`` or another class letter,
factors in either order, sums from 0 or 1. The oracle is direct: the same formula evaluated by
looping over the samples of random label vectors, against the value ``metricc.api`` gives for
what identify names; identify must name the metric it was built from, and every averaged
match it reports must have the formula's value."""

import random

import numpy as np
import pytest

import metricc.api as mc
from metricc.audit.identify import identify

DELTAS = (r"\hat{{\delta}}({a} - {c})", r"\hat\delta\left({a}-{c}\right)", r"\delta({a}, {c})", r"1({a} = {c})",
          r"\mathbb{{1}}[{a} = {c}]", r"[[{a} = {c}]]", r"I({a} = {c})")
SUMS = (r"\sum_{{{i}=0}}^{{N-1}}", r"\sum_{{{i}=1}}^{{N}}", r"\sum_{{{i}}}")


def _notation(rng) -> dict:
    bold = rng.random() < 0.5
    sample = rng.choice("ist")
    truth = (r"\mathbf{{y}}_{}" if bold else "y_{}").format(sample)
    predicted = (r"\hat{{\mathbf{{y}}}}_{}" if bold else r"\hat{{y}}_{}").format(sample)
    klass = rng.choice((r"\ell", "k", "j"))
    delta = rng.choice(DELTAS)
    total = rng.choice(SUMS).format(i=sample)

    def count(*which) -> str:
        factors = [delta.format(a=truth if w == "truth" else predicted, c=klass) for w in which]
        rng.shuffle(factors)
        return total + " " + rng.choice((r" \cdot ", " ")).join(factors)

    return {"truth": count("truth"), "predicted": count("predicted"), "both": count("truth", "predicted"),
            "class": klass}


def generated(seed: int) -> dict:
    """A skeleton in the counts of one class, its expected metric, and its value by samples."""
    rng = random.Random(seed)
    n = _notation(rng)
    kind = rng.choice(("precision", "recall", "jaccard", "weighted", "accuracy"))
    if kind == "precision":
        text, metric = r"\frac{%s}{%s}" % (n["both"], n["predicted"]), ("precision", "binary")
    elif kind == "recall":
        text, metric = r"\frac{%s}{%s}" % (n["both"], n["truth"]), ("recall", "binary")
    elif kind == "jaccard":
        text = r"\frac{%s}{%s + %s - %s}" % (n["both"], n["truth"], n["predicted"], n["both"])
        metric = ("jaccard", "binary")
    elif kind == "weighted":
        text = r"\frac{1}{N} \sum_{%s \in L} PPV(%s) \cdot %s" % (n["class"], n["class"], n["truth"])
        metric = ("precision", "weighted")
    else:
        text, metric = r"\frac{1}{N} \sum_{%s \in L} %s" % (n["class"], n["both"]), ("accuracy", None)
    return {"text": text, "metric": metric, "kind": kind}


def _by_samples(kind: str, y_true, y_pred, classes: int):
    """The formula evaluated by loops over the samples: per class, or the whole value."""
    def count(c, truth=False, predicted=False):
        return sum((not truth or t == c) and (not predicted or p == c) for t, p in zip(y_true, y_pred))

    per_class = []
    for c in range(classes):
        both, t, p = count(c, True, True), count(c, truth=True), count(c, predicted=True)
        per_class.append({"precision": both / p, "recall": both / t, "jaccard": both / (t + p - both)}.get(kind))
    if kind == "weighted":
        return sum(count(c, True, True) / count(c, predicted=True) * count(c, truth=True) for c in range(classes)) / len(y_true)
    if kind == "accuracy":
        return sum(count(c, True, True) for c in range(classes)) / len(y_true)
    return per_class


def _labels(seed: int):
    """Random label vectors in which every class is true and predicted at least once."""
    rng = np.random.default_rng(seed)
    classes = 3 + seed % 3
    y_true = np.concatenate([np.arange(classes), rng.integers(0, classes, 25)])
    y_pred = np.concatenate([np.arange(classes), np.where(rng.random(25) < 0.6, y_true[classes:], rng.integers(0, classes, 25))])
    return y_true, y_pred, classes


@pytest.mark.parametrize("seed", range(16))
def test_sums_of_class_indicators_are_read_as_the_counts_they_are(seed):
    case = generated(seed)
    result = identify(case["text"])
    assert case["metric"] in {(m.metric, m.average) for m in result.matches}, (case["text"], result.text())
    for data in (_labels(seed), _labels(seed + 50)):
        direct = _by_samples(case["kind"], *data)
        y_true, y_pred, _ = data
        for match in result.matches:
            if match.holds == "binary" or match.params:
                continue
            if isinstance(direct, list):
                if (match.metric, match.average) == case["metric"]:
                    value = mc.evaluate(match.metric, y_true=y_true, y_pred=y_pred, average="none")[match.metric]
                    assert np.allclose(value, direct, rtol=1e-12), (case["text"], match)
                continue
            value = mc.evaluate(match.metric, y_true=y_true, y_pred=y_pred, average=match.average)[match.metric]
            assert float(value) == pytest.approx(direct, rel=1e-12), (case["text"], match)


def test_spark_weighted_precision_as_printed():
    """Spark's guide: weighted precision over its modified delta, PPV(l) the class's precision."""
    result = identify(r"PPV_{w}= \frac{1}{N} \sum\nolimits_{\ell \in L} PPV(\ell) \cdot "
                      r"\sum_{i=0}^{N-1} \hat{\delta}(\mathbf{y}_i-\ell)")
    assert ("precision", "weighted") in {(m.metric, m.average) for m in result.matches}
    assert result.label_agrees is True


def test_two_indicators_of_the_truth_are_no_count():
    """sum_i 1(y_i = k) 1(y_i = j) is no cell of the matrix: left to the scanner, which refuses it."""
    with pytest.raises(Exception):
        identify(r"\frac{1}{N}\sum_{k=1}^{C}\sum_{i=1}^{N} 1(y_i = k) \cdot 1(y_i = j)")
