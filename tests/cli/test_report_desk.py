"""``report`` and ``metricc report`` with intervals, scores and parameterised headers (issue 25's desk)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import metricc as mc
from metricc import cli

Y_TRUE = [0, 1, 1, 0, 1, 2, 2, 0, 1, 2]
Y_PRED = [0, 1, 0, 0, 1, 2, 1, 0, 1, 2]
SCORES = np.random.default_rng(0).dirichlet([1, 1, 1], 10)


def test_a_parameterised_column_is_headed_with_its_parameters():
    r = mc.report(["f_beta", "recall", "accuracy"], y_true=Y_TRUE, y_pred=Y_PRED, params={"beta": 2})
    assert r.class_metrics == ["f_beta(beta=2)", "recall"]
    expected = mc.evaluate("f_beta", y_true=Y_TRUE, y_pred=Y_PRED, average="none", params={"beta": 2})["f_beta"]
    assert r.per_class["f_beta(beta=2)"].tolist() == pytest.approx(expected.tolist())
    assert r.to_text().splitlines()[0].split()[:2] == ["f_beta(beta=2)", "recall"]


@pytest.mark.parametrize("fmt", ["text", "markdown", "csv", "json", "latex", "html"])
def test_every_format_shows_the_intervals(fmt):
    r = mc.report(["recall", "accuracy"], y_true=Y_TRUE, y_pred=Y_PRED, interval="delta")
    delta = mc.evaluate("recall", y_true=Y_TRUE, y_pred=Y_PRED, average="macro", interval="delta")["recall"]
    lower, upper = r.intervals[("average", "macro", "recall")]
    assert (float(lower), float(upper)) == pytest.approx((float(delta.lower), float(delta.upper)))
    out = {"text": r.to_text, "markdown": r.to_markdown, "latex": r.to_latex, "html": r.to_html}.get(fmt)
    shown = out(4) if out else r.to_csv() if fmt == "csv" else r.to_json()
    if fmt == "csv":
        assert shown.splitlines()[0] == "section,row,column,value,lower,upper"
        assert f"average,macro,recall,{delta.value!r},{float(delta.lower)!r},{float(delta.upper)!r}" in shown
    elif fmt == "json":
        data = json.loads(shown)["intervals"]
        assert data["averages"]["macro"]["recall"] == pytest.approx([float(delta.lower), float(delta.upper)])
        assert data["method"] == "delta" and data["per_class"]["0"]["recall"] is not None
    else:
        assert f"{float(delta.value):.4f} [{float(delta.lower):.4f}, {float(delta.upper):.4f}]" in shown
        assert ("95\\% confidence" if fmt == "latex" else "95% confidence interval (delta)") in shown


def test_an_interval_method_applies_where_it_applies():
    r = mc.report(["recall", "f1", "accuracy"], y_true=Y_TRUE, y_pred=Y_PRED, interval="wilson")
    assert ("class", "recall") in r.intervals and ("overall", "accuracy") in r.intervals
    assert "f1" in r.no_interval and "recall (macro avg)" in r.no_interval
    assert "none for" in r.to_text() and "f1: wilson does not apply" in r.to_text()


def test_scores_add_curve_and_score_rows():
    frame = pd.DataFrame(SCORES, columns=[0, 1, 2])[[2, 0, 1]]  # named columns, any order
    r = mc.report(y_true=Y_TRUE, y_pred=Y_PRED, scores=frame)
    expected = mc.evaluate(["roc_auc", "average_precision", "log_loss", "calibration_error"], y_true=Y_TRUE,
                           scores=SCORES)
    assert {k: r.overall[k] for k in expected} == pytest.approx({k: float(v) for k, v in expected.items()})
    with pytest.raises(mc.InputError, match="needs scores"):
        mc.report(["roc_auc"], y_true=Y_TRUE, y_pred=Y_PRED)


def test_metricc_report_with_scores_interval_and_params(capsys, tmp_path):
    for name, values in (("t.txt", Y_TRUE), ("p.txt", Y_PRED)):
        (tmp_path / name).write_text("".join(f"{v}\n" for v in values))
    (tmp_path / "s.csv").write_text("2,0,1\n" + "".join(",".join(repr(float(x)) for x in row[[2, 0, 1]]) + "\n"
                                                        for row in SCORES))
    code = cli.main(["report", "--y-true", str(tmp_path / "t.txt"), "--y-pred", str(tmp_path / "p.txt"),
                     "--scores", str(tmp_path / "s.csv"), "--metric", "f_beta", "--metric", "accuracy",
                     "--metric", "roc_auc", "--param", "beta=2", "--interval", "bootstrap", "--random-state", "3",
                     "--n-resamples", "100", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    assert "f_beta(beta=2)" in data["per_class"]["0"]
    assert data["overall"]["roc_auc"] == pytest.approx(float(mc.evaluate("roc_auc", y_true=Y_TRUE, scores=SCORES)["roc_auc"]))
    assert data["intervals"]["overall"]["roc_auc"] is not None and data["intervals"]["method"] == "bootstrap"
