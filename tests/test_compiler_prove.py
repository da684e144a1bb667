"""The catalog-wide equivalences the compiler must prove, as literal statements."""

from pathlib import Path

import pytest
import sympy

from metricc.compiler import build, prove

SPECS = Path(__file__).resolve().parent.parent / "specs"


@pytest.fixture(scope="module")
def metrics():
    return build.compile_metrics(SPECS)


def _statements(metrics):
    return {
        (metric_id, eq.mode, eq.other, eq.other_mode, eq.scope)
        for metric_id, metric in metrics.items()
        for eq in metric.equivalences
    }


@pytest.mark.parametrize(
    "statement",
    [
        ("precision", "micro", "accuracy", None, "all"),
        ("recall", "micro", "accuracy", None, "all"),
        ("f1", "micro", "accuracy", None, "all"),
        ("f1", "micro", "precision", "micro", "all"),
        ("recall", "micro", "precision", "micro", "all"),
        ("recall", "weighted", "recall", "micro", "all"),
        ("recall", "macro", "balanced_accuracy", None, "all"),
        ("mcc_per_class", "binary", "mcc", None, "binary"),
        ("specificity", "macro", "balanced_accuracy", None, "binary"),
    ],
)
def test_required_equivalence_is_proved(metrics, statement):
    assert statement in _statements(metrics)


def test_equivalences_are_symmetric(metrics):
    statements = _statements(metrics)
    for left, mode, right, other_mode, scope in statements:
        assert (right, other_mode, left, mode, scope) in statements


@pytest.mark.parametrize(
    ("left", "right"),
    [
        (("f1", "macro"), ("f1_of_macro_averages", None)),  # the two macro F1s differ
        (("precision", "macro"), ("accuracy", None)),
        (("mcc_per_class", "macro"), ("mcc", None)),  # equal for C = 2 only
    ],
)
def test_different_metrics_are_not_claimed_equal_in_general(metrics, left, right):
    assert (left[0], left[1], right[0], right[1], "all") not in _statements(metrics)


def test_general_form_of_micro_precision_is_trace_over_n(metrics):
    form = prove.general_form(metrics["precision"], "micro")
    assert sympy.simplify(form - prove.TRACE / prove.N) == 0
