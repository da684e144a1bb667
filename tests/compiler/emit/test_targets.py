"""Tests for the target protocol (:mod:`metricc.compiler.emit.target`, ``targets.TARGETS``).

A new output is one module defining a ``Target`` plus one entry in ``TARGETS``: the toy
target below (each metric's formula as JSON) is added to a temporary copy of the package,
and ``metricc build`` of that copy writes its files beside the numpy modules.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from metricc.compiler import errors
from metricc.compiler.emit import targets
from metricc.compiler.emit.target import GENERATED, SITE, Catalog, Target, emit_files

REPO = Path(__file__).resolve().parents[3]

_TOY = '''"""Each metric's simplified formula as JSON: a toy output target."""

import json

from metricc.compiler.emit.target import GENERATED, Target

TARGET = Target(
    name="formula-json",
    output=GENERATED,
    metric_files=lambda metric, catalog: {
        f"json/{metric.id}.json": json.dumps({"id": metric.id, "formula": str(metric.simplified)}) + "\\n"},
    catalog_files=lambda catalog: {"json/index.json": json.dumps(sorted(catalog.metrics)) + "\\n"},
)
'''


def _specs(tmp_path: Path) -> None:
    """Two specs in ``tmp_path/specs`` for the copy to build."""
    (tmp_path / "specs").mkdir()
    for metric_id in ("precision", "recall"):
        shutil.copyfile(REPO / "specs" / f"{metric_id}.yaml", tmp_path / "specs" / f"{metric_id}.yaml")


def test_a_new_output_target_is_one_module_and_one_entry(package_copy, tmp_path):
    package, env = package_copy
    _specs(tmp_path)
    emit = package / "compiler" / "emit"
    (emit / "formula_json.py").write_text(_TOY, encoding="utf-8")
    registry = (emit / "targets.py").read_text(encoding="utf-8")
    registry = registry.replace("from metricc.compiler.emit import array_module, array_scores, html, latex, numpy_module\n",
                                "from metricc.compiler.emit import array_module, array_scores, formula_json, html, latex, "
                                "numpy_module\n")
    registry = registry.replace("TARGETS: tuple[Target, ...] = (", "TARGETS: tuple[Target, ...] = (formula_json.TARGET, ")
    assert "formula_json.TARGET" in registry and "formula_json, html" in registry
    (emit / "targets.py").write_text(registry, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "metricc", "build", "--specs", "specs", "--out", "generated",
                           "--no-cache", "--quiet"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    out = tmp_path / "generated"
    assert json.loads((out / "json" / "index.json").read_text()) == ["precision", "recall"]
    assert json.loads((out / "json" / "precision.json").read_text())["id"] == "precision"
    assert (out / "precision.py").is_file() and (out / "docs" / "metrics" / "recall.tex").is_file()


def test_the_compiler_targets_and_their_outputs():
    assert [t.name for t in targets.TARGETS] == ["numpy", "arrays", "array_scores", "latex", "html"]
    assert [t.name for t in targets.of(GENERATED)] == ["numpy", "arrays", "array_scores", "latex"]
    assert [t.name for t in targets.of(SITE)] == ["html"]


def _target(name: str, path: str) -> Target:
    return Target(name, GENERATED, metric_files=lambda metric, catalog: {},
                  catalog_files=lambda catalog: {path: name + "\n"})


def test_two_targets_never_write_one_path():
    with pytest.raises(errors.InternalError, match="targets a and b both write same.txt"):
        emit_files(Catalog({}), (_target("a", "same.txt"), _target("b", "same.txt")))
    assert emit_files(Catalog({}), (_target("b", "z.txt"), _target("a", "a.txt"))) == {"a.txt": "a\n", "z.txt": "b\n"}
