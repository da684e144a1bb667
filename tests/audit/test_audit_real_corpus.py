"""The held-out corpus of benchmarks/audit_real.py: its files' structure, and a smoke run.

Checks only what the files must hold (every case has a source and an expected answer; every
metric id, averaging and convention named exists in the catalog; printed numbers read as
printed numbers) and that the script runs each part to the end. It asserts nothing about
how many cases the tools get right: that is the benchmark's measurement, not a test.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from metricc.audit.claims import printed_value
from metricc.core.errors import InputError
from metricc.api.evaluate import metric

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "benchmarks" / "corpus" / "audit_real"
SCRIPT = ROOT / "benchmarks" / "audit_real.py"
FILES = ("formulas.yaml", "score_sets.yaml", "conventions.yaml")
CONVENTION_KINDS = {"pos_label", "average", "orientation", "metric", "zero_division", "scale"}


def _cases(name: str) -> list[dict]:
    cases = yaml.safe_load((CORPUS / name).read_text(encoding="utf-8"))
    assert isinstance(cases, list) and cases, f"{name}: a non-empty list of cases"
    return cases


def _catalog_variant(where: str, metric_id: str, average: str | None = None) -> None:
    try:
        info = metric(metric_id)
    except InputError as error:
        pytest.fail(f"{where}: {error}")
    assert info.id == metric_id, f"{where}: write the catalog id {info.id!r}, not the alias {metric_id!r}"
    assert average is None or average in info.averages, f"{where}: {metric_id} has no {average!r} averaging"


def _printed(where: str, text) -> None:
    assert isinstance(text, str), f"{where}: printed values are strings, as printed"
    try:
        printed_value(text.removesuffix("..."))  # '0.22...': doctest's truncation, kept as printed
    except ValueError as error:
        pytest.fail(f"{where}: {error}")


@pytest.mark.parametrize("name", FILES)
def test_every_case_has_an_id_and_a_source(name):
    ids = set()
    for case in _cases(name):
        assert isinstance(case.get("id"), str) and case["id"] not in ids, f"{name}: missing or repeated id {case.get('id')}"
        ids.add(case["id"])
        source = case.get("source")
        assert isinstance(source, dict), f"{name}:{case['id']}: a source mapping"
        for key in ("title", "url", "section"):
            assert isinstance(source.get(key), str) and source[key].strip(), f"{name}:{case['id']}: source.{key}"


def test_formula_cases_name_catalog_answers():
    for case in _cases("formulas.yaml"):
        where = f"formulas.yaml:{case['id']}"
        assert isinstance(case.get("formula"), str) and case["formula"].strip(), where
        assert case.get("notation") in ("latex", "text"), where
        assert all(isinstance(d, str) and d.strip() for d in case.get("definitions") or []), where
        expected = case.get("expected")
        assert expected is not None, f"{where}: expected (a metric, a list of them, or 'none')"
        if expected != "none":
            for answer in expected if isinstance(expected, list) else [expected]:
                assert isinstance(answer, dict) and set(answer) <= {"metric", "average"}, where
                _catalog_variant(where, answer["metric"], answer.get("average"))
        assert case.get("label_agrees") in (None, True, False), where


def test_formula_corpus_spans_many_sources():
    cases = _cases("formulas.yaml")
    assert len({c["source"]["url"] for c in cases}) >= 15
    assert sum(bool(c.get("definitions")) for c in cases) >= 10  # the variant without them is measured too


def test_score_sets_name_catalog_scores_and_a_truth():
    for case in _cases("score_sets.yaml"):
        where = f"score_sets.yaml:{case['id']}"
        totals = case.get("class_totals")
        assert isinstance(totals, list) and len(totals) >= 2, f"{where}: class_totals"
        assert all(isinstance(t, int) and t >= 0 for t in totals) and sum(totals) > 0, where
        assert isinstance(case.get("totals_from"), str), f"{where}: say where the totals come from"
        assert case.get("truth") in ("consistent", "inconsistent"), where
        assert isinstance(case.get("truth_by"), str) and case["truth_by"].strip(), f"{where}: who established the truth"
        assert case.get("scores"), where
        for score in case["scores"]:
            assert isinstance(score.get("name"), str) and score["name"], f"{where}: the name as printed"
            _catalog_variant(where, score["metric"], score.get("average"))
            _printed(where, score.get("printed"))


def test_convention_claims_name_a_matrix_and_catalog_conventions():
    for case in _cases("conventions.yaml"):
        where = f"conventions.yaml:{case['id']}"
        matrix = case.get("matrix")
        assert isinstance(matrix, list) and all(isinstance(r, list) and len(r) == len(matrix) for r in matrix), where
        _catalog_variant(where, case["metric"])
        _printed(where, case.get("printed"))
        assert isinstance(case.get("stated"), dict), where
        assert case.get("explained_by"), f"{where}: explained_by (the source's convention as changed arguments)"
        for change in case["explained_by"]:
            assert isinstance(change, dict) and change and set(change) <= CONVENTION_KINDS, where
            if "metric" in change:
                _catalog_variant(where, change["metric"])


def test_no_other_test_reads_the_held_out_corpus():
    here = Path(__file__).resolve()
    readers = [p for p in (ROOT / "tests").rglob("*.py") if p != here and "audit_real" in p.read_text(encoding="utf-8")]
    assert not readers, f"the benchmark corpus is held out: {readers}"


def test_the_benchmark_runs_every_part(tmp_path):
    """--limit 2 with a 2 s timeout: slow cases become timeouts (errors) and the run goes on."""
    out = tmp_path / "result.json"
    done = subprocess.run([sys.executable, str(SCRIPT), "--limit", "2", "--timeout", "2", "--quiet", "--json", str(out)],
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(out.read_text())
    assert [p["part"] for p in result["parts"]] == ["formulas", "scores", "conventions"]
    for part in result["parts"]:
        assert part["cases"] == 2
        for summary in part["variants"].values():
            counted = summary["right"] + summary["wrong"] + summary["errors"]
            assert counted == summary["n"], (part["part"], summary)
    assert "fraction" in done.stdout


def test_recorded_truth_is_mlscorecheck_verdict():
    """The first sets' truth, asked of mlscorecheck again (all of them: benchmarks/audit_real_truth.py)."""
    pytest.importorskip("mlscorecheck")
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "audit_real_truth.py"), "--limit", "3"],
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def _script():
    import importlib.util

    spec = importlib.util.spec_from_file_location("audit_real_benchmark", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_results_of_an_unknown_shape_are_errors_not_crashes():
    bench = _script()
    formula = {"expected": {"metric": "precision"}}
    assert bench.judge_formula(formula, {"ok": {"parsed": "TP/(TP+FP)"}})["outcome"] == "error"
    assert bench.judge_formula(formula, {"ok": {"matches": [{"average": "binary"}]}})["outcome"] == "error"
    assert bench.judge_formula(formula, {"ok": {"matches": [{"metric": "recall"}]}})["outcome"] == "misread"
    assert bench.judge_formula({"expected": "none"}, {"ok": {"matches": []}})["outcome"] == "right"
    consistent_set = {"truth": "consistent"}
    assert bench.judge_scores(consistent_set, {"ok": {"verdict": "yes"}})["outcome"] == "error"
    assert bench.judge_scores(consistent_set, {"ok": {"status": "not refuted"}})["outcome"] == "right"
    assert bench.judge_scores({"truth": "inconsistent"}, {"ok": {"status": "not refuted"}})["outcome"] == "missed"
    assert bench.judge_scores(consistent_set, {"ok": {"consistent": False}})["outcome"] == "false_inconsistent"
    claim = {"explained_by": [{"average": "micro"}]}
    assert bench.judge_convention(claim, {"ok": None})["outcome"] == "error"
    explained = {"ok": {"status": "explained", "explained_by": {"average": "micro"}}}
    assert bench.judge_convention(claim, explained)["outcome"] == "right"
    assert bench.judge_convention(claim, {"error": "timeout after 2 s"})["outcome"] == "error"
