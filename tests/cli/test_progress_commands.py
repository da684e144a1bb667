"""Progress on the commands that run for minutes (issue 25's desk): ``docs --html`` and
``docs --pdf`` show a bar on a terminal (``build`` has one since the build cache; tested in
tests/api/test_progress.py). Measured by what is drawn, never by time."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest

from metricc.cli import docs
from metricc.cli.app import main
from metricc.api import progress

REPO = Path(__file__).resolve().parents[2]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def terminal(monkeypatch) -> Terminal:
    """stderr as a terminal, and a bar drawn from the first update (no delay, no rate limit)."""
    stream = Terminal()
    make = progress.progress
    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr(progress, "INTERVAL", 0.0)
    monkeypatch.setattr(progress, "progress", lambda *args, **kwargs: make(*args, **{**kwargs, "stream": stream}))
    return stream


@pytest.fixture(scope="module")
def small_catalog(tmp_path_factory) -> dict:
    """Two specs compiled (seconds, not the catalog's minutes): what docs draws does not depend on more."""
    from metricc.compiler import build

    folder = tmp_path_factory.mktemp("specs") / "specs"
    folder.mkdir()
    for name in ("accuracy.yaml", "error_rate.yaml", "schema.json"):
        shutil.copyfile(REPO / "specs" / name, folder / name)
    return build.compile_metrics(folder)


@pytest.fixture
def compiled_metrics(small_catalog, monkeypatch, tmp_path) -> dict:
    monkeypatch.setenv("METRICC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(docs, "_compiled", lambda spec_dir, cache: (small_catalog, []))
    monkeypatch.setattr(docs, "_require_fresh", lambda metrics, errata, cache: None)  # generated/ holds the full catalog
    return small_catalog


def test_docs_html_shows_its_progress(terminal, compiled_metrics, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["docs", "--html", str(tmp_path / "site")]) == 0
    drawn = terminal.getvalue()
    total = len(compiled_metrics) + 2
    assert "docs [" in drawn and "worked example: accuracy" in drawn and f"100% {total}/{total}" in drawn
    assert capsys.readouterr().out.startswith("wrote ")
    terminal.truncate(0)
    assert main(["docs", "--html", str(tmp_path / "site"), "--quiet"]) == 0
    assert terminal.getvalue() == ""


def test_docs_pdf_counts_its_pdflatex_passes(terminal, compiled_metrics, tmp_path, monkeypatch):
    """pdflatex replaced by a stand-in that writes the PDF and asks for one rerun: two passes run."""
    monkeypatch.setattr(shutil, "which", lambda name: "/bin/pdflatex-stand-in")
    runs = []

    def pdflatex(command, cwd, **kwargs):
        runs.append(command)
        Path(cwd, "metrics.pdf").write_bytes(b"%PDF-1.5\n")
        Path(cwd, "metrics.log").write_text("Rerun to get cross-references right." if len(runs) == 1 else "")
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(docs.subprocess, "run", pdflatex)
    assert main(["docs", "--pdf", str(tmp_path / "m.pdf")]) == 0
    drawn = terminal.getvalue()
    assert len(runs) == 2 and "pdflatex pass 2" in drawn and "pdflatex pass 3" not in drawn and "100% 5/5" in drawn
