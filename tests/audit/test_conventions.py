"""The convention search of ``metricc audit`` (compiler/audit/conventions.py).

Claims are built from the landed seed audits: the printed value is recomputed under another
convention, and the search must name that convention (or one as simple that gives the same
number on that matrix, e.g. weighted = macro on balanced data).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

import metricc as mc
from metricc.audit.claims import audit_file, explain_claim
from metricc.audit.conventions import closeness, coincidences, describe, explain

AUDITS = Path(__file__).parents[2] / "audits"
KC2 = [[391, 24], [58, 49]]


def _seed_claims():
    """(source, matrix, metric, stated keyword arguments) of every single-number claim on a matrix."""
    for path in sorted(AUDITS.glob("*.yaml")):
        for example in yaml.safe_load(path.read_text(encoding="utf-8")):
            if "matrix" not in example:
                continue
            for claim in example["claims"]:
                info = mc.metric(claim["metric"])
                if info.level not in ("class", "aggregate", "matrix") or info.params or isinstance(claim["printed"], list):
                    continue
                stated = {k: claim[k] for k in ("average", "pos_label") if claim.get(k) is not None}
                if stated.get("average") in ("none", "samples"):
                    continue
                yield example["source"], example["matrix"], claim["metric"], stated


SEED_CLAIMS = list(_seed_claims())
CONVENTIONS = [
    {"orientation": "pred-rows"},
    {"average": "weighted"},
    {"average": "micro"},
    {"pos_label": 0},
    {"pos_label": 1},
    {"metric": "f1_of_macro_averages"},
    {"zero_division": 0.0},
    {"scale": "percent"},
    {"orientation": "pred-rows", "scale": "percent"},
    {"pos_label": 0, "average": "binary"},
]


def _under(matrix, metric, stated, convention):
    """The value under ``convention``, computed with the public API alone (the oracle)."""
    kwargs = {**stated, **{k: v for k, v in convention.items() if k not in ("metric", "scale")}}
    name = convention.get("metric", metric)
    if mc.metric(name).level != "class":
        kwargs = {k: v for k, v in kwargs.items() if k not in ("average", "pos_label")}
    value = float(mc.evaluate(name, matrix=matrix, **kwargs)[name])
    return value * (100 if convention.get("scale") == "percent" else 1)


def _cases(per_source_and_convention: int = 2):
    taken = {}
    for source, matrix, metric, stated in SEED_CLAIMS:
        info = mc.metric(metric)
        for convention in CONVENTIONS:
            if info.level != "class" and ({"average", "pos_label"} & set(convention)):
                continue
            if "metric" in convention and (metric, stated.get("average")) != ("f1", "macro"):
                continue
            if convention.get("average") == stated.get("average", info.default_average):
                continue
            try:
                value = _under(matrix, metric, stated, convention)
                stated_value = float(mc.evaluate(metric, matrix=matrix, **stated)[metric])
                halves = [_under(matrix, metric, stated, {k: v}) for k, v in convention.items()] if len(convention) > 1 else []
            except mc.InputError:  # e.g. binary averaging on more than two classes without pos_label
                continue
            if np.isnan(value) or any(abs(value - v) < 1e-3 * max(1, abs(value)) for v in (stated_value, *halves)):
                continue  # the convention (or one half of a pair) does not change this number
            key = (source, json.dumps(convention))
            taken[key] = taken.get(key, 0) + 1
            if taken[key] > per_source_and_convention:
                continue  # keeps the test fast; every source and convention is still covered
            yield pytest.param(matrix, metric, stated, convention, f"{value:.4f}", id=f"{source}:{metric}:{json.dumps(convention)}")


CASES = list(_cases())


def test_enough_cases_from_the_seed_audits():
    assert len(CASES) >= 50
    assert {next(iter(c.values[3])) for c in CASES} >= {"orientation", "average", "pos_label", "metric", "scale"}  # zero division: Branco test below


@pytest.mark.parametrize("matrix, metric, stated, convention, printed", CASES)
def test_a_number_printed_under_another_convention_is_explained_by_it(matrix, metric, stated, convention, printed):
    result = explain_claim(metric, printed, matrix=matrix, **stated)
    assert result.status == "explained"
    found = [result.explained_by, *result.alternatives]
    assert convention in found, found
    assert len(result.explained_by) <= len(convention)  # simplest first


@pytest.mark.parametrize("metric, stated, printed, explained_by", [
    # kc2 (thesis Fig. 4.2): F1 and the adjusted F-measure of the majority class 'no'
    ("f1", {"average": "binary"}, "0.905093", {"pos_label": 0}),
    ("adjusted_f_measure", {"average": "binary"}, "0.754452", {"pos_label": 0}),
    # the two macro F1s (Wenzel Eq. 19 vs 20)
    ("f1", {"average": "macro"}, "0.7338", {"metric": "f1_of_macro_averages"}),
    ("accuracy", {}, "84.29", {"scale": "percent"}),
    ("precision", {"average": "binary"}, "0.8708", {"pos_label": 0}),
])
def test_kc2_literal_explanations(metric, stated, printed, explained_by):
    result = explain_claim(metric, printed, matrix=KC2, **stated)
    assert (result.status, result.explained_by) == ("explained", explained_by)


def test_transposed_matrix_of_wenzel_figure_8():
    """Wenzel prints predicted classes in rows: read as true rows, macro precision is his macro recall."""
    printed_matrix = [[9, 6, 3], [1, 12, 6], [0, 2, 21]]
    result = explain_claim("precision", "0.682", matrix=printed_matrix, average="macro")
    assert result.explained_by == {"orientation": "pred-rows"}


def test_zero_division_policy_of_branco_case_1():
    """Class 3 is never predicted: precision is undefined there; 0 (scikit-learn's) gives the number."""
    matrix = [[5, 0, 0], [0, 10, 0], [0, 300, 0]]
    value = mc.evaluate("precision", matrix=matrix, average="macro", zero_division=0)["precision"]
    result = explain_claim("precision", f"{value:.4f}", matrix=matrix, average="macro")
    assert result.explained_by == {"zero_division": 0.0}


def test_agreeing_and_unexplainable_claims():
    assert explain_claim("accuracy", "0.8429", matrix=KC2).status == "agrees"
    result = explain_claim("accuracy", "0.1234", matrix=KC2)
    assert (result.status, result.explained_by, result.alternatives) == ("differs", None, ())
    assert explain("accuracy", {"matrix": KC2}, 0.1234, 5e-5) == []


def test_one_class_value_of_an_averaged_claim_is_one_change():
    """Recall of class 0 printed for a claim of macro recall is one change (that class's own
    value), class 1 included, as the value of class 0 or 2 is; with percent it is a pair."""
    value = mc.evaluate("recall", matrix=KC2, average="binary", pos_label=0)["recall"]
    result = explain_claim("recall", f"{value:.4f}", matrix=KC2, average="macro")
    assert result.explained_by == {"pos_label": 0, "average": "binary"}
    percent = explain_claim("recall", f"{value * 100:.2f}", matrix=KC2, average="macro")
    assert percent.explained_by == {"pos_label": 0, "average": "binary", "scale": "percent"}
    three = [[9, 1, 0], [6, 12, 2], [3, 6, 21]]
    for label in range(3):
        value = mc.evaluate("precision", matrix=three, average="binary", pos_label=label)["precision"]
        result = explain_claim("precision", f"{value:.6f}", matrix=three, average="macro")
        assert {"average": "binary", "pos_label": label} in [result.explained_by, *result.alternatives]


def test_describe_reads_as_a_sentence():
    assert describe({"orientation": "pred-rows", "pos_label": 0}) == \
        "with the transposed matrix (pred-rows) and with class 0 as the positive class"
    assert describe({"metric": "f1_of_macro_averages"}) == "as f1_of_macro_averages"


def test_audit_file_reports_explained_claims_and_still_fails(tmp_path):
    path = tmp_path / "claims.yaml"
    path.write_text("- source: kc2\n  matrix: [[391, 24], [58, 49]]\n  claims:\n"
                    "    - {metric: f1, average: binary, printed: '0.905093'}\n"
                    "    - {metric: f1, average: binary, pos_label: 0, printed: '0.905093'}\n", encoding="utf-8")
    first, second = audit_file(path)
    assert (first.status, first.explained_by, first.ok) == ("explained", {"pos_label": 0}, False)
    assert (second.status, second.explained_by) == ("agrees", None)


def test_declared_explanation_must_be_what_the_search_finds(tmp_path):
    path = tmp_path / "claims.yaml"
    path.write_text("- matrix: [[391, 24], [58, 49]]\n  claims:\n"
                    "    - {metric: f1, average: binary, printed: '0.905093', erratum: x, correct: 0.5444,\n"
                    "       explained_by: {average: macro}}\n", encoding="utf-8")
    with pytest.raises(mc.InputError, match=r"claims.yaml:3: explained_by .* first: \{'pos_label': 0\}"):
        audit_file(path)
    path.write_text(path.read_text(encoding="utf-8").replace("{average: macro}", "{pos_label: 0}"), encoding="utf-8")
    [result] = audit_file(path)
    assert (result.status, result.explained_by) == ("erratum", {"pos_label": 0})


def test_audit_command_text_and_json(tmp_path, capsys):
    from metricc.cli import main

    path = tmp_path / "claims.yaml"
    path.write_text("- matrix: [[391, 24], [58, 49]]\n  claims:\n    - {metric: f1, average: binary, printed: '0.905093'}\n",
                    encoding="utf-8")
    assert main(["audit", str(path)]) == 1
    out = capsys.readouterr().out
    assert "EXPLAINED" in out and "reproduced with class 0 as the positive class" in out
    assert "1 differ but another convention explains them" in out
    assert main(["audit", str(path), "--format", "json"]) == 1
    [record] = json.loads(capsys.readouterr().out)
    assert (record["status"], record["explained_by"]) == ("explained", {"pos_label": 0})
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).parents[2] / "docs" / "schemas" / "audit.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate([record], schema)


KOZAK_T4 = [[40, 7, 3], [8, 10, 2], [9, 1, 20]]


@pytest.mark.parametrize("claimed, printed_as, stated, expected", [
    ("cohen_kappa", "weighted_kappa", {}, {"metric": "weighted_kappa"}),
    ("cohen_kappa", "quadratic_weighted_kappa", {}, {"metric": "quadratic_weighted_kappa"}),
    ("mcc", "mcc_per_class", {"average": "macro"}, {"metric": "mcc_per_class", "average": "macro"}),
])
def test_weighted_kappas_and_mean_per_class_mcc(claimed, printed_as, stated, expected):
    value = mc.evaluate(printed_as, matrix=KOZAK_T4, **stated)[printed_as]
    result = explain_claim(claimed, f"{value:.4f}", matrix=KOZAK_T4)
    assert (result.status, result.explained_by) == ("explained", expected)


@pytest.mark.parametrize("matrix", [KOZAK_T4, KC2])
def test_adjusted_balanced_accuracy(matrix):
    """scikit-learn's balanced_accuracy_score(adjusted=True): (BA - 1/C) / (1 - 1/C)."""
    sklearn = pytest.importorskip("sklearn.metrics")
    y_true = [i for i, row in enumerate(matrix) for j, n in enumerate(row) for _ in range(n)]
    y_pred = [j for i, row in enumerate(matrix) for j, n in enumerate(row) for _ in range(n)]
    value = sklearn.balanced_accuracy_score(y_true, y_pred, adjusted=True)
    result = explain_claim("balanced_accuracy", f"{value:.4f}", matrix=matrix)
    assert result.status == "explained"
    assert {"adjusted": True} in [result.explained_by, *result.alternatives]
    assert "adjusted for chance" in describe({"adjusted": True})


def test_any_catalog_metric_that_gives_the_number_is_a_hint_closest_first():
    value = mc.evaluate("error_rate", matrix=KC2)["error_rate"]
    result = explain_claim("accuracy", f"{value:.6f}", matrix=KC2)
    assert (result.status, result.explained_by) == ("differs", None)  # a coincidence explains nothing
    assert {"metric": "error_rate"} in result.coincides_with
    for change in result.coincides_with:  # every one reproduces the number (checked with the public API)
        name = change["metric"]
        kwargs = {"average": change["average"]} if "average" in change else {}
        assert abs(mc.evaluate(name, matrix=KC2, **kwargs)[name] - value) <= 5e-7 + 1e-12
    ranks = [closeness("accuracy", c["metric"]) for c in result.coincides_with]
    assert ranks == sorted(ranks)
    assert coincidences("accuracy", {"matrix": KC2}, 0.123456, 5e-7) == []


def test_named_conventions_come_before_catalog_coincidences():
    value = mc.evaluate("f1", matrix=KC2, average="binary", pos_label=0)["f1"]
    result = explain_claim("f1", f"{value:.6f}", matrix=KC2, average="binary")
    assert result.explained_by == {"pos_label": 0}


# Issue 30: hostile audit files are refused with the file, the claim and the bound.
@pytest.mark.parametrize("claim, message", [
    ("{metric: accuracy, printed: '0." + "1" * 5000 + "'}", r"x.yaml:3: claim accuracy: .*5002 characters; at most 40"),
    ("{metric: accuracy, printed: " + "1" * 5000 + "}", r"x.yaml:3: a number of 5000 characters; at most 400"),
    ("{metric: accuracy, printed: '0.5', erratum: wenzel-s323-fig6-acuracy, correct: 0.5}",
     r"x.yaml:3: claim accuracy: erratum 'wenzel-s323-fig6-acuracy' is not an id .* did you mean wenzel-s323-fig6-accuracy"),
])
def test_hostile_claims_are_refused_with_file_claim_and_limit(tmp_path, claim, message):
    path = tmp_path / "x.yaml"
    path.write_text(f"- matrix: [[1, 2], [3, 4]]\n  claims:\n    - {claim}\n", encoding="utf-8")
    with pytest.raises(mc.InputError, match=message):
        audit_file(path, errata=["wenzel-s323-fig6-accuracy", "other"])


def test_a_claim_list_of_thousands_is_refused_before_any_work(tmp_path):
    from metricc.audit.claims import MAX_CLAIMS

    path = tmp_path / "many.yaml"
    path.write_text("- matrix: [[1, 2], [3, 4]]\n  claims:\n"
                    + "    - {metric: f1, average: binary, printed: '0.1'}\n" * (MAX_CLAIMS + 1), encoding="utf-8")
    with pytest.raises(mc.InputError, match=rf"many.yaml: {MAX_CLAIMS + 1} claims; at most {MAX_CLAIMS}"):
        audit_file(path)


def test_a_file_past_the_byte_bound_is_refused_before_it_is_read(tmp_path, monkeypatch):
    from metricc.audit import claims

    path = tmp_path / "big.yaml"
    path.write_text("- matrix: [[1, 2], [3, 4]]\n  claims:\n    - {metric: f1, average: binary, printed: '0.1'}\n",
                    encoding="utf-8")
    monkeypatch.setattr(claims, "MAX_FILE_BYTES", 20)
    monkeypatch.setattr(claims, "load_data_file", lambda *a: pytest.fail("the file was read"))
    with pytest.raises(mc.InputError, match=r"big.yaml: \d+ bytes; at most 20 per audit file \(split the file\)"):
        audit_file(path)


def test_a_50_class_matrix_is_audited_and_the_command_says_why_it_fails(tmp_path, capsys):
    from metricc.cli import main

    matrix = (np.arange(2500).reshape(50, 50) % 7 + 1).tolist()
    path = tmp_path / "wide.yaml"
    path.write_text(f"- matrix: {matrix}\n  claims:\n    - {{metric: precision, average: macro, printed: '0.123456'}}\n",
                    encoding="utf-8")
    assert main(["audit", str(path)]) == 1
    out = capsys.readouterr().out
    assert "DIFFERS" in out and "1 differ" in out


def test_the_command_refuses_an_unknown_erratum_with_a_message(tmp_path, capsys):
    from metricc.cli import main

    path = tmp_path / "x.yaml"
    path.write_text("- matrix: [[1, 2], [3, 4]]\n  claims:\n    - {metric: accuracy, printed: '0.5', erratum: nope, correct: 0.5}\n",
                    encoding="utf-8")
    assert main(["audit", str(path)]) == 2
    assert "x.yaml:3: claim accuracy: erratum 'nope' is not an id of the errata file" in capsys.readouterr().err
