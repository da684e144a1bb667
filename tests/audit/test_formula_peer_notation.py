"""Formulas copied from PyCM without its definitions (audit/formula_peer_notation.py), generated at random.

Each formula is a catalog metric written over PyCM's basic parameters (P, N, TOP, TON, POP) in
one of several equivalent forms, with a random label or none. The oracle is the same formula
with the definitions printed after it, in a random order and random equivalent forms (``P =
FN + TP``): identify must answer the same without them, name the expected metric, and say it
read PyCM's notation. CEN and MCEN print the same formula over probabilities they define
differently: without a label both are given, each under its notation; the label settles it."""

import random

import pytest

from metricc.audit.identify import identify

FORMS = (
    (r"\frac{TP}{P}", "recall"), (r"\frac{TP}{TOP}", "precision"), (r"\frac{TN}{N}", "specificity"),
    (r"\frac{TN}{TON}", "npv"), (r"\frac{TP + TN}{POP}", "accuracy"), (r"\frac{P}{POP}", "prevalence"),
    (r"\frac{TOP \times P}{POP^2}", "racc"), (r"\frac{FP}{N}", "fpr"), (r"\frac{FN}{P}", "fnr"),
    (r"\frac{FP}{TOP}", "fdr"), (r"\frac{FN}{TON}", "false_omission_rate"), (r"\frac{TOP}{POP}", "detection_prevalence"),
    (r"\frac{2 TP}{TOP + P}", "f1"), (r"\frac{TP}{TOP + P - TP}", "jaccard"),
)
DEFINITIONS = {"P": ("TP + FN", "FN + TP"), "N": ("TN + FP", "FP + TN"), "TOP": ("TP + FP", "FP + TP"),
               "TON": ("TN + FN", "FN + TN"), "POP": ("TP + TN + FP + FN", "TP + FP + FN + TN", "P + N")}


def generated(seed: int) -> dict:
    rng = random.Random(seed)
    formula, metric = FORMS[seed % len(FORMS)]
    used = [n for n in DEFINITIONS if f"{n} " in formula + " " or f"{n}}}" in formula or f"{n}^" in formula]
    rng.shuffle(used)
    definitions = []
    for name in used:
        meaning = rng.choice(DEFINITIONS[name])
        if meaning == "P + N":
            meaning = DEFINITIONS[name][0]
        definitions.append(f"{name} = {meaning}")
    return {"formula": formula, "with": f"{formula}, where " + ", ".join(definitions), "metric": metric}


def _answer(result) -> set:
    return {(m.metric, m.average) for m in result.matches}


@pytest.mark.parametrize("seed", range(14))
def test_pycm_basic_parameters_are_read_without_their_definitions(seed):
    case = generated(seed)
    without, given = identify(case["formula"]), identify(case["with"])
    assert _answer(without) == _answer(given), (case["formula"], without.text(), given.text())
    assert case["metric"] in {m for m, _ in _answer(without)}, (case["formula"], without.text())
    assert without.forced, without.text()


def test_the_answer_says_it_read_pycm_notation():
    result = identify(r"RACC=\frac{TOP \times P}{POP^2}")
    assert [m.metric for m in result.matches] == ["racc"]
    assert "read in PyCM's notation: P = TP + FN, TOP = TP + FP, POP = TP + TN + FP + FN" in result.inferred


ENTROPY = (r"-\sum_{k=1,k\neq j}^{|C|}\Bigg(P_{j,k}^jlog_{2(|C|-1)}\Big(P_{j,k}^j\Big)"
           r"+P_{k,j}^jlog_{2(|C|-1)}\Big(P_{k,j}^j\Big)\Bigg)")


def test_cen_and_mcen_are_told_apart_by_their_label():
    unlabelled = identify(ENTROPY)
    assert not unlabelled.forced
    assert {m.metric for m in unlabelled.matches} == {"class_cen", "class_mcen"}
    for label, metric in (("CEN_j", "class_cen"), ("MCEN_j", "class_mcen")):
        result = identify(f"{label}={ENTROPY}")
        assert result.forced and [m.metric for m in result.matches] == [metric], result.text()
        assert result.label_agrees is True


def test_a_formula_read_as_printed_keeps_its_own_reading():
    """P = TP + FN is not forced on a formula that matches as printed (P as precision)."""
    result = identify(r"\frac{2PR}{P + R}")
    assert "f1" in {m.metric for m in result.matches}
    assert not any("PyCM" in line for line in result.inferred)
