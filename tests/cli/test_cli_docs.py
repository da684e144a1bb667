"""``metricc docs`` (compiler/cli/docs.py): the site and the PDF from the command line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from metricc.cli import docs
from metricc.cli.app import main
from metricc.compiler.language import load

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def compiled(monkeypatch, compiled_metrics, tmp_path):
    """``docs`` with the session's compiled catalog instead of a fresh compilation (and a build
    cache of its own, not the repository's)."""
    monkeypatch.setenv("METRICC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(docs, "_compiled", lambda spec_dir, cache: (compiled_metrics, load.load_errata(REPO / "specs")))


def test_nothing_asked_is_a_usage_error(capsys):
    assert main(["docs"]) == 2
    assert "--html OUT/ and/or --pdf" in capsys.readouterr().err


def test_pdf_without_pdflatex_says_what_to_install(monkeypatch, capsys):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert main(["docs", "--pdf"]) == 2
    err = capsys.readouterr().err
    assert "pdflatex not found" in err and "texlive-latex-base" in err


def test_html_writes_the_site_and_refuses_a_foreign_folder(compiled, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(REPO)
    out = tmp_path / "site"
    assert main(["docs", "--html", str(out)]) == 0
    assert (out / "index.html").is_file() and (out / "metrics" / "f1.html").is_file()
    assert "<tr class=\"erratum\">" in (out / "audits.html").read_text("utf-8")
    assert main(["docs", "--html", str(out)]) == 0  # our own site is replaced
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    assert main(["docs", "--html", str(foreign)]) == 2
    assert "refusing to replace it" in capsys.readouterr().err
    assert (foreign / "notes.txt").read_text() == "keep me"


def test_html_refuses_a_stale_generated_package(compiled, tmp_path, monkeypatch, capsys):
    from metricc.compiler.emit import write

    monkeypatch.setattr(write, "stale_files", lambda root, files: ["f1.py"])
    assert main(["docs", "--html", str(tmp_path / "site")]) == 2
    assert "run `metricc build` first" in capsys.readouterr().err
    assert not (tmp_path / "site").exists()


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed (CI installs texlive)")
def test_pdf_compiles(compiled, tmp_path):
    out = tmp_path / "catalog.pdf"
    assert main(["docs", "--pdf", str(out)]) == 0
    assert out.read_bytes()[:5] == b"%PDF-"


def test_docs_reuses_what_the_build_analyzed(tmp_path, monkeypatch):
    """``metricc docs`` reads the cache ``metricc build`` fills: after a build it analyzes,
    proves and emits nothing again."""
    from metricc.compiler import build
    from metricc.compiler.analysis.cache import Cache

    folder = tmp_path / "specs"
    folder.mkdir()
    for name in ("accuracy.yaml", "error_rate.yaml", "schema.json"):
        shutil.copyfile(REPO / "specs" / name, folder / name)
    monkeypatch.chdir(tmp_path)
    build.compile_catalog(Path("specs"), Cache(tmp_path / "cache"))
    cache = Cache(tmp_path / "cache")
    metrics, _ = docs._compiled(folder, cache)
    assert sorted(metrics) == ["accuracy", "error_rate"]
    assert cache.made == set() and cache.hits > 0
