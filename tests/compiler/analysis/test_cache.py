"""Tests for the build cache (:mod:`analysis.cache`): a cached build is the uncached build,
byte for byte; a rebuild redoes only what an edit touches; a bad cache is ignored."""

from __future__ import annotations

import hashlib
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import sympy

from metricc.compiler import build
from metricc.compiler.analysis import cache as build_cache
from metricc.compiler.analysis.cache import Cache

REPO = Path(__file__).resolve().parents[3]
SMALL = ("accuracy", "f1", "f_beta", "precision", "recall")


def _catalog(tmp_path: Path, ids=SMALL) -> Path:
    specs = tmp_path / "project" / "specs"
    specs.mkdir(parents=True)
    for metric_id in ids:
        shutil.copy(REPO / "specs" / f"{metric_id}.yaml", specs)
    shutil.copy(REPO / "specs" / "schema.json", specs)
    return specs


def _build(specs: Path, cache: Cache | None = None) -> dict[str, str]:
    here = os.getcwd()
    os.chdir(specs.parent)
    try:
        return build.compile_catalog(Path("specs"), cache)
    finally:
        os.chdir(here)


def _recomputed(cache: Cache, kind: str) -> set[str]:
    return {key.split(":")[1] for key in cache.made if key.startswith(kind + ":")}


def test_a_warm_build_of_the_catalog_equals_the_cold_one_and_computes_nothing(session_build):
    """The session's build was the cold one (its cache folder filled); the uncached build of
    tests/compiler/test_build.py's subprocess equals it byte for byte."""
    cold, folder = session_build
    warm_cache = Cache(folder)
    warm = build.compile_catalog(REPO / "specs", warm_cache)
    assert warm == dict(cold.files)
    assert warm_cache.made == set() and warm_cache.hits > 0 and warm_cache.misses == 0


def test_a_rebuild_after_editing_one_spec_redoes_only_it_and_its_dependents(tmp_path):
    specs = _catalog(tmp_path)
    cache_dir = tmp_path / "cache"
    _build(specs, Cache(cache_dir))
    f_beta = specs / "f_beta.yaml"
    f_beta.write_text(f_beta.read_text().replace(
        "formula: (1 + beta**2) * precision * recall / (beta**2 * precision + recall)",
        "formula: (1 + beta**2) * TP / ((1 + beta**2) * TP + beta**2 * FN + FP)"))
    again = Cache(cache_dir)
    edited = _build(specs, again)
    assert _recomputed(again, "analyzed") == {"f_beta", "f1"}  # f1 is f_beta(beta=1)
    assert "f_beta" in _recomputed(again, "emitted") <= {"f_beta", "f1"}
    assert edited == _build(specs)  # the same bytes as a build without the cache

    description = specs / "precision.yaml"
    description.write_text(description.read_text().replace("description:", "description: Edited.", 1))
    third = Cache(cache_dir)
    _build(specs, third)
    assert _recomputed(third, "analyzed") == {"precision"}  # nothing inlines a description
    assert not [k for k in third.made if k.startswith("equal:")]  # no formula changed: no proof redone


def _rewrite(cache_dir: Path, change) -> None:
    (path,) = cache_dir.glob("build-*.pickle")
    data = path.read_bytes()
    header = data[:len(build_cache._HEADER)]
    stored = pickle.loads(data[len(header) + 65:])
    body = pickle.dumps(change(stored))
    path.write_bytes(header + hashlib.sha256(body).hexdigest().encode() + b"\n" + body)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "wrong values", "other version"])
def test_a_damaged_or_foreign_cache_is_ignored(tmp_path, damage):
    specs = _catalog(tmp_path, ("precision", "recall", "f_beta"))
    cache_dir = tmp_path / "cache"
    expected = _build(specs, Cache(cache_dir))
    (path,) = cache_dir.glob("build-*.pickle")
    if damage == "garbage":
        path.write_bytes(b"\x80\x04not a pickle")
    elif damage == "truncated":
        path.write_bytes(path.read_bytes()[:-100])
    elif damage == "wrong values":  # right file, right checksum, entries of the wrong kind
        junk = {"analyzed": 3, "form": "x", "print": [1], "equal": "yes", "emitted": ("a",)}
        _rewrite(cache_dir, lambda s: {**s, "entries": {k: junk[k.split(":")[0]] for k in s["entries"]}})
    else:
        _rewrite(cache_dir, lambda s: {**s, "version": "0" * 64})
    again = Cache(cache_dir)
    assert _build(specs, again) == expected
    assert again.hits == 0 or damage == "wrong values"
    assert any(k.startswith("analyzed:") for k in again.made)


def test_stored_expressions_come_back_unevaluated():
    """sympy's own pickles re-evaluate: 2*(C - 1) built unevaluated would come back 2*C - 2."""
    c = sympy.Symbol("C", integer=True, positive=True)
    expr = sympy.Mul(2, c - 1, evaluate=False)
    back = pickle.loads(build_cache.dumps(expr))
    assert sympy.srepr(back) == sympy.srepr(expr) and back == expr
    assert pickle.loads(pickle.dumps(expr)) != expr  # why the cache has its own pickler


def test_digests_tell_assumptions_and_structure_apart():
    x, real_x = sympy.Symbol("x"), sympy.Symbol("x", real=True)
    assert build_cache.digest(x) != build_cache.digest(real_x)
    assert build_cache.digest(sympy.Mul(2, x - 1, evaluate=False)) != build_cache.digest(2 * x - 2)
    with pytest.raises(TypeError):
        build_cache.canonical(object())


def _metricc(*args, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "metricc", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=300)


def test_command_line_cache_options(tmp_path):
    specs = _catalog(tmp_path, ("precision", "recall"))
    project = specs.parent
    assert _metricc("build", "--no-cache", cwd=project).returncode == 0
    assert not (project / ".metricc-cache").exists()
    first = (project / "generated" / "precision.py").read_text()
    assert _metricc("build", cwd=project).returncode == 0
    assert list((project / ".metricc-cache").glob("build-*.pickle"))
    assert _metricc("build", "--check", "--cache-dir", str(tmp_path / "elsewhere"), cwd=project).returncode == 0
    assert list((tmp_path / "elsewhere").glob("build-*.pickle"))
    assert _metricc("build", "--check", cwd=project, env={"METRICC_CACHE_DIR": str(tmp_path / "env")}).returncode == 0
    assert list((tmp_path / "env").glob("build-*.pickle"))
    refused = _metricc("build", "--cache-dir", "generated/cache", cwd=project)
    assert refused.returncode != 0 and "--cache-dir" in refused.stderr and "inside the output" in refused.stderr
    assert (project / "generated" / "precision.py").read_text() == first
