"""The helpers generated modules import: index algebra, zero division, parameters, averaging.

Expected values are worked by hand from small counts, not recomputed with the kernel.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import metricc.generated  # noqa: F401  (declares the metrics that metric parameters name)
from metricc.runtime import kernel
from metricc.runtime.confusion import ClassCounts
from metricc.runtime.curves import score_curves
from metricc.core.errors import InputError


def recall(tp, fp, fn, tn):
    return tp / kernel.nonzero(tp + fn), tp + fn == 0


# Per class: recall 3/4, 1/2, undefined (no true sample); support 4, 2, 0.
COUNTS = ClassCounts(np.array([3, 1, 0]), np.array([1, 2, 0]), np.array([1, 1, 0]), np.array([5, 6, 10]))
ALL = kernel.AVERAGES


def averaged(average, counts=COUNTS, **kwargs):
    kwargs.setdefault("zero_division", 0.0)
    return kernel.average_class_metric(recall, counts, average=average, averages=ALL, params={}, **kwargs)


def raises(argument: str, message: str = ""):
    return pytest.raises(InputError, match=rf"^{argument}: .*{message}")


# ---------------------------------------------------------------- index algebra

def test_nonzero_replaces_zero_denominators_by_one():
    assert kernel.nonzero(np.array([0, 2, 0.5])).tolist() == [1, 2, 0.5]


def test_xlogy_is_zero_where_x_is_zero_even_at_log_zero():
    with np.errstate(all="raise"):
        assert kernel.xlogy(np.array([0.0, 2.0, 3.0]), np.array([0.0, math.e, 1.0])).tolist() == [0.0, 2.0, 0.0]


def test_align_diagonal_transpose_keep_batch_axes():
    assert kernel.align(np.ones((2, 3)), "j", "jk").shape == (2, 3, 1)
    assert kernel.align(np.ones((2, 3)), "k", "jk").shape == (2, 1, 3)
    batch = np.arange(8).reshape(2, 2, 2)
    assert kernel.diagonal(batch).tolist() == [[0, 3], [4, 7]]
    assert kernel.transpose(batch).tolist() == [[[0, 2], [1, 3]], [[4, 6], [5, 7]]]
    assert kernel.eye(2).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert kernel.arange(3).tolist() == [0.0, 1.0, 2.0]


# ---------------------------------------------------------------- zero division

@pytest.mark.parametrize("given, expected", [(0, 0.0), (1, 1.0), (-1.5, -1.5), (np.float32(0.5), 0.5)])
def test_zero_division_numbers(given, expected):
    assert kernel.zero_division_value(given) == expected


@pytest.mark.parametrize("given", [math.nan, "nan", "NaN", "skip", "Skip"])
def test_zero_division_nan_and_skip_are_nan(given):
    assert math.isnan(kernel.zero_division_value(given))


@pytest.mark.parametrize("given, message", [
    (True, "expected a number"), ("zero", "expected a number"), (None, "expected a number"),
    (math.inf, "finite or NaN"), (-math.inf, "finite or NaN"),
])
def test_zero_division_refuses_other_values(given, message):
    with raises("zero_division", message):
        kernel.zero_division_value(given)


def test_finish_replaces_undefined_entries_and_returns_scalars_as_floats():
    values = kernel.finish(np.array([0.5, 2.0]), np.array([False, True]), -1)
    assert values.tolist() == [0.5, -1.0]
    scalar = kernel.finish(np.array(0.25), np.array(False), 0)
    assert type(scalar) is np.float64 and scalar == 0.25
    zero = kernel.finish(np.array(-0.0), np.array(False), math.nan)
    assert math.copysign(1.0, zero) == 1.0


# ---------------------------------------------------------------- parameters

def test_scalar_param_checks_number_finiteness_and_domain():
    assert kernel.scalar_param("beta", "2", lambda b: b > 0, "beta > 0") == 2.0
    with raises("beta", "expected a number, got 'two'"):
        kernel.scalar_param("beta", "two", None, "")
    with raises("beta", "finite"):
        kernel.scalar_param("beta", math.inf, None, "")
    with raises("beta", r"must satisfy beta > 0, got -1"):
        kernel.scalar_param("beta", -1, lambda b: b > 0, "beta > 0")


def test_class_param_default_is_broadcast_and_given_vectors_are_checked():
    default = kernel.class_param("kappa", None, COUNTS, lambda tp, fp, fn, tn: 0.5, None, "")
    assert default.tolist() == [0.5, 0.5, 0.5]
    from_counts = kernel.class_param("kappa", None, COUNTS, lambda tp, fp, fn, tn: tp + fn, None, "")
    assert from_counts.tolist() == [4.0, 2.0, 0.0]
    assert kernel.class_param("kappa", [0, 1, 0.5], COUNTS, None, None, "").tolist() == [0.0, 1.0, 0.5]
    with raises("kappa", "one value per class"):
        kernel.class_param("kappa", [0.5, 0.5], COUNTS, None, None, "")
    with raises("kappa", r"every entry must satisfy 0 <= kappa <= 1"):
        kernel.class_param("kappa", [0.5, 2, 0.5], COUNTS, None, lambda k: (0 <= k) & (k <= 1), "0 <= kappa <= 1")


def test_metric_param_gives_the_per_class_kernel_of_a_class_level_metric():
    per_class = kernel.metric_param("base", "recall")
    values, undefined = per_class(*COUNTS)
    assert values[:2].tolist() == [0.75, 0.5] and undefined.tolist() == [False, False, True]
    f2 = kernel.metric_param("base", ("f_beta", {"beta": 2}))
    values, _ = f2(np.array([1]), np.array([1]), np.array([1]), np.array([0]))
    assert values.tolist() == [0.5]  # precision = recall = 1/2


@pytest.mark.parametrize("value, message", [
    ("recal", "unknown metric 'recal'; did you mean 'recall'"),
    ("accuracy", "'accuracy' has no per-class values"),
    (("f_beta", {"gamma": 1}), "'f_beta' has no parameter 'gamma'"),
    (("f_beta",), "expected a metric id"),
    (3, "expected a metric id"),
])
def test_metric_param_errors_name_the_parameter(value, message):
    with raises("base", message):
        kernel.metric_param("base", value)


def test_metric_param_errors_of_the_bound_metric_name_both_parameters():
    f_beta = kernel.metric_param("base", ("f_beta", {"beta": -1}))
    with raises("base: beta", "beta > 0"):
        f_beta(*COUNTS)


# ---------------------------------------------------------------- averaging

@pytest.mark.parametrize("average, zero_division, expected", [
    ("macro", 0, (0.75 + 0.5 + 0) / 3),
    ("macro", 1, (0.75 + 0.5 + 1) / 3),
    ("macro", "skip", 0.625),
    ("micro", 0, 4 / 6),  # pooled: TP = 4, TP + FN = 6
    ("weighted", 0, (0.75 * 4 + 0.5 * 2) / 6),
    ("weighted", math.nan, (0.75 * 4 + 0.5 * 2) / 6),  # support 0: the NaN takes no part
    ("geometric", 1, 0.375 ** (1 / 3)),
    ("geometric", "skip", math.sqrt(0.375)),
    ("binary", 0, 0.5),  # pos_label 1 by default
])
def test_averaging_modes(average, zero_division, expected):
    assert averaged(average, zero_division=zero_division) == pytest.approx(expected, rel=1e-12)


def test_none_gives_one_value_per_class_with_undefined_replaced():
    assert averaged("none", zero_division=-1).tolist() == [0.75, 0.5, -1.0]
    assert np.isnan(averaged("none", zero_division=math.nan)[2])


def test_nan_zero_division_propagates_into_macro_and_geometric_means():
    assert math.isnan(averaged("macro", zero_division=math.nan))
    assert math.isnan(averaged("geometric", zero_division=math.nan))


def test_weighted_with_given_weights_and_binary_with_pos_label():
    assert averaged("weighted", weights=[1, 1, 2]) == pytest.approx((0.75 + 0.5) / 4)
    assert math.isnan(averaged("weighted", weights=[0, 0, 1], zero_division=math.nan))
    assert averaged("binary", pos_label=0) == 0.75
    assert averaged("binary", pos_label=-1) == 0.0


def test_means_over_no_class_are_undefined():
    nothing = ClassCounts(*(np.zeros(2, dtype=int) for _ in range(4)))
    assert averaged("weighted", nothing, zero_division=7) == 7.0  # total support 0
    assert math.isnan(averaged("macro", nothing, zero_division="skip"))  # no class left
    assert averaged("micro", nothing, zero_division=3) == 3.0


def test_batch_axes_are_kept():
    batch = ClassCounts(*(np.stack([c, c[::-1]]) for c in COUNTS))
    assert averaged("none", batch).shape == (2, 3)
    assert averaged("macro", batch).tolist() == pytest.approx([1.25 / 3, 1.25 / 3])
    assert averaged("micro", batch).tolist() == pytest.approx([4 / 6, 4 / 6])
    assert averaged("binary", batch, pos_label=0).tolist() == [0.75, 0.0]
    assert averaged("weighted", batch, weights=[1, 0, 0]).tolist() == [0.75, 0.0]


def test_counts_are_floats_so_products_of_large_counts_do_not_wrap():
    big = 2 ** 32
    counts = ClassCounts(np.array([big]), np.array([0]), np.array([0]), np.array([big]))

    def product(tp, fp, fn, tn):
        return tp * tn, np.zeros(np.shape(tp), dtype=bool)

    value = kernel.average_class_metric(product, counts, average="macro", averages=ALL, params={})
    assert value == 2.0 ** 64  # int64 arithmetic would give 0


def test_micro_pools_integer_counts_exactly_and_refuses_totals_beyond_2_53():
    # In float64, 2**53 + 1 + 1 is 2**53: the pooled TP must be added as integers.
    big = ClassCounts(np.array([2 ** 53 - 2, 1, 1]), np.zeros(3, np.int64), np.zeros(3, np.int64), np.zeros(3, np.int64))
    pooled_tp = kernel.average_class_metric(lambda tp, fp, fn, tn: (tp, tp < 0), big, average="micro", averages=ALL,
                                            params={})
    assert pooled_tp == 2.0 ** 53
    bigger = big._replace(true_positives=np.array([2 ** 53 - 1, 1, 1]))
    with raises("average", r"micro averaging pools true_positives beyond 2\*\*53"):
        kernel.average_class_metric(recall, bigger, average="micro", averages=ALL, params={})


def test_exact_gives_float64_below_2_53_int64_copies_then_python_integers_and_floats_unchanged():
    small = kernel.exact(lambda B: 2 * B ** 2, np.array([3.0, 4.0]), np.array([5.0, 0.0]))
    assert [a.dtype for a in small] == [np.float64, np.float64] and small[0].tolist() == [3, 4]
    middle = kernel.exact(lambda B: 2 * B ** 2, np.array([2.0 ** 30, 3.0]), np.array([1.0, 0.0]))
    assert [a.dtype for a in middle] == [np.int64, np.int64] and middle[0].tolist() == [2 ** 30, 3]
    large = kernel.exact(lambda B: 2 * B ** 2, np.array([2.0 ** 53]), np.array([1.0]))
    assert [a.dtype for a in large] == [object, object] and type(large[0][0]) is int
    # (2**53)**2 - 1 is exact in Python integers and rounds once to float64.
    assert kernel.real(large[0] * large[0] - large[1]).tolist() == [2.0 ** 106]
    weighted = kernel.exact(lambda B: B, np.array([0.5, 2.0]))
    assert weighted[0].dtype == np.float64 and weighted[0].tolist() == [0.5, 2.0]
    assert kernel.exact(lambda B: B, np.zeros((0, 3)))[0].dtype == np.float64


@pytest.mark.parametrize("average, kwargs, argument, message", [
    ("mean", {}, "average", "'mean' is not supported here; choose one of none, binary"),
    ("macro", {"weights": [1, 1, 1]}, "weights", "only used with average='weighted'"),
    ("weighted", {"weights": [1, -1, 1]}, "weights", "non-negative"),
    ("weighted", {"weights": [1, 1]}, "weights", "one value per class"),
    ("binary", {"pos_label": 3}, "pos_label", r"class index in 0\.\.2, got 3"),
    ("binary", {"pos_label": True}, "pos_label", "got True"),
    ("macro", {"zero_division": "zero"}, "zero_division", "expected a number"),
])
def test_averaging_errors(average, kwargs, argument, message):
    with raises(argument, message):
        averaged(average, **kwargs)


def test_an_average_the_metric_does_not_declare_is_refused():
    with raises("average", "choose one of macro, micro"):
        kernel.average_class_metric(recall, COUNTS, average="none", averages=("macro", "micro"), params={})


def test_no_class_and_per_class_parameters_under_micro_are_refused():
    empty = ClassCounts(*(np.zeros(0, dtype=int) for _ in range(4)))
    with raises("counts", "at least one class"):
        averaged("macro", empty)

    def weighted_recall(tp, fp, fn, tn, kappa):
        return kappa * tp / kernel.nonzero(tp + fn), tp + fn == 0

    with raises("kappa", "micro averaging pools the classes"):
        kernel.average_class_metric(weighted_recall, COUNTS, average="micro", averages=ALL,
                                    params={"kappa": np.ones(3)}, class_params=("kappa",))


def test_geometric_mean_needs_non_negative_values():
    def signed(tp, fp, fn, tn):
        return tp - fn - 1.0, np.zeros(np.shape(tp), dtype=bool)  # 1, -1, -1

    for zero_division in (0, "skip"):
        with raises("average", "non-negative"):
            kernel.average_class_metric(signed, COUNTS, average="geometric", averages=ALL, params={},
                                        zero_division=zero_division)


# ---------------------------------------------------------------- curve metrics

def positives(tp, fp, fn, tn, tp_prev, fp_prev, fn_prev, tn_prev, pos, neg, valid):
    """The positives of each curve: per class its support, pooled every sample once."""
    return pos, pos == 0


CURVES = score_curves([0, 1, 1, 2, 2, 2], np.full((6, 3), 1 / 3))  # supports 1, 2, 3


@pytest.mark.parametrize("average, expected", [
    ("macro", 2.0), ("weighted", (1 + 4 + 9) / 6), ("micro", 6.0), ("binary", 2.0),
])
def test_curve_metrics_average_like_class_metrics(average, expected):
    value = kernel.average_curve_metric(positives, CURVES, average=average, averages=ALL)
    assert value == pytest.approx(expected, rel=1e-12)


def test_curve_metric_per_class_values_and_errors():
    assert kernel.average_curve_metric(positives, CURVES, average="none", averages=ALL).tolist() == [1.0, 2.0, 3.0]
    with raises("average", "'samples' is not supported here"):
        kernel.average_curve_metric(positives, CURVES, average="samples", averages=("macro",))


def test_log_ratio_is_accurate_near_one_and_far_from_it_and_silent_where_the_caller_masks():
    with np.errstate(all="raise"):
        got = kernel.log_ratio(np.array([1e16 + 2, 0.0, 1.0, 3.0]), np.array([1e16, 5.0, 1e20, 0.0]),
                               np.array([2.0, -5.0, 1.0 - 1e20, 3.0]))
    assert got[0] == math.log1p(2e-16) and got[2] == math.log(1e-20)


def test_xlogy_ratio_keeps_the_digits_of_shares_near_one():
    with np.errstate(all="raise"):
        got = kernel.xlogy_ratio(np.array([3.0, 0.0, 2.0]), np.array([2.0 ** 52, 0.0, 1.0]),
                                 np.array([2.0 ** 52 + 1, 0.0, 4.0]))
    assert got[0] == 3 * math.log1p(-1 / (2.0 ** 52 + 1)) and got[1] == 0.0 and got[2] == 2 * math.log(0.25)
    with np.errstate(all="raise"):
        assert kernel.xlogy_ratio(np.array([2.0, -1.0]), np.zeros(2), np.ones(2)).tolist() == [-math.inf, math.inf]


@pytest.mark.parametrize("average", ["none", "binary", "macro", "weighted", "geometric", "micro"])
def test_a_constant_per_class_formula_is_one_value_per_class(average):
    """A spec whose formula simplifies to a constant (``log(1)``) gives a scalar kernel value."""
    counts = ClassCounts(*(np.array([1, 2, 3]) for _ in range(4)))
    got = kernel.average_class_metric(lambda tp, fp, fn, tn: (np.float64(0.5), False), counts,
                                      average=average, averages=ALL, params={})
    assert np.allclose(got, [0.5] * 3 if average == "none" else 0.5)


def test_micro_checks_only_the_counts_the_kernel_reads():
    """Issue 27: f1:micro refused a pooled TN beyond 2**53 (about (C - 1) n) that F1 never
    reads, while accuracy, the same number on single-label data, was returned. A metric that
    reads TN (specificity) is still refused."""
    import metricc as mc

    matrix = np.diag([2 ** 51, 2 ** 51, 2 ** 51]).astype(np.int64)
    matrix[0, 1] = 3  # n = 3 * 2**51 + 3 < 2**53; pooled TN = 2 n - 3 > 2**53
    accuracy = mc.evaluate("accuracy", matrix=matrix)["accuracy"]
    assert mc.evaluate("f1:micro", matrix=matrix)["f1:micro"] == accuracy
    assert mc.evaluate("precision:micro", matrix=matrix)["precision:micro"] == accuracy
    with raises("average", r"micro averaging pools true_negatives beyond 2\*\*53"):
        mc.evaluate("specificity:micro", matrix=matrix)
