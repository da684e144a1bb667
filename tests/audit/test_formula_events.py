"""Probabilities of prediction events (audit/formula_events.py), generated at random: the
probability's spelling, the letters' case and hat, the values' spelling, ``|`` or ``\\mid``,
joint events. Each generated probability is computed directly on the 2 x 2 matrix; identify must
name the rate it is, and every match it reports must equal it there (the catalog oracle:
``metricc.api.evaluate``) -- never a misread."""

import random

import numpy as np
import pytest

import metricc.api as mc
from metricc.audit.identify import identify

PROBABILITIES = ("\\Pr({})", "P({})", "\\mathbb{{P}}[{}]", "\\operatorname{{P}}({})")
POSITIVE, NEGATIVE = ("1", "+", "+1"), ("0", "-", "-1")
# (predicted value, true value given) -> the catalog rate P(prediction | truth), and the reverse
RATES = {("pred", 1, 1): "recall", ("pred", 0, 0): "specificity", ("pred", 1, 0): "fpr", ("pred", 0, 1): "fnr",
         ("true", 1, 1): "precision", ("true", 0, 0): "npv", ("true", 0, 1): "fdr", ("true", 1, 0): "false_omission_rate"}
MATRICES = [np.array([[7, 2], [3, 5]]), np.array([[11, 4], [1, 9]])]


def _count(matrix, predicted: int, true: int) -> int:
    return int(matrix[true, predicted])  # truth in rows, class 1 positive


def generated(seed: int) -> dict:
    rng = random.Random(seed)
    letter = rng.choice("yY")
    hat = rng.choice((f"\\hat{{{letter}}}", f"\\hat {letter}"))
    which, a, b = rng.choice(sorted(RATES))
    value = lambda v: rng.choice(POSITIVE if v else NEGATIVE)  # noqa: E731
    event, given = (f"{hat} = {value(a)}", f"{letter} = {value(b)}") if which == "pred" else \
        (f"{letter} = {value(a)}", f"{hat} = {value(b)}")
    bar = rng.choice(("|", "\\mid"))
    text = rng.choice(PROBABILITIES).format(f"{event} {bar} {given}")
    if which == "pred":
        compute = lambda m: _count(m, a, b) / (_count(m, 0, b) + _count(m, 1, b))  # noqa: E731
    else:
        compute = lambda m: _count(m, b, a) / (_count(m, b, 0) + _count(m, b, 1))  # noqa: E731
    return {"text": text, "metric": RATES[(which, a, b)], "value": compute}


@pytest.mark.parametrize("seed", range(12))
def test_generated_probabilities_are_their_rate_and_nothing_else(seed):
    case = generated(seed)
    for matrix in MATRICES:  # the generator against the oracle
        expected = float(mc.evaluate(case["metric"], matrix=matrix, average="binary")[case["metric"]])
        assert np.isclose(case["value"](matrix), expected), case["text"]
    result = identify(case["text"])
    assert case["metric"] in {m.metric for m in result.matches}, (case["text"], result.text())
    for match in result.matches:
        for matrix in MATRICES:
            found = float(mc.evaluate(match.metric, matrix=matrix, average=match.average)[match.metric])
            assert np.isclose(found, case["value"](matrix)), (case["text"], match)


def test_a_joint_probability_and_a_plain_one():
    result = identify(r"P(\hat y = 1, y = 1) + P(\hat y = 0 \wedge y = 0)")
    assert "accuracy" in {m.metric for m in result.matches}, result.text()
    assert "prevalence" in {m.metric for m in identify(r"\Pr(y = 1)").matches}


def test_events_of_other_letters_are_not_read_as_the_prediction():
    """``P(x = 1 | z = 1)``: nothing says which is the truth; never read as a rate."""
    from metricc.core.errors import InputError

    try:
        result = identify(r"P(x = 1 | z = 1)")
    except InputError:
        return
    assert not result.matches, result.text()
