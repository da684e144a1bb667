"""``metricc review``: the stages on small texts, the command line, the formats, and a fast
subset of the source papers (the full run, with every formula: benchmarks/review_seeds.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from metricc.audit.review import review_file, review_text, schema
from metricc.audit.review_find import find
from metricc.audit.review_numbers import arithmetic, metric_name, printed_number, rounding_slack
from metricc.audit.review_read import paper_from_text
from metricc.audit.review_render import render
from metricc.cli import main
from metricc.core.errors import InputError

SEEDS = Path(os.environ.get("METRICC_SEEDS", "/work/shared/seeds"))
seeds = pytest.mark.skipif(not SEEDS.is_dir(), reason="the source papers are not on this machine")

BINARY = """\
# Results

Table 1. Confusion matrix (rows: actual class).

\tPredicted 1\tPredicted 2
Actual 1\t9\t1
Actual 2\t2\t8

On Table 1 the accuracy is 0.85 and the F1 is 0.95.
"""


def test_numbers_as_papers_print_them():
    assert printed_number("0.7586 (5)") == (0.7586, 5e-05, False)
    assert printed_number("36.5%")[:2] == pytest.approx((0.365, 0.0005))
    assert printed_number(r"\frac{7}{10}") == (0.7, 1e-9, True)
    assert printed_number("x") is None and printed_number("1" * 80) is None
    assert float(arithmetic(r"\frac{1}{3}(\frac{9}{9+1} + \frac{6}{6+4} + \frac{7}{7+3})")) == pytest.approx(11 / 15)
    assert float(arithmetic(r"\frac{1}{60} \cdot (10 \cdot 0.643 + 20 \cdot 0.615)")) == pytest.approx((6.43 + 12.3) / 60)
    assert arithmetic(r"\frac{TP}{TP+FN}") is None and arithmetic("2^999") is None and arithmetic("1/0") is None
    assert 0 < rounding_slack(r"\frac{2 \cdot 0.682}{0.682 + 1}") < 0.001
    assert metric_name(r"p_\mu") == ("precision", "micro")
    assert metric_name("macro-averaged recall") == ("recall", "macro")
    assert metric_name("MCC") == ("mcc", None) and metric_name("BalancedAccuracy") == ("balanced_accuracy", None)
    assert metric_name("rec_i") is None  # one value per class, not one number


def test_a_table_becomes_a_matrix_with_its_orientation_and_caption():
    predicted_rows = BINARY.replace("\tPredicted 1\tPredicted 2", "\tActual 1\tActual 2").replace("Actual 1\t9", "Predicted 1\t9") \
        .replace("Actual 2\t2", "Predicted 2\t2")
    [matrix] = find(paper_from_text(predicted_rows)).matrices
    assert (matrix.name, matrix.orientation, matrix.rows) == ("Table 1", "pred-rows", ((9, 2), (1, 8)))
    with_totals = BINARY.replace("Actual 1\t9\t1", "Actual 1\t9\t1\t10").replace("Actual 2\t2\t8", "Actual 2\t2\t8\t10\nTotal\t11\t9\t20")
    assert find(paper_from_text(with_totals)).matrices[0].rows == ((9, 1), (2, 8))


def test_review_of_a_small_paper_and_its_exit_code():
    report = review_text(BINARY, formulas=False)
    assert [(f.printed, f.status) for f in report.findings] == [("accuracy = 0.85", "ok"), ("F1 = 0.95", "wrong")]
    assert report.exit_code == 1
    clean = review_text(BINARY.replace("0.95", "0.857"), formulas=False)
    assert clean.exit_code == 0 and "class 0 positive" in clean.findings[1].sentence


def test_a_worked_chain_that_contradicts_itself():
    text = BINARY + "\nIn Table 1 we have $Acc = \\frac{9+8}{20} = \\frac{7}{10}$.\n"
    report = review_text(text, formulas=False)
    severities = {f.severity for f in report.findings if f.failed and f.line == 11}
    assert severities == {"wrong number", "contradiction"}


def test_a_score_printed_under_another_convention_is_explained():
    text = BINARY.replace("On Table 1 the accuracy is 0.85 and the F1 is 0.95.", "On Table 1 the precision is 0.8182.") \
        .replace("Table 1. Confusion", "Table 1. Confusion")
    transposed = review_text(text.replace("0.8182", "0.9000"), formulas=False)  # 9/10: class 0 of the transposed matrix
    assert [f.status for f in transposed.findings] == ["explained"]
    assert "transposed" in transposed.findings[0].explained_by


def test_results_table_checked_with_the_class_totals_the_paper_states():
    text = ("The data set has 522 instances: 415 of class no and 107 of class yes.\n\n"
            "\taccuracy\tbalanced accuracy\n\tModel\t0.842912\t0.700056\n".replace("\tModel", "Model"))
    [finding] = review_text(text, formulas=False).findings
    assert (finding.kind, finding.status) == ("consistency", "ok")
    assert [[391, 24], [58, 49]] in [list(map(list, m)) for m in finding.matrices]
    wrong = review_text(text.replace("0.700056", "0.200056"), formulas=False).findings[0]
    assert (wrong.status, wrong.severity) == ("wrong", "contradiction")
    unsized = review_text(text.split("\n\n", 1)[1], formulas=False).findings[0]
    assert unsized.status == "unreadable" and "--samples" in unsized.sentence
    sized = review_text(text.split("\n\n", 1)[1], formulas=False, class_totals=[415, 107]).findings[0]
    assert sized.status == "ok"


def test_results_table_inconsistent_as_stated_is_explained_by_the_reading_that_holds():
    text = ("The data set has 522 instances: 415 of class no and 107 of class yes.\n\n"
            "\taccuracy\tF1\nModel\t0.842912\t0.724769\n")  # F1 of [[391, 24], [58, 49]], macro-averaged
    [finding] = review_text(text, formulas=False).findings
    assert (finding.kind, finding.status) == ("consistency", "explained")
    assert finding.explained_by == "f1 is macro-averaged"
    assert [[49, 58], [24, 391]] in [list(map(list, m)) for m in finding.matrices]


def test_formulas_are_identified_and_a_mislabelled_one_is_wrong():
    text = ("## 2 Metrics\n\n$$r = \\frac{TP}{TP + FN} \\quad (1)$$\n\n"
            "$$p = \\frac{TP}{TP + FN} \\quad (2)$$\n\n$$n = \\sum_{i=1}^{m} n_i \\tag{3}$$\n")
    report = review_text(text)
    first, second = report.findings
    assert (first.kind, first.status, first.name, first.section) == ("formula", "ok", "Eq. (1)", "2 Metrics")
    assert (second.status, second.severity, second.name) == ("wrong", "wrong formula", "Eq. (2)")
    assert "labelled precision" in second.sentence and "recall" in second.sentence
    assert report.skipped_equations == 1  # n = sum n_i defines no metric


def test_formats_json_schema_markdown_html():
    jsonschema = pytest.importorskip("jsonschema")
    report = review_text(BINARY, "paper.md", formulas=False)
    data = json.loads(render(report, "json"))
    jsonschema.validate(data, schema())
    assert data["findings"][1]["location"] == {"section": "Results", "name": "Table 1", "line": 9}
    assert data["summary"]["wrong"]["wrong number"] == 1
    markdown = render(report, "markdown")
    assert "## Wrong (1)" in markdown and "| line 9 (Results; Table 1) |" in markdown
    page = render(report.__class__(paper_from_text(BINARY + "<script>x</script>\n", "p<1>.md"), report.findings), "html")
    assert 'id="L9"' in page and 'href="#L9"' in page and "<script>x" not in page and "p&lt;1&gt;.md" in page
    with pytest.raises(ValueError):
        render(report, "pdf")


def test_command_line_exit_codes_and_output(tmp_path, capsys):
    paper = tmp_path / "paper.md"
    paper.write_text(BINARY, encoding="utf-8")
    assert main(["review", str(paper), "--no-formulas", "--quiet"]) == 1
    assert "WRONG" in capsys.readouterr().out
    paper.write_text(BINARY.replace("0.95", "0.857"), encoding="utf-8")
    out = tmp_path / "review.html"
    assert main(["review", str(paper), "--no-formulas", "--quiet", "--format", "html", "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


@pytest.mark.parametrize("content, message", [
    (None, "no such file"),
    (b"%PDF-1.7\n...", "a binary file"),
    (b"\xff\xfe bad", "not UTF-8"),
    (b"   \n", "empty"),
    (b"x" * 30_000, "a line of 30,000 characters"),
])
def test_unreadable_files_exit_2_with_a_message(tmp_path, capsys, content, message):
    path = tmp_path / "paper.txt"
    if content is not None:
        path.write_bytes(content)
    assert main(["review", str(path), "--quiet"]) == 2
    assert message in capsys.readouterr().err
    with pytest.raises(InputError, match=message):
        review_file(path)


@seeds
def test_wenzel_numbers_find_the_recorded_errata_and_nothing_else():
    report = review_file(SEEDS / "002_9c4c29e7d5e8087e.txt", formulas=False)
    failed = {(f.line, f.severity) for f in report.findings if f.failed}
    assert failed == {(244, "wrong number"), (244, "contradiction"),  # wenzel-s323-fig6-accuracy: 7/10 for 74/90
                      (264, "contradiction"),  # wenzel-s324-fig6-f1micro-term: 7/10 plugged in for 11/15
                      (284, "wrong number")}  # wenzel-s324-fig8-f1w: 0.709 for 0.708
    fine = [f for f in report.findings if f.status == "ok"]
    assert len(fine) >= 20
    assert {f.data for f in fine} >= {"Figure 5", "Figure 6", "Figure 7", "Figure 8"}


@seeds
def test_wenzel_eq16_is_a_wrong_formula():
    lines = (SEEDS / "002_9c4c29e7d5e8087e.txt").read_text(encoding="utf-8").splitlines()
    section = "\n".join(lines[223:232])  # Section 3.2.2, Eq. (14) to (16), as printed
    findings = [f for f in review_text(section).findings if f.kind == "formula"]
    assert [(f.name, f.status) for f in findings] == [("Eq. (14)", "ok"), ("Eq. (15)", "ok"), ("Eq. (16)", "wrong")]
    assert "labelled precision [weighted]" in findings[2].sentence


@seeds
def test_thesis_and_branco_tables():
    thesis = review_file(SEEDS / "003_360f351b28c16486.txt", formulas=False)
    kc2 = [f for f in thesis.findings if f.kind == "consistency" and f.failed]
    assert len(kc2) == 1 and "adjusted_g_mean" in kc2[0].sentence  # thesis-eq33-agm-proportion-and-zero-recall
    branco = review_file(SEEDS / "004_ab138882850c1461.txt", formulas=False)
    assert not branco.wrong
    assert sum(f.status == "ok" and f.kind == "number" for f in branco.findings) >= 17
    assert any(f.status == "unreadable" and "not square" in f.sentence for f in branco.findings)  # Case 3 lost a row


# Issue 30: hostile sizes end in a finding or a refusal that names the bound, never a hang or a traceback.
MATRIX = "Table 1. Confusion matrix\n\n\tPredicted 1\tPredicted 2\nActual 1\t9\t1\nActual 2\t2\t8\n\n"


def test_hostile_papers_are_bounded(monkeypatch):
    import metricc.audit.review_check as review_check

    deep = review_text(MATRIX + "On Table 1 we have $Acc = " + "(" * 300 + "1" + ")" * 300 + "$.\n", formulas=False)
    assert not deep.wrong
    totals = review_text("The set has 900000000000 instances: 400000000000 of class a and 500000000000 of class b.\n\n"
                         "\taccuracy\tprecision\nModel\t0.5\t0.4\n", formulas=False).findings[0]
    assert totals.status == "unreadable" and "at most 10,000,000" in totals.sentence
    wide = "\t" + "\t".join(f"Predicted {i}" for i in range(60)) + "\n" + "\n".join(
        f"Actual {i}\t" + "\t".join("1" for _ in range(60)) for i in range(60))
    [finding] = review_text("Table 1. Confusion matrix\n\n" + wide + "\n", formulas=False).findings
    assert finding.status == "unreadable" and "60 classes; at most 50" in finding.sentence
    monkeypatch.setattr(review_check, "MAX_NUMBERS", 5)
    many = review_text(MATRIX + "On Table 1 the accuracy is 0.12.\n" * 8, formulas=False)
    assert sum(f.status == "wrong" for f in many.findings) == 5
    assert any("3 more printed scores not checked: at most 5 a paper" in f.sentence for f in many.findings)
    with pytest.raises(InputError, match="a line of 100,000 characters; at most 20,000"):
        review_text("$" * 100_000)


def test_a_label_the_paper_defines_is_read_as_defined():
    """AvAcc is no catalog name; the paper's Eq. (1) defines it, so its printed value is checked."""
    matrix = "Table 1. Confusion matrix\n\n\tPredicted 1\tPredicted 2\tPredicted 3\nActual 1\t9\t1\t0\nActual 2\t2\t8\t1\nActual 3\t0\t3\t6\n\n"
    definition = "$$AvAcc = \\frac{1}{C} \\sum_{i=1}^{C} \\frac{TP_i + TN_i}{TP_i + TN_i + FP_i + FN_i} \\quad (1)$$\n\n"
    import metricc as mc

    value = mc.evaluate("class_accuracy", matrix=[[9, 1, 0], [2, 8, 1], [0, 3, 6]], average="macro")["class_accuracy"]
    text = definition + matrix + f"On Table 1 the AvAcc is {value:.3f}.\n"
    assert metric_name("AvAcc") is None
    without = review_text(text, formulas=False)
    assert [f.kind for f in without.findings] == []  # no name it knows
    found = review_text(text)
    numbers = [f for f in found.findings if f.kind == "number"]
    assert [(f.metric, f.status) for f in numbers] == [("class_accuracy", "ok")]
    wrong = review_text(text.replace(f"{value:.3f}", "0.123"))
    assert [f.status for f in wrong.findings if f.kind == "number"] == ["wrong"]


from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

_PIECES = st.sampled_from(["\t", "\n", "\n\n", "$", "$$", "\\frac{", "}", "{", "(", ")", "=", "\\approx", "\\neq", "0.82",
                           "7/10", "12", "0", "Table 1.", "Figure 2:", "Confusion matrix", "Predicted", "Actual", "precision",
                           "recall", "F1", "accuracy", " is ", "| ", " |", "---", " & ", " \\\\", "[[1, 2], [3, 4]]",
                           "instances", "macro", "\\quad (3)", "\\begin{equation}", "\\end{equation}", "TP", "FN", "x"])


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_PIECES, max_size=60))
def test_any_text_gives_a_report_or_a_located_refusal(pieces):
    """Fuzz (issue 30): hostile text ends in findings or an InputError, never another exception."""
    try:
        report = review_text("".join(pieces), formulas=False)
    except InputError as error:
        assert error.message
        return
    for form in ("text", "json", "markdown", "html"):
        assert render(report, form)
    assert report.exit_code in (0, 1)


def test_a_worked_value_from_rounded_inputs_is_checked_with_their_rounding():
    """0.682 and 0.733 are rounded: the worked F1 may move by their half units (not 'unreadable')."""
    text = MATRIX + "In Table 1 we have $F_1 = \\frac{2 \\cdot 0.9 \\cdot 0.818}{0.9 + 0.818}$.\n"
    [finding] = [f for f in review_text(text, formulas=False).findings if f.kind == "number"]
    assert finding.status == "ok", finding
    wrong = review_text(text.replace("0.818", "0.418"), formulas=False)
    assert [f.status for f in wrong.findings if f.kind == "number"] == ["wrong"]


def test_a_letter_with_several_readings_is_settled_by_the_label_or_left_unread():
    labelled = review_text("## 2 Metrics\n\n$$Sensitivity = \\frac{TP}{TP + x} \\quad (2)$$\n").findings
    assert [(f.status, f.metric) for f in labelled] == [("ok", "recall")]
    assert "if x is FN" in labelled[0].sentence
    unsettled = review_text("## 2 Metrics\n\n$$\\mathrm{Score}_{new} = \\frac{TP}{TP + x} \\quad (2)$$\n").findings
    assert [f.status for f in unsettled] == ["unreadable"]
    assert "if x is FP" in unsettled[0].sentence and "if x is FN" in unsettled[0].sentence


def test_a_table_sized_by_samples_and_the_summary_says_what_could_not_be_read():
    """Section 3 of issue 29: a results table checked with --samples; the summary lists what
    checks out, what is wrong by severity, and what could not be read with the reason."""
    table = "\taccuracy\tbalanced accuracy\nModel\t0.842912\t0.700056\n"
    sized = review_text(table, formulas=False, samples=522)
    assert [(f.kind, f.status) for f in sized.findings] == [("consistency", "ok")]
    assert "--samples" in sized.findings[0].sentence and sized.exit_code == 0
    unsized = review_text(BINARY + "\n" + table, formulas=False).summary()
    assert unsized["status"]["ok"] == 1 and unsized["wrong"]["wrong number"] == 1
    assert len(unsized["unreadable"]) == 1 and "--samples" in unsized["unreadable"][0]
