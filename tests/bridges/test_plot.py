"""Tests for :mod:`metricc.bridges.plot` and ``metricc plot``: every plot renders to PNG, and its
axes, titles, ticks and drawn data say what the plot claims (no pixel goldens).

The preference-driven checks use Kozak et al. 2022's cm4 (precision 0.8333, recall 0.75,
Section 4.2, Table 3) rebuilt from the values the paper prints for Figure 2.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")

import metricc as mc  # noqa: E402
from metricc.bridges import plot  # noqa: E402
from metricc import cli  # noqa: E402
from metricc.core.errors import InputError  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
CM4 = [[10, 0], [5, 5]]  # recall 1 and 0.5, precision 2/3 and 1: every value of Figure 2 follows
CM8 = [[5, 5], [0, 10]]  # its opposite (Figure 3)
THREE = [[40, 7, 3], [8, 10, 2], [9, 1, 20]]
RNG = np.random.default_rng(7)
Y_BINARY = RNG.integers(0, 2, 60)
S_BINARY = np.clip(0.35 * Y_BINARY + RNG.random(60) * 0.65, 0, 1)
Y_THREE = np.array(["ant", "bee", "cow"])[RNG.integers(0, 3, 90)]
S_THREE = RNG.dirichlet([1, 1, 1], 90) + 0.6 * (Y_THREE[:, None] == np.array(["ant", "bee", "cow"]))


def png(figure, tmp_path: Path, name: str = "out.png") -> bytes:
    path = tmp_path / name
    plot.save(figure, str(path))
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG") and len(data) > 2000
    return data


def ticks(labels) -> list[str]:
    return [label.get_text() for label in labels]


def legend_texts(ax) -> list[str]:
    return [text.get_text() for text in ax.get_legend().get_texts()]


# --- the confusion matrix ---------------------------------------------------------------------

def test_confusion_matrix_names_classes_and_prints_counts_and_row_rates(tmp_path):
    figure = mc.plot.confusion_matrix([[9, 1, 0], [3, 6, 1], [0, 0, 0]], labels=["cat", "dog", "owl"])
    ax = figure.axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("predicted class", "true class")
    assert ticks(ax.get_xticklabels()) == ticks(ax.get_yticklabels()) == ["cat", "dog", "owl"]
    cells = [text.get_text() for text in ax.texts]
    assert cells[:6] == ["9\n90.0%", "1\n10.0%", "0\n0.0%", "3\n30.0%", "6\n60.0%", "1\n10.0%"]
    assert cells[6:] == ["0", "0", "0"]  # a class without samples has no rates
    assert "20 samples" in ax.get_title()
    assert "row-normalised" in figure.axes[1].get_ylabel()
    png(figure, tmp_path)


def test_confusion_matrix_from_labels_orders_classes_like_the_runtime(tmp_path):
    figure = plot.confusion_matrix(y_true=["b", "a", "b", "c"], y_pred=["b", "b", "b", "c"])
    assert ticks(figure.axes[0].get_xticklabels()) == ["a", "b", "c"]
    assert figure.axes[0].texts[1].get_text() == "1\n100.0%"  # the true a predicted as b
    png(figure, tmp_path)


def test_confusion_matrix_reads_the_transposed_convention_only_when_told():
    figure = plot.confusion_matrix([[5, 2], [1, 7]], orientation="pred-rows")
    assert [t.get_text().split("\n")[0] for t in figure.axes[0].texts] == ["5", "1", "2", "7"]


@pytest.mark.parametrize("kwargs, argument", [
    ({"matrix": [[1, 2], [3, 4]], "y_true": [0], "y_pred": [0]}, "input"),
    ({}, "input"),
    ({"matrix": [[[1, 0], [0, 1]]] * 2}, "matrix"),
    ({"matrix": [[1, -2], [3, 4]]}, "matrix"),
    ({"matrix": [[1, 2], [3, 4]], "labels": ["a"]}, "labels"),
    ({"y_true": [0, 1]}, "y_pred"),
])
def test_confusion_matrix_refuses_bad_input_naming_the_argument(kwargs, argument):
    with pytest.raises(InputError) as error:
        plot.confusion_matrix(**kwargs)
    assert error.value.argument == argument


# --- the preference-driven solution space -----------------------------------------------------

def _surface(ax) -> np.ndarray:
    """The heatmap's values as drawn, ``[i, j]`` at (kappa_1 = axis[i], kappa_2 = axis[j])."""
    return np.asarray(ax.collections[0].get_array()).reshape(11, 11).T


def test_two_classes_reproduce_kozak_figure_2(tmp_path):
    figure = plot.preference_space(CM4, labels=["c1", "c2"])
    ax = figure.axes[0]
    surface = _surface(ax)
    for (k1, k2), printed in {(1, 3): 0.8083, (1, 8): 0.9333, (4, 4): 0.7833, (9, 1): 0.6250, (9, 8): 0.8000,
                              (10, 0): 0.5833, (0, 10): 1.0}.items():
        assert surface[k1, k2] == pytest.approx(printed, abs=5e-5)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("κ₁ (c1)", "κ₂ (c2)")
    assert ax.get_title() == "precision 0.8333 · recall 0.7500 · F1 0.7895"  # Table 3, cm4
    assert [text.get_text().split(":")[0] for text in figure.legends[0].get_texts()] == [
        "macro precision", "macro recall", "F1 of macro precision and recall (Eq. 23)"]
    marks = {line.get_label(): line.get_xydata().tolist() for line in ax.lines}
    assert marks == {"precision = 0.8333": [[1.0, 1.0]], "recall = 0.7500": [[0.0, 0.0]]}
    assert "preference-driven" in figure.axes[-1].get_ylabel()  # the colour bar
    png(figure, tmp_path)


def test_several_matrices_share_one_colour_scale_one_panel_each(tmp_path):
    figure = plot.preference_space([CM4, CM8], names=["cm4", "cm8"])
    panels = figure.axes[:2]
    assert [ax.get_title().split("\n")[0] for ax in panels] == ["cm4", "cm8"]
    assert np.allclose(_surface(panels[1]), _surface(panels[0]).T)  # the opposite matrix mirrors the space
    for ax, printed in zip(panels, ([0.8500, 0.7000, 0.7917], [0.7250, 0.9083, 0.7917])):  # Table 3
        assert [_surface(ax)[k1, k2] for k1, k2 in ((3, 6), (9, 4), (5, 5))] == pytest.approx(printed, abs=5e-5)
    assert panels[0].collections[0].norm.vmin == panels[1].collections[0].norm.vmin == pytest.approx(0.5833, abs=1e-4)
    png(figure, tmp_path)


def test_three_classes_show_kappa_3_slices_with_precision_and_recall_in_the_corners(tmp_path):
    figure = plot.preference_space(THREE, labels=["a", "b", "c"])
    panels = [ax for ax in figure.axes if ax.get_title()]
    assert [ax.get_title() for ax in panels] == ["κ₃ (c) = 0", "κ₃ (c) = 0.5", "κ₃ (c) = 1"]
    precision = float(mc.evaluate("precision", matrix=THREE, average="macro")["precision"])
    recall = float(mc.evaluate("recall", matrix=THREE, average="macro")["recall"])
    assert [line.get_label() for line in panels[0].lines] == [f"recall = {recall:.4f}"]
    assert figure.subfigs[0]._suptitle.get_text().startswith(f"precision {precision:.4f} · recall {recall:.4f} · F1 ")
    assert [line.get_label() for line in panels[2].lines] == [f"precision = {precision:.4f}"]
    assert _surface(panels[2])[10, 10] == pytest.approx(precision)
    assert _surface(panels[0])[0, 0] == pytest.approx(recall)
    chosen = plot.preference_space(THREE, slices=[0.3])
    assert [ax.get_title() for ax in chosen.axes if ax.get_title()] == ["κ₃ (class 2) = 0.3"]
    png(figure, tmp_path)


def test_four_classes_give_the_histogram_of_every_value(tmp_path):
    matrix = [[5, 1, 0, 0], [1, 6, 1, 0], [0, 2, 7, 1], [1, 0, 0, 9]]
    figure = plot.preference_space(matrix, values=[0, 0.5, 1])
    ax = figure.axes[0]
    assert sum(patch.get_height() for patch in ax.patches) == 3 ** 4
    assert ax.get_ylabel() == "preference vectors (of 81)"
    assert [text.split(" =")[0] for text in legend_texts(ax)] == ["precision", "recall", "F1"]
    png(figure, tmp_path)


@pytest.mark.parametrize("kwargs, argument", [
    ({"matrix": CM4, "values": [0, 0.5, 2]}, "values"),
    ({"matrix": CM4, "values": [0.5, 0.1]}, "values"),
    ({"matrix": THREE, "slices": [0.25]}, "slices"),
    ({"matrix": [[3]]}, "matrix"),
    ({"matrix": [CM4, CM8], "names": ["one"]}, "names"),
    ({"matrix": [[[CM4]]]}, "matrix"),
])
def test_preference_space_refuses_bad_input(kwargs, argument):
    with pytest.raises(InputError) as error:
        plot.preference_space(**kwargs)
    assert error.value.argument == argument


# --- threshold, ROC and precision-recall ------------------------------------------------------

def test_metrics_against_the_threshold_mark_the_best_threshold(tmp_path):
    figure = plot.threshold(["mcc", "f1"], Y_BINARY, S_BINARY)
    ax = figure.axes[0]
    cuts = np.unique(S_BINARY)
    by_hand = {name: np.array([float(mc.evaluate(name, y_true=Y_BINARY, y_pred=(S_BINARY >= t).astype(int),
                                                 labels=[0, 1], average="binary", pos_label=1)[name])
                               for t in cuts]) for name in ("mcc", "f1")}
    steps = [line for line in ax.lines if line.get_marker() != "*"]
    stars = [line for line in ax.lines if line.get_marker() == "*"]
    for name, line, star in zip(("mcc", "f1"), steps, stars):
        assert np.allclose(line.get_ydata(), by_hand[name], equal_nan=True)
        best = np.nanmax(by_hand[name])
        assert star.get_ydata()[0] == pytest.approx(best)
        assert by_hand[name][np.searchsorted(cuts, star.get_xdata()[0])] == pytest.approx(best)
    assert ax.get_xlabel().startswith("decision threshold")
    assert any(text.startswith("best mcc = ") for text in legend_texts(ax))
    png(figure, tmp_path)


def test_a_loss_marks_its_smallest_value_and_multi_class_needs_the_positive_class(tmp_path):
    figure = plot.threshold("error_rate", Y_THREE, S_THREE, pos_label="bee")
    star = next(line for line in figure.axes[0].lines if line.get_marker() == "*")
    curve = next(line for line in figure.axes[0].lines if line.get_marker() != "*")
    assert star.get_ydata()[0] == pytest.approx(np.nanmin(curve.get_ydata()))
    assert "positive class bee" in figure.axes[0].get_title()
    with pytest.raises(InputError) as error:
        plot.threshold("f1", Y_THREE, S_THREE)
    assert error.value.argument == "pos_label"
    png(figure, tmp_path)


@pytest.mark.parametrize("kwargs, argument", [
    ({"metrics": "roc_auc"}, "metrics"),
    ({"metrics": []}, "metrics"),
    ({"metrics": "f1", "pos_label": "yak"}, "pos_label"),
    ({"metrics": "f1", "scores": S_THREE[:10]}, "y_true"),
    ({"metrics": "no_such_metric"}, "metric"),
    ({"metrics": "f1", "params": {"bta": 2}}, "params"),
])
def test_threshold_refuses_bad_input(kwargs, argument):
    arguments = {"y_true": Y_THREE, "scores": S_THREE, "pos_label": "ant", **kwargs}
    with pytest.raises(InputError) as error:
        plot.threshold(arguments.pop("metrics"), arguments.pop("y_true"), arguments.pop("scores"), **arguments)
    assert error.value.argument == argument


def test_roc_draws_each_class_and_the_pooled_curve_with_their_areas(tmp_path):
    figure = plot.roc(Y_THREE, S_THREE)
    ax = figure.axes[0]
    auc = mc.evaluate("roc_auc", y_true=Y_THREE, scores=S_THREE, average="none")["roc_auc"]
    texts = legend_texts(ax)
    assert texts[:3] == [f"class {c} (AUC = {a:.4f})" for c, a in zip(["ant", "bee", "cow"], auc)]
    assert texts[3].startswith("micro, pooled (AUC = ") and texts[4] == "chance"
    for line in ax.lines[:4]:
        x, y = line.get_xdata(), line.get_ydata()
        assert (x[0], y[0], x[-1], y[-1]) == (0.0, 0.0, 1.0, 1.0)
        assert np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2) == pytest.approx(float(texts[ax.lines.index(line)].split("= ")[1][:-1]), abs=5e-5)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("false positive rate", "true positive rate")
    png(figure, tmp_path)


def test_two_classes_draw_the_positive_class_only(tmp_path):
    figure = plot.roc(Y_BINARY, S_BINARY)
    auc = float(mc.evaluate("roc_auc", y_true=Y_BINARY, scores=S_BINARY, average="binary")["roc_auc"])
    assert legend_texts(figure.axes[0]) == [f"class 1 (AUC = {auc:.4f})", "chance"]
    png(figure, tmp_path)


def test_precision_recall_steps_give_the_average_precision(tmp_path):
    figure = plot.precision_recall(Y_THREE, S_THREE, labels=["ant", "bee", "cow"])
    ax = figure.axes[0]
    ap = mc.evaluate("average_precision", y_true=Y_THREE, scores=S_THREE, average="none")["average_precision"]
    for line, expected in zip(ax.lines, ap):
        recall, precision = line.get_xdata(), line.get_ydata()
        assert np.sum(np.diff(np.r_[0.0, recall]) * precision) == pytest.approx(expected)
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_title()) == ("recall", "precision", "Precision-recall curve")
    png(figure, tmp_path)


# --- rankings -------------------------------------------------------------------------------

CLASSIFIERS = [[[40, 7, 3], [8, 10, 2], [9, 1, 20]], [[45, 3, 2], [15, 3, 2], [10, 1, 19]],
               [[30, 10, 10], [2, 16, 2], [4, 4, 22]]]


def test_rankings_rank_each_metric_by_its_direction(tmp_path):
    metrics = ["accuracy", "balanced_accuracy", "error_rate"]
    figure = plot.rankings(CLASSIFIERS, metrics, names=["tree", "bayes", "svm"])
    ax = figure.axes[0]
    values = mc.evaluate(metrics, matrix=CLASSIFIERS)
    lines = {line.get_label(): line.get_ydata() for line in ax.lines}
    assert set(lines) == {"tree", "bayes", "svm"}
    for column, name in enumerate(metrics):
        order = np.argsort(values[name] if name == "error_rate" else -values[name], kind="stable")
        assert [lines[["tree", "bayes", "svm"][b]][column] for b in order] == [1, 2, 3]
    assert ticks(ax.get_xticklabels()) == metrics
    assert ax.get_ylim() == (3.5, 0.5)  # rank 1 on top
    assert ax.get_ylabel() == "rank (1 = best)"
    png(figure, tmp_path)


def test_ties_share_a_rank_and_undefined_values_get_none():
    from metricc.bridges.plot.rankings import rank

    assert rank([0.5, 0.9, 0.5, float("nan")]).tolist()[:3] == [2.0, 1.0, 2.0]
    assert rank([0.1, 0.3, 0.2], higher_is_better=False).tolist() == [1.0, 3.0, 2.0]
    figure = plot.rankings([[[5, 0], [0, 5]], [[5, 0], [0, 5]], [[0, 5], [0, 5]]], ["precision", "f1"])
    precision = figure.axes[0].lines[2].get_ydata()[0]  # class 0 never predicted: NaN, no rank
    assert np.isnan(precision)
    tied = [line.get_ydata()[1] for line in figure.axes[0].lines]
    assert np.round(tied).tolist() == [1, 1, 3] and tied[0] != tied[1]  # pulled apart, both visible
    assert ticks(figure.axes[0].get_xticklabels()) == ["precision\n(1 undefined)", "f1"]
    assert [text.get_text() for text in figure.axes[0].texts].count("1.000") == 1 + 1  # one label per tie


@pytest.mark.parametrize("args, kwargs, argument", [
    ([CLASSIFIERS[:1], ["f1", "mcc"]], {}, "matrices"),
    ([CLASSIFIERS, ["f1"]], {}, "metrics"),
    ([CLASSIFIERS, ["f1", "roc_auc"]], {}, "metrics"),
    ([CLASSIFIERS, ["f1", "mcc"]], {"average": "none"}, "average"),
    ([CLASSIFIERS, ["f1", "mcc"]], {"names": ["a", "b"]}, "names"),
    ([CLASSIFIERS, ["f1", "f_beta"]], {"params": {"beta": 0}}, "beta"),
])
def test_rankings_refuse_bad_input(args, kwargs, argument):
    with pytest.raises(InputError) as error:
        plot.rankings(*args, **kwargs)
    assert error.value.argument == argument


# --- figures, files and the command line ----------------------------------------------------

def test_every_call_makes_a_new_figure_without_pyplot(tmp_path):
    first, second = plot.confusion_matrix(CM4), plot.confusion_matrix(CM8)
    assert first is not second and len(first.axes) == len(second.axes) == 2
    assert type(first.canvas).__name__ == "FigureCanvasAgg"
    svg = tmp_path / "m.svg"
    plot.save(first, str(svg))
    assert svg.read_text().lstrip().startswith("<?xml") and "<svg" in svg.read_text()
    with pytest.raises(InputError, match="png or .svg"):
        plot.save(first, str(tmp_path / "m.pdf"))


def _cli(capsys, *argv) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("suffix, magic", [("png", b"\x89PNG"), ("svg", b"<?xml")])
def test_the_command_writes_png_and_svg(capsys, tmp_path, suffix, magic):
    y_true, scores = tmp_path / "y.txt", tmp_path / "s.csv"
    y_true.write_text("\n".join(map(str, Y_BINARY)))
    scores.write_text("\n".join(f"{s:.6f}" for s in S_BINARY))
    runs = {
        "confusion-matrix": ["--matrix", str(CM4), "--labels", "yes", "no"],
        "preference-space": ["--matrix", str(CM4), "--matrix", str(CM8), "--names", "cm4", "cm8", "--values", "0:1:6"],
        "threshold": ["--y-true", y_true, "--scores", scores, "--metric", "mcc", "--metric", "f_beta", "--param", "beta=2"],
        "roc": ["--y-true", y_true, "--scores", scores],
        "precision-recall": ["--y-true", y_true, "--scores", scores],
        "rankings": ["--matrix", str(CLASSIFIERS), "--names", "a", "b", "c", "--metric", "f1", "--metric", "mcc"],
    }
    for kind, arguments in runs.items():
        out_file = tmp_path / f"{kind}.{suffix}"
        code, out, err = _cli(capsys, "plot", kind, *arguments, "-o", out_file)
        assert (code, err) == (0, ""), kind
        assert out.strip() == str(out_file)
        assert out_file.read_bytes().startswith(magic) and out_file.stat().st_size > 2000, kind


@pytest.mark.parametrize("argv, message", [
    (["confusion-matrix", "--matrix", "[[1, 2], [3, 4]]", "-o", "x.pdf"], "--output: 'x.pdf': name the file .png or .svg"),
    (["confusion-matrix", "--matrix", "[[1, -2], [3, 4]]", "-o", "x.png"], "--matrix: contains negative entries"),
    (["preference-space", "--matrix", "[[1, 2], [3, 4]]", "--values", "0:2:3", "-o", "x.png"], "--values: expected"),
    (["rankings", "--matrix", "[[1, 2], [3, 4]]", "--matrix", "[[2, 2], [3, 3]]", "--metric", "f1",
      "--metric", "f_beta", "--param", "beta=-1", "-o", "x.png"], "--param beta: must satisfy beta > 0"),
    (["rankings", "--matrix", "[[1, 2], [3, 4]]", "--matrix", "[[2, 2], [3, 3]]", "--metric", "f1",
      "--metric", "mcc", "--names", "one", "-o", "x.png"], "--names: expected 2 names"),
])
def test_the_command_reports_bad_input_under_its_option(capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    code, out, err = _cli(capsys, "plot", *argv)
    assert code == 2 and out == ""
    assert err.startswith(f"metricc: error: {message}"), err
    assert not list(tmp_path.iterdir())


def test_the_command_without_a_kind_prints_its_help(capsys):
    code, out, err = _cli(capsys, "plot")
    assert code == 2 and "confusion-matrix" in err and "rankings" in err


def test_without_matplotlib_the_command_says_what_to_install(tmp_path):
    script = ("import sys; sys.modules['matplotlib'] = None\n"
              "from metricc.cli.app import main\n"
              "sys.exit(main(['plot', 'roc', '--y-true', '[0, 1]', '--scores', '[0.2, 0.7]', '-o', 'r.png']))")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert result.returncode == 2
    assert result.stderr.strip() == "metricc: error: plot: metricc's plots need matplotlib: pip install 'metricc[plot]'"


@pytest.mark.parametrize("name", ["metricc.bridges.plot", "metricc.bridges.plot.rankings"])
def test_docstring_examples(name):
    """The runtime's doctest walk does not reach the bridges (they need the extra): run them here."""
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


GUIDE_PLOTS = REPO / "docs" / "guide" / "plots.md"


def _shown(image: str) -> str:
    """The guide page's link to an image its command writes from the repository root."""
    return f"]({os.path.relpath(REPO / image, GUIDE_PLOTS.parent)})"


def test_the_guide_examples_run(tmp_path, monkeypatch, capsys):
    """The plots page's Python block and the command that made its image both work as printed."""
    import shlex

    section = GUIDE_PLOTS.read_text(encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    exec(section.split("```python\n", 1)[1].split("```", 1)[0], {})  # noqa: S102 - the guide's own example
    assert sorted(p.name for p in tmp_path.iterdir()) == ["matrix.svg", "preference_space.png", "rankings.png",
                                                          "reliability.png", "threshold.png"]
    blocks = [block.split("```", 1)[0] for block in section.split("```sh\n")[1:]]
    [command] = [shlex.split(b) for b in blocks if "-o " in b and _shown(shlex.split(b)[shlex.split(b).index("-o") + 1]) in section]
    image = command[command.index("-o") + 1]
    assert (REPO / image).is_file() and _shown(image) in section
    command[command.index("-o") + 1] = str(tmp_path / "image.png")
    assert command[0] == "metricc" and cli.main(command[1:]) == 0
    assert (tmp_path / "image.png").read_bytes().startswith(b"\x89PNG")


def test_the_command_draws_a_matrix_from_label_files(capsys, tmp_path):
    (tmp_path / "t.txt").write_text("cat\ndog\ndog\nowl\n")
    (tmp_path / "p.txt").write_text("cat\ncat\ndog\nowl\n")
    out_file = tmp_path / "m.png"
    code, _, err = _cli(capsys, "plot", "confusion-matrix", "--y-true", tmp_path / "t.txt",
                        "--y-pred", tmp_path / "p.txt", "-o", out_file)
    assert (code, err) == (0, "") and out_file.read_bytes().startswith(b"\x89PNG")
    code, _, err = _cli(capsys, "plot", "confusion-matrix", "--y-true", tmp_path / "t.txt", "-o", out_file)
    assert code == 2 and err.startswith("metricc: error: --y-pred: ")


# --- issue 25: names, legends, reliability and DET ---------------------------------------------

def test_scores_of_a_dataframe_are_matched_by_column_name():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(S_THREE, columns=["ant", "bee", "cow"])[["cow", "ant", "bee"]]
    for draw in (plot.roc, plot.precision_recall, plot.det):
        shuffled = legend_texts(draw(Y_THREE, frame).axes[0])
        assert shuffled == legend_texts(draw(Y_THREE, S_THREE).axes[0])
    threshold = plot.threshold("accuracy", Y_THREE, frame, pos_label="cow")
    assert legend_texts(threshold.axes[0]) == legend_texts(plot.threshold("accuracy", Y_THREE, S_THREE,
                                                                          pos_label="cow").axes[0])


def test_the_roc_legend_is_beside_the_curves(tmp_path):
    figure = plot.roc(Y_THREE, S_THREE)
    figure.canvas.draw()
    ax = figure.axes[0]
    assert ax.get_legend().get_window_extent().x0 >= ax.get_window_extent().x1  # never over the curves


def test_rankings_name_each_classifier_once():
    figure = plot.rankings(CLASSIFIERS, ["accuracy", "f1"], names=["tree", "bayes", "svm"])
    ax = figure.axes[0]
    assert ax.get_legend() is None
    named = [text.get_text() for text in ax.texts if text.get_text() in ("tree", "bayes", "svm")]
    assert sorted(named) == ["bayes", "svm", "tree"]


def test_reliability_bins_are_the_catalogs():
    from metricc.bridges.plot.calibration import bin_statistics

    probabilities = S_THREE / S_THREE.sum(axis=1, keepdims=True)
    for bins in (5, 15):
        stats = bin_statistics(Y_THREE, probabilities, bins=bins)
        share = stats["count"] / stats["count"].sum()
        gaps = np.abs(stats["accuracy"] - stats["confidence"])
        catalog = mc.evaluate(["calibration_error", "max_calibration_error"], y_true=Y_THREE, scores=probabilities,
                              params={"bins": bins})
        assert (share * gaps).sum() == pytest.approx(float(catalog["calibration_error"]), abs=1e-12)
        assert gaps.max() == pytest.approx(float(catalog["max_calibration_error"]), abs=1e-12)
        figure = plot.reliability(Y_THREE, probabilities, bins=bins)
        assert f"ECE = {float(catalog['calibration_error']):.4f}" in figure.axes[0].get_title()
    with pytest.raises(InputError, match="^bins: "):
        plot.reliability(Y_THREE, probabilities, bins=0)


def test_det_marks_the_equal_error_rate(tmp_path):
    figure = plot.det(Y_BINARY, S_BINARY)
    eer = float(mc.evaluate("equal_error_rate", y_true=Y_BINARY, scores=S_BINARY, average="binary")["equal_error_rate"])
    assert legend_texts(figure.axes[0])[0] == f"class 1 (EER = {eer:.4f})"
    assert "normal deviate" in figure.axes[0].get_xlabel()
    png(figure, tmp_path)


def test_labels_with_math_markup_draw_literally(tmp_path):
    labels = np.where(Y_BINARY == 1, "$x^{$", "b")
    for figure in (plot.roc(labels, S_BINARY, labels=["b", "$x^{$"]),
                   plot.confusion_matrix(y_true=labels, y_pred=labels)):
        png(figure, tmp_path)  # drawing fails on unescaped math


@pytest.mark.parametrize("kind", ["det", "reliability"])
def test_new_kinds_on_the_command_line(kind, tmp_path, capsys):
    (tmp_path / "y.txt").write_text("".join(f"{v}\n" for v in Y_THREE))
    probabilities = S_THREE / S_THREE.sum(axis=1, keepdims=True)
    (tmp_path / "s.csv").write_text("bee,cow,ant\n" + "".join(f"{r[1]!r},{r[2]!r},{r[0]!r}\n"
                                                              for r in probabilities.tolist()))
    code = cli.main(["plot", kind, "--y-true", str(tmp_path / "y.txt"), "--scores", str(tmp_path / "s.csv"),
                     "-o", str(tmp_path / "k.png")])
    assert code == 0, capsys.readouterr().err
    assert (tmp_path / "k.png").read_bytes().startswith(b"\x89PNG")
