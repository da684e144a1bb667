"""How ``metricc consistent`` reads printed scores (compiler/audit/consistent.py, consistent_readings.py,
consistent_names.py): the positive class for unqualified two-class scores, every averaging for
unqualified multi-class ones, the readings that make an inconsistent set hold, peer names, the
``not_refuted`` status. Differential: mlscorecheck on generated binary score sets.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

import metricc as mc
from metricc.audit import peers
from metricc.audit.consistent import consistent, parse_score
from metricc.audit.consistent_names import resolve_name
from metricc.cli import main
from metricc.core.errors import InputError

SCHEMA = Path(__file__).parents[2] / "docs" / "schemas" / "consistent.schema.json"
KC2 = [[391, 24], [58, 49]]  # Puertolas Molina's thesis, kc2 run: 415 negatives, 107 positives


def _value(matrix, name: str, **kwargs) -> float:
    return float(mc.evaluate(name, matrix=matrix, **kwargs)[name])


def test_two_class_unqualified_scores_are_the_positive_class_and_the_answer_says_so():
    matrix = [[40, 10], [5, 45]]
    scores = [f"precision={_value(matrix, 'precision', average='binary'):.3f}",
              f"recall={_value(matrix, 'recall', average='binary'):.3f}", "accuracy=0.85"]
    result = consistent(scores, class_totals=[50, 50])
    assert (result.status, result.consistent) == ("consistent", True) and matrix in result.matrices
    assert result.scores == ["precision:binary", "recall:binary", "accuracy"]
    assert result.assumptions == ["precision, recall (no averaging given): the value of class 1, the positive class, as "
                                  "scikit-learn's average='binary' and mlscorecheck read papers; write precision:macro "
                                  "or precision@0 for another reading"]
    # the catalog default (macro) would have refuted it: the reading matters
    macro = consistent([s.replace("=", ":macro=", 1) if not s.startswith("acc") else s for s in scores], class_totals=[50, 50],
                       readings=False)
    assert macro.status == "inconsistent"


def test_inconsistent_as_stated_names_the_readings_that_hold_with_their_matrices(capsys):
    """The brief's sentence: F1 printed macro-averaged, specificity of class 0, both unqualified."""
    matrix = [[40, 10], [5, 45]]
    scores = ["accuracy=0.8500", f"f1={_value(matrix, 'f1', average='macro'):.4f}",
              f"specificity={_value(matrix, 'specificity', average='binary', pos_label=0):.4f}", "recall=0.9000"]
    result = consistent(scores, class_totals=[50, 50])
    assert (result.status, result.consistent) == ("inconsistent", False)
    assert ["f1:binary", "specificity:binary"] in result.conflicts
    first = result.readings[0]
    assert first["reading"] == "f1 is macro-averaged and specificity is of class 0"
    assert first["status"] == "consistent" and first["matrices"] == [matrix]
    assert [c["read_as"] for c in first["changes"]] == ["f1:macro", "specificity:binary@0"]
    assert main(["consistent", "--class-totals", "50,50", *(a for s in scores for a in ("--score", s))]) == 1
    out = capsys.readouterr().out
    assert "INCONSISTENT as stated" in out and "consistent if f1 is macro-averaged and specificity is of class 0: " \
        "1 matrix gives every score\n  [[40, 10], [5, 45]]" in out
    assert main(["consistent", "--class-totals", "50,50", "--format", "json", *(a for s in scores for a in ("--score", s))]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["readings"][0]["reading"] == first["reading"]
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(document, json.loads(SCHEMA.read_text(encoding="utf-8")))


@pytest.mark.parametrize("scores, reading", [
    (["accuracy=84.29", "balanced_accuracy=0.700056"], "accuracy is printed in percent"),
    (["accuracy=0.8429", "balanced_accuracy=0.4001"], "the printed balanced_accuracy is youden_j:binary"),
    (["f1=0.905093", "accuracy=0.842912", "mcc=0.465708"], "f1 is of class 0"),
])
def test_a_single_reading_recovers_the_kc2_matrix(scores, reading):
    result = consistent(scores, class_totals=[415, 107])
    assert result.status == "inconsistent"
    assert result.readings[0]["reading"] == reading and result.readings[0]["matrices"] == [KC2]


def test_truncated_digits_are_a_reading():
    matrix = [[7, 2], [1, 3]]  # accuracy 10/13 = 0.76923, recall 0.75, precision 0.6
    result = consistent(["accuracy=0.7692", "precision:binary=0.60", "recall:binary=0.75"], class_totals=[9, 4])
    assert result.status == "consistent" and matrix in result.matrices
    truncated = consistent(["accuracy=0.769", "balanced_accuracy=0.763"], class_totals=[9, 4])  # 0.7638... truncated
    assert truncated.status == "inconsistent"
    assert any("truncated" in r["reading"] and matrix in r["matrices"] for r in truncated.readings), truncated.readings


def test_more_classes_unqualified_scores_are_searched_over_their_averagings(capsys):
    matrix = [[8, 1, 1], [2, 5, 0], [1, 3, 9]]
    f1_macro = _value(matrix, "f1", average="macro")
    result = consistent([f"f1={f1_macro:.4f}", "accuracy=0.7333"], class_totals=[10, 7, 13])
    assert result.status == "consistent" and result.method == "search"
    assert "ambiguous" in result.assumptions[0] and "macro, micro, weighted" in result.assumptions[0]
    held = [r["reading"] for r in result.readings]  # micro F1 is the accuracy: that reading cannot hold
    assert held[0] == "f1 is macro-averaged" and "f1 is micro-averaged" not in held
    assert matrix in result.readings[0]["matrices"] or result.readings[0]["feasible_count"] > 10
    assert main(["consistent", "--class-totals", "10,7,13", "--score", f"f1={f1_macro:.4f}", "--score", "accuracy=0.7333"]) == 0
    assert "consistent if f1 is macro-averaged" in capsys.readouterr().out
    none = consistent(["f1=0.99", "accuracy=0.25"], class_totals=[4, 4, 4])
    assert none.status == "inconsistent" and none.scores == ["f1", "accuracy"]


def test_too_many_ambiguous_scores_are_refused_with_the_choices():
    scores = [f"{name}=0.5" for name in ("f1", "precision", "recall", "jaccard", "npv")]
    with pytest.raises(InputError, match=r"reading combinations of unqualified scores: f1 \(macro/micro/weighted\)"):
        consistent(scores, class_totals=[3, 3, 3])


@pytest.mark.parametrize("name, expected", [
    ("acc", ("accuracy", None)), ("sens", ("recall", "binary")), ("spec", ("specificity", "binary")),
    ("ppv", ("precision", None)), ("npv", ("npv", None)), ("f1", ("f1", None)), ("bacc", ("balanced_accuracy", None)),
    ("fm", ("g_measure", "binary")), ("TPR", ("recall", None)), ("F1 Macro", ("f1", "macro")),
    ("f1_score", ("f1", None)), ("matthews_corrcoef", ("mcc", None)), ("Overall ACC", ("accuracy", None)),
    ("ji", ("jaccard", "binary")), ("kappa", ("cohen_kappa", None)),
])
def test_peer_names_resolve_through_the_peer_table(name, expected):
    assert resolve_name(name) == expected


@pytest.mark.parametrize("name, expected", [
    ("Acc", ("accuracy", None)), ("ACCURACY", ("accuracy", None)),  # a whole set's score, not one class's
    ("ACC", ("class_accuracy", None)),  # PyCM's own spelling keeps PyCM's per-class meaning
])
def test_a_name_spelled_in_another_case_is_read_in_a_whole_sets_role(name, expected):
    assert resolve_name(name) == expected


def test_fm_of_a_binary_paper_is_the_g_measure_not_the_pair_counting_index():
    matrix = [[30, 8], [6, 20]]
    printed = f"{_value(matrix, 'g_measure', average='binary'):.4f}"
    assert printed != f"{_value(matrix, 'fowlkes_mallows'):.4f}"
    result = consistent([f"fm={printed}", "acc=0.7812", f"sens={_value(matrix, 'recall', average='binary'):.4f}"],
                        class_totals=[38, 26])
    assert result.status == "consistent" and matrix in result.matrices
    assert result.scores == ["g_measure:binary", "accuracy", "recall:binary"]


def test_peer_names_outside_the_catalog_are_refused_with_the_tables_reason():
    with pytest.raises(InputError, match=re.escape("'f1n' (mlscorecheck) is not one catalog metric: F1 of the negative class")):
        parse_score("f1n=0.5")
    assert parse_score("f1@0=0.5").label == "f1:binary@0"
    with pytest.raises(InputError, match="there is no class 2 among 2 classes"):
        consistent(["f1@2=0.5"], class_totals=[3, 3])


def test_the_mlscorecheck_part_of_the_peer_table_is_complete():
    mlscorecheck = pytest.importorskip("mlscorecheck.scores")
    from mlscorecheck.scores import _score_bundles

    names = set(mlscorecheck.score_specifications) | set(_score_bundles.score_function_aliases)
    table = {n.name for n in peers.load_peers()["mlscorecheck"].names}
    assert table == names


def test_not_refuted_has_its_own_status_and_exit_code(capsys, monkeypatch):
    result = consistent(["accuracy=0.5", "f1:macro=0.4"], class_totals=[400, 500, 600, 700])
    assert (result.status, result.consistent, result.method) == ("not_refuted", False, "intervals")
    assert main(["consistent", "--class-totals", "400,500,600,700", "--score", "accuracy=0.5", "--score", "f1:macro=0.4"]) == 4
    assert capsys.readouterr().out.startswith("not refuted: no necessary condition fails")


# -- differential: mlscorecheck on generated binary score sets -------------------------------------

MLSCORECHECK = {"acc": "accuracy", "sens": "recall:binary", "spec": "specificity:binary", "ppv": "precision:binary",
                "npv": "npv:binary", "f1": "f1:binary", "bacc": "balanced_accuracy", "mcc": "mcc", "bm": "youden_j:binary",
                "ji": "jaccard:binary", "fm": "g_measure:binary"}


def _printed(value: float, digits: int, truncate: bool) -> str:
    if truncate:  # the digits after the last printed one dropped (toward zero)
        value = math.trunc(value * 10**digits + math.copysign(1e-9, value)) / 10**digits
    return f"{value:.{digits}f}"


@pytest.mark.parametrize("truncate", [False, True])
def test_generated_binary_sets_against_mlscorecheck(truncate):
    """Random matrices, random subsets of mlscorecheck's names, 2-4 printed digits, rounded or
    truncated: a consistent set is never called inconsistent without the reading that holds
    (truncated digits), never where mlscorecheck finds it consistent at its looser tolerance;
    a set refuted by mlscorecheck is refuted here; a planted score from another matrix is
    caught in most sets."""
    binary = pytest.importorskip("mlscorecheck.check.binary")
    import logging

    logging.getLogger("mlscorecheck").setLevel(logging.WARNING)
    rng = np.random.default_rng(29 + truncate)
    planted = caught = 0
    for case in range(60):
        totals = [int(rng.integers(3, 50)), int(rng.integers(3, 50))]
        tn, tp = int(rng.integers(0, totals[0] + 1)), int(rng.integers(0, totals[1] + 1))
        matrix = [[tn, totals[0] - tn], [totals[1] - tp, tp]]
        names = [str(n) for n in rng.choice(list(MLSCORECHECK), size=int(rng.integers(2, 5)), replace=False)]
        values = {}
        for name in names:
            metric_id, _, average = MLSCORECHECK[name].partition(":")
            value = _value(matrix, metric_id, **({"average": average} if average else {}))
            if not math.isnan(value):
                values[name] = value
        if len(values) < 2:
            continue
        if case % 2:  # planted: the first score from another matrix
            other = [[totals[0] - tn, tn], [tp, totals[1] - tp]]
            name = next(iter(values))
            metric_id, _, average = MLSCORECHECK[name].partition(":")
            moved = _value(other, metric_id, **({"average": average} if average else {}))
            if math.isnan(moved) or abs(moved - values[name]) < 0.02:
                continue
            values[name] = moved
        digits = int(rng.integers(2, 5))
        printed = {name: _printed(value, digits, truncate) for name, value in values.items()}
        ours = consistent([f"{name}={text}" for name, text in printed.items()], class_totals=totals)
        theirs = binary.check_1_testset_no_kfold(testset={"p": totals[1], "n": totals[0]},
                                                  scores={k: float(v) for k, v in printed.items()},
                                                  eps=10.0**-digits)
        held = ours.status == "consistent" or any("truncated" in r["reading"] for r in ours.readings)
        if theirs["inconsistency"]:
            assert ours.status == "inconsistent", (matrix, printed)
        if not case % 2:
            assert held, (matrix, printed, ours)
            if not truncate:
                assert ours.status == "consistent" and not theirs["inconsistency"], (matrix, printed)
        else:
            planted += 1
            caught += ours.status == "inconsistent"
    assert planted >= 20 and caught >= 0.6 * planted, (caught, planted)


@pytest.mark.parametrize("printed, expected", [
    ("Sen=0.8", ("recall", "binary")), ("Spe=0.8", ("specificity", "binary")), ("Sp=0.8", ("specificity", "binary")),
    ("Dice coefficient=0.8", ("f1", "binary")), ("PPV_Macro=0.8", ("precision", "macro")),
    ("macro avg precision=0.8", ("precision", "macro")), ("F1-score=0.8", ("f1", "binary")),
])
def test_column_headers_as_papers_print_them(printed, expected):
    """Names no table lists: identify's label reader, generic header words left out, and an
    abbreviation of exactly one metric that consistent can check (not a curve metric)."""
    score = consistent([printed, "accuracy=0.8"], class_totals=[80, 20], readings=False).scores[0]
    assert tuple(score.split(":")) == expected


def test_an_abbreviation_of_several_metrics_beside_one_of_them_and_a_unit_is_a_scale():
    beside = consistent(["SE=0.8", "Sp=0.875", "accuracy=0.86"], class_totals=[80, 20], readings=False)
    assert beside.scores[:2] == ["recall:binary", "specificity:binary"]  # SE is not the specificity printed beside it
    matrix = [[70, 10], [4, 16]]  # recall 0.8, specificity 0.875, accuracy 0.86
    result = consistent(["recall (%)=80.0", "specificity [%]=87.5", "accuracy=0.86"], class_totals=[80, 20], readings=False)
    assert result.status == "consistent" and matrix in result.matrices
