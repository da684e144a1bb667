"""``metricc consistent`` (compiler/audit/consistent*.py): could any matrix give these scores?

Properties: scores of a real matrix, rounded to 2-4 digits, are always consistent (no false
alarm, by any method); a score taken from another matrix is caught, and every conflict set
names it. Literal: the thesis' kc2 run (415 / 107, eight printed scores), joined with identify. Oracle: mlscorecheck
on binary sets, when installed. The big sweep is ``python benchmarks/consistency.py``.
"""

from __future__ import annotations

import importlib
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

import metricc as mc
from metricc.audit.claims import explain_claim
from metricc.audit.consistent import consistent, parse_score
from metricc.audit.identify import identify
from metricc.cli import main
from metricc.core.errors import InputError

consistent_module = importlib.import_module("metricc.audit.consistent")
SCHEMA = Path(__file__).parents[2] / "docs" / "schemas" / "consistent.schema.json"
KC2 = [[391, 24], [58, 49]]
# Thesis Fig. 4.2 (kc2: 415 'no' = class 0, 107 'yes' = class 1); ROC and PR AUC need scores.
KC2_PRINTED = {
    "g_mean:binary": "0.656856", "adjusted_g_mean:binary": "0.783222", "balanced_accuracy": "0.700056",
    "adjusted_f_measure:binary": "0.754452", "optimized_precision:binary": "0.497065",
    "accuracy": "0.842912", "f1:binary": "0.905093", "mcc": "0.465708",
}
BINARY_POOL = ["accuracy", "balanced_accuracy", "mcc", "cohen_kappa", "f1:binary", "precision:binary",
               "recall:binary", "specificity:binary", "npv:binary", "g_mean:binary", "f1:macro",
               "jaccard:binary", "youden_j:binary", "f1_of_macro_averages", "precision:weighted"]
MULTI_POOL = ["accuracy", "balanced_accuracy", "f1:macro", "precision:weighted", "recall:micro",
              "f1:weighted", "mcc", "precision:macro", "error_rate", "specificity:macro"]


def _scores(matrix, pool, rng, count):
    """Printed scores of ``matrix``: ``count`` metrics of ``pool``, each rounded to 2-4 digits."""
    scores = []
    for name in rng.choice(pool, size=count, replace=False):
        metric_id, _, average = str(name).partition(":")
        value = float(mc.evaluate(metric_id, matrix=matrix, **({"average": average} if average else {}))[metric_id])
        if not math.isnan(value):
            scores.append(f"{name}={value:.{int(rng.integers(2, 5))}f}")
    return scores


# The thesis' own formula for each printed score (Eq. 3.1-3.5); accuracy, balanced accuracy and
# MCC are named, not printed as formulas.
KC2_FORMULAS = {
    "f1:binary": r"F1 = \frac{2 \times \text{Precision} \times \text{Recall}}{\text{Precision} + \text{Recall}} \quad (3.1)",
    "g_mean:binary": r"G - \text{mean} = \sqrt{\text{Recall} * \text{Specificity}} \quad (3.2)",
    "adjusted_g_mean:binary": r"AGm = \frac{G - \text{mean} + \text{specificity} \times N_n}{N_n + 1} \quad (3.3)",
    "adjusted_f_measure:binary": r"AGF = \sqrt{F_2 \times InvF_{0.5}} \quad (3.4)",
    "optimized_precision:binary": r"OptimizedPrecision = \frac{specificity \times N_n + recall \times N_p}{N_n + N_p} - \frac{|specificity - recall|}{specificity + recall} \quad (3.5)",
}


def test_kc2_formulas_identified_matrix_recovered_and_each_printed_score_gets_its_variant():
    """The three audits joined on the thesis' kc2 run: identify names the metric of each printed
    formula (Eq. 3.3 as printed defines none: its nearest is the adjusted G-mean), consistent
    recovers the matrix from the scores, and the convention search says which variant each
    printed score used."""
    labels = {}
    for label, formula in KC2_FORMULAS.items():
        result = identify(formula)
        variant = result.matches[0] if result.matches else result.nearest[0]
        labels[label] = f"{variant.metric}:{variant.average or 'binary'}"
        assert bool(result.matches) == (label != "adjusted_g_mean:binary"), result.text()
    assert labels == {label: label for label in KC2_FORMULAS}
    everything = [f"{k}={v}" for k, v in KC2_PRINTED.items()]
    result = consistent(everything, class_totals=[415, 107])
    assert (result.consistent, result.method, result.conflicts) == (False, "exhaustive", [["adjusted_f_measure:binary"], ["f1:binary"]])
    rest = [s for s in everything if not s.startswith(("f1:", "adjusted_f_measure:"))]
    result = consistent(rest, class_totals=[415, 107])
    assert (result.consistent, result.feasible_count, result.matrices) == (True, 1, [KC2])
    variants = {}
    for label, printed in KC2_PRINTED.items():
        metric_id, _, average = label.partition(":")
        claim = explain_claim(metric_id, printed, matrix=result.matrices[0], **({"average": average} if average else {}))
        variants[label] = claim.explained_by if claim.status == "explained" else claim.status
    assert variants == {
        "g_mean:binary": "agrees", "adjusted_g_mean:binary": "agrees", "balanced_accuracy": "agrees",
        "adjusted_f_measure:binary": {"pos_label": 0}, "optimized_precision:binary": "agrees",
        "accuracy": "agrees", "f1:binary": {"pos_label": 0}, "mcc": "agrees",
    }


def test_binary_rounded_scores_are_always_consistent_and_perturbed_ones_are_named():
    rng = np.random.default_rng(20261123)
    caught = perturbed = 0
    for _ in range(1000):  # benchmarks/consistency.py sweeps 20,000 and larger totals
        totals = [int(rng.integers(1, 30)), int(rng.integers(1, 30))]
        tn, tp = int(rng.integers(0, totals[0] + 1)), int(rng.integers(0, totals[1] + 1))
        matrix = [[tn, totals[0] - tn], [totals[1] - tp, tp]]
        scores = _scores(matrix, BINARY_POOL, rng, int(rng.integers(2, 6)))
        if not scores:
            continue
        result = consistent(scores, class_totals=totals, readings=False)
        assert result.consistent, (matrix, scores)
        assert result.feasible_count > 10 or matrix in result.matrices
        other_tn, other_tp = int(rng.integers(0, totals[0] + 1)), int(rng.integers(0, totals[1] + 1))
        other = [[other_tn, totals[0] - other_tn], [totals[1] - other_tp, other_tp]]
        name = scores[0].partition("=")[0]
        replaced = _scores(other, [name], rng, 1)
        if not replaced or replaced[0].partition("=")[2] == scores[0].partition("=")[2] or len(scores) < 3:
            continue
        perturbed += 1
        result = consistent(replaced + scores[1:], class_totals=totals, readings=False)
        if not result.consistent:
            caught += 1
            assert all(name in conflict for conflict in result.conflicts), (scores, replaced, result.conflicts)
    assert perturbed > 300 and caught > 0.7 * perturbed, (caught, perturbed)


@pytest.mark.parametrize("method", ["search", "intervals"])
def test_multiclass_rounded_scores_are_never_called_inconsistent(method, monkeypatch):
    """Exact search: consistent; interval conditions alone: not refuted, never consistent."""
    if method == "intervals":
        monkeypatch.setattr(consistent_module, "SEARCH_LIMIT", 0)
        monkeypatch.setattr(consistent_module.margins, "MAX_SAMPLES", 0)
    rng = np.random.default_rng(7)
    for _ in range(40):
        totals = rng.integers(1, 5, size=3)
        matrix = np.stack([rng.multinomial(t, np.ones(3) / 3) for t in totals]).tolist()
        scores = _scores(matrix, MULTI_POOL, rng, 4)
        result = consistent(scores, class_totals=[int(t) for t in totals])
        expected = ("consistent", True) if method == "search" else ("not_refuted", False)
        assert (result.status, result.consistent, result.method) == (*expected, method), (matrix, scores)
        if method == "search":
            assert result.feasible_count > 10 or matrix in result.matrices


def test_intervals_on_large_multiclass_totals_are_sound_and_find_a_real_conflict():
    rng = np.random.default_rng(11)
    for _ in range(3):
        totals = rng.integers(50, 300, size=4)
        matrix = np.stack([rng.multinomial(t, rng.dirichlet(np.ones(4))) for t in totals]).tolist()
        result = consistent(_scores(matrix, MULTI_POOL, rng, 5), class_totals=[int(t) for t in totals])
        assert (result.status, result.method) == ("not_refuted", "intervals")
    result = consistent(["accuracy=0.50", "f1:macro=0.95", "mcc=0.3", "precision:macro=0.9"], class_totals=[400, 500, 600, 700],
                        readings=False)
    assert (result.status, result.method, result.feasible_count) == ("inconsistent", "intervals", None)
    assert result.conflicts == [["accuracy", "f1:macro"]] and result.unchecked == ["mcc"]


def test_search_finds_the_smallest_conflict_of_three_classes():
    result = consistent(["accuracy=0.5", "recall:macro=1.0", "precision:micro=0.5"], class_totals=[2, 2, 2])
    assert (result.consistent, result.method) == (False, "search")
    assert result.conflicts == [["accuracy", "recall:macro"], ["recall:macro", "precision:micro"]]  # micro P = accuracy


def test_samples_without_totals():
    result = consistent(["accuracy=0.9", "recall:binary=0.5", "precision:binary=1.0"], samples=20)
    assert (result.consistent, result.method) == (True, "exhaustive")
    assert result.matrices == [[[18, 0], [1, 1]], [[16, 0], [2, 2]], [[14, 0], [3, 3]]]
    result = consistent(["accuracy=0.5", "f1:macro=0.9"], samples=6, classes=3)
    assert (result.consistent, result.method) == (False, "search")


@pytest.mark.parametrize("text, message", [
    ("f1", "expected ID[:AVERAGE]=PRINTED"),
    ("f1:macro=high", "cannot read 'high'"),
    ("f1:none=0.3", "not one number per matrix"),
    ("accuracy:macro=0.3", "accuracy has no averaging"),
    ("roc_auc=0.7", "needs scores or labels"),
    ("nosuch=0.4", "unknown metric 'nosuch'"),
    ("cba:micro=0.4", "does not support 'micro'"),
    ("f1_of_sample_averages=0.4", "samples of multi-label data"),
])
def test_bad_scores_name_the_problem(text, message):
    with pytest.raises(InputError, match=re.escape(message)):
        parse_score(text)


def test_bad_totals():
    for kwargs, message in (({}, "give either"), ({"class_totals": [3]}, "two or more"), ({"class_totals": [0, 0]}, "no samples"),
                            ({"samples": 0}, "positive number"), ({"samples": 5, "classes": 1}, "two or more classes"),
                            ({"class_totals": [2, 3], "classes": 3}, "3 classes but 2")):
        with pytest.raises(InputError, match=message):
            consistent(["accuracy=0.5"], **kwargs)


def test_cli_exit_codes_text_and_json(capsys):
    kc2 = ["--class-totals", "415,107", "--score", "accuracy=0.842912", "--score", "balanced_accuracy=0.700056"]
    assert main(["consistent", *kc2]) == 0
    out = capsys.readouterr().out
    assert out.startswith("consistent: 1 matrix gives every score (exhaustive") and "[[391, 24], [58, 49]]" in out
    assert main(["consistent", *kc2, "--score", "f1:binary=0.905093"]) == 1
    out = capsys.readouterr().out
    assert "INCONSISTENT as stated" in out and "cannot hold together: f1:binary" in out
    assert "consistent if f1 is of class 0: 1 matrix gives every score\n  [[391, 24], [58, 49]]" in out
    assert main(["consistent", *kc2, "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document == {"consistent": True, "status": "consistent", "method": "exhaustive", "feasible_count": 1,
                        "matrices": [KC2], "conflicts": [], "unchecked": [], "scores": ["accuracy", "balanced_accuracy"],
                        "assumptions": [], "readings": [], "notes": []}
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(document, json.loads(SCHEMA.read_text(encoding="utf-8")))
    assert main(["consistent", "--class-totals", "4,x", "--score", "f1=0.3"]) == 2
    assert "--class-totals: expected comma-separated counts" in capsys.readouterr().err
    assert main(["consistent", "--samples", "5", "--score", "f1:none=0.3"]) == 2


MLSCORECHECK_NAMES = {"accuracy": "acc", "recall:binary": "sens", "specificity:binary": "spec",
                      "precision:binary": "ppv", "npv:binary": "npv", "f1:binary": "f1p", "balanced_accuracy": "bacc"}


def test_agrees_with_mlscorecheck_on_binary_sets():
    binary = pytest.importorskip("mlscorecheck.check.binary")
    import logging

    logging.getLogger("mlscorecheck").setLevel(logging.WARNING)
    rng = np.random.default_rng(3)
    decisions = set()
    for case in range(100):
        totals = [int(rng.integers(5, 60)), int(rng.integers(5, 60))]
        tn, tp = int(rng.integers(0, totals[0] + 1)), int(rng.integers(0, totals[1] + 1))
        matrix = [[tn, totals[0] - tn], [totals[1] - tp, tp]]
        scores = _scores(matrix, list(MLSCORECHECK_NAMES), rng, 3)
        if case % 2 and len(scores) == 3:  # every other set: one score from a perturbed matrix
            other = [[max(tn - 2, 0), totals[0] - max(tn - 2, 0)], [totals[1] - tp, tp]]
            scores[0] = _scores(other, [scores[0].partition("=")[0]], rng, 1)[0]
        parsed = [parse_score(s) for s in scores]
        theirs = binary.check_1_testset_no_kfold(
            testset={"p": totals[1], "n": totals[0]},
            scores={MLSCORECHECK_NAMES[s.label]: s.value for s in parsed},
            eps={MLSCORECHECK_NAMES[s.label]: s.tolerance for s in parsed})
        ours = consistent(parsed, class_totals=totals)
        assert ours.consistent == (not theirs["inconsistency"]), (matrix, scores)
        decisions.add(ours.consistent)
    assert decisions == {True, False}


def test_a_consistency_search_shows_progress_on_a_terminal_only_when_asked(monkeypatch):
    import io

    from metricc.audit import consistent as search
    from metricc.api import progress as progress_module

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(progress_module, "DELAY", 0.0)
    monkeypatch.setattr(progress_module, "INTERVAL", 0.0)
    scores = ["f1=0.5", "mcc=0.2"]
    for wanted in (True, False):
        terminal = Terminal()
        monkeypatch.setattr("sys.stderr", terminal)
        search(scores, class_totals=[60, 40], progress=wanted)
        assert ("consistency search" in terminal.getvalue()) is wanted
