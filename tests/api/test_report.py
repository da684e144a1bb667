"""``report``: the numbers match ``evaluate`` and scikit-learn's ``classification_report``; every
format names the classes; per-class values carry labels; pandas only when asked for."""

from __future__ import annotations

import csv
import io
import json
import math
import pickle
import subprocess
import sys

import numpy as np
import pytest

import metricc as mc
from metricc.api import InputError

Y_TRUE = ["cat", "dog", "cat", "bird", "dog", "dog"]
Y_PRED = ["cat", "cat", "cat", "bird", "dog", "bird"]


def test_numbers_agree_with_sklearn_classification_report():
    metrics = pytest.importorskip("sklearn.metrics")
    r = mc.report(y_true=Y_TRUE, y_pred=Y_PRED, zero_division=0.0)
    expected = metrics.classification_report(Y_TRUE, Y_PRED, output_dict=True, zero_division=0.0)
    for k, label in enumerate(r.labels):
        assert r.per_class["precision"][k] == pytest.approx(expected[label]["precision"])
        assert r.per_class["f1"][k] == pytest.approx(expected[label]["f1-score"])
        assert r.support[k] == expected[label]["support"]
    for mode in ("macro", "weighted"):
        assert r.averages[mode]["recall"] == pytest.approx(expected[f"{mode} avg"]["recall"])
    assert r.overall["accuracy"] == pytest.approx(expected["accuracy"])
    assert r.matrix.tolist() == metrics.confusion_matrix(Y_TRUE, Y_PRED, labels=r.labels).tolist()


def test_metrics_split_into_columns_and_overall_rows():
    r = mc.report(["f_beta", "g_mean", "balanced_accuracy", "cen"], matrix=[[5, 1, 0], [2, 4, 1], [0, 1, 3]],
                  params={"beta": 2})
    assert r.class_metrics == ["f_beta(beta=2)", "g_mean"] and list(r.overall) == ["balanced_accuracy", "cen"]
    assert r.labels == [0, 1, 2]
    assert r.per_class["f_beta(beta=2)"][1] == pytest.approx(mc.evaluate(
        "f_beta", matrix=[[5, 1, 0], [2, 4, 1], [0, 1, 3]], params={"beta": 2}, average="none")["f_beta"][1])
    assert set(r.averages["micro"]) == {"f_beta(beta=2)", "g_mean"}


@pytest.mark.parametrize(("kwargs", "argument", "words"), [
    ({"metrics": ["roc_auc"], "matrix": [[1, 0], [0, 1]]}, "metrics", "needs scores"),
    ({"metrics": ["exact_match_ratio"], "matrix": [[1, 0], [0, 1]]}, "metrics", "multi-label"),
    ({"metrics": ["f1", "f1"], "matrix": [[1, 0], [0, 1]]}, "metrics", "twice"),
    ({"matrix": [[[1, 0], [0, 1]]] * 2}, "matrix", "one confusion matrix"),
    ({"y_true": ["a"]}, "y_pred", "go together"),
    ({"matrix": [[1, 0], [0, 1]], "labels": ["a"]}, "labels", "one label per class"),
    ({"matrix": [[1, 0], [0, 1]], "params": {"beta": 2}}, "params", "'beta'"),
])
def test_bad_requests_name_the_argument(kwargs, argument, words):
    with pytest.raises(InputError) as info:
        mc.report(**kwargs)
    assert info.value.argument == argument and words in info.value.message


def test_every_format_names_the_classes():
    r = mc.report(y_true=Y_TRUE, y_pred=Y_PRED, labels=["dog", "cat", "bird"])
    text = r.to_text()
    assert text.splitlines()[1].startswith("dog ") and "weighted avg" in text and "confusion matrix" in text
    assert "| dog | " in r.to_markdown() and "| true \\\\ predicted | dog | cat | bird |" in r.to_markdown()
    rows = list(csv.DictReader(io.StringIO(r.to_csv())))
    assert {"section": "matrix", "row": "dog", "column": "bird", "value": "1"} in rows
    assert {"section": "class", "row": "cat", "column": "support", "value": "2"} in rows
    data = json.loads(r.to_json())
    assert list(data["per_class"]) == ["dog", "cat", "bird"] and data["confusion_matrix"]["dog"]["cat"] == 1
    assert data["overall"]["accuracy"] == pytest.approx(4 / 6)
    latex = r.to_latex()
    assert latex.count(r"\begin{tabular}") == 2 and "cohen\\_kappa" in latex and "weighted avg &" in latex
    page = r.to_html()
    assert page.startswith("<!DOCTYPE html>") and "<script" not in page and "http" not in page
    assert '<th scope="row">dog</th>' in page


def test_a_report_is_a_document_of_the_one_format_table():
    """``Report.to`` and ``report --format`` read :data:`metricc.api.formats.FORMATS`; the
    report keeps its own text, Markdown, CSV and LaTeX layouts, JSON and HTML are the table's."""
    from metricc.api.formats import FORMATS, render

    r = mc.report(y_true=Y_TRUE, y_pred=Y_PRED)
    assert list(FORMATS) == ["text", "markdown", "csv", "json", "latex", "html"]
    assert r.to("markdown", 2) == r.to_markdown(2) and r.to("json") == r.to_json() and r.to("csv") == r.to_csv()
    assert r.to("html", 3) == r.to_html(3) == render(r, "html", 3)
    assert r.to("latex") == r.to_latex() and r.to("text", 3) == r.to_text(3)
    with pytest.raises(ValueError, match="unknown format 'docx'"):
        r.to("docx")


def test_special_characters_are_escaped():
    r = mc.report(matrix=[[1, 1], [0, 2]], labels=["a&b", "<c>_|"])
    assert r"a\&b" in r.to_latex() and r"<c>\_|" in r.to_latex()
    assert "a&amp;b" in r.to_html() and "&lt;c&gt;_|" in r.to_html()
    assert r"<c>_\|" in r.to_markdown()


def test_weighted_matrices_keep_their_decimals():
    r = mc.report(matrix=[[2.5, 0.5], [1.0, 3.0]])
    assert r.support.tolist() == [3.0, 4.0] and "2.5000" in r.to_text()
    assert json.loads(r.to_json())["confusion_matrix"]["0"] == {"0": 2.5, "1": 0.5}


def test_to_frame_when_pandas_is_installed():
    pytest.importorskip("pandas")
    frame = mc.report(y_true=Y_TRUE, y_pred=Y_PRED).to_frame()
    assert list(frame.index) == ["bird", "cat", "dog", "micro avg", "macro avg", "weighted avg"]
    assert list(frame.columns) == ["precision", "recall", "f1", "support"]
    assert frame.loc["dog", "support"] == 3 and frame["support"].dtype == np.int64


def test_to_frame_without_pandas_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r'pip install "metricc\[pandas\]"'):
        mc.report(matrix=[[1, 0], [0, 1]]).to_frame()


# ---------------------------------------------------------------- per-class labels and pandas input

def test_per_class_values_carry_their_labels():
    values = mc.evaluate(["recall", "accuracy"], y_true=Y_TRUE, y_pred=Y_PRED, average="none")
    recall = values["recall"]
    assert isinstance(recall, mc.ClassValues) and recall.labels == ["bird", "cat", "dog"]
    assert recall.to_dict() == {"bird": 1.0, "cat": 1.0, "dog": pytest.approx(1 / 3)}
    assert recall.tolist() == pytest.approx([1.0, 1.0, 1 / 3]) and recall[2] == pytest.approx(1 / 3)
    assert type(recall[::-1]) is np.ndarray and type(recall.mean()) is np.float64
    assert pickle.loads(pickle.dumps(recall)).labels == recall.labels
    assert not isinstance(values["accuracy"], mc.ClassValues)
    batch = mc.evaluate("precision", matrix=[[[5, 1], [2, 4]], [[3, 3], [0, 6]]], average="none")["precision"]
    assert batch.labels == [0, 1] and batch.to_dict() == {0: [5 / 7, 1.0], 1: [0.8, 2 / 3]}
    assert type(batch[0]) is mc.ClassValues and batch[0].labels == [0, 1]


def test_a_batch_of_matrices_with_as_many_matrices_as_classes_is_not_mistaken_for_classes():
    values = mc.evaluate("mcc", matrix=[[[5, 1], [2, 4]], [[3, 3], [0, 6]]])["mcc"]
    assert not isinstance(values, mc.ClassValues)


def test_pandas_series_and_categoricals():
    pd = pytest.importorskip("pandas")
    y_true = pd.Series(pd.Categorical(["lo", "hi", "mid", "hi"], categories=["lo", "mid", "hi"]))
    y_pred = pd.Series(pd.Categorical(["lo", "mid", "mid", "hi"], categories=["lo", "mid", "hi"]))
    recall = mc.evaluate("recall", y_true=y_true, y_pred=y_pred, average="none")["recall"]
    assert recall.labels == ["lo", "mid", "hi"] and recall.tolist() == [1.0, 1.0, 0.5]
    assert mc.report(y_true=y_true, y_pred=y_pred).labels == ["lo", "mid", "hi"]
    plain = mc.evaluate("f1", y_true=pd.Series([0, 1, 1]), y_pred=np.array([0, 1, 0]))
    assert plain["f1"] == pytest.approx(mc.evaluate("f1", y_true=[0, 1, 1], y_pred=[0, 1, 0])["f1"])
    with pytest.raises(InputError, match="y_true: .* at index 1 is not a label"):
        mc.evaluate("f1", y_true=pd.Series(["a", pd.NA]), y_pred=["a", "b"])


def test_the_runtime_never_imports_pandas_for_lists_and_arrays():
    code = ("import sys, numpy as np, metricc.api as mc; "
            "mc.evaluate('f1', y_true=[0, 1], y_pred=np.array([0, 0]), average='none'); "
            "str(mc.report(y_true=['a', 'b'], y_pred=['a', 'a'])); "
            "assert 'pandas' not in sys.modules, 'pandas imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_weighted_matrices_and_counts_are_accepted_everywhere():
    weighted = mc.confusion_matrix([0, 1, 1, 2], [0, 1, 2, 2], sample_weight=[0.5, 1.5, 1.0, 2.0])
    values = mc.evaluate(["f1", "mcc", "g_mean", "balanced_accuracy"], matrix=weighted, average="macro")
    assert all(0 < v <= 1 for v in values.values())
    counts = mc.counts_from_matrix(weighted)
    assert mc.evaluate("f1", counts=counts, average="macro")["f1"] == pytest.approx(values["f1"])
    with pytest.raises(InputError, match="g_mean averages 'binary' by default"):
        mc.evaluate("g_mean", matrix=weighted)
    assert math.isfinite(mc.evaluate("g_mean", matrix=weighted, pos_label=2)["g_mean"])
