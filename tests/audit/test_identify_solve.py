"""Printed numbers solved as parameter values (audit/identify_solve.py), generated at random.

Each formula is F-beta or Tversky at a random parameter value, printed with the numbers worked
out (``\\frac{5PR}{4P+R}``, ``\\frac{1.25\\,TP}{1.25\\,TP + 0.25\\,FN + FP}``) in random notation:
counts or precision and recall, names wrapped or not, decimals or fractions. It is evaluated
directly (a Python function of the counts), and the binding identify reports is put into the
runtime (``metricc.api``'s f_beta, tversky_index): the two must agree at random matrices. A
formula whose numbers no parameter value explains is never matched."""

import random
from fractions import Fraction

import numpy as np
import pytest
import sympy

import metricc.api as mc
from metricc.audit.identify import identify

WRAPPERS = ("{}", r"\text{{{}}}", r"\mathrm{{{}}}")
MATRICES = [np.array([[7, 2], [3, 5]]), np.array([[11, 4], [1, 9]]), np.array([[4, 6], [2, 13]]),
            np.array([[20, 3], [8, 6]])]


def _counts(matrix) -> dict:
    """Class 1 positive, truth in rows."""
    return {"TN": matrix[0, 0], "FP": matrix[0, 1], "FN": matrix[1, 0], "TP": matrix[1, 1]}


def _number(value: Fraction, rng) -> str:
    """A coefficient as papers print it: an integer, a decimal or a fraction."""
    if value.denominator == 1:
        return str(value.numerator)
    if rng.random() < 0.5 and 10 ** 6 % value.denominator == 0:
        return f"{float(value):g}"
    return r"\frac{%d}{%d}" % (value.numerator, value.denominator)


def generated(seed: int) -> dict:
    """F-beta or Tversky at a random value, its numbers worked out, in random notation."""
    rng = random.Random(seed)
    wrap = rng.choice(WRAPPERS)
    tp, fp, fn = (wrap.format(c) for c in ("TP", "FP", "FN"))
    kind = rng.choice(("f-counts", "f-pr", "tversky"))
    if kind == "tversky":
        alpha, beta = (Fraction(rng.choice((1, 2, 3, 4, 5, 7, 9)), rng.choice((2, 4, 5, 10))) for _ in range(2))
        text = r"\frac{%s}{%s + %s %s + %s %s}" % (tp, tp, _number(alpha, rng), fp, _number(beta, rng), fn)
        return {"text": text, "metric": "tversky_index", "params": {"alpha": float(alpha), "beta": float(beta)},
                "value": lambda c: c["TP"] / (c["TP"] + float(alpha) * c["FP"] + float(beta) * c["FN"])}
    beta = Fraction(rng.choice((2, 3, 4, 1, 1, 1)), rng.choice((1, 2, 4)))
    if beta == 1:
        beta = Fraction(3)
    b2 = beta * beta
    if kind == "f-counts":
        text = r"\frac{%s %s}{%s %s + %s %s + %s}" % (_number(1 + b2, rng), tp, _number(1 + b2, rng), tp,
                                                     _number(b2, rng), fn, fp)
    else:
        p, r = rng.choice((("P", "R"), (r"\text{Precision}", r"\text{Recall}"), ("PPV", "TPR")))
        text = r"\frac{%s \cdot %s \cdot %s}{%s \cdot %s + %s}" % (_number(1 + b2, rng), p, r, _number(b2, rng), p, r)
    label = rng.choice(("", f"F_{{{_number(beta, rng)}}} = "))
    return {"text": label + text, "metric": "f_beta", "params": {"beta": float(beta)},
            "value": lambda c: float(1 + b2) * c["TP"] / (float(1 + b2) * c["TP"] + float(b2) * c["FN"] + c["FP"])}


def _read(value: str) -> float:
    """A reported value (``2``, ``0.5``, ``16/17``, ``sqrt(21)/3``): identify's own output."""
    return float(sympy.sympify(value))


def _value(match, matrix) -> float:
    params = {name: _read(value) for name, value in match.params}
    return float(mc.evaluate(match.metric, matrix=matrix, average="binary", params=params)[match.metric])


@pytest.mark.parametrize("seed", range(14))
def test_a_printed_number_is_solved_as_the_parameter_it_stands_for(seed):
    case = generated(seed)
    result = identify(case["text"])
    found = [m for m in result.matches if m.metric == case["metric"]]
    assert found, (case["text"], result.text())
    assert {k: _read(v) for k, v in found[0].params} == pytest.approx(case["params"]), (case["text"], result.text())
    for match in result.matches:  # every binding reported reproduces the printed formula
        for matrix in MATRICES:
            assert _value(match, matrix) == pytest.approx(case["value"](_counts(matrix)), rel=1e-12), \
                (case["text"], match)


@pytest.mark.parametrize("seed", range(6))
def test_numbers_no_parameter_explains_are_no_match(seed):
    """F-beta with one coefficient changed (the numerator's no longer 1 + beta^2) is nothing."""
    rng = random.Random(100 + seed)
    b2 = rng.choice((4, 9, 16))
    text = r"\frac{%d\,TP}{%d\,TP + %d\,FN + FP}" % (b2 + 2, b2 + 1, b2)
    result = identify(text)
    assert not result.matches, (text, result.text())


def test_the_binding_is_said_in_the_text():
    result = identify(r"F_2 = \frac{5PR}{4P+R}")
    assert "f_beta [binary] with beta = 2" in result.text()
    assert result.label_agrees is True


def test_a_label_at_another_beta_is_a_mislabel():
    result = identify(r"F_3 = \frac{5PR}{4P+R}")
    assert result.label_agrees is False
    assert "labelled f_beta, but it defines f_beta [binary] with beta = 2" in result.text()


def boundary_case(seed: int) -> dict:
    """Tversky's ratio with each weight either a random positive number or 0 (its term left
    out, the parameter on the boundary of its domain), terms in random order."""
    rng = random.Random(500 + seed)
    wrap = rng.choice(WRAPPERS)
    weights = {"alpha": Fraction(rng.choice((0, 0, 1, 2, 3, 5)), rng.choice((1, 2, 4))),
               "beta": Fraction(rng.choice((0, 0, 1, 2, 3, 7)), rng.choice((1, 2, 4)))}
    terms = [f"{_number(w, rng)} {wrap.format(c)}" for w, c in ((weights["alpha"], "FP"), (weights["beta"], "FN")) if w]
    rng.shuffle(terms)
    text = r"\frac{%s}{%s}" % (wrap.format("TP"), " + ".join([wrap.format("TP"), *terms]))
    return {"text": text, "weights": weights,
            "value": lambda c: c["TP"] / (c["TP"] + float(weights["alpha"]) * c["FP"] + float(weights["beta"]) * c["FN"])}


def _simpler(value) -> list[str]:
    """The class-level catalog metrics without parameters that equal ``value`` at every matrix (the runtime decides)."""
    out = []
    for info in mc.catalog().values():
        metric = info.id
        if info.level != "class" or info.params:
            continue
        try:
            equal = all(float(mc.evaluate(metric, matrix=m, average="binary")[metric]) == pytest.approx(value(_counts(m)))
                        for m in MATRICES)
        except Exception:  # noqa: BLE001 - a metric that cannot take a 2 x 2 matrix equals nothing here
            equal = False
        if equal:
            out.append(metric)
    return out


@pytest.mark.parametrize("seed", range(12))
def test_a_parameter_on_its_domains_boundary_is_flagged_and_a_simpler_metric_comes_first(seed):
    """Policy (issue 29): a binding on the boundary of a parameter's domain (beta = 0 of beta >= 0)
    is flagged; where the degenerate case is a catalog metric, that metric is the answer."""
    case = boundary_case(seed)
    if not any(case["weights"].values()):
        return  # TP/TP: no ratio of the kind
    result = identify(case["text"])
    simpler = _simpler(case["value"])
    if simpler:
        assert result.matches and result.matches[0].metric in simpler, (case["text"], result.text())
        assert not any(m.boundary for m in result.matches)
        return
    tversky = [m for m in result.matches if m.metric == "tversky_index"]
    assert tversky, (case["text"], result.text())
    on_edge = sorted(name for name, w in case["weights"].items() if w == 0)
    assert sorted(tversky[0].boundary) == on_edge, (case["text"], result.text())
    if on_edge:
        assert "on the boundary of its domain" in result.text()
    for match in result.matches:
        for matrix in MATRICES:
            assert _value(match, matrix) == pytest.approx(case["value"](_counts(matrix)), rel=1e-12), (case["text"], match)
