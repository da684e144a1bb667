"""A table giving both ``--y-true`` and ``--y-pred`` (two columns of one file) is read once when
counted in chunks (:meth:`metricc.cli.label_sources.TableSource.scan` with a partner): one pass
counts its label pairs and decides its header, where two columns read as two files took four."""

from __future__ import annotations

import numpy as np
import pytest

from metricc import cli
from metricc.cli import label_sources, label_stream


def _run(capsys, argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("options", [("--column", "y", "--y-pred-column", "yhat"),
                                     ("--column", "1", "--y-pred-column", "2", "--y-pred", "SAME")])
def test_a_table_giving_both_columns_is_read_once_with_the_values_of_the_whole_file(options, tmp_path, monkeypatch,
                                                                                      capsys):
    rng = np.random.default_rng(3)
    truth, predicted = rng.integers(0, 3, 2_000), rng.integers(0, 3, 2_000)
    table = tmp_path / "y.csv"
    table.write_text("id,y,yhat\n" + "".join(f"{k},{a},{b}\n" for k, (a, b) in enumerate(zip(truth, predicted))),
                     encoding="utf-8")
    argv = ["eval", "--metric", "mcc", "--metric", "recall:none", "--y-true", table,
            *(table if option == "SAME" else option for option in options)]
    whole = _run(capsys, argv)
    passes = []
    chunks = label_sources._text_chunks
    monkeypatch.setattr(label_sources, "_text_chunks", lambda *a: passes.append(a[1]) or chunks(*a))
    monkeypatch.setattr(label_stream, "STREAM_BYTES", 0)
    monkeypatch.setattr(label_stream, "CHUNK_BYTES", 4096)
    counted = _run(capsys, argv)
    assert whole[0] == 0 and counted == whole
    assert passes == [str(table)]  # one pass (it was four: a header scan and a count per column)


def test_the_first_line_is_paired_only_when_neither_column_takes_it_as_a_header(tmp_path, monkeypatch, capsys):
    """"0,1" over numbers is a row of labels (never a header from numbers alone): it is a pair."""
    table = tmp_path / "y.csv"
    table.write_text("0,1\n1,1\n0,0\n", encoding="utf-8")
    monkeypatch.setattr(label_stream, "STREAM_BYTES", 0)
    code, out, _ = _run(capsys, ["eval", "--metric", "accuracy", "--y-true", table, "--column", "0",
                                 "--y-pred-column", "1"])
    assert code == 0 and float(out.split()[-1]) == pytest.approx(2 / 3)
