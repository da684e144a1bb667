"""metricc identify on Wang et al. 2013's equations, as printed: CEN (Eq. 7-11), the AUC
variants (Eq. 13-17), MAE and MSE (Eq. 18-19), without any --symbol."""

import pytest

from metricc.audit.formula_definitions import Pattern, match, pattern_of
from metricc.audit.identify import identify
from metricc.audit.latex_formula import parse_formula
from metricc.audit.notation import Notation

# The definitions each equation refers to, as printed (with their index conditions)
EQ8 = r"P_{i,j}^{j} = \frac{p_{i,j}}{\sum_{k=1}^{m} (p_{j,k} + p_{k,j})}, i \neq j, i, j = 1, ..., m"
EQ9 = r"P_{i,j}^{i} = \frac{p_{i,j}}{\sum_{k=1}^{m} (p_{i,k} + p_{k,i})}, i \neq j, i, j = 1, ..., m"
EQ7 = (r"CEN_{j} = -\sum_{k=1, k \neq j}^{m} (P_{j,k}^{j} log_{2(m-1)} P_{j,k}^{j} "
       r"+ P_{k,j}^{j} log_{2(m-1)} P_{k,j}^{j})")
EQ11 = r"P_{j} = \frac{\sum_{k} (p_{j,k} + p_{k,j})}{2\sum_{k,l} p_{k,l}}"
EQ13 = r"AUC(j,k) = \frac{1}{n_j \cdot n_k} \sum_{s=1}^{n} f(s,j) \sum_{t=1}^{n} f(t,k) I(p(s,j), p(t,j))"

# (equation, LaTeX as printed plus the definitions it uses, expected (metric, average, holds))
IDENTIFIED = [
    ("10", rf"CEN = \sum_{{j}} P_{{j}} CEN_{{j}} \quad (10), {EQ11}, {EQ7}, {EQ8}, {EQ9}", ("cen", None, "single-label")),
    ("14", rf"AUNU = \frac{{1}}{{m}} \sum_{{j=1}}^{{m}} AUC(j, r_j) \quad (14), {EQ13}", ("aunu", "macro", "single-label")),
    ("15", rf"AUNP = \sum_{{j=1}}^{{m}} P(j)AUC(j, r_j) \quad (15), {EQ13}", ("aunp", "weighted", "single-label")),
    ("18", r"MAE = \frac{1}{m.c} \sum_{i=1}^{c} \sum_{j=1}^{m} |f(i,j) - p(i,j)| \quad (18)",
     ("mean_absolute_error", None, "single-label")),
    ("19", r"MSE = \frac{1}{m.c} \sum_{j=1}^{c} \sum_{i=1}^{m} (f(i,j) - p(i,j))^{2} \quad (19)",
     ("mean_squared_error", None, "single-label")),
]


@pytest.mark.parametrize("equation, latex, expected", IDENTIFIED, ids=[e for e, *_ in IDENTIFIED])
def test_wang_equations_are_identified(equation, latex, expected):
    result = identify(latex)
    assert expected in {(m.metric, m.average, m.holds) for m in result.matches}, result.text()
    assert result.label_agrees is True
    assert not any(m.proved for m in result.matches)  # logs, steps, sums over samples: numeric only


def test_wang_eq14_is_also_the_macro_one_vs_rest_roc_auc():
    found = {(m.metric, m.average) for m in identify(IDENTIFIED[1][1]).matches}
    assert found == {("aunu", "macro"), ("roc_auc", "macro")}


def test_wang_eq7_per_class_cen_is_class_cen():
    """CEN_j is the entropy of one class: class_cen with averaging none (PyCM's class CEN),
    compared class by class; cen is its P_j-weighted sum (Eq. 10)."""
    result = identify(f"{EQ7} \\quad (7), {EQ8}, {EQ9}")
    assert [(m.metric, m.average, m.holds, m.proved) for m in result.matches] == [("class_cen", "none", "single-label", False)]
    assert result.label_agrees is True  # CEN_j names PyCM's class CEN, class_cen
    assert [(n.metric, n.average, n.differs) for n in result.nearest] == [
        ("cen", None, "a per-class value: cen is its sum over the classes weighted by P_j = (t_j + p_j) / (2n)")]
    assert "= class_cen [none] for single-label data" in result.text()


def test_wang_eq7_with_log_base_2_is_class_cen_for_two_classes_only():
    """log_2 is log_{2(m-1)} only where m = 2."""
    result = identify(f"{EQ7.replace('log_{2(m-1)}', 'log_{2}')}, {EQ8}, {EQ9}")
    assert [(m.metric, m.average, m.holds) for m in result.matches] == [("class_cen", "none", "binary")]


def test_wang_eq7_without_its_minus_sign_is_no_catalog_metric():
    result = identify(f"{EQ7.replace('= -', '= ')}, {EQ8}, {EQ9}")
    assert result.matches == ()
    assert "no catalog metric matches" in result.text()


def test_the_mean_of_wang_eq7_over_the_classes_is_class_cen_macro():
    result = identify(rf"\frac{{1}}{{m}} \sum_{{j=1}}^{{m}} CEN_{{j}}, {EQ7}, {EQ8}, {EQ9}")
    assert ("class_cen", "macro", "single-label") in {(m.metric, m.average, m.holds) for m in result.matches}


def test_wang_eq13_pairwise_auc_is_the_term_of_au1u_and_au1p():
    result = identify(EQ13 + r" \quad (13)")
    assert result.matches == ()
    assert [(n.metric, n.differs) for n in result.nearest] == [
        ("au1u", "a per-pair value: au1u is its mean over the ordered pairs of distinct classes (j, k); "
                 "the catalog has no per-pair au1u"),
        ("au1p", "a per-pair value: au1p is its sum over the ordered pairs of distinct classes (j, k) weighted by "
                 "the prevalence of j, divided by C - 1; the catalog has no per-pair au1p")]


def test_wang_eq16_sums_over_k_equal_j():
    """Erratum wang-eq16-17-pairs-include-k-equal-j: AUC(j, j) = 1/2 is in the printed sum."""
    result = identify(rf"AU1U = \frac{{1}}{{m(m-1)}} \sum_{{j=1}}^{{m}} \sum_{{k=1}}^{{m}} AUC(j,k) \quad (16), {EQ13}")
    assert result.matches == () and result.label_agrees is False
    assert (result.nearest[0].metric, result.nearest[0].differs) == ("au1u", "sums over the pairs k = j too, which au1u leaves out")
    corrected = identify(rf"AU1U = \frac{{1}}{{m(m-1)}} \sum_{{j=1}}^{{m}} \sum_{{k=1, k \neq j}}^{{m}} AUC(j,k), {EQ13}")
    assert ("au1u", None, "single-label") in {(m.metric, m.average, m.holds) for m in corrected.matches}


def test_wang_eq17_also_divides_by_m_once_too_often():
    """Errata wang-eq16-17-pairs-include-k-equal-j and wang-eq17-au1p-normalisation."""
    result = identify(rf"AU1P = \frac{{1}}{{m(m-1)}} \sum_{{j=1}}^{{m}} \sum_{{k=1}}^{{m}} P(j)AUC(j,k) \quad (17), {EQ13}")
    assert result.matches == () and result.label_agrees is False
    assert (result.nearest[0].metric, result.nearest[0].differs) == (
        "au1p", "sums over the pairs k = j too, which au1p leaves out, and is a factor C smaller than au1p")
    corrected = identify(rf"\frac{{1}}{{m-1}} \sum_{{j=1}}^{{m}} P(j) \sum_{{k=1, k \neq j}}^{{m}} AUC(j,k), {EQ13}")
    assert ("au1p", None, "single-label") in {(m.metric, m.average, m.holds) for m in corrected.matches}


def test_superscript_definitions_bind_indices_consistently():
    """P^j_{k,j} is Eq. 8's P^j_{i,j} (i = k); P^j_{j,k} is Eq. 9's P^i_{i,j}; either order of
    sub- and superscript; a definition may follow the one that uses it."""
    eq8, eq9 = pattern_of(r"P_{i,j}^{j}"), pattern_of(r"P^{i}_{i,j}")
    assert eq8 == Pattern("P", ("i", "j"), ("j",)) and eq9 == Pattern("P", ("i", "j"), ("i",))
    j, k = (pytest.importorskip("sympy").Symbol(x) for x in "jk")
    use = Pattern("P", ("k", "j"), ("j",))
    assert match(eq8, use, (k, j, j)) is not None and match(eq9, use, (k, j, j)) is None
    assert pattern_of("AUC(j, k)") == Pattern("AUC", args=("j", "k")) and pattern_of("X") is None
    cell = parse_formula(rf"P^{{j}}_{{k,j}}, {EQ9}, {EQ8}", Notation()).expr
    assert str(cell) == "M[k, j]/Sum(M[_k, j] + M[j, _k], (_k, 0, C - 1))"


def test_log_base_and_a_single_name_argument_read_one_way():
    expr = parse_formula(r"TP log_{2} TP + FP \log_{2(C-1)} FP", Notation()).expr
    assert str(expr) == "FP*log(FP)/log(2*C - 2) + TP*log(TP)/log(2)"


NESTED_SUMS = "".join(rf"\sum_{{{v}=1}}^{{n}} " for v in "stuvxyzw") + " ".join(f"f({v},j)" for v in "stuvxyzw")


def test_deeply_nested_sums_over_samples_answer():
    """How long it takes is timed by benchmarks/identify_hostile.py."""
    assert identify(NESTED_SUMS).matches == ()
