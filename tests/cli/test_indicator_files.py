"""Multi-label indicator files read in chunks (metricc.cli.indicator_files, issue 30) give what the
whole-file reader gives: every case both ways, the chunked one with chunks of a few bytes."""

from __future__ import annotations

import numpy as np
import pytest

from metricc import cli
from metricc.cli import indicator_files, label_stream

CASES = {
    "blanks": ("1 0 1\n0 1 1\n1 1 0\n", "1 0 0\n0 1 1\n0 1 0\n"),
    "commas_crlf_bom_blank_lines": ("\ufeff1,0,1\r\n\r\n0,1,1\r\n", "1;0;0\n0;1;1\n\n"),
    "a_comment_read_whole": ("# truth\n1 0\n0 1\n", "1 0\n1 1\n"),
    "not_an_indicator": ("1 2\n0 1\n", "1 0\n1 1\n"),
    "decimals_read_whole": ("1.0 0\n0 1\n", "1 0\n1 1\n"),
    "ragged_rows": ("1 0\n0 1 1\n", "1 0\n1 1\n"),
    "shapes_differ": ("1 0\n0 1\n", "1 0 1\n1 1 0\n"),
    "npy": (np.array([[1, 0, 1], [0, 1, 1]]), np.array([[1, 0, 0], [0, 1, 1]], dtype=np.uint8)),
    "npy_with_nan": (np.array([[1.0, np.nan], [0.0, 1.0]]), np.array([[1, 0], [0, 1]])),
}


def _write(folder, name, content):
    path = folder / (name + (".npy" if isinstance(content, np.ndarray) else ".txt"))
    if isinstance(content, np.ndarray):
        np.save(path, content)
    else:
        path.write_text(content, encoding="utf-8")
    return str(path)


def _run(capsys, argv):
    code = cli.main(argv)
    return (code, *capsys.readouterr())


@pytest.mark.parametrize("command", [("eval", "--metric", "f1:macro", "--metric", "f1:samples", "--metric",
                                      "hamming_loss"), ("report",)])
@pytest.mark.parametrize("case", sorted(CASES))
def test_chunked_indicators_agree_with_the_whole_file(case, command, tmp_path, monkeypatch, capsys):
    truth, predicted = CASES[case]
    argv = [*command, "--multilabel", "--y-true", _write(tmp_path, "t", truth), "--y-pred", _write(tmp_path, "p", predicted)]
    whole = _run(capsys, argv)
    monkeypatch.setattr(label_stream, "STREAM_BYTES", 0)
    monkeypatch.setattr(label_stream, "CHUNK_BYTES", 4)
    assert _run(capsys, argv) == whole
    assert whole[0] != 3, whole[2]


def test_a_large_file_becomes_one_byte_per_entry(tmp_path, monkeypatch):
    rng = np.random.default_rng(30)
    rows = rng.integers(0, 2, (5_000, 6))
    path = tmp_path / "y.txt"
    path.write_text("".join(" ".join(map(str, row)) + "\n" for row in rows), encoding="utf-8")
    monkeypatch.setattr(label_stream, "STREAM_BYTES", 0)
    monkeypatch.setattr(label_stream, "CHUNK_BYTES", 100)
    read = indicator_files.read_indicators("--y-true", str(path), shown=False)
    assert read.dtype == np.uint8 and np.array_equal(read, rows)
    np.save(tmp_path / "y.npy", rows)
    mapped = indicator_files.read_indicators("--y-true", str(tmp_path / "y.npy"), shown=False)
    assert isinstance(mapped, np.memmap) and np.array_equal(mapped, rows)
