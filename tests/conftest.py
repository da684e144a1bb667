"""Shared fixtures: the catalog compiled once per test session (IR and emitted files), and a
copy of the package for the tests that extend it in one place (a toy averaging mode, output
target or audit check).

Compiling the specs takes a few seconds (sympy simplification and the equivalence proofs),
so tests that compare generated code with the IR share one compilation.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import settings

from metricc.compiler import build
from metricc.compiler.analysis.cache import Cache

# Builds inside the suite run in their own process: pytest-xdist already keeps every core busy,
# and a worker that imported JAX (tests/array_api) warns at every fork. The process pool is
# tested by tests/compiler/analysis/test_parallel.py, and the whole catalog through it by
# CI's `metricc build --check` (byte for byte against generated/).
os.environ.setdefault("METRICC_BUILD_JOBS", "1")

REPO = Path(__file__).resolve().parent.parent
SPEC_DIR = REPO / "specs"
# The package as installed: the root modules and the layers (tests/test_imports.py ranks them).
PACKAGE_PARTS = ("__init__.py", "__main__.py", "core", "runtime", "generated", "api", "bridges", "compiler", "audit", "cli")

# Property tests draw the same examples on every run (a suite that is green once stays green);
# broader random searches belong in benchmarks/ (fuzz_runtime.py, exactness.py), and what they
# find is kept as an explicit case. Every settings(...) in tests/ inherits this profile.
settings.register_profile("metricc", derandomize=True, database=None)
settings.load_profile("metricc")


@pytest.fixture(scope="session")
def session_build(tmp_path_factory):
    """``(build, cache folder)``: the one full build of ``specs/`` this session, its cache kept
    on disk so that a warm build (test_cache) reads what this cold one stored."""
    folder = tmp_path_factory.mktemp("build-cache")
    done = build.run(build.Build(SPEC_DIR, Cache(folder)))
    done.cache.save()
    return done, folder


@pytest.fixture(scope="session")
def compiled_metrics(session_build):
    """``{metric id: analyzed ir.Metric}`` for ``specs/``, equivalences proved."""
    return dict(session_build[0].metrics)


@pytest.fixture(scope="session")
def compiled_catalog(session_build):
    """``{relative path: text}``: the files a build of ``specs/`` writes into ``generated/``."""
    return dict(session_build[0].files)


@pytest.fixture
def package_copy(tmp_path):
    """``(package, env)``: a copy of the package as ``tmp_path/metricc`` and the environment
    under which ``python -m metricc`` (run with ``cwd=tmp_path``) imports the copy, not this tree."""
    package = tmp_path / "metricc"
    package.mkdir()
    for name in PACKAGE_PARTS:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, package / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copyfile(REPO / name, package / name)
    return package, {**os.environ, "PYTHONPATH": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1"}
