"""``metricc eval`` as a new user meets it: table files with headers, per-class labels, several
averages and families of metrics, real-valued matrices, printed probabilities."""

from __future__ import annotations

import json

import pytest

from metricc import cli

M3 = "[[5, 1, 0], [2, 4, 1], [0, 1, 3]]"


def run(capsys, *argv) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv) -> dict:
    code, out, err = run(capsys, *argv, "--format", "json")
    assert code == 0, err
    return json.loads(out)


def error(capsys, *argv) -> str:
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, ""), err
    return err


def test_label_files_with_a_header_and_columns(capsys, tmp_path):
    (tmp_path / "data.csv").write_text("id,truth,guess\n1,10,10\n2,2,10\n3,1,1\n4,10,2\n")
    values = run_json(capsys, "eval", "--y-true", tmp_path / "data.csv", "--y-pred", tmp_path / "data.csv",
                      "--column", "truth", "--y-pred-column", "guess", "--metric", "recall:none")
    assert list(values["recall:none"]) == ["1", "2", "10"]  # numbers sorted as numbers, no 'truth' class
    assert values["recall:none"] == {"1": 1.0, "2": 0.0, "10": 0.5}
    assert "no column named 'label'" in error(capsys, "eval", "--y-true", tmp_path / "data.csv", "--y-pred",
                                              tmp_path / "data.csv", "--column", "label", "--metric", "f1")


def test_single_column_files_with_header_lines(capsys, tmp_path):
    (tmp_path / "t.txt").write_text("label\ncat\ndog\ncat\n")
    (tmp_path / "p.txt").write_text("label\ncat\ncat\ncat\n")
    code, out, err = run(capsys, "eval", "--y-true", tmp_path / "t.txt", "--y-pred", tmp_path / "p.txt",
                         "--metric", "accuracy")
    assert (code, out) == (0, "accuracy: 0.6666666666666666\n")
    assert "line 1 (label) read as a header" in err
    code, out, _ = run(capsys, "eval", "--y-true", tmp_path / "t.txt", "--y-pred", tmp_path / "p.txt",
                       "--metric", "accuracy", "--header", "no")
    assert out == "accuracy: 0.75\n"


def test_per_class_text_names_the_classes(capsys, tmp_path):
    code, out, _ = run(capsys, "eval", "--matrix", M3, "--labels", "a", "b", "c", "--metric", "precision:none",
                       "--metric", "mcc", "--normalized")
    assert code == 0
    assert out.splitlines()[0] == "precision:none[a]: 0.7142857142857143 (71.43% of range)"
    assert out.splitlines()[-1].startswith("mcc: 0.5531") and "{" not in out


def test_several_averages_and_families(capsys):
    values = run_json(capsys, "eval", "--matrix", M3, "--metric", "f1:macro", "--metric", "f1:micro",
                      "--metric", "accuracy")
    assert list(values) == ["f1:macro", "f1:micro", "accuracy"]
    assert values["f1:micro"] == pytest.approx(values["accuracy"])
    everything = run_json(capsys, "eval", "--matrix", M3, "--metric", "all")
    assert {"accuracy", "f1", "mcc", "g_mean:macro", "balanced_accuracy"} <= set(everything)
    assert "exact_match_ratio" not in everything  # needs multi-label indicator rows
    micro = run_json(capsys, "eval", "--matrix", M3, "--metric", "class:micro")
    assert micro["precision:micro"] == pytest.approx(values["accuracy"]) and "cba:micro" not in micro
    assert "given twice" in error(capsys, "eval", "--matrix", M3, "--metric", "f1", "--average", "macro",
                                  "--average", "micro")
    assert "accuracy is a matrix-level metric" in error(capsys, "eval", "--matrix", M3, "--metric", "accuracy:macro")
    assert "curve-level metrics need other input" in error(capsys, "eval", "--matrix", M3, "--metric", "curve")


def test_binary_average_on_three_classes_needs_the_class(capsys):
    err = error(capsys, "eval", "--matrix", M3, "--metric", "g_mean")
    assert "--average: g_mean averages 'binary' by default" in err and "with 3 classes" in err
    assert run_json(capsys, "eval", "--matrix", M3, "--metric", "g_mean", "--pos-label", "2")["g_mean"] > 0


def test_weighted_and_normalised_matrices(capsys):
    weighted = "[[5.5, 1.25, 0], [2, 4, 1], [0, 1, 3]]"
    values = run_json(capsys, "eval", "--matrix", weighted, "--metric", "f1", "--metric", "mcc", "--metric", "cohen_kappa")
    assert 0 < values["f1"] < 1 and 0 < values["mcc"] < 1
    rates = "[[0.8, 0.2], [0.25, 0.75]]"  # row-normalised, as papers print them
    assert run_json(capsys, "eval", "--matrix", rates, "--metric", "recall:macro")["recall:macro"] == pytest.approx(0.775)


def test_score_columns_named_by_a_header_and_printed_probabilities(capsys, tmp_path):
    (tmp_path / "t.txt").write_text("b\na\nc\nb\n")
    (tmp_path / "s.csv").write_text("c,b,a\n0.1000,0.7000,0.2001\n0.2000,0.2000,0.6000\n0.5,0.25,0.25\n0.3333,0.3333,0.3334\n")
    named = run_json(capsys, "eval", "--y-true", tmp_path / "t.txt", "--scores", tmp_path / "s.csv",
                     "--metric", "roc_auc:none", "--metric", "log_loss")
    assert named["roc_auc:none"] == {"c": 1.0, "b": 1.0, "a": 1.0}
    reordered = run_json(capsys, "eval", "--y-true", tmp_path / "t.txt", "--scores", tmp_path / "s.csv",
                         "--metric", "roc_auc:none", "--metric", "log_loss", "--labels", "a", "b", "c")
    assert reordered["roc_auc:none"] == {"a": 1.0, "b": 1.0, "c": 1.0}
    assert reordered["log_loss"] == pytest.approx(named["log_loss"])


class Terminal:
    """stderr as a terminal: the progress bar draws only there."""

    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> None:
        self.text += text

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("quiet", [False, True])
def test_build_shows_its_stages_on_a_terminal(monkeypatch, tmp_path, quiet):
    from metricc.compiler import build
    from metricc.cli import build as build_command
    from metricc.api import progress

    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr(progress, "INTERVAL", 0.0)

    def compile_catalog(spec_dir, cache, on_stage):
        for stage in build.STAGES:
            on_stage(stage.name)
        return {"f.py": ""}

    monkeypatch.setattr(build, "compile_catalog", compile_catalog)
    (tmp_path / "specs").mkdir()
    assert build_command._compile_catalog(tmp_path / "specs", None, not quiet) == {"f.py": ""}
    if quiet:
        assert terminal.text == ""
    else:
        assert "build [" in terminal.text and "prove" in terminal.text
        assert terminal.text.endswith(f"100% {len(build.STAGES)}/{len(build.STAGES)} 0s done\x1b[K\n")


# ---------------------------------------------------------------- metricc report

@pytest.mark.parametrize(("fmt", "marker"), [
    ("text", "weighted avg"), ("markdown", "|---|"), ("csv", "section,row,column,value"),
    ("json", '"per_class"'), ("latex", r"\begin{tabular}"), ("html", "<!DOCTYPE html>"),
])
def test_report_formats(capsys, fmt, marker):
    code, out, err = run(capsys, "report", "--matrix", M3, "--labels", "a", "b", "c", "--format", fmt)
    assert (code, err) == (0, "") and marker in out and "b" in out


def test_report_of_label_files_to_a_file(capsys, tmp_path):
    (tmp_path / "t.txt").write_text("cat\ndog\ncat\nbird\n")
    (tmp_path / "p.txt").write_text("cat\ncat\ncat\nbird\n")
    code, out, _ = run(capsys, "report", "--y-true", tmp_path / "t.txt", "--y-pred", tmp_path / "p.txt",
                       "--metric", "f1", "--metric", "mcc", "--format", "json", "-o", tmp_path / "r.json")
    assert code == 0 and out.startswith("wrote ")
    data = json.loads((tmp_path / "r.json").read_text())
    assert list(data["per_class"]) == ["bird", "cat", "dog"] and list(data["overall"]) == ["mcc"]


def test_report_errors_name_the_option(capsys):
    assert "--metric: roc_auc is a curve-level metric" in error(capsys, "report", "--matrix", M3, "--metric", "roc_auc")
    assert "--param: no requested metric has a parameter 'beta'" in error(capsys, "report", "--matrix", M3,
                                                                          "--param", "beta=2")
    assert "--digits" in error(capsys, "report", "--matrix", M3, "--digits", "40")
    assert "--matrix" in error(capsys, "report", "--metric", "f1")


def test_sweep_refuses_binary_averaging_on_three_classes(capsys):
    assert "--average: f_beta with binary averaging" in error(capsys, "eval", "--matrix", M3, "--metric", "f_beta",
                                                              "--sweep", "beta=1,2", "--average", "binary")
    code, out, _ = run(capsys, "eval", "--matrix", M3, "--metric", "f_beta", "--sweep", "beta=1,2",
                       "--average", "binary", "--pos-label", "2", "--quiet")
    assert code == 0 and out.splitlines()[1:] == ["1.0\t0.75", "2.0\t0.75"]  # class 2: TP 3, FP 1, FN 1


def test_one_vs_all_hinge_loss_on_the_command_line(capsys, tmp_path):
    """One value per class, labelled; averaged with --average; a sweep of its power is refused
    (a sweep grids confusion matrices), as is the delta method (no gradient in the scores)."""
    (tmp_path / "t.txt").write_text("ant\nbee\ncat\nbee\n")
    scores = "[[0.8, 0.1, 0.1], [0.2, 0.5, 0.3], [0.0, 0.4, 0.6], [1.5, -0.5, 0.0]]"  # tests/runtime/test_scores.py
    given = ("eval", "--y-true", tmp_path / "t.txt", "--scores", scores, "--metric", "one_vs_all_hinge_loss")
    values = run_json(capsys, *given)["one_vs_all_hinge_loss"]
    assert list(values) == ["ant", "bee", "cat"] and values["cat"] == pytest.approx(0.95, rel=1e-12)
    assert run_json(capsys, *given, "--average", "macro")["one_vs_all_hinge_loss"] == pytest.approx(1.1, rel=1e-12)
    assert "--sweep: one_vs_all_hinge_loss is a score-level metric" in error(capsys, *given, "--sweep", "power=1,2")
    assert "--interval: delta does not apply" in error(capsys, *given, "--interval", "delta")


def test_unnamed_score_columns_of_named_classes_are_reported(capsys, tmp_path):
    (tmp_path / "t.txt").write_text("b\na\nc\nb\n")
    scores = "[[0.1, 0.7, 0.2], [0.6, 0.3, 0.1], [0.2, 0.2, 0.6], [0.2, 0.5, 0.3]]"
    code, _, err = run(capsys, "eval", "--y-true", tmp_path / "t.txt", "--scores", scores, "--metric", "roc_auc")
    assert code == 0 and "columns read as the classes a, b, c (sorted)" in err
    code, _, err = run(capsys, "eval", "--y-true", tmp_path / "t.txt", "--scores", scores, "--metric", "roc_auc",
                       "--labels", "b", "a", "c")
    assert (code, err) == (0, "")


def test_multilabel_scores_give_ranking_and_curve_metrics(capsys, tmp_path):
    """``--multilabel --scores``: indicator rows beside one score per label, columns by position;
    a header line of the scores (or --labels) names the labels."""
    sklearn = pytest.importorskip("sklearn.metrics")
    truth = [[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 1], [1, 0, 0]]
    scores = [[0.9, 0.2, 0.4], [0.1, 0.8, 0.3], [0.7, 0.6, 0.2], [0.3, 0.2, 0.9], [0.2, 0.5, 0.6]]
    (tmp_path / "t.csv").write_text("\n".join(",".join(map(str, row)) for row in truth))
    (tmp_path / "s.csv").write_text("x,y,z\n" + "\n".join(",".join(map(str, row)) for row in scores))
    values = run_json(capsys, "eval", "--y-true", tmp_path / "t.csv", "--multilabel", "--scores", tmp_path / "s.csv",
                      "--metric", "lrap", "--metric", "roc_auc:none", "--metric", "roc_auc:micro")
    assert values["lrap"] == pytest.approx(sklearn.label_ranking_average_precision_score(truth, scores), rel=1e-12)
    assert values["roc_auc:none"] == pytest.approx(dict(zip("xyz", sklearn.roc_auc_score(truth, scores, average=None))),
                                                   rel=1e-12)
    assert values["roc_auc:micro"] == pytest.approx(sklearn.roc_auc_score(truth, scores, average="micro"), rel=1e-12)
    intervals = run_json(capsys, "eval", "--y-true", tmp_path / "t.csv", "--multilabel", "--scores", tmp_path / "s.csv",
                         "--metric", "ndcg", "--interval", "bootstrap", "--n-resamples", "200", "--random-state", "1")
    assert intervals["ndcg"]["lower"] <= intervals["ndcg"]["value"] <= intervals["ndcg"]["upper"]
    assert "are not --labels ['z', 'y', 'x'] in that order" in error(
        capsys, "eval", "--y-true", tmp_path / "t.csv", "--multilabel", "--scores", tmp_path / "s.csv", "--labels",
        "z", "y", "x", "--metric", "lrap")
    assert "log_loss is single-label" in error(
        capsys, "eval", "--y-true", tmp_path / "t.csv", "--multilabel", "--scores", tmp_path / "s.csv",
        "--metric", "log_loss")
    for given in (("--scores", tmp_path / "s.csv"), ("--y-pred", tmp_path / "t.csv")):  # scores and labels alike
        assert "--column: not used with --multilabel" in error(
            capsys, "eval", "--y-true", tmp_path / "t.csv", "--multilabel", *given, "--column", "1", "--metric", "lrap"
            if given[0] == "--scores" else "f1")
