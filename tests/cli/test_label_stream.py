"""Label files counted in chunks (:mod:`metricc.cli.label_stream`, issue 30) give what the
whole-file reader gives: every case is run both ways, the chunked one with chunks of a few
bytes so that lines, the byte-order mark and headers straddle chunk boundaries."""

from __future__ import annotations

import re

import pytest

from metricc import cli
from metricc.cli import app, label_stream

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


def test_tables_json_and_small_files_are_read_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(label_stream, "STREAM_BYTES", 0)
    (tmp_path / "t.csv").write_text("id,label\n1,a\n", encoding="utf-8")
    (tmp_path / "p.txt").write_text("a\n", encoding="utf-8")
    (tmp_path / "p.json").write_text('["a"]', encoding="utf-8")
    parsed = app._parser().parse_args(["eval", "--metric", "accuracy", "--y-true", str(tmp_path / "t.csv"),
                                                "--y-pred", str(tmp_path / "p.txt")])
    assert not label_stream.applies(parsed)
    parsed.y_true, parsed.y_pred = str(tmp_path / "p.txt"), str(tmp_path / "p.json")
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
    pairs, lengths = label_stream._pairs((str(tmp_path / "t.txt"), str(tmp_path / "p.txt")), (False, False), None)
    assert lengths == [200_000, 200_000]
    assert dict(pairs) == {(b"a", b"a"): 100_000, (b"b", b"a"): 100_000}
    assert largest <= 1024 // 2 + 1
