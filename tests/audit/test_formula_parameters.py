"""Printed parameters under any Greek letter and signed names (audit/formula_parameters.py,
audit/formula_names.py), generated at random: the letters, their roles, wrappers, spacing.
Each generated formula is evaluated directly (a Python function of the counts and the
parameters) and checked against the catalog (the oracle: ``metricc.api.evaluate`` with the
parameters bound as identify says); identify must name the metric it was built from and the
binding it reports must reproduce the formula's value -- never a misread."""

import random
import re

import numpy as np
import pytest

import metricc.api as mc
from metricc.audit.formula_parameters import GREEK_PARAMETERS
from metricc.audit.identify import identify

WRAPPERS = ("{}", r"\text{{{}}}", r"\mathrm{{{}}}", r"\mathit{{{}}}")
SPACES = ("", " ", r"\,", r"\;")
MATRICES = [np.array([[7, 2], [3, 5]]), np.array([[11, 4], [1, 9]]), np.array([[4, 6], [2, 13]])]


def _counts(matrix) -> dict:
    """Class 1 positive, truth in rows."""
    return {"TN": matrix[0, 0], "FP": matrix[0, 1], "FN": matrix[1, 0], "TP": matrix[1, 1]}


def generated(seed: int) -> dict:
    """A parameterised catalog formula printed with random Greek letters in random roles."""
    rng = random.Random(seed)
    wrap = rng.choice(WRAPPERS)
    names = {c: wrap.format(c) for c in ("TP", "FP", "FN", "TN")}
    space = rng.choice(SPACES)
    first, second = (f"\\{g}" for g in rng.sample(GREEK_PARAMETERS, 2))
    if rng.random() < 0.5:  # F-beta under another letter
        text = r"\frac{(1 +%s%s^2)%s%s}{(1 + %s^2) %s +%s%s^2 %s + %s}" % (
            space, first, space, names["TP"], first, names["TP"], space, first, names["FN"], names["FP"])
        return {"text": text, "metric": "f_beta", "letters": (first,),
                "value": lambda c, g: (1 + g[0] ** 2) * c["TP"] / ((1 + g[0] ** 2) * c["TP"] + g[0] ** 2 * c["FN"] + c["FP"])}
    on_fp, on_fn = (first, second) if rng.random() < 0.5 else (second, first)
    text = r"\frac{%s}{%s +%s%s %s + %s %s}" % (names["TP"], names["TP"], space, on_fp, names["FP"], on_fn, names["FN"])
    fp_letter = (first, second).index(on_fp)
    return {"text": text, "metric": "tversky_index", "letters": (first, second),
            "value": lambda c, g: c["TP"] / (c["TP"] + g[fp_letter] * c["FP"] + g[1 - fp_letter] * c["FN"])}


def _bound(match, letters, values) -> dict:
    """The catalog parameters as the match binds them: ``beta = the formula's gamma``."""
    params = {}
    for name, said in match.params:
        printed = re.fullmatch(r"the formula's (\w+)", said)
        params[name] = values[letters.index("\\" + printed.group(1))] if printed else float(said)
    return params


@pytest.mark.parametrize("seed", range(10))
def test_a_parameter_under_any_greek_letter_is_bound_to_its_role(seed):
    case = generated(seed)
    result = identify(case["text"])
    assert case["metric"] in {m.metric for m in result.matches}, (case["text"], result.text())
    rng = random.Random(seed)
    for match in result.matches:
        for matrix in MATRICES:
            values = [rng.uniform(0.2, 3.0) for _ in case["letters"]]
            printed = {m.group(1) for m in re.finditer(r"the formula's (\w+)", str(match.params))}
            assert printed == {x.lstrip("\\") for x in case["letters"]}, match
            params = _bound(match, case["letters"], values)
            expected = case["value"](_counts(matrix), values)
            found = mc.evaluate(match.metric, matrix=matrix, average=match.average, params=params)[match.metric]
            assert np.isclose(float(found), expected), (case["text"], match, params)


@pytest.mark.parametrize("text, metric", [
    (r"DOR=\frac{LR+}{LR-}", "diagnostic_odds_ratio"),
    (r"\frac{LR_{+}}{LR_{-}}", "diagnostic_odds_ratio"),
    (r"LR^{+} \cdot \frac{1}{LR^{-}}", "diagnostic_odds_ratio"),
])
def test_a_signed_name_is_its_positive_or_negative_variant(text, metric):
    assert metric in {m.metric for m in identify(text).matches}, identify(text).text()


def test_a_sign_that_names_no_variant_stays_an_error():
    from metricc.core.errors import InputError

    with pytest.raises(InputError, match="operand is missing"):
        identify(r"\frac{TP + FP}{TP+}")


@pytest.mark.parametrize("seed", range(4))
def test_an_x_typed_between_two_names_is_a_product(seed):
    rng = random.Random(seed)
    a, b = rng.sample(("TP", "TN"), 2)
    c, d = rng.sample(("FP", "FN"), 2)
    result = identify(f"({a}x{b})/({c}x{d})", notation="text")
    assert "diagnostic_odds_ratio" in {m.metric for m in result.matches}, result.text()
