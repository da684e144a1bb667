"""``metricc consistent`` with large or hostile numbers (issue 30): every answer bounded in
memory and time, a clear error or a stated fallback, never a MemoryError, a hang or an
overflow (exit 3). Each case is a reproducer of the campaign's input."""

from __future__ import annotations

import json

import pytest

from metricc.audit.consistent import MAX_SCORES, consistent
from metricc.cli import main

HUNDRED_THOUSAND = ",".join(["1"] * 100_000)


@pytest.mark.parametrize("arguments, method", [
    (["--samples", "1000000000", "--score", "f1=0.5"], "range"),  # hung: a loop over a billion splits
    (["--samples", "1000000000", "--classes", "50", "--score", "f1:macro=0.5"], "range"),
    (["--samples", "5", "--classes", "1000000000", "--score", "accuracy=0.4"], "intervals"),
    (["--class-totals", ",".join(["1000"] * 50), "--score", "f1:macro=0.5", "--score", "accuracy=0.3"], "intervals"),
    (["--class-totals", f"{2**60},{2**60}", "--score", "accuracy=0.5"], "range"),
    (["--class-totals", f"{2**53},3", "--score", "accuracy=0.5"], "range"),
    (["--class-totals", "1000000,1000000", "--score", "accuracy=0.5", "--score", "f1=0.4"], "intervals"),
    (["--class-totals", HUNDRED_THOUSAND, "--score", "accuracy=0.5"], "intervals"),
])
def test_huge_sizes_give_a_bounded_answer_that_says_what_was_checked(arguments, method, capsys):
    assert main(["consistent", *arguments, "--format", "json", "--quiet"]) == 4
    document = json.loads(capsys.readouterr().out)
    assert (document["status"], document["method"]) == ("not_refuted", method)
    assert document["notes"], "the fallback is said"


def test_a_huge_size_still_refutes_a_score_outside_its_range():
    result = consistent(["accuracy=1.5", "f1=0.2"], samples=10**12)
    assert (result.status, result.method, result.conflicts) == ("inconsistent", "range", [["accuracy"]])
    assert result.readings[0]["reading"] == "accuracy is printed in percent"


def test_many_scores_need_no_bit_mask():
    """64 and more scores overflowed an int64 bit mask of the conflict search."""
    scores = ["accuracy=0.5"] * 70 + ["accuracy=0.6"]
    result = consistent(scores, class_totals=[5, 5], readings=False)
    assert result.status == "inconsistent" and ["accuracy", "accuracy"] in result.conflicts
    assert consistent(["accuracy=0.5"] * MAX_SCORES, class_totals=[5, 5]).status == "consistent"
    assert main(["consistent", "--class-totals", "5,5", *["--score", "accuracy=0.5"] * (MAX_SCORES + 1)]) == 2


@pytest.mark.parametrize("arguments, message", [
    (["--class-totals", "5,5", "--score", "accuracy=" + "1" * 5000], "at most 40"),
    (["--class-totals", "5,5", "--score", f"accuracy={'1' * 5000}/{'3' * 5000}"], "accuracy="),
    (["--class-totals", "5," + "9" * 5000, "--score", "accuracy=0.5"], "--class-totals"),
    (["--samples", "9" * 5000, "--score", "accuracy=0.5"], "--samples"),
    (["--class-totals", "5,5", "--score", "f1@99999999=0.5"], "@CLASS is a class index"),
])
def test_hostile_numbers_are_clear_errors(arguments, message, capsys):
    assert main(["consistent", *arguments]) == 2
    assert message in capsys.readouterr().err


def test_a_grid_past_the_bound_is_searched_exactly_on_the_diagonals_the_accuracy_leaves():
    """10^6 x 10^6 (TP, TN) pairs: an accuracy printed to 7 digits leaves one diagonal TP + TN."""
    accuracy = f"{1_576_544 / 2_000_000:.7f}"
    result = consistent([f"accuracy={accuracy}", "f1=0.8054455"], class_totals=[1_000_000, 1_000_000], progress=False)
    assert (result.status, result.method, result.feasible_count) == ("consistent", "exhaustive", 1)
    assert result.matrices == [[[700_001, 299_999], [123_457, 876_543]]]
    assert "cells on 1 diagonal TP + TN: searched exactly" in result.notes[0]
    refuted = consistent([f"accuracy={accuracy}", "f1=0.2"], class_totals=[1_000_000, 1_000_000], progress=False,
                         readings=False)
    assert (refuted.status, refuted.method, refuted.conflicts) == ("inconsistent", "exhaustive", [["accuracy", "f1:binary"]])


def test_a_positive_class_past_the_probe_matrix_is_checked_without_an_index_error():
    result = consistent(["f1@15=0.5", "accuracy=0.5"], class_totals=[2] * 20, readings=False)
    assert result.status in ("consistent", "not_refuted") and result.scores == ["f1:binary@15", "accuracy"]


def test_a_grid_past_the_bound_is_searched_exactly_on_the_tp_and_tn_that_recall_and_specificity_leave():
    """Recall fixes TP and specificity TN, each alone: 1 x 1,001 cells of a 10^12 grid."""
    result = consistent(["recall=0.876543", "specificity=0.700", "f1=0.80545"], class_totals=[1_000_000, 1_000_000],
                        progress=False)
    assert (result.status, result.method) == ("consistent", "exhaustive")
    assert [[700_001, 299_999], [123_457, 876_543]] in result.matrices
    assert "1 value of TP by 1,001 of TN: searched exactly" in result.notes[0]


def test_pixel_scale_totals_are_decided_exactly_when_scores_fix_each_cell():
    """Millions of samples per class (segmentation papers count pixels): recall fixes TP and
    specificity TN to a few hundred values each, so the answer is exact, not a range check;
    mlscorecheck decides the same sets the same way."""
    binary = pytest.importorskip("mlscorecheck.check.binary")
    import numpy as np

    rng = np.random.default_rng(7)
    for case in range(6):
        negatives, positives = int(rng.integers(2_500_000, 6_000_000)), int(rng.integers(300_000, 900_000))
        tp, tn = int(rng.integers(positives // 2, positives)), int(rng.integers(negatives // 2, negatives))
        values = {"acc": (tp + tn) / (negatives + positives), "sens": tp / positives, "spec": tn / negatives}
        if case % 2:  # planted: sensitivity moved by 30 units of the last digit
            values["sens"] += 0.003
        printed = {name: f"{value:.4f}" for name, value in values.items()}
        ours = consistent([f"{name}={text}" for name, text in printed.items()], class_totals=[negatives, positives],
                          readings=False)
        theirs = binary.check_1_testset_no_kfold(testset={"p": positives, "n": negatives},
                                                  scores={k: float(v) for k, v in printed.items()}, eps=0.5e-4)
        assert ours.method == "exhaustive", ours
        assert ours.status == ("inconsistent" if theirs["inconsistency"] else "consistent"), (printed, ours.notes)
        assert ours.status == ("inconsistent" if case % 2 else "consistent")
