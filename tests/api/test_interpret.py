"""``interpret()``, ``metricc eval --interpret``, ``metricc explain`` scales, and names as users
bring them (``Catalog.find``, ``metricc list NAME``)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import metricc as mc
from metricc import cli
from metricc.runtime.registry import name_key

KAPPA_04 = "[[20, 5], [10, 15]]"  # cohen_kappa 0.4: Moderate (Landis-Koch), Intermediate to Good (Fleiss)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# -- interpret() ----------------------------------------------------------------------------

def test_a_value_on_a_shared_boundary_takes_the_band_closed_there():
    assert mc.interpret("cohen_kappa", 0.2) == "Fair"
    assert mc.interpret("cohen_kappa", math.nextafter(0.2, 0)) == "Slight"
    assert mc.interpret("cohen_kappa", 1.0) == "Almost Perfect"
    assert mc.interpret("cohen_kappa", -1.0) == "Poor"


def test_arrays_keep_their_shape_and_nan_has_no_band():
    assert mc.interpret("cohen_kappa", [[0.1, math.nan], [0.9, 0.5]], scale="fleiss") == [
        ["Poor", None], ["Excellent", "Intermediate to Good"]]
    assert mc.interpret("mcc", np.float64(math.nan)) is None


def test_all_scales_and_scale_names_in_any_spelling():
    every = mc.interpret("cohen_kappa", 0.6, scale="all")
    assert list(every) == ["landis_koch", "fleiss", "altman", "cicchetti"]
    assert every == {"landis_koch": "Substantial", "fleiss": "Intermediate to Good", "altman": "Good", "cicchetti": "Good"}
    assert mc.interpret("Cohen Kappa", 0.6, scale="Landis-Koch") == "Substantial"


def test_unbounded_scales_label_large_values():
    assert mc.interpret("positive_likelihood_ratio", [0.5, 1.0, 7.5, 1e6]) == ["Negligible", "Poor", "Fair", "Good"]


@pytest.mark.parametrize("metric, value, scale, message", [
    ("cohen_kappa", 1.5, None, "outside the range"),
    ("cohen_kappa", 0.5, "koch", "its scales are landis_koch, fleiss, altman, cicchetti"),
    ("accuracy", 0.5, None, "no interpretation scale"),
    ("cohen_kappa", "high", None, "expected a number"),
])
def test_bad_requests_are_input_errors_naming_the_fix(metric, value, scale, message):
    with pytest.raises(mc.InputError, match=message):
        mc.interpret(metric, value, scale=scale)


# -- metricc eval --interpret, explain ------------------------------------------------------

def test_eval_prints_the_band_next_to_the_value(capsys):
    code, out, _ = run(capsys, "eval", "--matrix", KAPPA_04, "--metric", "cohen_kappa", "--metric", "accuracy",
                       "--interpret")
    assert code == 0
    assert out.splitlines() == ["cohen_kappa: 0.4 (Moderate: Landis and Koch)", "accuracy: 0.7"]


def test_eval_json_carries_every_scale_asked_for(capsys):
    code, out, _ = run(capsys, "eval", "--matrix", KAPPA_04, "--metric", "cohen_kappa", "--metric", "accuracy",
                       "--interpret", "all", "--format", "json")
    assert code == 0
    result = json.loads(out)
    assert result["cohen_kappa"]["value"] == pytest.approx(0.4)
    assert result["cohen_kappa"]["interpretation"] == {
        "landis_koch": "Moderate", "fleiss": "Intermediate to Good", "altman": "Moderate", "cicchetti": "Fair"}
    assert result["accuracy"] == {"value": 0.7, "interpretation": {}}


def test_eval_per_class_bands_by_class_label(capsys):
    code, out, _ = run(capsys, "eval", "--matrix", "[[8, 2], [1, 9]]", "--metric", "yule_q:none", "--interpret")
    assert code == 0
    assert out.splitlines() == ["yule_q:none[0]: 0.9459459459459459 (Strong: QI (PyCM's Yule's Q interpretation))",
                                "yule_q:none[1]: 0.9459459459459459 (Strong: QI (PyCM's Yule's Q interpretation))"]


def test_eval_interpret_without_any_scale_names_the_metrics_that_have_one(capsys):
    code, _, err = run(capsys, "eval", "--matrix", KAPPA_04, "--metric", "accuracy", "--interpret", "fleiss")
    assert code != 0
    assert "--interpret" in err and "cohen_kappa (landis_koch, fleiss, altman, cicchetti)" in err


def test_explain_lists_the_scales(capsys):
    code, out, _ = run(capsys, "explain", "Cohen's Kappa")
    assert code == 0
    tail = out[out.index("interpretation scales"):].splitlines()
    assert tail[1].startswith("  landis_koch: Landis and Koch (Landis and Koch 1977")
    assert tail[2].split() == ["[-1,", "0)", "Poor"]


# -- names as users bring them ---------------------------------------------------------------

@pytest.mark.parametrize("name, metric, average", [
    ("matthews_corrcoef", "mcc", None), ("Matthews CorrCoef", "mcc", None), ("PLR", "positive_likelihood_ratio", None),
    ("BinaryF1Score", "f1", None), ("MulticlassCohenKappa", "cohen_kappa", None), ("cohen-kappa", "cohen_kappa", None),
    ("F1 Macro", "f1", "macro"), ("TPR Micro", "recall", "micro"), ("cohen_kappa_score", "cohen_kappa", None),
    ("QWK", "quadratic_weighted_kappa", None), ("Overall MCC", "mcc", None),
])
def test_any_spelling_of_a_peer_name_finds_the_metric(name, metric, average):
    info, named = mc.catalog().find(name)
    assert (info.id, named) == (metric, average)


def test_a_name_carrying_an_average_is_refused_where_no_average_can_be_given():
    assert mc.catalog()["F1 Score"].id == "f1"
    with pytest.raises(mc.InputError, match="average='macro'"):
        mc.catalog()["F1 Macro"]


def test_unknown_names_suggest_the_closest_spelling():
    with pytest.raises(mc.InputError, match="did you mean 'matthews_corrcoef'"):
        mc.catalog().find("matthews corcoef")


def test_every_alias_is_one_name_under_any_spelling():
    """The compiler refuses names that read alike (``f1_score`` and ``f1score``): lookup cannot tell them apart."""
    owners = {}
    for info in mc.catalog().values():
        for name in (info.id, *info.aliases):
            assert owners.setdefault(name_key(name), info.id) == info.id, name


def test_eval_and_list_take_peer_names(capsys):
    code, out, _ = run(capsys, "eval", "--matrix", "[[5, 1], [2, 4]]", "--metric", "F1 Macro", "--format", "json")
    assert code == 0 and json.loads(out) == {"F1 Macro": pytest.approx((10 / 13 + 8 / 11) / 2, rel=1e-12)}
    code, out, _ = run(capsys, "list", "Multiclass Cohen Kappa")
    assert code == 0 and [line.split()[0] for line in out.splitlines()[1:]] == ["cohen_kappa"]
    code, _, err = run(capsys, "list", "matthews corcoef")
    assert code != 0 and "NAME" in err and "did you mean" in err
