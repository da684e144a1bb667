"""Reproducers of issue 25's input defects and issue 30's input items, on the command line.

Every command reads labels and scores by the same rules (:mod:`metricc.cli.inputs`,
:mod:`metricc.runtime.inputs`): score columns matched by name, header lines detected the
same way, never guessed from numbers alone.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from metricc import cli
from metricc.cli import app, plot as plot_command

TRUTH = "b\na\nb\na\n"
SCORES = "b,a\n0.9,0.1\n0.2,0.8\n0.7,0.3\n0.4,0.6\n"  # column b first: AUC 1 for the truth above


def run(capsys, *argv) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def value(capsys, *argv):
    code, out, err = run(capsys, *argv, "--format", "json")
    assert code == 0, err
    return json.loads(out)


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def _legend(argv: list[str]) -> list[str]:
    from metricc.bridges import plot

    args = app._parser().parse_args(argv)
    figure = plot_command._scored(plot, args)
    return [text.get_text() for text in figure.axes[0].get_legend().get_texts()]


# ---------------------------------------------------------------- defect 1: columns by name

def test_plot_roc_matches_score_columns_by_name_as_eval_does(capsys, tmp_path):
    truth, scores = write(tmp_path, "t.txt", TRUTH), write(tmp_path, "s.csv", SCORES)
    assert value(capsys, "eval", "--y-true", truth, "--scores", scores, "--metric", "roc_auc") == {"roc_auc": 1.0}
    legend = _legend(["plot", "roc", "--y-true", str(truth), "--scores", str(scores), "-o", "x.png"])
    assert legend[0] == "class b (AUC = 1.0000)"  # was AUC 0.0: the columns taken by position
    legend = _legend(["plot", "precision-recall", "--y-true", str(truth), "--scores", str(scores), "-o", "x.png"])
    assert legend[0] == "class b (AP = 1.0000)"


def test_plot_threshold_reads_named_columns(capsys, tmp_path):
    truth, scores = write(tmp_path, "t.txt", TRUTH), write(tmp_path, "s.csv", SCORES)
    legend = _legend(["plot", "threshold", "--y-true", str(truth), "--scores", str(scores), "--metric", "accuracy",
                      "--pos-label", "b", "-o", "x.png"])
    assert any(text.startswith("best accuracy = 1.0000") for text in legend)


def test_unnamed_score_columns_are_said_to_be_taken_by_position(capsys, tmp_path):
    truth, scores = write(tmp_path, "t.txt", TRUTH), write(tmp_path, "s.csv", SCORES.split("\n", 1)[1])
    code, out, err = run(capsys, "eval", "--y-true", truth, "--scores", scores, "--metric", "roc_auc")
    assert code == 0 and "columns read as the classes a, b (sorted)" in err


# ---------------------------------------------------------------- defect 3: header lines

def test_a_numeric_label_file_never_gets_a_header_guessed(capsys, tmp_path):
    """Issue 30: 0,1,1,2 against 0,1,2,2 lost its first sample (accuracy 0.667, not 0.75)."""
    truth, pred = write(tmp_path, "a.txt", "0\n1\n1\n2\n"), write(tmp_path, "b.txt", "0\n1\n2\n2\n")
    code, out, err = run(capsys, "eval", "--y-true", truth, "--y-pred", pred, "--metric", "accuracy")
    assert (code, out, err) == (0, "accuracy: 0.75\n", "")
    table = write(tmp_path, "t.csv", "0,1\n1,1\n2,0\n")  # a numeric table: no header either
    assert value(capsys, "eval", "--y-true", table, "--column", "0", "--y-pred-column", "1",
                 "--metric", "accuracy") == {"accuracy": pytest.approx(1 / 3)}


def test_pandas_numeric_score_header_is_read_as_class_names(capsys, tmp_path):
    """pandas writes numeric class names unquoted: 0,1 over the rows is the header, not a row."""
    truth = write(tmp_path, "t.txt", "1\n0\n1\n0\n")
    scores = write(tmp_path, "s.csv", "1,0\n0.9,0.1\n0.2,0.8\n0.7,0.3\n0.4,0.6\n")  # column 1 first
    code, out, err = run(capsys, "eval", "--y-true", truth, "--scores", scores, "--metric", "roc_auc")
    assert (code, out) == (0, "roc_auc: 1.0\n") and "read as the class names of the columns" in err
    code, out, err = run(capsys, "eval", "--y-true", truth, "--scores", scores, "--metric", "roc_auc",
                         "--scores-header", "no")
    assert code == 2 and "5 values" not in err  # one row more than labels: a clear error, not a silent value


def test_a_single_label_file_header_is_told_by_the_score_rows(capsys, tmp_path):
    truth = write(tmp_path, "t.txt", "label\n" + TRUTH)
    scores = write(tmp_path, "s.csv", SCORES)
    code, out, err = run(capsys, "eval", "--y-true", truth, "--scores", scores, "--metric", "roc_auc")
    assert (code, out) == (0, "roc_auc: 1.0\n") and "line 1 (label) read as a header" in err
    legend = _legend(["plot", "roc", "--y-true", str(truth), "--scores", str(scores), "-o", "x.png"])
    assert legend[0] == "class b (AUC = 1.0000)"


def test_plot_takes_header_and_column(capsys, tmp_path):
    table = write(tmp_path, "data.csv", "id,label\n1,b\n2,a\n3,b\n4,a\n")
    scores = write(tmp_path, "s.csv", SCORES)
    legend = _legend(["plot", "roc", "--y-true", str(table), "--column", "label", "--scores", str(scores),
                      "-o", "x.png"])
    assert legend[0] == "class b (AUC = 1.0000)"
    code, _, err = run(capsys, "plot", "confusion-matrix", "--y-true", table, "--column", "label",
                       "--y-pred-column", "label", "-o", tmp_path / "cm.png")
    assert code == 0, err


def test_suggest_detects_a_header_as_eval_does(capsys, tmp_path):
    labels = write(tmp_path, "l.txt", "label\ncat\ndog\ncat\ndog\ncat\n")
    code, out, err = run(capsys, "suggest", "--labels-file", labels, "--format", "json")
    assert code == 0 and "line 1 (label) read as a header" in err
    code, out, err = run(capsys, "suggest", "--labels-file", labels, "--header", "no", "--format", "json")
    assert code == 0 and err == ""


# ---------------------------------------------------------------- defect 4: binary and named classes

def test_binary_average_of_named_classes_needs_pos_label(capsys, tmp_path):
    truth, pred = write(tmp_path, "t.txt", TRUTH), write(tmp_path, "p.txt", "b\nb\nb\na\n")
    code, out, err = run(capsys, "eval", "--y-true", truth, "--y-pred", pred, "--metric", "f1:binary")
    assert code == 2 and err.startswith("metricc: error: --pos-label: f1 with average='binary'")
    assert value(capsys, "eval", "--y-true", truth, "--y-pred", pred, "--metric", "f1:binary",
                 "--pos-label", "b") == {"f1:binary": 0.8}
    every = value(capsys, "eval", "--y-true", truth, "--y-pred", pred, "--metric", "class")
    assert "g_mean:macro" in every and "g_mean" not in every  # a family says the average it used


# ---------------------------------------------------------------- defect 5 and usage

def test_param_with_metrics_of_different_averages(capsys):
    got = value(capsys, "eval", "--matrix", "[[5,1],[2,4]]", "--metric", "f_beta:macro", "--metric", "mcc",
                "--param", "beta=2")
    assert got["f_beta:macro"] == pytest.approx(0.7480533926585095) and "mcc" in got
    code, _, err = run(capsys, "eval", "--matrix", "[[5,1],[2,4]]", "--metric", "f_beta:macro", "--metric", "mcc",
                       "--param", "bta=2")
    assert code == 2 and "no requested metric has a parameter 'bta'" in err


def test_y_pred_column_without_y_pred_reads_the_y_true_table(capsys, tmp_path):
    table = write(tmp_path, "data.csv", "y,p\na,a\nb,a\nb,b\n")
    assert value(capsys, "eval", "--y-true", table, "--column", "y", "--y-pred-column", "p",
                 "--metric", "accuracy") == {"accuracy": pytest.approx(2 / 3)}


@pytest.mark.parametrize("argv", [["--bogus"], ["eval", "--matrix", "[[1]]", "--metric", "accuracy", "--bogus"],
                                  ["list", "--format", "jsn"]])
def test_usage_errors_are_prefixed_once(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert code == 2 and err.count("metricc:") == 1 and "metricc: error: metricc:" not in err


# ---------------------------------------------------------------- issue 30: numbers and injection

def test_json_numbers_beyond_float_are_refused(capsys, tmp_path):
    for argv in (["--matrix", "[[1e400, 1], [1, 1]]"], ["--y-true", "[1e400, 1]", "--y-pred", "[1, 1]"],
                 ["--matrix", "[[NaN, 1], [1, 1]]"]):
        code, out, err = run(capsys, "eval", *argv, "--metric", "accuracy")
        assert code == 2 and "Traceback" not in err and ("float64's range" in err or "not a JSON number" in err)
    labels = write(tmp_path, "l.txt", "1e400\n1\n")
    code, _, err = run(capsys, "eval", "--y-true", labels, "--y-pred", labels, "--metric", "accuracy")
    assert code == 2 and "would be the class inf" in err


@pytest.mark.parametrize("where", ["matrix-file", "matrix-json", "labels", "scores", "param", "report"])
def test_integers_past_python_digit_limit_are_input_errors(capsys, tmp_path, where):
    huge = "1" * 5000
    files = {"big.txt": f"{huge}\n1\n", "m.csv": f"{huge},1\n1,1\n", "s.csv": f"0.5\n{huge}\n", "t.txt": "0\n1\n"}
    paths = {name: write(tmp_path, name, text) for name, text in files.items()}
    argv = {"matrix-file": ["eval", "--matrix", paths["m.csv"], "--metric", "accuracy"],
            "matrix-json": ["eval", "--matrix", f"[[{huge}, 1], [1, 1]]", "--metric", "accuracy"],
            "labels": ["eval", "--y-true", paths["big.txt"], "--y-pred", paths["big.txt"], "--metric", "accuracy"],
            "scores": ["eval", "--y-true", paths["t.txt"], "--scores", paths["s.csv"], "--metric", "roc_auc"],
            "param": ["eval", "--matrix", "[[1,1],[1,1]]", "--metric", "f_beta", "--param", f"beta={huge}"],
            "report": ["report", "--y-true", paths["big.txt"], "--y-pred", paths["big.txt"]]}[where]
    code, out, err = run(capsys, *argv)
    assert code == 2 and "5,000 digits" in err and "internal error" not in err


def test_report_csv_escapes_formula_cells(capsys, tmp_path):
    truth = write(tmp_path, "t.txt", "=cmd|' /C calc'!A0\n@SUM(1)\n+1+2\n-1\n")
    code, out, err = run(capsys, "report", "--y-true", truth, "--y-pred", truth, "--format", "csv", "--header", "no")
    assert code == 0, err
    cells = [cell for line in out.splitlines() for cell in line.split(",")]
    assert not any(cell.lstrip('"').startswith(("=", "@", "+")) for cell in cells)
    assert "'=cmd|' /C calc'!A0" in out and "'@SUM(1)" in out and "'+1+2" in out
    assert any(cell == "-1" for cell in cells)  # a number stays a number


def test_plot_labels_with_math_markup_are_drawn_literally(capsys, tmp_path):
    truth = write(tmp_path, "t.txt", "$x^{$\na\n$x^{$\na\n")
    scores = write(tmp_path, "s.csv", "0.9\n0.2\n0.7\n0.4\n")
    for kind in (["roc", "--scores", scores], ["confusion-matrix", "--y-pred", truth]):
        code, _, err = run(capsys, "plot", kind[0], "--y-true", truth, *kind[1:], "--labels", "$x^{$", "a",
                           "-o", tmp_path / "p.png")
        assert code == 0, err


def test_a_tiny_beta_is_a_parameter_not_an_overflow(capsys):
    """``beta=1e-300`` was refused as "int too large to convert to float" (issue 30): it is a
    number like any other, and F-beta at beta -> 0 is the precision."""
    values = value(capsys, "eval", "--metric", "f_beta", "--metric", "precision", "--matrix", "[[3, 1], [2, 4]]",
                   "--average", "binary", "--param", "beta=1e-300")
    assert values["f_beta"] == pytest.approx(values["precision"], rel=1e-12)
