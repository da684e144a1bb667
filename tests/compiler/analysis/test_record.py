"""Tests for the build record (:mod:`analysis.record`, :mod:`analysis.record_text`): what a build
takes from it is what it would compute, it is rewritten byte for byte, and ``--check`` fails
when it would change."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import sympy

from metricc.compiler import build
from metricc.compiler.analysis import record as build_record
from metricc.compiler.analysis.cache import Cache
from metricc.compiler.analysis.record import Record
from metricc.compiler.analysis.record_text import Unrecordable, decoded, encoded, key_text
from metricc.compiler.language import symbols

from tests.compiler.analysis.test_cache import SMALL, _catalog as _project


def _build(specs: Path, record: Record | None) -> dict[str, str]:
    here = os.getcwd()
    os.chdir(specs.parent)
    try:
        return build.compile_catalog(Path("specs"), Cache(None, record))
    finally:
        os.chdir(here)


def _write(out: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        (out / path).parent.mkdir(parents=True, exist_ok=True)
        (out / path).write_text(text, encoding="utf-8")


@pytest.mark.parametrize("value", [
    sympy.Mul(2, sympy.Symbol("C", integer=True, positive=True) - 1, evaluate=False),
    symbols.metric_value("recall"),
    sympy.Sum(sympy.Indexed(sympy.IndexedBase("M"), symbols.index_symbol("k")), (symbols.index_symbol("k"), 0, symbols.N_CLASSES - 1)),
    sympy.Piecewise((1, sympy.Eq(symbols.TP, 0)), (symbols.TP / 2, True)),
    (-sympy.oo, sympy.Float("0.1"), sympy.Rational(1, 3), float("inf"), -1.5, None, "a\nb", ()),
    {"docs/f1.tex": "0" * 64},
])
def test_values_read_back_exactly(value):
    text = encoded(value)
    assert "\n" not in text and decoded(text) == value
    assert key_text(value) == text


def test_every_analyzed_metric_of_the_catalog_reads_back_equal(compiled_metrics):
    for metric in compiled_metrics.values():
        assert decoded(encoded(metric)) == metric


@pytest.mark.parametrize("text", ["__import__('os').system('true')", "Add.__class__", "open('x')", "[1]", "Add("])
def test_reading_runs_no_code(text):
    with pytest.raises(Unrecordable):
        decoded(text)


def test_keys_tell_assumptions_apart_where_srepr_does_not():
    assert sympy.srepr(symbols.metric_value("recall")) == sympy.srepr(sympy.Function("recall")(*symbols.COUNTS))
    assert key_text(symbols.metric_value("recall")) != key_text(sympy.Function("recall")(*symbols.COUNTS))


def test_a_fresh_build_takes_everything_from_the_record_and_rewrites_it_byte_for_byte(tmp_path):
    specs = _project(tmp_path)
    out = specs.parent / "generated"
    first = Record(specs, out)
    files = _build(specs, first)
    _write(out, files)
    text = (specs / build_record.FILE_NAME).read_text()
    assert first.read == {} and first.computed["analyzed"] == len(SMALL) and first.computed["equal"] > 0

    again = Record(specs, out, check=True)
    assert _build(specs, again) == files
    assert again.computed == {} and again.read["analyzed"] == len(SMALL) and again.read["emitted"] > 0
    assert not again.stale and (specs / build_record.FILE_NAME).read_text() == text
    assert "proofs: 0 proved now" in again.summary()

    # An output file edited by hand is not taken from the output folder: its metric is emitted again.
    (out / "f1.py").write_text("edited\n")
    edited = Record(specs, out, check=True)
    assert _build(specs, edited) == files and edited.computed == {"emitted": 1} and not edited.stale


def test_check_fails_on_a_missing_extra_or_wrong_entry_and_build_repairs_it(tmp_path):
    """A wrong value is used as it is (the record is trusted as the source tree is); a check
    that reads nothing (``--check --no-cache``) recomputes everything and finds it."""
    specs = _project(tmp_path, ("precision", "recall", "f1", "f_beta"))
    _build(specs, Record(specs))
    path = specs / build_record.FILE_NAME
    good = path.read_text()
    header, entries = good[:good.index("\nanalyzed:") + 1], good[good.index("\nanalyzed:") + 1:].splitlines(True)
    damages = {header + "".join(entries[1:]): True, good + "analyzed:gone:0\tNone\n": True,
               good.replace("\tTrue\n", "\tFalse\n", 1): False}
    for damaged, read in damages.items():
        path.write_text(damaged)
        check = Record(specs, check=True, read=read)
        _build(specs, check)
        assert check.stale and path.read_text() == damaged
    _build(specs, Record(specs, read=False))
    assert path.read_text() == good


def test_a_record_made_with_other_libraries_is_not_read_nor_held_against_check(tmp_path):
    specs = _project(tmp_path, ("precision", "recall"))
    _build(specs, Record(specs))
    path = specs / build_record.FILE_NAME
    lines = path.read_text().split("\n")
    path.write_text("\n".join([*lines[:2], "libraries python 2.7 sympy 0.7", *lines[3:]]))
    check = Record(specs, check=True)
    _build(specs, check)
    assert check.read == {} and not check.stale and "sympy 0.7" in check.summary()


def _metricc(*args, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "metricc", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_command_line(tmp_path):
    """``metricc build`` writes the record; ``--check`` reads it, says so, and fails once it is stale."""
    specs = _project(tmp_path, ("precision", "recall"))
    project = specs.parent
    assert _metricc("build", "--no-cache", "--quiet", cwd=project).returncode == 0
    checked = _metricc("build", "--check", "--no-cache", cwd=project)
    assert checked.returncode == 0, checked.stderr
    checked = _metricc("build", "--check", "--cache-dir", str(tmp_path / "empty"), cwd=project)
    assert checked.returncode == 0 and "proofs: 0 proved now" in checked.stdout and "from the record" in checked.stdout
    (specs / build_record.FILE_NAME).write_text(build_record.Record(specs).header)
    stale = _metricc("build", "--check", "--no-cache", cwd=project)
    assert stale.returncode == 1 and build_record.FILE_NAME in stale.stderr and "metricc build" in stale.stderr
