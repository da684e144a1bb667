"""The runtime fuzz (issue 13): hostile dtypes, shapes, labels, averaging modes and parameters
give a value or an ``InputError``, never another exception or a warning.

The generators and the rule live in ``fuzz_inputs.py`` (the audit commands' hostile sizes in
``fuzz_audit.py``); ``benchmarks/fuzz_runtime.py`` runs them for many more calls. Here hypothesis draws a bounded number of cases, and the failures
the fuzz found are kept as fixed reproducers.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metricc.generated import CATALOG
from metricc.api import evaluate


def _load(name: str, attribute: str):
    """A shared generator module beside this file (tests are not a package)."""
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    module = sys.modules.setdefault(name, importlib.util.module_from_spec(spec))
    if not hasattr(module, attribute):
        spec.loader.exec_module(module)
    return module


_fuzz = _load("fuzz_inputs", "outcome")
audit_case = _load("fuzz_audit", "audit_case").audit_case  # imports fuzz_inputs, loaded above
GENERATORS, Case, DataSource, RandomSource, outcome = (
    _fuzz.GENERATORS, _fuzz.Case, _fuzz.DataSource, _fuzz.RandomSource, _fuzz.outcome)


def _check(case: Case) -> None:
    result = outcome(case)
    assert not result.failed, f"{result.kind}: {result.detail}\n{case.description}"


@pytest.mark.parametrize("generator", sorted(GENERATORS))
@settings(max_examples=100, deadline=None, derandomize=True)  # per generator; the benchmark runs thousands
@given(data=st.data())
def test_hostile_calls_give_a_value_or_an_input_error(generator, data):
    _check(GENERATORS[generator](DataSource(data)))


@settings(max_examples=12, deadline=None, derandomize=True)  # about two seconds each: identify and review are slow
@given(data=st.data())
def test_hostile_sizes_of_the_audit_commands_give_an_answer_or_an_input_error(data):
    _check(audit_case(DataSource(data)))


def test_a_seeded_run_of_the_audit_commands_keeps_the_rule():
    """consistent, audit, identify and review each drawn several times with hostile sizes."""
    source = RandomSource(30)
    for _ in range(20):
        _check(audit_case(source))


def test_a_seeded_run_keeps_the_rule():
    """A fixed slice of the benchmark's stream: the same generators without hypothesis."""
    source = RandomSource(2026)
    for _ in range(1000):
        _check(GENERATORS[source.choice(("evaluate", "evaluate", "function", "cli"))](source))


@pytest.mark.parametrize("case", [
    # float16 counts: comparing them with 2**53 overflowed in the cast (a RuntimeWarning)
    Case("float16 counts", lambda: {"f1": CATALOG["f1"].function(*(np.array([3, 1], dtype=np.float16),) * 4)}),
    # complex scores: a ComplexWarning, then the imaginary part dropped
    Case("complex scores", lambda: evaluate("log_loss", y_true=[0, 1], scores=np.array([[0.5 + 1j, 0.5], [0, 1]]))),
    # a score too large for float64: OverflowError
    Case("huge score", lambda: evaluate("log_loss", y_true=[0, 1], scores=np.array([[10 ** 400, 0], [0, 1]], dtype=object))),
    # ragged scores reached np.shape in the memory check: ValueError
    Case("ragged scores", lambda: evaluate("au1u", y_true=[0, 1], scores=[[0.5, 0.5], [1]])),
    # labels=5 with scores: TypeError in the column index
    Case("scalar labels", lambda: evaluate("roc_auc", y_true=[0, 1], scores=[0.2, 0.8], labels=5)),
    # unhashable and mixed true labels with a named pos_label: TypeError
    Case("list label", lambda: evaluate("roc_auc", y_true=[[1], "b"], scores=[0.2, 0.8], pos_label="b")),
    Case("mixed labels", lambda: evaluate("average_precision", y_true=["b", 3], scores=[0.2, 0.8], pos_label="7")),
    # a true label of 2**63 in a probabilistic matrix: an invalid cast, then a wrapped index
    Case("2**63 label", lambda: evaluate("cen", y_true=[0, 2 ** 63], scores=[[0.5, 0.5], [0.5, 0.5]], probabilistic="absolute")),
    # a 0-d array as counts: len() of an unsized object
    Case("0-d counts", lambda: evaluate("f1", counts=np.array(5))),
    Case("dict label", lambda: evaluate("cen", y_true=[0, {"a": 1}], scores=[[0.5, 0.5], [0.5, 0.5]], probabilistic="absolute")),
    # a per-class matrix metric on a probabilistic matrix ignored average="macro": per-class values
    Case("probabilistic class_cen macro", lambda: evaluate("class_cen", y_true=[1, 0], scores=[[0.75, 0.25], [0.99, 0.01]],
                                                           probabilistic="relative", average="macro"), {"class_cen": ()}),
    # ... and with one class present in y_true its labels did not name the matrix's two classes
    Case("probabilistic class_cen, one true class", lambda: evaluate(["accuracy", "class_cen"], y_true=[0] * 4,
                                                                     scores=[[0.5, 0.5]] * 4, probabilistic="absolute",
                                                                     average="none"), {"accuracy": (), "class_cen": (2,)}),
    # ragged scores beside y_pred reached np.ndim: ValueError
    Case("ragged scores and labels", lambda: evaluate(["partial_roc_auc", "recall"], y_true=[0, 0, 0], scores=[[1, 2], [3]],
                                                      y_pred=[0, 0, 0], average="binary")),
    # multi-label truth with labels=5: len() of an int
    Case("multi-label scalar labels", lambda: evaluate("roc_auc", y_true=[[0, 1], [1, 0]], scores=[[0.5, 0.5]] * 2,
                                                       multilabel=True, labels=5)),
    # complex relevances: a ComplexWarning, then the imaginary part dropped
    Case("complex relevance", lambda: CATALOG["dcg"].function(np.array([[1 + 0j, 0], [0, 3]]), [[0.2, 0.8], [0.5, 0.5]])),
    # multi-label truth holding an integer past float64: OverflowError in the cast
    Case("huge indicator", lambda: evaluate("log_roc_auc", y_true=np.array([[1, 10 ** 400], [1, 1]], dtype=object),
                                            scores=[[0.5, 0.5], [0.2, 0.8]], multilabel=True)),
    # a per-class score metric (per_class: k) gives one value per score column with average="none"
    Case("one-vs-all hinge per class", lambda: evaluate("one_vs_all_hinge_loss", y_true=[0, 2, 1],
                                                        scores=[[0.5, 0.3, 0.2]] * 3), {"one_vs_all_hinge_loss": (3,)}),
], ids=lambda case: case.description)
def test_what_the_fuzz_found(case):
    _check(case)


def test_object_counts_are_read_like_object_matrices():
    """Python integers in object arrays are counts, for matrices and per-class counts alike."""
    counts = (np.array([1, 2], dtype=object), [1, 1], [1, 1], [1, 1])
    assert math.isclose(evaluate("f1", counts=counts)["f1"], evaluate("f1", counts=([1, 2], [1, 1], [1, 1], [1, 1]))["f1"])
