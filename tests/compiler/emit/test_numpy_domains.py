"""Generated code at the edges of its functions (issue 30): a referenced metric inside ``min``,
``abs``, ``exp``, ``log`` or ``indicator`` keeps the value the reference has where its written
fractions are 0/0; an ``xlogy`` term with a weight of 0 is 0; a log or root of a negative
number is NaN without a numpy warning, and only modules that can take one pay for the errstate.

Each spec is compiled beside the catalog's F1 chain (f1 -> f_beta -> precision, recall) and its
module run with warnings as errors.
"""

from __future__ import annotations

import math
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

from metricc.compiler import build
from metricc.compiler.emit import numpy_module

REPO = Path(__file__).resolve().parents[3]
BASE = ("f1", "f_beta", "precision", "recall")
# Per class: TP = FP = 0 < FN (f1 is 0 there, precision 0/0), then two ordinary classes.
COUNTS = (np.array([0, 5, 2]), np.array([0, 0, 3]), np.array([2, 1, 0]), np.array([3, 3, 3]))
ALPHA = """params:
  alpha:
    kind: scalar
    default: 1
    domain: alpha >= 0
    description: The weight of the logarithm.
"""


def _module(tmp_path: Path, formula: str, params: str = "", higher_is_better: str = "true") -> tuple[str, dict]:
    """The source of the probe metric's module and its namespace."""
    folder = tmp_path / "specs"
    folder.mkdir()
    for name in BASE:
        shutil.copy(REPO / "specs" / f"{name}.yaml", folder)
    (folder / "probe.yaml").write_text(
        f"id: probe\nname: Probe\ndescription: d\nreferences: [r]\n{params}formula: \"{formula}\"\n"
        f"averages: [none, macro]\ndefault_average: macro\nrange: [-inf, inf]\nhigher_is_better: {higher_is_better}\n",
        encoding="utf-8")
    source = numpy_module.emit_module(build.compile_metrics(folder)["probe"])
    namespace: dict = {}
    exec(compile(source, "<generated>", "exec"), namespace)  # test only: the module as Python runs it
    return source, namespace


def _per_class(namespace: dict, **params) -> list[float]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return namespace["probe"](*COUNTS, average="none", **params).tolist()


@pytest.mark.parametrize(("formula", "higher_is_better", "expected"), [
    ("min(f1, 1)", "true", [0.0, 10 / 11, 4 / 7]),
    ("max(f1, 0)", "true", [0.0, 10 / 11, 4 / 7]),
    ("abs(f1 - 1)", "false", [1.0, 1 / 11, 3 / 7]),
    ("exp(f1)", "true", [1.0, math.exp(10 / 11), math.exp(4 / 7)]),
    ("log(1 + f1)", "true", [0.0, math.log(21 / 11), math.log(11 / 7)]),
    ("indicator(f1 == 0)", "false", [1.0, 0.0, 0.0]),
])
def test_a_reference_inside_a_function_keeps_its_value(tmp_path, formula, higher_is_better, expected):
    """At TP = FP = 0 < FN, f1 is 0 (its precision 0/0 cancels): NaN there was the bug."""
    _, namespace = _module(tmp_path, formula, higher_is_better=higher_is_better)
    assert _per_class(namespace) == pytest.approx(expected)


def test_an_xlogy_term_with_a_zero_weight_is_zero_where_its_argument_is_undefined(tmp_path):
    """0 log y = 0 whatever y is (docs/guide): at alpha = 0 even where precision is 0/0 or 0."""
    _, namespace = _module(tmp_path, "xlogy(alpha, precision)", ALPHA, higher_is_better="null")
    assert _per_class(namespace, alpha=0.0) == [0.0, 0.0, 0.0]
    at_one = _per_class(namespace, alpha=1.0)
    assert math.isnan(at_one[0]) and at_one[1:] == pytest.approx([0.0, math.log(0.4)])


def test_a_log_of_a_negative_number_is_nan_without_a_warning(tmp_path):
    """``log(TP + FP - 1) / (TP + FP)`` takes log(-1) where it is undefined (TP + FP = 0):
    numpy warned 'invalid value encountered in log'. (A log that is negative where the metric is
    defined, ``indicator(log(TP - 3) != 0)``, is refused by the spec checker: tests/compiler/analysis/test_declared.py.)"""
    source, namespace = _module(tmp_path, "log(TP + FP - 1) / (TP + FP)", higher_is_better="null")
    values = _per_class(namespace)
    assert math.isnan(values[0]) and values[1:] == pytest.approx([math.log(4) / 5, math.log(4) / 5])
    assert "@np.errstate(" in source


def test_modules_that_take_no_log_root_or_exp_run_without_an_errstate(tmp_path):
    """The errstate costs about a microsecond a call: only modules that can leave a domain have it."""
    source, _ = _module(tmp_path, "min(f1, 1)")
    assert "errstate" not in source
