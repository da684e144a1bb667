"""The site built once per session from the compiled catalog, with worked examples and audits."""

from __future__ import annotations

from pathlib import Path

import pytest

from metricc.cli import docs
from metricc.compiler.emit import html
from metricc.compiler.language import load
from metricc.generated import CATALOG

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def site_files(compiled_metrics):
    """``{relative path: text}`` of the site of ``specs/`` with the audits of ``audits/``."""
    examples = {metric_id: docs.worked_example(CATALOG[metric_id]) for metric_id in compiled_metrics}
    audits = docs._audit_rows(REPO / "audits", set(compiled_metrics))
    return html.emit_site(compiled_metrics, load.load_errata(REPO / "specs"), examples, audits)


@pytest.fixture(scope="session")
def site(site_files, tmp_path_factory):
    """The site written to a folder."""
    root = tmp_path_factory.mktemp("site")
    for name, text in site_files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root
