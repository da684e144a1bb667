"""The one table of result formats (:mod:`metricc.api.formats`): every format renders any
document from its data and blocks, escaping lives in one place, a document's own layout wins,
and a new format is one entry that every command writing a document offers."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from metricc.api.formats import FORMATS, Note, Result, Table, csv_cell, render

REPO = Path(__file__).resolve().parents[2]


class Toy:
    """A document with one hostile label, as any command's result would be."""

    title = "Toy <results>"
    json_indent = None
    json_ascii = True

    def __init__(self, layouts=None):
        self.layouts = layouts or {}

    def data(self):
        return {"=cmd|' /C calc'!A0": 0.5}

    def blocks(self, digits):
        return [Table(("class", "f1"), (("=cmd|' /C calc'!A0", f"{0.5:.{digits}f}"), ("a_&|<b>", "nan")), "Per class",
                      frozenset({1})),
                Note("50% of [range]")]

    def own_layouts(self):
        return self.layouts


def test_every_format_has_a_media_type_and_renders_any_document():
    assert {name: f.media_type for name, f in FORMATS.items()} == {
        "text": "text/plain", "markdown": "text/markdown", "csv": "text/csv", "json": "application/json",
        "latex": "application/x-latex", "html": "text/html"}
    assert render(Toy(), "text", 2).splitlines() == [
        "Per class", "class                 f1", "=cmd|' /C calc'!A0  0.50", "a_&|<b>              nan", "",
        "50% of [range]"]
    assert render(Toy(), "json") == '{"=cmd|\' /C calc\'!A0": 0.5}'
    assert r"| a\_&\|<b> | nan |" not in render(Toy(), "markdown") and r"| a_&\|<b> | nan |" in render(Toy(), "markdown")
    assert r"a\_\&|<b> & nan \\" in render(Toy(), "latex") and r"50\% of [range]" in render(Toy(), "latex")
    page = render(Toy(), "html")
    assert "<title>Toy &lt;results&gt;</title>" in page and "<tr class='average'><th scope=\"row\">a_&amp;|&lt;b&gt;" in page
    assert '<td class="nan">nan</td>' in page and "<script" not in page


def test_csv_cells_never_start_a_formula():
    rows = list(csv.reader(io.StringIO(render(Toy(), "csv", 1))))
    assert rows == [["section", "row", "column", "value"], ["Per class", "'=cmd|' /C calc'!A0", "f1", "0.5"],
                    ["Per class", "a_&|<b>", "f1", "nan"], ["note", "", "", "50% of [range]"]]
    assert [csv_cell(c) for c in ("-1.5", "+3", "@SUM(A1)", "-x", "\tx", "plain")] == [
        "-1.5", "+3", "'@SUM(A1)", "'-x", "'\tx", "plain"]


def test_a_documents_own_layout_wins_and_unknown_formats_are_refused():
    assert render(Toy({"text": lambda digits: f"own {digits}"}), "text", 3) == "own 3"
    with pytest.raises(ValueError, match="unknown format 'docx'; expected one of text, markdown"):
        render(Toy(), "docx")


_TOY_FORMAT = '''    Format("tsv", "text/tab-separated-values", lambda document, digits: "\\n".join(
        "\\t".join(row) for block in document.blocks(digits) if isinstance(block, Table)
        for row in (block.header, *block.rows))),
'''


def test_a_new_format_is_one_entry_every_command_offers(package_copy, tmp_path):
    package, env = package_copy
    table = package / "api" / "formats.py"
    source = table.read_text(encoding="utf-8")
    anchor = "FORMATS: Mapping[str, Format] = MappingProxyType({f.name: f for f in (\n"
    assert anchor in source
    table.write_text(source.replace(anchor, anchor + _TOY_FORMAT), encoding="utf-8")

    def run(*argv, code=0):
        done = subprocess.run([sys.executable, "-m", "metricc", *argv, "--format", "tsv"], cwd=tmp_path, env=env,
                              capture_output=True, text=True)
        assert done.returncode == code, done.stderr
        return done.stdout.splitlines()

    matrix = ["--matrix", "[[5, 1], [2, 4]]", "--labels", "neg", "pos"]
    report = run("report", *matrix, "--metric", "recall", "--metric", "accuracy", "--digits", "3")
    assert report[:3] == ["class\trecall\tsupport", "neg\t0.833\t6", "pos\t0.667\t6"]
    assert "accuracy\t0.750" in report and "pos\t2\t4" in report
    assert run("eval", *matrix, "--metric", "recall:none", "--metric", "accuracy") == [
        "metric\tvalue", "recall:none[neg]\t0.8333333333333334", "recall:none[pos]\t0.6666666666666666",
        "accuracy\t0.75"]
    sweep = run("eval", *matrix, "--metric", "f_beta", "--sweep", "beta=1,2")
    assert sweep[0] == "beta\tf_beta" and [line.split("\t")[0] for line in sweep[1:]] == ["1.0", "2.0"]
    assert run("consistent", "--score", "accuracy=0.75", "--class-totals", "6,6", "--quiet")[:2] == [
        "scores\tstatus\tmethod\tmatrices", "accuracy\tconsistent\texhaustive: every (TP, TN) of the class totals, exactly\t4"]
    assert run("identify", r"\frac{TP}{TP+FP}") == [
        "metric\taverage\tholds\tproved\tparameters\treading", "precision\tbinary\tall\tyes\t\t"]
    claims = run("audit", str(REPO / "audits" / "kozak.yaml"), "--errata", str(REPO / "docs" / "errata.yaml"))
    assert claims[0] == "claim\tstatus\tmetric\tprinted\trecomputed\terratum\tsource" and "\tagrees\t" in claims[1]
    assert run("suggest", "--class-counts", "10,10")[0] == "metric\taverage\trule\treason"
    assert run("list", "f1_score")[1].startswith("f1\tclass\t")
    (tmp_path / "paper.md").write_text("Table 1. Confusion matrix (rows: actual class).\n\n\tPredicted 1\tPredicted 2\n"
                                       "Actual 1\t9\t1\nActual 2\t2\t8\n\nThe accuracy is 0.85.\n", encoding="utf-8")
    review = run("review", "paper.md", "--no-formulas", "--quiet")
    assert review[0].startswith("finding\tline\tstatus") and review[1].startswith("1\t7\tok\t")


def test_the_json_of_every_document_is_its_data():
    assert json.loads(render(Toy(), "json")) == Toy().data()
    given = Result("Answer", {"label": "é", "value": float("nan")}, (Note("é"),))
    assert render(given, "json") == '{\n  "label": "\\u00e9",\n  "value": NaN\n}'
    assert render(Result("Answer", ["é"], (), json_indent=None, json_ascii=False), "json") == '["é"]'
    assert render(given, "text") == "é" and render(given, "html").count("<p>é</p>") == 1
