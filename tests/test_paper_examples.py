"""Every number the seed papers print that can be recomputed from data they print.

The examples live in ``tests/data/seed_examples.yaml``: matrices converted to rows = true
classes, each expected value at the paper's printed precision. Values that correct a
printed erratum name the erratum (``docs/errata.yaml``); the test checks that it exists.
"""

from pathlib import Path

import numpy as np
import pytest
import yaml

import metricc.runtime as mc

DATA = Path(__file__).parent / "data" / "seed_examples.yaml"
ERRATA = Path(__file__).parent.parent / "docs" / "errata.yaml"
EXAMPLES = yaml.safe_load(DATA.read_text(encoding="utf-8"))
ERRATA_IDS = {entry["id"] for entry in yaml.safe_load(ERRATA.read_text(encoding="utf-8"))}


def _cases():
    for example in EXAMPLES:
        for number, expected in enumerate(example["expected"]):
            label = f"{example['source']} | {expected['metric']}/{expected.get('average')} | {expected['where']}"
            yield pytest.param(example, expected, id=label)


@pytest.mark.parametrize(("example", "expected"), list(_cases()))
def test_printed_value(example, expected):
    info = mc.metric(expected["metric"])
    kwargs = dict(expected.get("params") or {})
    if info.level == "class":
        kwargs["average"] = expected["average"]
        if "pos_label" in expected:
            kwargs["pos_label"] = expected["pos_label"]
    matrix = mc.orient(example["matrix"], "true-rows")
    counts = mc.counts_from_matrix(matrix)
    value = info.function(matrix, **kwargs) if info.level == "matrix" else info.function(*counts, **kwargs)
    np.testing.assert_allclose(value, expected["value"], atol=expected["abs_tol"], rtol=0)


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["source"] for e in EXAMPLES])
def test_printed_orientation_is_explicit(example):
    """The stored matrix is the paper's, transposed exactly when the paper prints predictions in rows."""
    assert example["printed_orientation"] in ("true-rows", "pred-rows")
    if "printed_matrix" in example:
        np.testing.assert_array_equal(mc.orient(example["printed_matrix"], example["printed_orientation"]), example["matrix"])


def test_errata_referenced_by_examples_exist():
    referenced = {e["erratum"] for ex in EXAMPLES for e in ex["expected"] if "erratum" in e}
    assert referenced <= ERRATA_IDS
