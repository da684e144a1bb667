"""Shared fixtures: the analyzed IR of the catalog, compiled once per test session.

Compiling the specs takes a few seconds (sympy simplification and the equivalence proofs),
so tests that compare generated code with the IR share one compilation.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from metricc.compiler import build

SPEC_DIR = Path(__file__).resolve().parent.parent / "specs"


@pytest.fixture(scope="session")
def compiled_metrics():
    """``{metric id: analyzed ir.Metric}`` for ``specs/``, equivalences proved."""
    return build.compile_metrics(SPEC_DIR)
