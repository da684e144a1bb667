"""Metric names called with a parameter and a class (audit/formula_arguments.py), generated at random.

Each formula uses a class-level metric as a function of its arguments, as Spark prints
``F(\\beta, \\ell)``: the metric under any of its printed names, its parameters under any Greek
letter (the catalog's own name or another), the class as ``\\ell`` or a summed letter, the
arguments in random order; used in a macro average, in Spark's weighted sum over modified
deltas, or composed into F-beta of one class from ``PPV(\\ell)`` and ``TPR(\\ell)``. The oracle
is direct: the generator's own per-class formula evaluated on the counts of random label
vectors at random parameter values; identify must name the metric it was built from, and every
match it reports (with the parameter binding it names) must have the formula's value."""

import random

import numpy as np
import pytest

import metricc.api as mc
from metricc.audit.identify import identify

NAMES = {"precision": ("PPV", "Precision", r"\text{Prec}", r"\mathrm{PPV}"),
         "recall": ("TPR", "Recall", r"\text{Sensitivity}", r"\operatorname{TPR}"),
         "specificity": ("TNR", r"\text{Specificity}"),
         "f_beta": ("F", r"\text{F}", "Fbeta"),
         "tversky_index": ("TI", r"\text{TverskyIndex}")}
PARAMETERS = {"f_beta": ("beta",), "tversky_index": ("alpha", "beta")}
GREEK = ("gamma", "lambda", "theta")
DIRECT = {"precision": lambda tp, fp, fn, tn, p: tp / (tp + fp), "recall": lambda tp, fp, fn, tn, p: tp / (tp + fn),
          "specificity": lambda tp, fp, fn, tn, p: tn / (tn + fp),
          "f_beta": lambda tp, fp, fn, tn, p: (1 + p["beta"] ** 2) * tp / ((1 + p["beta"] ** 2) * tp + p["beta"] ** 2 * fn + fp),
          "tversky_index": lambda tp, fp, fn, tn, p: tp / (tp + p["alpha"] * fp + p["beta"] * fn)}


def _call(rng, metric: str, klass: str) -> tuple[str, dict]:
    """``NAME(args)`` in random order, and {catalog parameter: the printed letter}."""
    wanted = PARAMETERS.get(metric, ())
    own = rng.random() < 0.5
    letters = list(wanted) if own else rng.sample(GREEK, len(wanted))
    if own and len(wanted) > 1 and rng.random() < 0.5:  # by name, printed in the other order
        letters.reverse()
    args = ["\\" + x for x in letters] + [klass]
    rng.shuffle(args)
    printed = [a.lstrip("\\") for a in args if a.lstrip("\\") in letters]  # another letter: the parameters in order
    roles = dict(zip(wanted, wanted)) if own else dict(zip(wanted, printed))
    return f"{rng.choice(NAMES[metric])}({', '.join(args)})", roles


def generated(seed: int) -> dict:
    rng = random.Random(seed)
    context = rng.choice(("macro", "weighted", "composed"))
    if context == "composed":  # F-beta of one class over the class's precision and recall
        letter = rng.choice(("beta", *GREEK))
        ppv, _ = _call(rng, "precision", r"\ell")
        tpr, _ = _call(rng, "recall", r"\ell")
        body = (r"\left(1 + \{b}^2\right) \cdot \frac{{{p} \cdot {r}}}{{\{b}^2 \cdot {p} + {r}}}"
                .format(b=letter, p=ppv, r=tpr))
        label = rng.choice((f"F(\\{letter}, \\ell) = ", f"F(\\ell, \\{letter}) = ", ""))
        return {"text": label + body, "metric": "f_beta", "average": "binary", "roles": {"beta": letter},
                "labelled": bool(label)}
    metric = rng.choice(sorted(NAMES))
    if context == "macro":
        k = rng.choice("kjc")
        call, roles = _call(rng, metric, k)
        text = rf"\frac{{1}}{{C}} \sum_{{{k}=1}}^{{C}} {call}"
    else:
        call, roles = _call(rng, metric, r"\ell")
        text = rf"\frac{{1}}{{N}} \sum\nolimits_{{\ell \in L}} {call} \cdot \sum_{{i=0}}^{{N-1}} \hat{{\delta}}(\mathbf{{y}}_i-\ell)"
    return {"text": text, "metric": metric, "average": context, "roles": roles, "labelled": False}


def _counts(seed: int):
    """Random label vectors in which every class is true and predicted at least once, and their per-class counts."""
    rng = np.random.default_rng(seed)
    classes = 3 + seed % 2
    y_true = np.concatenate([np.arange(classes), rng.integers(0, classes, 30)])
    y_pred = np.concatenate([np.arange(classes), np.where(rng.random(30) < 0.6, y_true[classes:], rng.integers(0, classes, 30))])
    tp = np.array([np.sum((y_true == c) & (y_pred == c)) for c in range(classes)], dtype=float)
    fp = np.array([np.sum((y_true != c) & (y_pred == c)) for c in range(classes)], dtype=float)
    fn = np.array([np.sum((y_true == c) & (y_pred != c)) for c in range(classes)], dtype=float)
    return y_true, y_pred, (tp, fp, fn, len(y_true) - tp - fp - fn)


def _direct(case: dict, counts, values: dict):
    """The generated formula's value: per class, or averaged as the context says."""
    per_class = DIRECT[case["metric"]](*counts, {p: values[x] for p, x in case["roles"].items()})
    if case["average"] == "macro":
        return per_class.mean()
    if case["average"] == "weighted":
        support = counts[0] + counts[2]
        return float((per_class * support).sum() / support.sum())
    return per_class


def _match_params(metric: str, match, values: dict, classes: int) -> dict:
    """The catalog parameters a match needs, as numbers: "the formula's gamma", a default, a
    class vector the same for every class, or the printed one of that name."""
    given = dict(match.params)
    out = {}
    for param in mc.catalog()[metric].params:
        said = given.get(param.name)
        if said is None:
            out[param.name] = values[param.name]
        else:
            out[param.name] = (values[said.removeprefix("the formula's ")] if said.startswith("the formula's")
                               else np.ones(classes) if said == "the same for every class" else float(said))
    return out


@pytest.mark.parametrize("seed", range(24))
def test_metric_calls_are_read_by_the_role_of_each_argument(seed):
    case = generated(seed)
    result = identify(case["text"])
    assert (case["metric"], case["average"]) in {(m.metric, m.average) for m in result.matches}, (case["text"], result.text())
    if case["labelled"]:
        assert result.label_agrees is True, (case["text"], result.text())
    rng = np.random.default_rng(seed)
    values = {x: float(v) for x, v in zip(("alpha", "beta", *GREEK), rng.uniform(0.2, 3.0, 5))}
    y_true, y_pred, counts = _counts(seed)
    direct = _direct(case, counts, values)
    for match in result.matches:
        if match.holds == "binary" or match.reading:
            continue
        average = "none" if match.average == "binary" else match.average
        params = _match_params(match.metric, match, values, len(counts[0])) if mc.catalog()[match.metric].params else None
        value = mc.evaluate(match.metric, y_true=y_true, y_pred=y_pred, average=average, params=params)[match.metric]
        assert np.allclose(value, direct, rtol=1e-10), (case["text"], match)


def test_two_class_letters_are_not_read_as_one_class():
    """PPV(k, j) names no class of a per-class metric: not read as a call (the scanner refuses it)."""
    with pytest.raises(Exception):
        identify(r"\frac{1}{C} \sum_{k=1}^{C} \sum_{j=1}^{C} PPV(k, j)")


def test_more_parameters_than_the_metric_has_are_not_read():
    with pytest.raises(Exception):
        identify(r"\frac{1}{C} \sum_{k=1}^{C} PPV(\beta, k)")
