"""Chains of forms ``L = A = B`` (audit/identify_chain.py), generated at random.

Each chain writes a binary metric in two or three forms, each in random notation (terms in
either order, a complement ``1 - ...``, metric names such as PPV and TPR, ``\\cdot`` or not),
and sometimes one form is another metric's. A second generator writes Spark's kind of chain: a
per-class ratio of counts beside accuracy over the samples (Kronecker delta, ``1(...)``,
Iverson brackets). The oracle is direct: each form's own function evaluated at random counts
(pooled over the classes of random labels for the second kind) decides whether the forms are
equal; identify must report a contradiction exactly when they are not, and name each form's
metric."""

import random

import numpy as np
import pytest

from metricc.audit.identify import identify

WRITERS = {
    "recall": (r"\frac{TP}{TP+FN}", r"\frac{TP}{FN + TP}", r"1 - \frac{FN}{TP+FN}", "TPR"),
    "precision": (r"\frac{TP}{TP+FP}", r"\frac{TP}{FP+TP}", r"1-\frac{FP}{FP+TP}", "PPV"),
    "specificity": (r"\frac{TN}{TN+FP}", r"1 - \frac{FP}{FP+TN}", "TNR"),
    "f1": (r"\frac{2TP}{2TP+FP+FN}", r"\frac{2 \cdot TP}{2 \cdot TP + FN + FP}", r"\frac{TP}{TP + \frac{1}{2}(FP+FN)}",
           r"2 \cdot \frac{PPV \cdot TPR}{PPV + TPR}"),
}
DIRECT = {"recall": lambda tp, fp, fn, tn: tp / (tp + fn), "precision": lambda tp, fp, fn, tn: tp / (tp + fp),
          "specificity": lambda tp, fp, fn, tn: tn / (tn + fp), "f1": lambda tp, fp, fn, tn: 2 * tp / (2 * tp + fp + fn)}
LABELS = {"recall": "TPR", "precision": "PPV", "specificity": "TNR", "f1": "F1"}


def generated(seed: int) -> dict:
    rng = random.Random(seed)
    metric = rng.choice(sorted(WRITERS))
    count = rng.choice((2, 3))
    metrics = [metric] * count
    if rng.random() < 0.4:
        metrics[rng.randrange(1, count)] = rng.choice([m for m in WRITERS if m != metric])
    label = rng.choice((f"{LABELS[metric]} = ", ""))
    # without a label, the first form must be a formula: a bare name there is read as the label
    forms = [rng.choice([w for w in WRITERS[m] if label or i or "frac" in w]) for i, m in enumerate(metrics)]
    return {"text": label + " = ".join(forms), "metrics": metrics, "labelled": bool(label)}


def _equal(metrics: list[str], seed: int) -> bool:
    """Whether the forms' own functions agree at random counts."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, 50, (4, 20)).astype(float)
    values = [DIRECT[m](*counts) for m in metrics]
    return all(np.allclose(v, values[0]) for v in values[1:])


@pytest.mark.parametrize("seed", range(24))
def test_every_form_of_a_chain_is_identified_and_a_contradiction_reported(seed):
    case = generated(seed)
    result = identify(case["text"])
    assert len(result.chain) == len(case["metrics"]), (case["text"], result.text())
    for form, metric in zip(result.chain, case["metrics"]):
        assert f"{metric} [binary]" in form.matches, (case["text"], result.text())
    if _equal(case["metrics"], seed):
        assert result.contradiction is None and result.forced, (case["text"], result.text())
        assert (case["metrics"][0], "binary") in {(m.metric, m.average) for m in result.matches}
        if case["labelled"]:
            assert result.label_agrees is True
    else:
        assert result.contradiction is not None and not result.forced, (case["text"], result.text())
        for metric in set(case["metrics"]):
            assert (metric, "binary") in {(m.metric, m.average) for m in result.matches}


SAMPLE_ACCURACY = (r"\frac{{1}}{{N}}\sum_{{i=0}}^{{N-1}} \hat{{\delta}}\left(\hat{{\mathbf{{y}}}}_i - \mathbf{{y}}_i\right)",
                   r"\frac{{1}}{{N}} \sum_{{i=1}}^{{N}} 1(\hat{{y}}_i = y_i)", r"\frac{{1}}{{n}}\sum_{{i=1}}^{{n}} [[y_i = \hat{{y}}_i]]")


def pooled_case(seed: int) -> dict:
    rng = random.Random(seed)
    metric = rng.choice(("recall", "precision", "specificity"))
    forms = [rng.choice(WRITERS[metric][:2]), rng.choice(SAMPLE_ACCURACY).format()]
    rng.shuffle(forms)
    return {"text": "ACC = " + " = ".join(forms), "metric": metric}


def _pooled_equals_accuracy(metric: str, seed: int) -> bool:
    """The per-class ratio with its counts summed over the classes, against accuracy, on random labels."""
    rng = np.random.default_rng(seed)
    y_true, y_pred = rng.integers(0, 4, 40), rng.integers(0, 4, 40)
    tp = sum(np.sum((y_true == c) & (y_pred == c)) for c in range(4))
    fp = sum(np.sum((y_true != c) & (y_pred == c)) for c in range(4))
    fn = sum(np.sum((y_true == c) & (y_pred != c)) for c in range(4))
    tn = 4 * 40 - tp - fp - fn
    return bool(np.isclose(DIRECT[metric](tp, fp, fn, tn), np.mean(y_true == y_pred)))


@pytest.mark.parametrize("seed", range(8))
def test_a_ratio_of_counts_beside_accuracy_is_read_pooled_when_that_makes_them_equal(seed):
    case = pooled_case(seed)
    result = identify(case["text"])
    if _pooled_equals_accuracy(case["metric"], seed):
        assert result.contradiction is None, (case["text"], result.text())
        assert ("accuracy", None) in {(m.metric, m.average) for m in result.matches}, (case["text"], result.text())
        assert result.label_agrees is True
        assert any("summed over the classes" in s for s in result.inferred)
    else:
        assert result.contradiction is not None and not result.forced, (case["text"], result.text())


def test_the_chain_is_in_the_json_answer():
    import jsonschema

    from metricc.audit.identify import schema

    document = identify(r"X = \frac{TP}{TP+FN} = \frac{TN}{TN+FP}").to_json()
    jsonschema.validate(document, schema())
    assert [f["form"] for f in document["chain"]] == [1, 2]
    assert "recall [binary]" in document["contradiction"] and "specificity [binary]" in document["contradiction"]
