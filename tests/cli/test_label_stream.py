"""Label files counted in chunks (:mod:`metricc.cli.label_stream`, issue 30) give what the
whole-file reader gives: every case is run both ways, the chunked one with chunks of a few
bytes so that lines, the byte-order mark and headers straddle chunk boundaries."""

from __future__ import annotations

import json
import re

import numpy as np

import pytest

from metricc import cli
from metricc.cli import app, label_sources, label_stream

CASES = {
    "numbers": ("0\n1\n1\n2\n", "0\n1\n2\n2\n", ()),
    "numbers_header_never_guessed": ("0\n1\n1\n2\n", "1\n1\n2\n2\n", ()),
    "both_headed": ("label\ncat\ndog\ncat\n", "pred\ncat\ncat\ndog\n", ()),
    "one_headed": ("label\ncat\ndog\ncat\n", "cat\ncat\ndog\n", ()),
    "header_over_numbers": ("y\n0\n1\n1\n", "0\n1\n0\n", ()),
    "first_line_a_class": ("cat\ndog\ncat\n", "cat\ncat\ndog\n", ()),
    "blank_lines_and_crlf": ("a\n\n b\r\nc\r\n", "a\nb\n\n\nc", ()),
    "decimals_typed_alike": ("1.0\n2.5\n1.00\n", "1\n2.5\n1\n", ()),
    "lengths_differ": ("0\n1\n", "0\n1\n1\n", ()),
    "byte_order_mark": ("\ufeffx\ny\nx\n", "x\ny\ny\n", ()),
    "header_yes": ("t\n0\n1\n", "p\n1\n1\n", ("--header", "yes")),
    "header_no": ("label\ncat\ndog\n", "pred\ncat\ncat\n", ("--header", "no")),
    "given_labels": ("b\na\nb\n", "a\na\nb\n", ("--labels", "b", "a", "c")),
    "label_not_given": ("b\na\nc\n", "a\na\nb\n", ("--labels", "b", "a")),
    "pos_label": ("0\n1\n1\n", "1\n1\n0\n", ("--pos-label", "1", "--average", "binary")),
    "beyond_float64": ("1e400\n1\n", "1\n1\n", ()),
    "no_labels": ("\n\n", "\n", ()),
}


def _run(capsys, argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("command", [("eval", "--metric", "accuracy", "--metric", "recall:none"), ("report",)])
@pytest.mark.parametrize("case", sorted(CASES))
def test_chunked_reading_agrees_with_the_whole_file(case, command, tmp_path, monkeypatch, capsys):
    truth, predicted, extra = CASES[case]
    (tmp_path / "t.txt").write_text(truth, encoding="utf-8")
    (tmp_path / "p.txt").write_text(predicted, encoding="utf-8")
    argv = [*command, "--y-true", tmp_path / "t.txt", "--y-pred", tmp_path / "p.txt", *extra]
    whole = _run(capsys, argv)
    counted = []
    pairs = label_stream._pairs
    monkeypatch.setattr(label_stream, "_pairs", lambda *a: counted.append(1) or pairs(*a))
    monkeypatch.setattr(label_stream, "STREAM_BYTES", 0)
    monkeypatch.setattr(label_stream, "CHUNK_BYTES", 3)
    chunked = _run(capsys, argv)
    assert whole[0] != 3, whole[2]
    # a label the chunks cannot place is named without its position (they count distinct labels)
    unplaced = re.sub(r"label \d+ \(", "a label (", re.sub(r" at index \d+", "", whole[2]))
    assert chunked == (*whole[:2], unplaced)
    assert counted or whole[0] == 2  # an input refused before counting may be refused earlier


def test_inline_json_one_line_tables_and_small_files_are_read_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(label_stream, "STREAM_BYTES", 0)
    (tmp_path / "t.csv").write_text("id,label\n1,a\n", encoding="utf-8")
    (tmp_path / "p.txt").write_text("a\n", encoding="utf-8")
    (tmp_path / "p.json").write_text('["a"]', encoding="utf-8")
    (tmp_path / "line.csv").write_text("a,b\n", encoding="utf-8")
    parsed = app._parser().parse_args(["eval", "--metric", "accuracy", "--y-true", str(tmp_path / "t.csv"),
                                                "--y-pred", str(tmp_path / "p.txt")])
    assert label_stream.applies(parsed)
    parsed.y_true, parsed.y_pred = str(tmp_path / "p.txt"), str(tmp_path / "p.json")
    assert label_stream.applies(parsed)
    parsed.y_pred = "[\"a\"]"  # inline JSON
    assert not label_stream.applies(parsed)
    parsed.y_pred = str(tmp_path / "line.csv")  # one line: its fields are the labels
    assert not label_stream.applies(parsed)
    parsed.y_pred = str(tmp_path / "p.txt")
    assert label_stream.applies(parsed)
    monkeypatch.setattr(label_stream, "STREAM_BYTES", 10**9)
    assert not label_stream.applies(parsed)


def test_memory_is_bounded_by_the_chunk_not_the_file(tmp_path, monkeypatch):
    """200,000 samples in chunks of 1 KiB: no chunk of lines ever holds more than a chunk's worth."""
    (tmp_path / "t.txt").write_text("a\nb\n" * 100_000, encoding="utf-8")
    (tmp_path / "p.txt").write_text("a\na\n" * 100_000, encoding="utf-8")
    monkeypatch.setattr(label_stream, "CHUNK_BYTES", 1024)
    largest = 0
    chunks = label_stream._chunks

    def watched(*args, **kwargs):
        nonlocal largest
        for lines in chunks(*args, **kwargs):
            largest = max(largest, len(lines))
            yield lines

    monkeypatch.setattr(label_stream, "_chunks", watched)
    streams = [label_stream._chunks(option, str(tmp_path / name)) for option, name in (("--y-true", "t.txt"),
                                                                                        ("--y-pred", "p.txt"))]
    pairs, lengths = label_stream._pairs(streams, (False, False))
    assert lengths == [200_000, 200_000]
    assert dict(pairs) == {(b"a", b"a"): 100_000, (b"b", b"a"): 100_000}
    assert largest <= 1024 // 2 + 1


# Tables and .npy arrays (metricc.cli.label_sources): files by name (text, or an array saved as .npy) and the options.
FILE_CASES = {
    "csv_columns_by_name": ({"t.csv": "id,label\n1,cat\n2,dog\n3,cat\n", "p.csv": "id,pred\n1,cat\n2,cat\n3,dog\n"},
                            ("--column", "label", "--y-pred-column", "pred")),
    "tsv_by_index": ({"t.tsv": "x\t1\ny\t2\nx\t2\n", "p.tsv": "x\t1\nx\t2\ny\t2\n"}, ("--column", "0")),
    "one_table_two_columns": ({"t.csv": "y_true,y_pred\ncat,dog\ndog,dog\ncat,cat\n"},
                              ("--column", "y_true", "--y-pred-column", "y_pred")),
    "header_over_numbers": ({"t.csv": "t,p\n0,1\n1,1\n2,0\n"}, ("--column", "0", "--y-pred-column", "1")),
    "numbers_never_a_header": ({"t.csv": "0,1\n1,0\n2,2\n"}, ("--column", "0", "--y-pred-column", "1")),
    "header_no_by_index": ({"t.csv": "a,b\nb,a\na,a\n"}, ("--column", "0", "--y-pred-column", "1", "--header", "no")),
    "quoted_crlf_bom": ({"t.csv": '\ufeffname,v\r\n"a,b",1\r\n"c",2\r\n\r\n"a,b",3\r\n', "p.txt": "a,b\nc\nc\n"},
                        ("--column", "name")),
    "width_differs": ({"t.csv": "a,b\n1,2\n3\n", "p.txt": "1\n2\n"}, ("--column", "0")),
    "empty_label": ({"t.csv": "a,b\n1,\n2,x\n", "p.txt": "1\n2\n"}, ("--column", "1")),
    "no_such_column": ({"t.csv": "a,b\n1,2\n", "p.txt": "1\n"}, ("--column", "c")),
    "only_a_header": ({"t.csv": "a,b\n", "p.txt": "1\n"}, ("--column", "a")),
    "table_and_headed_plain": ({"t.csv": "id,label\n1,cat\n2,dog\n", "p.txt": "pred\ncat\ncat\n"},
                               ("--column", "label")),
    # one table giving both columns: read in one pass (label_sources.TableSource.scan with a partner)
    "one_table_name_and_index": ({"t.csv": "y,p\ncat,dog\ndog,dog\n"}, ("--column", "y", "--y-pred-column", "1")),
    "one_table_digit_names": ({"t.csv": "1,0\ncat,dog\ndog,cat\n"}, ("--column", "0", "--y-pred-column", "1")),
    "one_table_width_differs": ({"t.csv": "a,b\n1,2\n3\n"}, ("--column", "0", "--y-pred-column", "1")),
    "one_table_empty_prediction": ({"t.csv": "a,b\n1,x\n2,\n"}, ("--column", "a", "--y-pred-column", "b")),
    "one_table_no_such_column": ({"t.csv": "a,b\n1,2\n"}, ("--column", "a", "--y-pred-column", "c")),
    "one_table_header_no_by_name": ({"t.csv": "a,b\n1,2\n"}, ("--column", "a", "--y-pred-column", "b", "--header", "no")),
    "one_table_one_column": ({"t.csv": "a,b\nx,1\ny,2\n"}, ("--column", "a", "--y-pred-column", "a")),
    "npy_integers": ({"t.npy": np.array([0, 1, 1, 2, 2]), "p.npy": np.array([0, 1, 2, 2, 1])}, ()),
    "npy_strings_and_plain": ({"t.npy": np.array(["a", "b", "a"]), "p.txt": "a\na\nb\n"}, ()),
    "npy_one_column": ({"t.npy": np.array([[1], [0], [1]]), "p.npy": np.array([1, 1, 0])}, ()),
    "npy_floats_and_nan": ({"t.npy": np.array([1.0, np.nan]), "p.npy": np.array([1.0, 0.0])}, ()),
    "npy_with_column": ({"t.npy": np.array([1, 0]), "p.npy": np.array([1, 0])}, ("--column", "0")),
    "json_arrays": ({"t.json": '\ufeff[ "cat", "dog" ,\n "cat", "a \\"quoted\\", label"]\n',
                     "p.json": '["cat","cat","dog","a \\"quoted\\", label"]'}, ()),
    "json_numbers_and_plain": ({"t.json": "[0, 1, 1.5, 2,\n\n 1e2]", "p.txt": "0\n1\n1.5\n2\n100\n"}, ()),
    "json_text_not_named_json": ({"t.txt": '  ["x", "y"]', "p.txt": "x\ny\n"}, ()),
    "json_and_headed_plain": ({"t.json": '["x", "y"]', "p.txt": "pred\nx\ny\n"}, ()),
    "json_null_label": ({"t.json": '["a", "b", null, "c"]', "p.json": '["a", "b", "a", "c"]'}, ()),
    "json_nested": ({"t.json": '[["a"], ["b"]]', "p.json": '["a", "b"]'}, ()),
    "json_invalid": ({"t.json": '["a", "b",, "c"]', "p.json": '["a", "b", "c"]'}, ()),
    "json_not_closed": ({"t.json": '["a", "b"', "p.json": '["a", "b"]'}, ()),
    "json_beyond_float64": ({"t.json": '[1, 1e400]', "p.json": '[1, 1]'}, ()),
    "json_empty_array": ({"t.json": '[]', "p.json": '[]'}, ()),
    "json_with_column": ({"t.json": '["a"]', "p.json": '["a"]'}, ("--column", "0")),
}


def _write(folder, name, content):
    if isinstance(content, np.ndarray):
        np.save(folder / name, content)
    else:
        (folder / name).write_text(content, encoding="utf-8")
    return folder / name


@pytest.mark.parametrize("command", [("eval", "--metric", "accuracy", "--metric", "recall:none"), ("report",)])
@pytest.mark.parametrize("case", sorted(FILE_CASES))
def test_tables_and_npy_files_in_chunks_agree_with_the_whole_file(case, command, tmp_path, monkeypatch, capsys):
    files, extra = FILE_CASES[case]
    paths = [_write(tmp_path, name, content) for name, content in files.items()]
    argv = [*command, "--y-true", paths[0], *(("--y-pred", paths[1]) if len(paths) > 1 else ()), *extra]
    whole = _run(capsys, argv)
    counted = []
    pairs = label_stream._pairs
    monkeypatch.setattr(label_stream, "_pairs", lambda *a: counted.append(1) or pairs(*a))
    scan = label_sources.TableSource.scan
    monkeypatch.setattr(label_sources.TableSource, "scan",
                        lambda self, bar, partner=None: (partner and counted.append(1)) or scan(self, bar, partner))
    monkeypatch.setattr(label_stream, "STREAM_BYTES", 0)
    monkeypatch.setattr(label_stream, "CHUNK_BYTES", 5)
    chunked = _run(capsys, argv)
    assert whole[0] != 3, whole[2]
    unplaced = re.sub(r"label \d+ \(", "a label (", re.sub(r" at index \d+", "", whole[2]))
    assert chunked == (*whole[:2], unplaced)
    assert counted or whole[0] == 2


def test_a_large_table_in_small_chunks_gives_the_matrix_of_the_whole_file(tmp_path, monkeypatch, capsys):
    """20,000 labels in chunks of 256 bytes, as a table, .npy and JSON arrays: the values of the files read whole."""
    rng = np.random.default_rng(30)
    truth, predicted = rng.integers(0, 4, 20_000), rng.integers(0, 4, 20_000)
    (tmp_path / "y.csv").write_text("id,y,yhat\n" + "".join(f"{k},{a},{b}\n" for k, (a, b) in
                                                            enumerate(zip(truth, predicted))), encoding="utf-8")
    np.save(tmp_path / "t.npy", truth)
    np.save(tmp_path / "p.npy", predicted)
    (tmp_path / "t.json").write_text(json.dumps(truth.tolist(), indent=1), encoding="utf-8")
    (tmp_path / "p.json").write_text(json.dumps(predicted.tolist()), encoding="utf-8")
    metrics = ["eval", "--metric", "mcc", "--metric", "f1:macro"]
    runs = ([*metrics, "--y-true", tmp_path / "y.csv", "--column", "y", "--y-pred-column", "yhat"],
            [*metrics, "--y-true", tmp_path / "t.npy", "--y-pred", tmp_path / "p.npy"],
            [*metrics, "--y-true", tmp_path / "t.json", "--y-pred", tmp_path / "p.json"])
    whole = [_run(capsys, argv) for argv in runs]
    monkeypatch.setattr(label_stream, "STREAM_BYTES", 0)
    monkeypatch.setattr(label_stream, "CHUNK_BYTES", 256)
    chunked = [_run(capsys, argv) for argv in runs]
    assert whole[0][0] == 0 and chunked == whole and whole[0][1] == whole[1][1] == whole[2][1]
