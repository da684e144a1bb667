"""identify on formulas built from catalog metrics: rewritten ones are identified, perturbed
ones are not, and the sentence names the perturbation."""

import random

import pytest

from metricc.audit.identify import identify

# (per-class formula in the papers' words, catalog metric): rewritten below at random
BASES = [
    ("{tp}", "{tp} + {fp}", "precision"),
    ("{tp}", "{tp} + {fn}", "recall"),
    ("{tn}", "{tn} + {fp}", "specificity"),
    ("2 {tp}", "2 {tp} + {fp} + {fn}", "f1"),
    ("{tn}", "{tn} + {fn}", "npv"),
]
NOTATIONS = [
    {"tp": "TP", "fp": "FP", "fn": "FN", "tn": "TN"},
    {"tp": "tp", "fp": "fp", "fn": "fn", "tn": "tn"},
    {"tp": "a", "fp": "b", "fn": "c", "tn": "d"},
]
SYMBOLS = {"a": "TP", "b": "FP", "c": "FN", "d": "TN"}


def _rewrite(numerator: str, denominator: str, rng: random.Random) -> str:
    """One of several algebraic rearrangements of numerator / denominator."""
    forms = [
        r"\frac{%s}{%s}" % (numerator, denominator),
        r"\left(\frac{%s}{%s}\right)^{-1}" % (denominator, numerator),
        r"1 - \frac{%s - (%s)}{%s}" % (denominator, numerator, denominator),
        r"\frac{2(%s)}{2(%s)}" % (numerator, denominator),
    ]
    return rng.choice(forms)


CASES = [(i, random.Random(i)) for i in range(6)]


@pytest.mark.parametrize("seed, rng", CASES, ids=[str(i) for i, _ in CASES])
def test_rewritten_catalog_formulas_are_identified(seed, rng):
    numerator, denominator, metric = rng.choice(BASES)
    names = rng.choice(NOTATIONS)
    text = _rewrite(numerator.format(**names), denominator.format(**names), rng)
    result = identify(text, symbols_map=SYMBOLS if names["tp"] == "a" else None)
    assert (metric, "binary", "all") in {(m.metric, m.average, m.holds) for m in result.matches}, text
    assert any(m.proved for m in result.matches if m.metric == metric)


@pytest.mark.parametrize("seed", range(4))
def test_a_swapped_count_is_caught_and_named(seed):
    rng = random.Random(100 + seed)
    numerator, denominator, metric = rng.choice(BASES[:4])
    names = dict(NOTATIONS[0])
    present = [k for k in ("fp", "fn") if "{%s}" % k in denominator]
    swapped = rng.choice(present)
    replacement = {"fp": "TN", "fn": "TN"}[swapped]
    text = r"\frac{%s}{%s}" % (numerator.format(**names), denominator.format(**{**names, swapped: replacement}))
    result = identify(text)
    assert metric not in {m.metric for m in result.matches}, text
    sentences = {(n.metric, n.differs) for n in result.nearest}
    assert (metric, f"uses TN where {metric} [binary] uses {names[swapped]}") in sentences, (text, sentences)


def test_a_dropped_square_root_is_caught_and_named():
    result = identify(r"\frac{TP \times TN - FP \times FN}{(TP + FP)(TP + FN)(TN + FP)(TN + FN)}")
    assert not result.matches
    assert ("mcc", "missing the square root over the denominator of mcc") in {(n.metric, n.differs) for n in result.nearest}
