"""The differential test of issue 25: the same data in every container and column order gives
the same numbers through every command and API entry.

A seeded generator draws, for each case, a container for the labels and one for the scores
(list, numpy, numpy ``(n, 1)``, pandas Series / DataFrame / Categorical, torch tensor; on the
command line text, CSV with and without header, TSV, JSON and ``.npy`` files) and a random
order of the score columns (named wherever the container has names, in class order where it
has none). Each case goes through ``evaluate``, ``report``, the accumulators, the Dask bridge, ``metricc eval``,
``metricc report`` and ``metricc plot roc``; every value must equal the reference (numpy
arrays, columns in sorted class order) within 1e-12.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from metricc import cli
from metricc.cli import app, plot as plot_command
from metricc.api import ConfusionAccumulator, ThresholdAccumulator, evaluate, report

LABEL_METRICS = ["accuracy", "f1:macro", "precision:weighted", "mcc", "recall:none"]
SCORE_METRICS = ["roc_auc:macro", "log_loss", "average_precision:macro", "roc_auc:none"]
CASES = 12


def _data(classes: list, seed: int):
    rng = np.random.default_rng(seed)
    y_true = rng.choice(classes, size=24)
    y_true[: len(classes)] = classes  # every class present
    y_pred = np.where(rng.random(24) < 0.7, y_true, rng.choice(classes, size=24))
    proba = rng.dirichlet(np.ones(len(classes)), size=24)
    proba[np.arange(24), np.searchsorted(classes, y_true)] += 0.5  # informative scores
    proba /= proba.sum(axis=1, keepdims=True)
    return y_true, y_pred, np.round(proba, 6) / np.round(proba, 6).sum(axis=1, keepdims=True)


DATASETS = {"strings": ["setosa", "versicolor", "virginica"], "integers": [0, 1, 2, 3]}


def _reference(name: str):
    classes = DATASETS[name]
    y_true, y_pred, proba = _data(classes, 7)
    values = evaluate(LABEL_METRICS, y_true=np.asarray(y_true), y_pred=np.asarray(y_pred))
    values.update(evaluate(SCORE_METRICS, y_true=np.asarray(y_true), scores=proba))
    return classes, y_true, y_pred, proba, values


# ---------------------------------------------------------------- containers in memory

def _labels_in(kind: str, values: np.ndarray, categories: list):
    torch = pytest.importorskip("torch") if kind == "torch" else None
    return {"list": lambda: values.tolist(), "numpy": lambda: values, "column": lambda: values.reshape(-1, 1),
            "series": lambda: pd.Series(values), "categorical": lambda: pd.Categorical(values, categories=categories),
            "frame": lambda: pd.DataFrame({"label": values}),
            "torch": lambda: torch.tensor(values.astype(np.int64))}[kind]()


def _scores_in(kind: str, proba: np.ndarray, classes: list, order: list[int]):
    """(scores, labels= to pass): named containers get the shuffled order, unnamed ones class order."""
    if kind == "frame":
        return pd.DataFrame(proba[:, order], columns=[classes[k] for k in order]), None
    if kind == "frame+labels":
        return pd.DataFrame(proba[:, order], columns=[classes[k] for k in order]), list(classes)
    if kind == "torch":
        return pytest.importorskip("torch").tensor(proba), None
    return {"list": proba.tolist(), "numpy": proba, "default-frame": pd.DataFrame(proba)}[kind], None


def _cases(rng: random.Random, name: str):
    label_kinds = ["list", "numpy", "column", "series", "categorical", "frame"] + (["torch"] if name == "integers" else [])
    score_kinds = ["list", "numpy", "frame", "frame+labels", "default-frame", "torch"]
    for _ in range(CASES):
        order = list(range(len(DATASETS[name])))
        rng.shuffle(order)
        yield rng.choice(label_kinds), rng.choice(label_kinds), rng.choice(score_kinds), order


def _same(got: dict, expected: dict) -> None:
    for key, value in expected.items():
        assert np.asarray(got[key], dtype=float) == pytest.approx(np.asarray(value, dtype=float), abs=1e-12), key
        if hasattr(value, "labels") and type(got[key]).__module__.split(".")[0] != "torch":  # tensors: plain per class
            assert list(got[key].labels) == list(value.labels), key


@pytest.mark.parametrize("name", DATASETS)
def test_api_entries_agree_in_every_container(name):
    classes, y_true, y_pred, proba, expected = _reference(name)
    rng = random.Random(f"api-{name}")
    for true_kind, pred_kind, score_kind, order in _cases(rng, name):
        truth = _labels_in(true_kind, y_true, classes)
        got = evaluate(LABEL_METRICS, y_true=truth, y_pred=_labels_in(pred_kind, y_pred, classes))
        scores, labels = _scores_in(score_kind, proba, classes, order)
        got.update(evaluate(SCORE_METRICS, y_true=truth, scores=scores, labels=labels))
        _same(got, expected)
        table = report(["recall", "f1"], y_true=truth, y_pred=_labels_in(pred_kind, y_pred, classes))
        assert table.per_class["recall"] == pytest.approx(np.asarray(expected["recall:none"]), abs=1e-12)
        counts = ConfusionAccumulator().update(truth, _labels_in(pred_kind, y_pred, classes))
        _same(counts.compute(LABEL_METRICS), {k: expected[k] for k in LABEL_METRICS})
        curves = ThresholdAccumulator(classes).update(truth, scores)
        assert curves.compute("roc_auc", average="macro")["roc_auc"] == pytest.approx(expected["roc_auc:macro"],
                                                                                      abs=1e-12)


@pytest.mark.parametrize("name", DATASETS)
def test_dask_bridge_matches_named_columns(name):
    dd = pytest.importorskip("dask.dataframe")
    from metricc.bridges.dask import accumulate

    classes, y_true, _, proba, expected = _reference(name)
    order = list(range(len(classes)))[::-1]
    frame = pd.DataFrame(proba[:, order], columns=[classes[k] for k in order])
    counts = accumulate(dd.from_pandas(pd.Series(y_true), npartitions=3), scores=dd.from_pandas(frame, npartitions=3),
                        scheduler="sync")
    assert counts.compute("roc_auc", average="macro")["roc_auc"] == pytest.approx(expected["roc_auc:macro"], abs=1e-12)


# ---------------------------------------------------------------- files on the command line

def _label_file(folder: Path, kind: str, values: np.ndarray, stem: str) -> tuple[Path, list[str]]:
    """A label file and the options that read it."""
    path = folder / f"{stem}.{ {'npy': 'npy', 'json': 'json', 'tsv': 'tsv'}.get(kind, 'csv' if 'csv' in kind else 'txt') }"
    listed = values.tolist()
    if kind == "npy":
        np.save(path, np.asarray(values))
    elif kind == "json":
        path.write_text(json.dumps(listed))
    elif kind == "text":
        path.write_text("".join(f"{v}\n" for v in listed))
    elif kind == "csv-header":
        path.write_text("id,label\n" + "".join(f"{k},{v}\n" for k, v in enumerate(listed)))
        return path, ["--column", "label"]
    elif kind == "tsv":
        path.write_text("label\tid\n" + "".join(f"{v}\t{k}\n" for k, v in enumerate(listed)))
        return path, ["--column", "0"]
    return path, []


def _score_file(folder: Path, kind: str, proba: np.ndarray, classes: list, order: list[int]) -> Path:
    if kind == "npy":
        path = folder / "s.npy"
        np.save(path, proba)
    elif kind == "json":
        path = folder / "s.json"
        path.write_text(json.dumps(proba.tolist()))
    elif kind == "csv-no-header":
        path = folder / "s.csv"
        path.write_text("".join(",".join(repr(x) for x in row) + "\n" for row in proba.tolist()))
    else:  # a header names the shuffled columns: comma (pandas: numeric names unquoted) or tab
        sep = "\t" if kind == "tsv-header" else ","
        path = folder / ("s.tsv" if kind == "tsv-header" else "s.csv")
        lines = [sep.join(str(classes[k]) for k in order)]
        lines += [sep.join(repr(x) for x in row) for row in proba[:, order].tolist()]
        path.write_text("\n".join(lines) + "\n")
    return path


def _run_json(capsys, *argv) -> dict:
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("name", DATASETS)
def test_commands_agree_in_every_file_format(name, capsys, tmp_path):
    classes, y_true, y_pred, proba, expected = _reference(name)
    rng = random.Random(f"cli-{name}")
    label_kinds, score_kinds = ["text", "csv-header", "tsv", "json", "npy"], ["csv-header", "csv-no-header",
                                                                              "tsv-header", "json", "npy"]
    for case in range(CASES // 2):
        folder = tmp_path / str(case)
        folder.mkdir()
        true_kind, score_kind = rng.choice(label_kinds), rng.choice(score_kinds)
        tables = ["csv-header", "tsv"]  # --column applies to both label files: a table's needs a table beside it
        pred_kind = rng.choice(tables if true_kind in tables else label_kinds)
        order = list(range(len(classes)))
        rng.shuffle(order)
        truth, true_options = _label_file(folder, true_kind, y_true, "t")
        pred, pred_options = _label_file(folder, pred_kind, y_pred, "p")
        pred_options = ["--y-pred-column", pred_options[1]] if pred_options else []
        scores = _score_file(folder, score_kind, proba, classes, order)
        metrics = [option for m in LABEL_METRICS for option in ("--metric", m)]
        got = _run_json(capsys, "eval", "--y-true", truth, "--y-pred", pred, *true_options, *pred_options, *metrics,
                        "--format", "json")
        got.update(_run_json(capsys, "eval", "--y-true", truth, "--scores", scores, *true_options,
                             *[option for m in SCORE_METRICS for option in ("--metric", m)], "--format", "json"))
        for key, value in expected.items():
            shown = [got[key][str(c)] for c in classes] if isinstance(got[key], dict) else got[key]
            assert np.asarray(shown, dtype=float) == pytest.approx(np.asarray(value, dtype=float), abs=1e-12), key
        table = _run_json(capsys, "report", "--y-true", truth, "--y-pred", pred, *true_options, *pred_options,
                          "--metric", "recall", "--format", "json")
        assert [table["per_class"][str(c)]["recall"] for c in classes] == pytest.approx(
            np.asarray(expected["recall:none"]).tolist(), abs=1e-12)
        from metricc.bridges import plot

        args = app._parser().parse_args(["plot", "roc", "--y-true", str(truth), *true_options, "--scores", str(scores),
                                         "-o", "x.png"])
        legend = [t.get_text() for t in plot_command._scored(plot, args).axes[0].get_legend().get_texts()]
        aucs = np.asarray(expected["roc_auc:none"], dtype=float)
        assert legend[: len(classes)] == [f"class {c} (AUC = {a:.4f})" for c, a in zip(classes, aucs)]
