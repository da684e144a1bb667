"""Definitions in the sentences before the formula (audit/formula_preceding.py), generated at random.

Each case is a formula whose letters need definitions (PyCM's RACC over TOP, P and POP,
Matthews' MCC over N, S and P, TPR over P, an average over l classes), its definitions put in
random sentences before it ("Let ... and ... .", "Denote by ...", "Suppose ...; let ...",
"X denote/be/stand for ...") and a random lead into the formula ("Then", "Hence we have", "The
score is"). The oracle is the same formula with the same definitions after it (", where ..."),
which identify already reads: both must give the same answer, the expected metric among it."""

import random

import pytest

from metricc.audit.identify import identify

CASES = (
    (r"RACC=\frac{TOP \times P}{POP^2}", ("racc", "binary"),
     (("TOP", "TP + FP"), ("P", "TP + FN"), ("POP", "TP + TN + FN + FP"))),
    (r"MCC = \frac{TP/N - S P}{\sqrt{P S (1 - S)(1 - P)}}", ("mcc", None),
     (("N", "TP + TN + FP + FN"), ("S", r"\frac{TP + FN}{N}"), ("P", r"\frac{TP + FP}{N}"))),
    (r"TPR = \frac{TP}{P}", ("recall", "binary"), (("P", "the number of positives"),)),
    (r"\frac{1}{l}\sum_{i=1}^{l} \frac{tp_i}{tp_i + fp_i}", ("precision", "macro"), (("l", "the number of classes"),)),
    (r"NPV = \frac{TN}{TN + x}", ("npv", "binary"), (("x", "FN"),)),
)
LEADS = ("Then ", "Hence we have ", "then ", "The score is ", "We define ", "")
VERBS = ("denote", "be", "stand for")


def _phrase(name: str, meaning: str, rng) -> str:
    if meaning.startswith("the "):
        return f"{name} {rng.choice(VERBS)} {meaning}"
    return f"{name} {rng.choice(('=', ':='))} {meaning}"


def generated(seed: int) -> dict:
    rng = random.Random(seed)
    formula, expected, definitions = CASES[seed % len(CASES)]
    phrases = [_phrase(n, m, rng) for n, m in definitions]
    style = rng.choice(("and", "sentences", "semicolons"))
    if style == "and":
        before = "Let " + " and ".join(phrases) + ". "
    elif style == "sentences":
        before = "".join(f"Let {p}. " for p in phrases)
    else:
        before = "Suppose " + "; let ".join(phrases) + "; "
    if len(definitions) == 1 and definitions[0][1].startswith("the ") and rng.random() < 0.5:
        before = f"Denote by {definitions[0][0]} {definitions[0][1]}. "
    after = ", where " + ", ".join(f"{n} = {m}" if not m.startswith("the ") else f"{n} is {m}" for n, m in definitions)
    return {"before": before + rng.choice(LEADS) + formula, "after": formula + after, "expected": expected}


def _answer(result) -> tuple:
    return result.parsed, tuple((m.metric, m.average, m.reading) for m in result.matches), result.forced


@pytest.mark.parametrize("seed", range(15))
def test_definitions_before_the_formula_read_as_after_it(seed):
    case = generated(seed)
    before, after = identify(case["before"]), identify(case["after"])
    assert _answer(before) == _answer(after), (case["before"], before.text(), after.text())
    assert case["expected"] in {(m.metric, m.average) for m in before.matches}, (case["before"], before.text())


def test_a_formula_that_only_mentions_a_sentence_is_unchanged():
    """Text that does not open with a definition is the formula itself."""
    assert identify(r"TPR = \frac{TP}{TP + FN}").parsed == "TP/(FN + TP)"
