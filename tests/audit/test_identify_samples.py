"""identify on formulas over a sample's label sets and indicators (audit/formula_sets.py,
audit/formula_indicators.py), generated at random: set letters, which of them is the truth,
hats, index and bound letters, sums from 0 or 1, wrappers and spacing. Each generated formula
is first evaluated by brute force over Python sets and checked against the catalog (the
oracle: ``metricc.api.evaluate`` on the same multi-label data); then identify must name that
metric, and every match it reports must equal the formula under some reading of the sets --
never a misread. The real-paper corpus is held out: no unit test reads it."""

import random

import numpy as np
import pytest

import metricc.api as mc
from metricc.audit.identify import identify
from metricc.core.errors import InputError

# body over the sizes of the truth T and the prediction P of one sample (printed with {t},
# {p}, {tp} = |T cap P|, {u} = |T cup P|), its value from Python sets, the catalog metric
SET_BODIES = [
    (r"\frac{{{tp}}}{{{p}}}", lambda t, p: len(t & p) / len(p), "precision"),
    (r"\frac{{{tp}}}{{{t}}}", lambda t, p: len(t & p) / len(t), "recall"),
    (r"\frac{{{tp}}}{{{u}}}", lambda t, p: len(t & p) / len(t | p), "jaccard"),
    (r"\frac{{{tp}}}{{{t} + {p} - {tp}}}", lambda t, p: len(t & p) / len(t | p), "jaccard"),
    (r"\frac{{2 {tp}}}{{{t} + {p}}}", lambda t, p: 2 * len(t & p) / (len(t) + len(p)), "f1"),
]
SET_LETTERS = "ABDGHLPQRSTUVW"
SPACES = ("", " ", r"\,", r"\;", r"\ ")


def _bars(rng: random.Random, inside: str) -> str:
    return rng.choice(("|%s|", r"\left|%s\right|", r"\left| %s \right|")) % inside


def _sum(rng: random.Random, index: str, bound: str, body: str) -> str:
    space = rng.choice(SPACES)
    if rng.random() < 0.5:
        return r"\frac{1}{%s}%s\sum_{%s=0}^{%s-1}%s%s" % (bound, space, index, bound, space, body)
    return r"\frac{1}{%s}%s\sum_{%s=1}^{%s}%s%s" % (bound, space, index, bound, space, body)


def generated_sets(seed: int) -> dict:
    """A per-sample set formula: its text, its value on sets, its metric, whether the print
    decides which set is the truth."""
    rng = random.Random(seed)
    template, value, metric = rng.choice(SET_BODIES)
    index, bound = rng.choice("ijk"), rng.choice(("N", "n", "M", "Q"))
    hatted = rng.random() < 0.3
    if hatted:
        letter = rng.choice(SET_LETTERS)
        truth, prediction = f"{letter}_{index}", rf"\hat{{{letter}}}_{index}"
    else:
        a, b = rng.sample(SET_LETTERS, 2)
        truth, prediction = f"{a}_{index}", f"{b}_{index}"
    space = rng.choice(SPACES)
    pair = (truth, prediction) if rng.random() < 0.5 else (prediction, truth)
    names = {"t": _bars(rng, truth), "p": _bars(rng, prediction),
             "tp": _bars(rng, f"{pair[0]}{space}\\cap{space}{pair[1]}"),
             "u": _bars(rng, f"{pair[1]} \\cup {pair[0]}")}
    body = template.format(**names)
    return {"text": _sum(rng, index, bound, body), "value": value, "metric": metric, "decided": hatted}


def _data(seed: int, samples: int = 9, labels: int = 4):
    """Multi-label data where every sample has a true and a predicted label (no 0 / 0)."""
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 2, (samples, labels))
    y_pred = rng.integers(0, 2, (samples, labels))
    for row in range(samples):
        y_true[row, rng.integers(labels)] = 1
        y_pred[row, rng.integers(labels)] = 1
    return y_true, y_pred


def _sets(row) -> set:
    return {j for j, x in enumerate(row) if x}


def _brute(value, y_true, y_pred, swapped: bool = False) -> float:
    pairs = [(_sets(t), _sets(p)) for t, p in zip(y_true, y_pred)]
    return float(np.mean([value(p, t) if swapped else value(t, p) for t, p in pairs]))


def _catalog(metric: str, average: str | None, y_true, y_pred) -> float | None:
    try:
        return float(mc.evaluate(metric, y_true=y_true, y_pred=y_pred, multilabel=True, average=average)[metric])
    except Exception:  # noqa: BLE001 - a variant that takes no multi-label data equals nothing here
        return None


def _no_misread(result, value, datasets) -> None:
    """Every reported match equals the formula under one reading of the sets on every data set."""
    for match in result.matches:
        found = [_catalog(match.metric, match.average, t, p) for t, p in datasets]
        ok = None not in found and any(all(np.isclose(f, _brute(value, t, p, swapped)) for f, (t, p) in zip(found, datasets))
                                       for swapped in (False, True))
        assert ok, (match, result.text())


@pytest.mark.parametrize("seed", range(10))
def test_generated_set_notation_is_its_metric_and_nothing_else(seed):
    case = generated_sets(seed)
    datasets = [_data(seed), _data(seed + 100)]
    for y_true, y_pred in datasets:  # the generator against the oracle, before identify
        assert np.isclose(_brute(case["value"], y_true, y_pred), _catalog(case["metric"], "samples", y_true, y_pred))
    result = identify(case["text"])
    assert (case["metric"], "samples") in {(m.metric, m.average) for m in result.matches}, (case["text"], result.text())
    _no_misread(result, case["value"], datasets)
    if case["decided"]:
        assert result.forced, (case["text"], result.text())


def test_sets_whose_roles_the_print_leaves_open_say_so():
    result = identify(r"\frac{1}{N}\sum_{i=0}^{N-1}\frac{|P_i \cap L_i|}{|P_i|}")
    assert not result.forced
    assert {(m.metric, m.average) for m in result.matches} == {("precision", "samples"), ("recall", "samples")}
    assert "which reading the paper means decides the metric" in result.text()
    one_way = identify(r"\frac{1}{N}\sum_{i=0}^{N-1}\frac{|A_i \setminus B_i|}{|A_i|}")  # fnr one way, fdr the other
    assert not one_way.forced and all(m.reading for m in one_way.matches), one_way.text()


@pytest.mark.parametrize("text, message", [
    (r"\frac{1}{N}\sum_{i=1}^{N}\frac{|A_i \cap B_i|}{|C_i \cup D_i|}", "more than two label sets"),
    (r"\frac{1}{N}\sum_{i=1}^{N}|A_i \cap B_j|", "mixes two samples"),
])
def test_set_notation_that_is_not_one_samples_truth_and_prediction_is_refused(text, message):
    with pytest.raises(InputError, match=message):
        identify(text)


def test_an_absolute_value_is_not_a_set():
    """``|e_i|`` beside no set operation is not a label set: never read as a sample's sets."""
    result = identify(r"\frac{1}{N}\sum_{i=1}^{N}|e_i|")
    assert "label set" not in result.text() and all(m.average != "samples" for m in result.matches), result.text()


# indicators: (head, opening, closing) as printed; relation; catalog metric
HEADS = [("1(", ")"), (r"\mathbb{1}[", "]"), (r"\mathbb{1}(", ")"), (r"\mathbf{1}(", ")"), ("I(", ")"), ("[[", "]]"),
         (r"\mathbb{1}\{", r"\}")]
RELATIONS = [("=", "exact_match_ratio", lambda t, p: float(t == p)),
             (r"\neq", "subset_zero_one_loss", lambda t, p: float(t != p)),
             (r"\not=", "subset_zero_one_loss", lambda t, p: float(t != p))]


def generated_indicator(seed: int) -> dict:
    rng = random.Random(seed)
    (opening, closing), (relation, metric, value) = rng.choice(HEADS), rng.choice(RELATIONS)
    index, bound = rng.choice("ijk"), rng.choice(("N", "n"))
    letter = rng.choice("yY")
    operands = [f"{letter}_{index}", rf"\hat{{{letter}}}_{index}"]
    rng.shuffle(operands)
    space = rng.choice(SPACES)
    body = f"{opening}{space}{operands[0]} {relation} {operands[1]}{space}{closing}"
    return {"text": _sum(rng, index, bound, body), "metric": metric, "value": value}


@pytest.mark.parametrize("seed", range(8))
def test_generated_indicators_are_their_metric(seed):
    case = generated_indicator(seed)
    datasets = [_data(seed), _data(seed + 100)]
    for y_true, y_pred in datasets:
        assert np.isclose(_brute(case["value"], y_true, y_pred), _catalog(case["metric"], "samples", y_true, y_pred))
    result = identify(case["text"])
    assert case["metric"] in {m.metric for m in result.matches}, (case["text"], result.text())
    _no_misread(result, case["value"], datasets)


@pytest.mark.parametrize("seed", range(4))
def test_an_indicator_summed_over_a_samples_labels_counts_them(seed):
    rng = random.Random(seed)
    label, labels = rng.choice((("j", r"n_\text{labels}"), ("l", "L"), ("j", "K")))
    relation, metric = rng.choice(((r"\neq", "hamming_loss"), ("=", None)))
    cells = (f"y_{{i{rng.choice(('', ','))}{label}}}", rf"\hat{{y}}_{{i,{label}}}".replace(",", "" if rng.random() < 0.5 else ","))
    text = (r"\frac{1}{N %s} \sum_{i=1}^{N} \sum_{%s=1}^{%s} %s(%s %s %s)"
            % (labels, label, labels, rng.choice(("1", r"\mathbb{1}")), cells[0], relation, cells[1]))
    result = identify(text)
    if metric:
        assert (metric, "samples") in {(m.metric, m.average) for m in result.matches}, (text, result.text())
    else:  # the share of right labels: 1 - the Hamming loss, which is no catalog metric's value
        assert "hamming_loss" not in {m.metric for m in result.matches}, (text, result.text())


def test_an_indicator_of_one_label_outside_a_sum_over_the_labels_is_refused():
    with pytest.raises(InputError, match="one label of a sample"):
        identify(r"\frac{1}{N}\sum_{i=1}^{N} 1(y_{i,j} = \hat{y}_{i,j})")


def test_a_printed_parameter_is_bound_over_the_samples_too():
    """F-beta of each sample's sets with beta printed: compared with the catalog at the same beta."""
    result = identify(r"\frac{1}{n}\sum_{i=1}^{n} \frac{(1+\beta^2)|Y_i \cap Z_i|}{(1+\beta^2)|Y_i \cap Z_i| "
                      r"+ \beta^2 |Y_i \setminus Z_i| + |Z_i \setminus Y_i|}")
    assert ("f_beta", "samples") in {(m.metric, m.average) for m in result.matches}, result.text()
