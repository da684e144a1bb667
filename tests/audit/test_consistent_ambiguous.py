"""Readings of printed scores that do not say all they mean: an averaging left out with more
than two classes, and a name of several customary meanings (``Se``), each tried in turn."""

from __future__ import annotations

import pytest

from metricc.audit.consistent import consistent
from metricc.audit.consistent_ambiguous import AVERAGINGS
from metricc.cli import main
from metricc.core.errors import InputError
from metricc.runtime.averaging import MODES

# Class 1 (20 samples) the positive class: recall 16/20 = 0.8, specificity 70/80 = 0.875, accuracy 0.86.
MATRIX = [[70, 10], [4, 16]]


def test_se_alone_is_searched_as_sensitivity_and_as_selectivity():
    """Se is recall or specificity: both are readings tried; only recall gives 0.800 beside
    accuracy 0.860 (specificity 0.800 is TN = 64, leaving TP = 22 of 20 positives)."""
    result = consistent(["Se=0.800", "accuracy=0.860"], class_totals=[80, 20], progress=False)
    assert (result.status, result.scores, result.matrices) == ("consistent", ["Se", "accuracy"], [MATRIX])
    assert [r["reading"] for r in result.readings] == ["the printed Se is recall"]
    assert result.readings[0]["changes"] == [{"kind": "metric", "score": 0, "read_as": "recall:binary"}]
    assert "Se names several metrics: searched as recall:binary, specificity:binary" in result.assumptions
    both = consistent(["SE=0.8", "accuracy=0.8"], class_totals=[80, 20], progress=False)
    assert [r["reading"] for r in both.readings] == ["the printed SE is recall", "the printed SE is specificity"]


def test_se_beside_the_specificity_is_the_sensitivity_and_none_holding_is_inconsistent():
    beside = consistent(["Se=0.800", "Sp=0.875", "accuracy=0.860"], class_totals=[80, 20], progress=False)
    assert beside.scores[:2] == ["recall:binary", "specificity:binary"] and beside.status == "consistent"
    neither = consistent(["Se=0.800", "accuracy=0.990"], class_totals=[80, 20], progress=False, readings=False)
    assert neither.status == "inconsistent" and not neither.readings


def test_se_with_more_classes_is_each_meaning_under_each_averaging(capsys):
    result = consistent(["Se=0.6", "accuracy=0.6"], class_totals=[30, 30, 40], progress=False)
    searched = next(a for a in result.assumptions if a.startswith("Se names"))
    assert searched.endswith("recall:macro, recall:micro, recall:weighted, specificity:macro, specificity:micro, "
                             "specificity:weighted")
    assert any(r["reading"] == "the printed Se is recall, micro-averaged" for r in result.readings)
    assert main(["consistent", "--class-totals", "80,20", "--score", "Se=0.800", "--score", "accuracy=0.860"]) == 0
    assert "the printed Se is recall" in capsys.readouterr().out


def test_the_averagings_searched_are_the_tables_readings():
    assert AVERAGINGS == ("macro", "micro", "weighted")
    assert all(MODES[a].reading is not None and not MODES[a].positive_class for a in AVERAGINGS)
    with pytest.raises(InputError, match="not one number per matrix; use binary, macro, micro, weighted"):
        consistent(["f1:none=0.3"], class_totals=[3, 3])
