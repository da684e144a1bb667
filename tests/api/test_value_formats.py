"""What ``metricc eval`` prints (:mod:`metricc.api.value_formats`): its own ``key: value`` text,
JSON of its data, and one table for every other format of :mod:`metricc.api.formats`."""

from __future__ import annotations

import json

from metricc.api.formats import render
from metricc.api.value_formats import SweepValues, Values

SHOWN = Values({"f1": 0.5, "recall:none": {"a": 1.0, "b": 0.0}},
               normalized={"f1": 50.0, "recall:none": {"a": 100.0, "b": 0.0}})


def test_values_keep_their_text_and_json():
    assert render(SHOWN, "text").splitlines() == [
        "f1: 0.5 (50% of range)", "recall:none[a]: 1.0 (100% of range)", "recall:none[b]: 0.0 (0% of range)"]
    assert json.loads(render(SHOWN, "json"))["f1"] == {"value": 0.5, "normalized": 50.0}
    assert render(Values({"f1": 0.5}), "json") == '{"f1": 0.5}'


def test_values_are_one_table_in_the_other_formats():
    assert render(SHOWN, "markdown").splitlines() == [
        "**Values**", "", "| metric | value | % of range |", "|---|---:|---:|", "| f1 | 0.5 | 50.0 |",
        "| recall:none[a] | 1.0 | 100.0 |", "| recall:none[b] | 0.0 | 0.0 |"]
    bands = Values({"kappa": 0.5}, bands={"kappa": {"landis_koch": "Moderate"}}, scale_names={"landis_koch": "L&K"})
    assert "<td>Moderate: L&amp;K</td>" in render(bands, "html")


def test_intervals_are_columns_and_their_level_a_note():
    interval = {"value": {"a": 0.5}, "lower": {"a": 0.25}, "upper": {"a": 0.75}, "se": {"a": 0.1}, "scale": "logit",
                "note": None}
    skipped = {"value": 0.9, "lower": None, "upper": None, "se": None, "scale": None, "note": "needs scores"}
    shown = Values({}, intervals={"recall:none": interval, "auc": skipped}, confidence=0.9)
    assert render(shown, "csv").splitlines()[1:6] == [
        "Values,recall:none[a],value,0.5", "Values,recall:none[a],lower,0.25", "Values,recall:none[a],upper,0.75",
        "Values,recall:none[a],se,0.1", "Values,recall:none[a],scale,logit"]
    assert render(shown, "text").splitlines()[1] == "auc: 0.9 (no interval: needs scores)"
    assert "[lower, upper]: 90% confidence interval" in render(shown, "markdown")
    assert "auc: no interval: needs scores" in render(shown, "markdown")


def test_a_sweep_is_tab_separated_text_and_a_table():
    shown = SweepValues("beta", [0.5, 2.0], {"f_beta": [0.75, 0.5]})
    assert render(shown, "text") == "beta\tf_beta\n0.5\t0.75\n2.0\t0.5"
    assert json.loads(render(shown, "json")) == {"param": "beta", "grid": [0.5, 2.0], "values": {"f_beta": [0.75, 0.5]}}
    assert "| 2.0 | 0.5 |" in render(shown, "markdown")
