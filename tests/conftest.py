"""Shared fixtures: the catalog compiled once per test session (IR and emitted files).

Compiling the specs takes a few seconds (sympy simplification and the equivalence proofs),
so tests that compare generated code with the IR share one compilation.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import settings

from metricc.compiler import build, emit
from metricc.compiler.language import load

SPEC_DIR = Path(__file__).resolve().parent.parent / "specs"

# Property tests draw the same examples on every run (a suite that is green once stays green);
# broader random searches belong in benchmarks/ (fuzz_runtime.py, exactness.py), and what they
# find is kept as an explicit case. Every settings(...) in tests/ inherits this profile.
settings.register_profile("metricc", derandomize=True, database=None)
settings.load_profile("metricc")


@pytest.fixture(scope="session")
def compiled_metrics():
    """``{metric id: analyzed ir.Metric}`` for ``specs/``, equivalences proved."""
    return build.compile_metrics(SPEC_DIR)


@pytest.fixture(scope="session")
def compiled_catalog(compiled_metrics):
    """``{relative path: text}``: the files a build of ``specs/`` writes into ``generated/``."""
    return emit.emit_catalog(compiled_metrics, load.load_errata(SPEC_DIR))
