"""``suggest``: the metric-selection rule of Puertolas Molina (2022), API and command line.

The thesis' own cases are the tests: kc2 (415 / 107, imbalanced), kr-vs-kp (1669 / 1527,
balanced: "the new metrics ... should not be run in balanced data", Sec. 4.2.2), credit-g
(700 / 300, imbalanced, Ch. 2), GCM (14 classes, 30 / 10, imbalanced multi-class:
balanced accuracy is its only imbalance metric, Sec. 4.2.3).
"""

from __future__ import annotations

import json

import pytest

import metricc as mc
from metricc.cli import main
from metricc.api.suggest import is_imbalanced, rules, suggest

IMBALANCE_ONLY = {"g_mean", "adjusted_g_mean", "adjusted_f_measure", "optimized_precision"}


def ids(found) -> list[str]:
    return [s.metric for s in found]


def test_every_suggested_id_and_average_exists_in_the_catalog():
    catalog = mc.catalog()
    for rule in rules()["rules"]:
        for entry in rule["metrics"]:
            info = catalog[entry["id"]]
            assert info.id == entry["id"], "rule tables name ids, not aliases"
            assert entry["reason"] and "\n" not in entry["reason"]
            if "average" in entry:
                assert entry["average"] in info.averages, entry
            else:
                assert info.level != "class", f"{entry['id']}: a class-level metric needs an average"


def test_isbalanced_threshold_of_the_appendix():
    """isBalanced(thresh=0.70): imbalanced when minority < 0.70 * majority."""
    assert is_imbalanced([415, 107])  # kc2
    assert not is_imbalanced([1669, 1527])  # kr-vs-kp
    assert is_imbalanced([700, 300])  # credit-g
    assert not is_imbalanced([10, 7])  # 7 == 0.7 * 10: not fewer
    assert is_imbalanced([10, 6.99])
    assert not is_imbalanced([10, 6], threshold=0.6)


def test_kc2_imbalanced_binary():
    found = suggest(class_counts=[415, 107])
    assert IMBALANCE_ONLY <= set(ids(found))
    assert {"balanced_accuracy", "weighted_accuracy", "mcc", "accuracy", "youden_j", "jaccard", "cohen_kappa"} <= set(ids(found))
    assert all(s.average in (None, "binary") for s in found)


def test_kr_vs_kp_balanced_binary_runs_no_imbalance_metric():
    found = suggest(class_counts=[1669, 1527])
    assert not IMBALANCE_ONLY & set(ids(found))
    assert {s.rule for s in found} == {"binary"}


def test_gcm_imbalanced_multiclass_gets_balanced_and_weighted_accuracy_only():
    counts = [30] + [20] * 12 + [10]
    found = suggest(class_counts=counts)
    imbalance = [s.metric for s in found if s.rule == "multiclass, imbalanced"]
    assert imbalance == ["balanced_accuracy", "weighted_accuracy"]
    assert ("f1", "macro") in [(s.metric, s.average) for s in found]
    assert ("f1", "micro") in [(s.metric, s.average) for s in found]
    assert not IMBALANCE_ONLY & set(ids(found))


def test_ordinal_multiclass_adds_the_regression_errors():
    found = suggest(classes=6, imbalance_ratio=1.0, ordinal=True)
    assert ids(found)[-3:] == ["ordinal_rmse", "ordinal_mse", "ordinal_mae"]
    assert "ordinal_mae" not in ids(suggest(classes=6, imbalance_ratio=1.0))
    # Ordered classification is a kind of multi-class problem (Ch. 2): binary stays binary.
    assert "ordinal_mae" not in ids(suggest(classes=2, imbalance_ratio=1.0, ordinal=True))


def test_labels_and_ratio_agree_with_counts():
    labels = ["no"] * 415 + ["yes"] * 107
    assert suggest(y_true=labels) == suggest(class_counts=[415, 107]) == suggest(classes=2, imbalance_ratio=415 / 107)


def test_suggested_metrics_evaluate():
    matrix = [[391, 24], [58, 49]]
    for s in suggest(class_counts=[415, 107]):
        value = mc.evaluate(s.metric, matrix=matrix, average=s.average)[s.metric]
        assert 0 <= float(value) <= 1 or s.metric in ("mcc", "youden_j", "cohen_kappa", "optimized_precision")


@pytest.mark.parametrize("kwargs, argument", [
    ({}, "class_counts"),
    ({"class_counts": [3, 4], "imbalance_ratio": 2.0}, "class_counts"),
    ({"imbalance_ratio": 2.0}, "classes"),
    ({"classes": 1, "imbalance_ratio": 2.0}, "classes"),
    ({"classes": 2, "imbalance_ratio": 0.5}, "imbalance_ratio"),
    ({"classes": 2, "imbalance_ratio": float("nan")}, "imbalance_ratio"),
    ({"class_counts": [3, 0]}, "class_counts"),
    ({"class_counts": [3]}, "class_counts"),
    ({"class_counts": [3, 4], "classes": 3}, "classes"),
    ({"y_true": ["a", "a"]}, "y_true"),
    ({"class_counts": [3, 4], "threshold": 1.5}, "threshold"),
])
def test_bad_input_names_the_argument(kwargs, argument):
    with pytest.raises(mc.InputError) as error:
        suggest(**kwargs)
    assert error.value.argument == argument


def test_cli_json_and_text(capsys, tmp_path):
    assert main(["suggest", "--class-counts", "415,107", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [(d["metric"], d["average"]) for d in listed] == [(s.metric, s.average) for s in suggest(class_counts=[415, 107])]
    labels = tmp_path / "truth.txt"
    labels.write_text("\n".join(["a"] * 30 + ["b"] * 20 + ["c"] * 10), encoding="utf-8")
    assert main(["suggest", "--labels-file", str(labels), "--ordinal"]) == 0
    out = capsys.readouterr().out
    assert "ordinal_mae" in out and "balanced_accuracy" in out and "[multiclass, imbalanced]" in out


@pytest.mark.parametrize("argv, message", [
    (["suggest", "--class-counts", "3,x"], "metricc: error: --class-counts: 'x' is not a number"),
    (["suggest", "--imbalance-ratio", "2"], "metricc: error: --classes: "),
    (["suggest", "--classes", "2", "--imbalance-ratio", "0.5"], "metricc: error: --imbalance-ratio: "),
    (["suggest", "--classes", "3"], "metricc: error: suggest: one of the arguments"),
])
def test_cli_errors(capsys, argv, message):
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith(message)
