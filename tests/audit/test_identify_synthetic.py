"""identify on formulas built from catalog metrics: rewritten ones are identified, perturbed
ones are not, and the sentence names the perturbation."""

import random
import re

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


def _printed_names(metric: str) -> list[str]:
    """The names a reader prints for ``metric`` (catalog, peers), as words of two letters or more."""
    from metricc.audit.notation import catalog_names

    return sorted(k for k, (m, mode) in catalog_names().items()
                  if m == metric and mode in (None, "binary") and re.fullmatch(r"[A-Za-z]{2,}", k))


# (form over two printed metric names X and Y, catalog metric it defines); operators written
# the ways papers and word processors print them
NAMED_FORMS = [
    ("({x} + {y}) {div} 2", "balanced_accuracy"),
    ("{x} + {y} {minus} 1", "youden_j"),
    (r"\sqrt{{{x} {times} {y}}}", "g_mean"),
    ("{x} {div} (1 {minus} {y})", "positive_likelihood_ratio"),
    ("(1 {minus} {x}) {div} {y}", "negative_likelihood_ratio"),
]
OPERATORS = [{"div": "/", "minus": "-", "times": r"\cdot"}, {"div": "\u00f7", "minus": "\u2212", "times": "\u00d7"},
             {"div": "/", "minus": "\u2013", "times": r"\times"}]


@pytest.mark.parametrize("seed", range(5))
def test_metrics_printed_by_name_are_read_as_their_formulas(seed):
    rng = random.Random(300 + seed)
    form, metric = NAMED_FORMS[seed]
    x, y = rng.choice(_printed_names("recall")), rng.choice(_printed_names("specificity"))
    text = form.format(x=x, y=y, **rng.choice(OPERATORS))
    result = identify(text)
    assert metric in {m.metric for m in result.matches}, (text, result.text())


def test_a_one_letter_product_is_not_read_as_a_metric_name():
    result = identify(r"\frac{2 P R}{P + R}")
    assert "f1" in {m.metric for m in result.matches}


LAYOUTS = {"prediction": ("TP", "FP", "FN", "TN"), "truth": ("TP", "FN", "FP", "TN")}


@pytest.mark.parametrize("seed", range(6))
def test_table_cells_are_read_in_both_layouts(seed):
    rng = random.Random(400 + seed)
    numerator, denominator, metric = rng.choice(BASES)
    layout = rng.choice(sorted(LAYOUTS))
    letters = rng.choice(("abcd", "ABCD"))
    cell = {count.lower(): letters[place] for place, count in enumerate(LAYOUTS[layout])}
    text = _rewrite(numerator.format(**cell), denominator.format(**cell), rng)
    result = identify(text)
    under = {(m.metric, m.reading) for m in result.matches}
    words = "the truth in rows" if layout == "truth" else "the test's result in rows"
    # a formula both layouts give alike (F1) is forced; otherwise the match says under which layout
    assert any(name == metric and (not reading or any(words in r for r in reading)) for name, reading in under), \
        (text, result.text())


@pytest.mark.parametrize("seed", range(3))
def test_agreements_in_their_customary_names_give_kappa(seed):
    rng = random.Random(500 + seed)
    observed, chance = rng.choice([("p_o", "p_e"), ("po", "pe"), (r"\Pr(a)", r"\Pr(e)"), ("p_{o}", "p_{e}")])
    form = rng.choice([r"\frac{{{o} - {e}}}{{1 - {e}}}", r"1 - \frac{{1 - {o}}}{{1 - {e}}}", "({o} - {e}) / (1 - {e})"])
    result = identify(form.format(o=observed, e=chance))
    assert ("cohen_kappa", "single-label") in {(m.metric, m.holds) for m in result.matches}, result.text()


def test_pi_is_the_constant():
    result = identify(r"\frac{\sqrt{3}}{\pi} \log_{10}\left(\frac{TP \cdot TN}{FP \cdot FN}\right)")
    assert "discriminant_power" in {m.metric for m in result.matches}


@pytest.mark.parametrize("seed", range(4))
def test_typesetting_of_exported_latex_is_read(seed):
    """Braces around the whole formula, subscripts set in a font, spaces before a sum's limits
    and ``\\not=`` under a sum, as MathML and Wikipedia exports print them."""
    rng = random.Random(600 + seed)
    index, bound = rng.choice("ijkl"), rng.choice("KLQ")
    font = rng.choice([r"\textit", r"\mathrm", r"\mathit"])
    count = rng.choice(["tp", "TP"]), rng.choice(["fp", "FP"])
    body = r"\frac{%s_{%s {%s}}}{%s_{%s {%s}} + %s_{%s {%s}}}" % (count[0], font, index, count[0], font, index,
                                                                  count[1], font, index)
    text = r"\frac{1}{%s} \sum _{%s=1} ^{%s} %s" % (bound, index, bound, body)
    if rng.random() < 0.5:
        text = r"{\displaystyle {%s}}" % text
    result = identify(text)
    assert ("precision", "macro") in {(m.metric, m.average) for m in result.matches}, (text, result.text())


def test_a_condition_after_a_space_and_not_equal_leaves_the_pair_out():
    text = r"\frac{1}{K} \sum_{k=1}^{K} \sum_{f=1 f\not=k}^{K} \frac{C_{f k}}{K}"
    off_diagonal = identify(text).parsed
    assert "unless_equal" in off_diagonal


@pytest.mark.parametrize("seed", range(3))
def test_sets_of_one_problem_meet_and_union(seed):
    rng = random.Random(700 + seed)
    truth, predicted = rng.choice([("y", r"\hat{y}"), ("A", "B"), ("B", "A"), ("Y", r"\hat{Y}")])
    meet = r"\left|%s \cap %s\right|" % (truth, predicted)
    union = r"|%s \cup %s|" % tuple(rng.sample([truth, predicted], 2))
    result = identify(r"\frac{%s}{%s}" % (meet, union))
    assert "jaccard" in {m.metric for m in result.matches}


@pytest.mark.parametrize("seed", range(8))
def test_numbered_cells_and_their_margins_are_read_in_both_layouts(seed):
    rng = random.Random(800 + seed)
    letter, negative = rng.choice("nNxf"), rng.choice("02")
    layout = rng.choice(sorted(LAYOUTS))
    places = ("1" + "1", "1" + negative, negative + "1", negative + negative)  # reading order, rows first
    cell = {count.lower(): f"{letter}_{{{place}}}" for count, place in zip(LAYOUTS[layout], places)}
    numerator, denominator, metric = rng.choice(BASES)
    text = r"\frac{%s}{%s}" % (numerator.format(**cell), denominator.format(**cell))
    if rng.random() < 0.5 and denominator.count("+") == 1:  # a row or column total as its margin
        first, second = (p for p in places if cell_of(cell, p) in denominator.format(**cell))
        margin = rf"\bullet {first[1]}" if first[1] == second[1] else rf"{first[0]} \bullet"
        text = r"\frac{%s}{%s_{%s}}" % (numerator.format(**cell), letter, margin)
    result = identify(text)
    assert metric in {m.metric for m in result.matches}, (text, result.text())


def cell_of(cell: dict, place: str) -> str:
    return next(v for v in cell.values() if v.endswith("{%s}" % place))
