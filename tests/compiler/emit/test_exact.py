"""Which parts of a kernel are computed in exact integer arithmetic, and their bounds."""

from __future__ import annotations

import sympy

from metricc.compiler.emit import exact
from metricc.compiler.language import symbols as s

CLASS = {s.TP, s.FP, s.FN, s.TN}
MATRIX = {s.M, s.ROW_TOTAL, s.COLUMN_TOTAL, s.N_TOTAL}
k = sympy.Symbol("k", integer=True)
B, C = exact.LARGEST, s.N_CLASSES


def class_sum(body):
    return sympy.Sum(body, (k, 0, C - 1))


def test_a_difference_of_products_is_split_out_and_positive_sums_stay_float():
    youden = (s.TN * s.TP - s.FN * s.FP) / ((s.TP + s.FN) * (s.TN + s.FP))
    (value,), parts = exact.split([youden], CLASS)
    assert parts == ((sympy.Symbol("exact__0"), s.TN * s.TP - s.FN * s.FP),)
    assert value == sympy.Symbol("exact__0") / ((s.TP + s.FN) * (s.TN + s.FP))


def test_a_class_sum_limit_is_no_difference():
    accuracy = class_sum(s.M[k, k]) / s.N_TOTAL
    assert exact.split([accuracy], MATRIX) == ([accuracy], ())


def test_differences_multiplied_together_are_split_one_by_one():
    t, p, n = s.ROW_TOTAL, s.COLUMN_TOTAL, s.N_TOTAL
    first, second = n ** 2 - class_sum(p[k] ** 2), n ** 2 - class_sum(t[k] ** 2)
    (value,), parts = exact.split([sympy.sqrt(first * second)], MATRIX)
    assert [expr for _, expr in parts] == [first, second]
    assert value == sympy.sqrt(sympy.Symbol("exact__0") * sympy.Symbol("exact__1"))


def test_the_same_difference_in_value_and_undefined_case_is_one_part():
    kappa_denominator = s.N_TOTAL ** 2 - class_sum(s.ROW_TOTAL[k] * s.COLUMN_TOTAL[k])
    outputs, parts = exact.split([1 / kappa_denominator, kappa_denominator], MATRIX)
    assert len(parts) == 1 and outputs[1] == parts[0][0]


def test_parameters_divisions_and_other_atoms_are_not_exact():
    beta = sympy.Symbol("beta", positive=True)
    weighted = beta * s.TP - s.FP
    divided = s.TP / (s.TP + s.FN) - s.FP / (s.FP + s.TN)
    assert exact.split([weighted, divided], CLASS) == ([weighted, divided], ())
    assert exact.split([s.TP - s.FP], {s.TP}) == ([s.TP - s.FP], ())


def test_bound_covers_every_intermediate():
    assert exact.bound(s.TN * s.TP - 2 * s.FN * s.FP, CLASS) == 3 * B ** 2
    kappa_numerator = s.N_TOTAL * class_sum(s.M[k, k]) - class_sum(s.ROW_TOTAL[k] * s.COLUMN_TOTAL[k])
    assert exact.bound(kappa_numerator, MATRIX) == 2 * B ** 2 * C
    assert exact.bound((s.TP - s.FN) ** 3, CLASS) == 8 * B ** 3


def test_a_difference_of_ratios_in_an_absolute_value_becomes_one_exact_fraction():
    specificity, recall = s.TN / (s.TN + s.FP), s.TP / (s.TP + s.FN)
    accuracy = (s.TP + s.TN) / (s.TP + s.FP + s.FN + s.TN)
    value = exact.rearrange(accuracy - sympy.Abs(specificity - recall) / (specificity + recall), CLASS)
    numerator, denominator = sympy.fraction(value)
    assert numerator.has(sympy.Abs(s.FN * s.TN - s.FP * s.TP)) and exact.split([numerator], CLASS)[0] == [
        sympy.Symbol("exact__0")]
    assert sympy.expand(denominator) == sympy.expand(
        (s.TP + s.FP + s.FN + s.TN) * (s.FN * s.TN + s.FP * s.TP + 2 * s.TN * s.TP))


def test_parameter_coefficients_are_grouped_by_count_monomial():
    kappa = sympy.Symbol("kappa")
    grouped = exact.rearrange(s.TP + s.FP + s.FN * kappa - s.FP * kappa, CLASS)
    assert set(sympy.Add.make_args(grouped)) == {s.TP, s.FN * kappa, s.FP * (1 - kappa)}


def test_forms_that_do_not_cancel_are_left_alone():
    f1 = 2 * s.TP / (2 * s.TP + s.FP + s.FN)
    mcc = (s.TN * s.TP - s.FN * s.FP) / sympy.sqrt((s.TP + s.FP) * (s.TP + s.FN) * (s.TN + s.FP) * (s.TN + s.FN))
    assert exact.rearrange(f1, CLASS) == f1 and exact.rearrange(mcc, CLASS) == mcc


def test_the_logarithm_of_a_ratio_of_counts_takes_their_exact_difference():
    value = exact.rearrange(sympy.log(s.TN * s.TP / (s.FN * s.FP)), CLASS)
    assert value == exact.log_ratio(s.TN * s.TP, s.FN * s.FP, s.TN * s.TP - s.FN * s.FP)
    assert exact.rearrange(sympy.log(10), CLASS) == sympy.log(10)


def test_xlogy_of_a_share_takes_the_difference_of_its_sums_of_counts():
    k2 = sympy.Symbol("j", integer=True)
    share = s.M[k, k2] / (s.COLUMN_TOTAL[k2] + s.ROW_TOTAL[k2])
    rewritten = exact.rearrange(-s.xlogy(s.M[k, k2], share) - s.xlogy(s.ROW_TOTAL[k], s.ROW_TOTAL[k] / s.N_TOTAL), MATRIX)
    assert rewritten.has(exact.xlogy_ratio(s.M[k, k2], s.M[k, k2], s.COLUMN_TOTAL[k2] + s.ROW_TOTAL[k2]))
    assert not rewritten.has(s.xlogy)


def test_equality_of_ratios_is_tested_on_the_exact_numerator_of_their_difference():
    recall, f2 = s.TP / (s.TP + s.FN), 5 * s.TP / (5 * s.TP + 4 * s.FN + s.FP)
    value = exact.rearrange(sympy.sqrt(sympy.Max(f2, sympy.KroneckerDelta(recall, f2))), CLASS)
    (delta,) = value.atoms(sympy.KroneckerDelta)
    assert sympy.expand(delta.args[0] * delta.args[1]) == 0 and exact.split([value], CLASS)[1]
    assert exact.rearrange(sympy.KroneckerDelta(0, s.TP) * recall, CLASS) == sympy.KroneckerDelta(0, s.TP) * recall


def test_a_count_minus_a_ratio_over_class_sums_becomes_one_exact_fraction():
    """Issue 27: Gwet's AC1 simplified to ``n Sum(M[k, k]) - Sum(...) / (4 n)`` over
    ``n (C' - Sum(...) / (4 n**2))``, a count minus a float ratio, 1.7e-11 off near 0. Over
    one integer denominator both differences are integer polynomials, computed exactly;
    ``Max(1, C - 1)`` is an integer coefficient (of the class count alone)."""
    n, t, p = s.N_TOTAL, s.ROW_TOTAL, s.COLUMN_TOTAL
    scale = sympy.Max(1, C - 1)
    chance = class_sum((t[k] + p[k]) * (2 * n - t[k] - p[k]))
    gwet = (scale * class_sum(s.M[k, k]) - chance / (4 * n)) / (n * (scale - chance / (4 * n ** 2)))
    rearranged = exact.rearrange(gwet, MATRIX)
    (value,), parts = exact.split([rearranged], MATRIX)
    assert value == sympy.Symbol("exact__1") / sympy.Symbol("exact__0")
    assert dict(parts) == {sympy.Symbol("exact__0"): 4 * n ** 2 * scale - chance,
                           sympy.Symbol("exact__1"): 4 * n * scale * class_sum(s.M[k, k]) - chance}
    assert exact.bound(parts[0][1], MATRIX) == 4 * B ** 2 * (C + 2) + C * 2 * B * 4 * B


def test_a_class_count_maximum_is_printed_as_a_python_integer():
    """Python's ``max``: a numpy integer times a Python integer past int64 overflows."""
    from metricc.compiler.emit.numpy_printer import NumpyPrinter

    assert NumpyPrinter({}).print(sympy.Max(1, C - 1)).code == "max(1, C - 1)"
