"""audit/peers.yaml, the table behind ``metricc list --peers``, kept honest.

Complete against the installed peers (every public classification metric of scikit-learn and
torchmetrics, every PyCM statistic), its entries real catalog metrics with their averaging and
parameters, each covered name named with its catalog ids in a differential test under tests/,
and the PyCM part equal to the tables that test_pycm_*_statistics.py compare at 1e-12.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
from pathlib import Path

import pytest

from metricc.audit import peers
from metricc.cli import main
from metricc.generated import CATALOG

TESTS = Path(__file__).resolve().parents[2]
TABLE = peers.load_peers()
TASKS = ("binary_", "multiclass_", "multilabel_")


def _entries():
    for peer in TABLE.values():
        for name in peer.names:
            for entry in name.metrics:
                yield peer.name, name.name, entry


@pytest.mark.parametrize("peer, name, entry", list(_entries()), ids=lambda v: str(v))
def test_every_entry_is_a_catalog_metric_with_that_averaging_and_those_parameters(peer, name, entry):
    metric_id, params, average = peers.parse_entry(entry)
    assert metric_id in CATALOG, f"{peer} {name}: {metric_id} is not in the catalog"
    info = CATALOG[metric_id]
    assert average is None or average in info.averages, f"{peer} {name}: {metric_id} has no {average} averaging"
    assert set(params) <= {p.name for p in info.params}, f"{peer} {name}: {metric_id} has no parameter {set(params)}"


@pytest.mark.parametrize("peer", ["scikit-learn", "torchmetrics"])
def test_every_covered_name_is_named_in_a_test_with_its_catalog_ids(peer):
    """The differential tests name the peer's function (torchmetrics' by the part after the
    task prefix, e.g. ``getattr(tmf, f"multiclass_{name}")`` over ``"jaccard_index"``) in a file
    that also names each catalog id it is compared with."""
    sources = {p: p.read_text("utf-8") for p in TESTS.rglob("test_*.py") if p.name != Path(__file__).name}
    unnamed = []
    for name in TABLE[peer].names:
        stem = next((name.name[len(t):] for t in TASKS if name.name.startswith(t)), name.name)
        for entry in name.metrics:
            metric_id = peers.parse_entry(entry)[0]
            if not any((name.name in text or f'"{stem}"' in text) and metric_id in text for text in sources.values()):
                unnamed.append(f"{name.name} -> {metric_id}")
    assert not unnamed, f"no test names both: {unnamed}"


def test_scikit_learn_is_complete():
    metrics = pytest.importorskip("sklearn.metrics")
    from sklearn.metrics import _classification, _ranking

    public = {name for module in (_classification, _ranking) for name, value in vars(module).items()
              if inspect.isfunction(value) and value.__module__ == module.__name__ and not name.startswith("_")}
    public |= {"adjusted_rand_score", "fowlkes_mallows_score"}
    assert all(hasattr(metrics, name) for name in public)
    assert {n.name for n in TABLE["scikit-learn"].names} == public


def test_torchmetrics_is_complete():
    pytest.importorskip("torch")
    classification = pytest.importorskip("torchmetrics.functional.classification")
    public = {name for name in dir(classification) if name.startswith(TASKS)}
    assert {n.name for n in TABLE["torchmetrics"].names} == public


def _pycm_tables(name: str):
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _spelled(metric: str, params: dict) -> str:
    return metric + (f"({', '.join(f'{k}={v}' for k, v in params.items())})" if params else "")


def test_pycm_part_equals_the_pycm_test_tables():
    pycm = pytest.importorskip("pycm")
    class_tests, overall_tests = _pycm_tables("test_pycm_class_statistics"), _pycm_tables("test_pycm_overall_statistics")
    matrix = pycm.ConfusionMatrix(matrix={0: {0: 2, 1: 1}, 1: {0: 1, 1: 2}})
    names = {(n.group, n.name): n for n in TABLE["PyCM"].names}
    assert {name for group, name in names if group == "class"} == set(matrix.class_stat) - class_tests.RAW_COUNTS
    assert {name for group, name in names if group == "overall"} == set(matrix.overall_stat)
    for tables, group in ((class_tests.CLASS_STATISTICS, "class"), (overall_tests.OVERALL_STATISTICS, "overall")):
        for name, (metric, params) in tables.items():
            assert names[group, name].metrics == (_spelled(metric, params),), name
    not_yet = {name for (group, name), n in names.items() if n.status == "not_yet"}
    assert not_yet == class_tests.NOT_YET_IN_CATALOG | overall_tests.NOT_YET_IN_CATALOG


def test_cli_prints_the_coverage_and_one_peer(capsys):
    assert main(["list", "--peers"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == peers.coverage_lines()
    assert any(line.startswith("PyCM ") and "class statistics covered: " in line for line in lines)
    assert main(["list", "--peer", "scikit-learn", "--format", "json"]) == 0
    table = json.loads(capsys.readouterr().out)
    by_name = {n["name"]: n for n in table["names"]}
    assert by_name["matthews_corrcoef"] == {"name": "matthews_corrcoef", "group": None, "status": "covered",
                                            "metrics": ["mcc"], "reason": None}
    assert by_name["ndcg_score"]["metrics"] == ["ndcg"]
    assert main(["list", "--peer", "torchmetrics"]) == 0
    assert "binary_logauc" in capsys.readouterr().out
    assert main(["list", "--peer", "weka"]) == 2
    assert "--peer: unknown peer 'weka'" in capsys.readouterr().err


def test_the_guide_shows_the_current_coverage():
    page = (TESTS.parent / "docs" / "guide" / "catalog.md").read_text("utf-8")
    stale = [line for line in peers.coverage_lines() if line not in page]
    assert not stale, f"docs/guide/catalog.md's Peer coverage block is stale; `metricc list --peers` now prints {stale}"
