"""The analysis stage on fixture pairs (``fixtures/analyze.txt``): formula -> simplified form,
undefined cases and excused denominators, compared structurally.

Formulas are read with ``sympy.parse_expr`` over the compiler's symbols (test input only; the
compiler's own parser never evaluates text), so these fixtures test the analysis alone.
"""

from pathlib import Path

import pytest
import sympy

from metricc.compiler.analysis import analyze
from metricc.compiler.language import averaging, symbols

FIXTURES = Path(__file__).parent / "fixtures" / "analyze.txt"
NAMES = {**symbols.COUNT_NAMES, "beta": sympy.Symbol("beta", real=True), "xlogy": symbols.xlogy,
         "sqrt": sympy.sqrt, "log": sympy.log, "KroneckerDelta": sympy.KroneckerDelta, "Piecewise": sympy.Piecewise,
         "Eq": sympy.Eq, "step": symbols.step}


def _expr(text: str) -> sympy.Expr:
    return sympy.parse_expr(text, local_dict=dict(NAMES), evaluate=False)


def _list(text: str) -> tuple[sympy.Expr, ...]:
    return () if text == "-" else tuple(sympy.parse_expr(t, local_dict=dict(NAMES)) for t in text.split("; "))


def _cases() -> list:
    blocks = [b.strip().splitlines() for b in FIXTURES.read_text(encoding="utf-8").split("\n\n")][1:]  # after the header
    assert all(len(b) == 5 and b[0].startswith("# ") for b in blocks), "each case is a '# name' line and four lines"
    cases = blocks
    return [pytest.param(*lines[1:], id=lines[0][2:]) for lines in cases]


@pytest.mark.parametrize(("formula", "simplified", "undefined", "excused"), _cases())
def test_analysis_fixture(formula, simplified, undefined, excused):
    result = analyze.simplify(_expr(formula))
    assert result == sympy.parse_expr(simplified, local_dict=dict(NAMES))
    assert analyze.undefined_cases(result) == _list(undefined)
    assert analyze.excused_denominators(result) == _list(excused)


def test_a_class_vector_in_a_denominator_is_an_undefined_case():
    """``Sum(w[k], k)`` vanishes when every weight is 0, like a count would."""
    k = symbols.index_symbol("k")
    weights = sympy.IndexedBase("w")[k]
    total = sympy.Sum(weights, (k, 0, symbols.N_CLASSES - 1))
    assert analyze.undefined_cases(symbols.M[k, k] / total) == (total,)


def test_xlogy_of_a_vanishing_argument_is_undefined_unless_its_weight_vanishes_too():
    """Spec-fuzz finding: -xlogy(1, precision) gave 0 where precision = 0 (the value is +inf)."""
    from metricc.compiler.analysis import analyze
    from metricc.compiler.language import symbols as s

    precision = s.TP / (s.TP + s.FP)
    assert s.TP in analyze.log_zeros(-s.xlogy(1, precision))
    assert analyze.log_zeros(s.xlogy(s.TP, precision)) == ()
    term = s.TermSymbol("weighted__f1")
    assert analyze.log_zeros(s.xlogy(1, term)) == (term,)
    assert analyze.log_zeros(s.xlogy(term, term)) == ()  # its own weight: 0 log 0 (spec fuzz, hang_1)
    assert analyze.log_zeros(s.xlogy(2 * term, term)) == ()


def test_xlogy_at_zero_is_undefined_exactly_where_its_weight_is_not_zero():
    """Spec-fuzz findings (disagreement_11 to 13): ``xlogy(x, 0)`` is -inf, not a value, where
    ``x != 0``, and ``xlogy(geometric(recall), macro(f1))`` is 0 where both terms are."""
    from metricc.compiler.language import symbols as s

    guard = 1 - sympy.KroneckerDelta(3, s.TP)  # indicator(TP != 3)
    assert analyze.log_zeros(s.xlogy(guard, 0)) == (sympy.KroneckerDelta(3, s.TP),)
    assert analyze.log_zeros(s.xlogy(s.TP, 0)) == (sympy.KroneckerDelta(0, s.TP),)
    weight, argument = s.TermSymbol("geometric__recall"), s.TermSymbol("macro__f1")
    case = sympy.Abs(argument) + sympy.KroneckerDelta(0, weight)
    assert analyze.log_zeros(s.xlogy(weight, argument)) == (case,)
    assert analyze.case_conditions(case) == (sympy.Abs(argument), ((weight, 0),))


def test_extremes_over_classes_are_simplified_inside_and_left_whole():
    """``Max(x, k)`` keeps its index bound: its term is simplified on its own, the passes over the
    whole formula do not reach in, and a maximum per row stays inside its row sum."""
    i, j, k = (symbols.index_symbol(x) for x in "ijk")
    last, n, t, m = symbols.N_CLASSES - 1, symbols.N_TOTAL, symbols.ROW_TOTAL, symbols.M
    most = symbols.index_max(t[k], k, last)
    per_column = sympy.Sum(symbols.index_max(m[i, j], i, last), (j, 0, last))
    lambda_a = analyze.simplify((per_column - most) / (n - most))
    assert lambda_a == (per_column - most) / (n - most)
    assert analyze.undefined_cases(lambda_a) == (n - most,)
    shares = analyze.simplify(sympy.Sum(symbols.index_min(m[i, j] / t[i] + m[i, j] / t[i], j, last), (i, 0, last)))
    assert shares == sympy.Sum(symbols.index_min(2 * m[i, j] / t[i], j, last), (i, 0, last))
    assert analyze.undefined_cases(shares) == (t[i],)  # for some row, as in a Sum


def test_extremes_over_classes_have_a_binary_form_and_no_general_one(compiled_metrics):
    """The prover writes ``Max(t[k], k)`` of two classes as sympy's ``Max`` of the two rows (an
    opaque function to cancellation, so nothing false is proved), and gives up in general."""
    from metricc.compiler.analysis import prove

    nir = compiled_metrics["no_information_rate"]
    a, b, c, d = averaging.A, averaging.B, averaging.Cc, averaging.D
    assert prove.binary_form(nir, None) == sympy.Max(a + b, c + d) / (a + b + c + d)
    assert prove.general_form(nir, None) is None
    assert not nir.equivalences


_THRESHOLD_SPEC = """id: scaled_recall
name: Scaled recall
description: Test.
references: [test]
params:
  pt:
    kind: scalar
    default: 0.5
    domain: {domain}
    description: A threshold.
formula: TP / (TP + FN) / (1 - pt)
averages: [none, binary]
default_average: binary
range: [0, inf]
higher_is_better: true
"""


@pytest.mark.parametrize("domain, listed", [("0 < pt < 1", False), ("0 < pt <= 1", True), ("pt > 0", True)])
def test_an_undefined_case_outside_the_parameter_domain_is_pruned(tmp_path, domain, listed):
    """Issue 27: with 0 < pt < 1, "undefined when pt - 1 = 0" was listed; no parameter value
    in the domain reaches it. Where the domain includes 1 it stays."""
    from metricc.compiler.emit.text import display_form, plain
    from metricc.compiler.language import load, lower, validate

    (tmp_path / "scaled_recall.yaml").write_text(_THRESHOLD_SPEC.format(domain=domain))
    metric = analyze.analyze_catalog(lower.lower_catalog(validate.validate_catalog(load.load_catalog(tmp_path))))["scaled_recall"]
    pt = sympy.Symbol("pt", real=True)
    assert any(sympy.expand(c - (pt - 1)) == 0 or sympy.expand(c + (pt - 1)) == 0 for c in metric.undefined) == listed
    assert symbols.TP + symbols.FN in metric.undefined
    # documents show the shorter form: as written here (the simplified one expands the product)
    assert plain(display_form(metric.simplified, metric.written)) == "TP/((1 - pt)*(FN + TP))"


def test_documents_keep_the_simplified_form_where_the_written_one_has_other_undefined_cases():
    """F1 as written is undefined at TP + FP = 0; its simplified form is not: documents show that one."""
    from metricc.compiler.emit.text import display_form

    tp, fp, fn = symbols.TP, symbols.FP, symbols.FN
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    written = 2 * precision * recall / (precision + recall)
    simplified = 2 * tp / (2 * tp + fp + fn)
    assert display_form(simplified, written) == simplified
