"""Tests for the command line's input readers (:mod:`metricc.cli.inputs`).

Every error is an ``InputError`` naming the option it was given and, for files, the file and
the line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from metricc.cli import inputs, score_files
from metricc.core.errors import InputError


def write(folder: Path, name: str, content: str | bytes) -> str:
    path = folder / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return str(path)


def refused(reader, option: str, value: str) -> str:
    """The message of the error ``reader(option, value)`` raises, after checking its argument."""
    with pytest.raises(InputError) as info:
        reader(option, value)
    assert info.value.argument == option
    return info.value.message


# ---------------------------------------------------------------- matrices

def test_matrix_inline_json():
    assert inputs.read_matrix("--matrix", " [[5, 1], [2, 4]]") == [[5, 1], [2, 4]]
    assert inputs.read_matrix("--matrix", "[[[1, 0], [0, 1]], [[2, 0], [0, 2]]]")[1] == [[2, 0], [0, 2]]  # a batch


def test_matrix_files(tmp_path):
    expected = [[5, 1], [2, 4]]
    assert inputs.read_matrix("--matrix", write(tmp_path, "m.json", "[[5, 1], [2, 4]]\n")) == expected
    assert inputs.read_matrix("--matrix", write(tmp_path, "m.txt", " [[5, 1], [2, 4]]")) == expected  # JSON by content
    csv = "# true rows\n\n5, 1\n2 4\n"
    assert inputs.read_matrix("--matrix", write(tmp_path, "m.csv", csv)) == expected
    assert inputs.read_matrix("--matrix", write(tmp_path, "bom.csv", "\ufeff5;1\n2\t4\n")) == expected
    assert inputs.read_matrix("--matrix", write(tmp_path, "f.csv", "0.5, 1e2\n-1, 3\n")) == [[0.5, 100.0], [-1, 3]]


def test_matrix_rows_keep_integers_as_ints(tmp_path):
    rows = inputs.read_matrix("--matrix", write(tmp_path, "m.csv", "5, 1\n2, 4\n"))
    assert all(type(value) is int for row in rows for value in row)


@pytest.mark.parametrize(("name", "content", "words"), [
    ("m.json", "[[1, 2], [3", "m.json: not valid JSON"),
    ("m.json", '{"rows": [[1]]}', "expected a JSON array of rows, got dict"),
    ("m.csv", "1, 2\n3, x\n", "m.csv:2: 'x' is not a number"),
    ("m.csv", "1, 2\n3\n", "m.csv:2: 1 values, expected 2 like line 1"),
    ("m.csv", "# counts\n1, 2, 3\n4, 5\n", "m.csv:3: 2 values, expected 3 like line 2"),
    ("m.csv", "# only a comment\n\n", "m.csv: no numbers in the file"),
    ("m.csv", b"\xff\xfe1,2\n", "m.csv: not UTF-8 text"),
])
def test_bad_matrix_files(tmp_path, name, content, words):
    assert words in refused(inputs.read_matrix, "--matrix", write(tmp_path, name, content))


def test_bad_matrix_values():
    assert "not valid JSON" in refused(inputs.read_matrix, "--matrix", "[[5, 1], [2, 4]")
    assert "missing.csv" in refused(inputs.read_matrix, "--matrix", "missing.csv")
    assert refused(inputs.read_matrix, "--baseline", "missing.csv").startswith("cannot read missing.csv")


def test_a_folder_is_not_a_matrix_file(tmp_path):
    assert refused(inputs.read_matrix, "--matrix", str(tmp_path)).startswith(f"cannot read {tmp_path}")


# ---------------------------------------------------------------- labels

def test_labels_one_per_line_or_one_comma_line(tmp_path):
    text = inputs.Labels(["cat", "dog", "cat"], text=True)
    assert inputs.read_labels("--y-true", write(tmp_path, "t.txt", "cat\n dog \n\ncat\n")) == text
    assert inputs.read_labels("--y-pred", write(tmp_path, "p.csv", "cat, dog ,cat\n")) == text
    assert inputs.read_labels("--y-true", write(tmp_path, "one.txt", "bird\n")) == (["bird"], True)


def test_labels_in_json_keep_their_types(tmp_path):
    """As in the Python API, 1 and "1" are two labels; a JSON file is read as JSON."""
    assert inputs.read_labels("--y-true", '[1, "b", 2.5, "1"]') == ([1, "b", 2.5, "1"], False)
    assert inputs.read_labels("--y-true", write(tmp_path, "y.json", '["a", 2]')) == (["a", 2], False)


@pytest.mark.parametrize(("value", "words"), [
    ('["a", null]', "label 1 is null; every sample needs a label"),
    ('["a", ""]', "label 1 is empty; every sample needs a label"),
    ('[["a"]]', "label 0 is a JSON list; a label is a number or a string"),
    ('[{"a": 1}]', "label 0 is a JSON dict; a label is a number or a string"),
])
def test_null_and_empty_json_labels_are_refused(value, words):
    assert refused(inputs.read_labels, "--y-true", value) == words


def test_a_json_label_file_holds_an_array(tmp_path):
    path = write(tmp_path, "y.json", '{"a": 1}')
    assert refused(inputs.read_labels, "--y-true", path) == f"{path}: expected a JSON array of labels, got dict"


@pytest.mark.parametrize(("content", "words"), [
    (",,,\n", "1: label 1 of the line is empty"),
    ("a,b,\n", "1: label 3 of the line is empty"),
    ("\n\na, ,b\n", "3: label 2 of the line is empty"),
])
def test_empty_fields_are_refused_with_their_position(tmp_path, content, words):
    path = write(tmp_path, "y.csv", content)
    assert refused(inputs.read_labels, "--y-true", path) == f"{path}:{words}; every sample needs a label"


@pytest.mark.parametrize(("content", "words"), [
    ("a,b\nc\n", ":2: 1 fields, expected 2 like line 1; give one label per line, or a table with the same columns on every line"),
    ("\n \n", ": no labels in the file"),
])
def test_bad_label_files(tmp_path, content, words):
    path = write(tmp_path, "y.txt", content)
    assert refused(inputs.read_labels, "--y-pred", path) == f"{path}{words}"


def test_bad_label_values(tmp_path):
    assert "not valid JSON" in refused(inputs.read_labels, "--y-true", '["a", "b"')
    assert "nope.txt" in refused(inputs.read_labels, "--labels-file", str(tmp_path / "nope.txt"))
    assert refused(inputs.read_labels, "--y-true", write(tmp_path, "y.txt", b"\xffcat\n")).endswith("not UTF-8 text")


# ---------------------------------------------------------------- multi-label indicators

def test_indicators(tmp_path):
    assert inputs.read_indicators("--y-true", "[[1, 0, 1], [0, 1, 0]]") == [[1, 0, 1], [0, 1, 0]]
    path = write(tmp_path, "t.csv", "1,0,1\n0 1 0\n")
    assert inputs.read_indicators("--y-true", path) == [[1, 0, 1], [0, 1, 0]]


def test_bad_indicators(tmp_path):
    path = write(tmp_path, "t.csv", "1,0,1\n0,1\n")
    assert refused(inputs.read_indicators, "--y-pred", path) == f"{path}:2: 2 values, expected 3 like line 1"
    path = write(tmp_path, "u.csv", "1,0\nyes,0\n")
    assert refused(inputs.read_indicators, "--y-true", path) == f"{path}:2: 'yes' is not a number"


# ---------------------------------------------------------------- scores

def test_scores_rows_and_single_columns(tmp_path):
    assert score_files.read_scores("--scores", "[[0.2, 0.8], [0.6, 0.4]]") == [[0.2, 0.8], [0.6, 0.4]]
    assert score_files.read_scores("--scores", write(tmp_path, "s.csv", "0.9\n0.1\n")) == [0.9, 0.1]  # two classes
    assert score_files.read_scores("--scores", "[[0.9], [0.1]]") == [0.9, 0.1]
    assert score_files.read_scores("--scores", write(tmp_path, "s.json", "[0.3, 0.7]")) == [0.3, 0.7]


def test_bad_scores(tmp_path):
    path = write(tmp_path, "s.json", '{"scores": [0.3]}')
    assert refused(score_files.read_scores, "--scores", path) == "expected a JSON array of rows, got dict"
    path = write(tmp_path, "s.csv", "0.2, 0.8\n0.6\n")
    assert refused(score_files.read_scores, "--scores", path) == f"{path}:2: 1 values, expected 2 like line 1"
    assert "not valid JSON" in refused(score_files.read_scores, "--scores", "[0.2, ")


# ---------------------------------------------------------------- label types and JSON

def test_labels_are_integers_only_when_all_of_them_are():
    text = inputs.text_labels
    assert inputs.typed_labels(text(["10", "9", "-1"]), text(["9"]), None) == ([[10, 9, -1], [9], None], True)
    assert inputs.typed_labels(text(["10", "cat"]), text(["9"])) == ([["10", "cat"], ["9"]], False)
    assert inputs.typed_labels(text(["007", "1"])) == ([["007", "1"]], False)  # "007" is not written as an integer
    assert inputs.typed_labels(None) == ([None], True)


def test_json_labels_keep_their_types_and_type_the_text_labels():
    json = inputs.Labels
    assert inputs.typed_labels(json([1, "1"], False)) == ([[1, "1"]], False)
    assert inputs.typed_labels(json([1, 2], False), inputs.text_labels(["2", "1"])) == ([[1, 2], [2, 1]], True)
    assert inputs.typed_labels(json(["1", "2"], False), inputs.text_labels(["2"])) == ([["1", "2"], ["2"]], False)
    assert inputs.typed_labels(json([True, 1], False)) == ([[True, 1]], False)  # a bool is not an integer label


def test_positive_label_follows_the_labels():
    assert inputs.positive_label("1", True) == 1
    assert inputs.positive_label("1", False) == "1"
    assert inputs.positive_label("cat", True) == "cat"
    assert inputs.positive_label(None, True) is None


def test_parse_json_names_the_option_and_where():
    assert inputs.parse_json("--weights", "[1, 2]") == [1, 2]
    with pytest.raises(InputError) as info:
        inputs.parse_json("--param beta", "two", "'two' is ")
    assert info.value.argument == "--param beta" and info.value.message.startswith("'two' is not valid JSON (")
    with pytest.raises(InputError) as info:
        inputs.parse_json("--weights", "{\"a\": " * 100_000 + "1" + "}" * 100_000)
    assert info.value.argument == "--weights" and "nested too deeply" in info.value.message


# ---------------------------------------------------------------- tables: headers, columns, numbers, rounding

def test_a_header_over_numbers_is_not_a_class(tmp_path, capsys):
    path = write(tmp_path, "y.csv", "label\n1\n10\n2\n")
    assert inputs.read_labels("--y-true", path) == (["1", "10", "2"], True)
    assert "line 1 (label) read as a header" in capsys.readouterr().err
    assert inputs.read_labels("--y-true", path, header="no") == (["label", "1", "10", "2"], True)


def test_columns_by_name_or_index(tmp_path):
    path = write(tmp_path, "p.csv", 'id,y_true,y_pred\n1,cat,dog\n2,"dog",dog\n')
    assert inputs.read_labels("--y-true", path, "y_true").values == ["cat", "dog"]
    assert inputs.read_labels("--y-pred", path, "2").values == ["dog", "dog"]
    assert "3 columns (id, y_true, y_pred); choose one with --column" in refused(inputs.read_labels, "--y-true", path)
    with pytest.raises(InputError, match=r"no column named 'truth' \(columns: id, y_true, y_pred\)"):
        inputs.read_labels("--y-true", path, "truth")
    with pytest.raises(InputError, match="column 5 does not exist; the file has 3"):
        inputs.read_labels("--y-true", path, "5")
    with pytest.raises(InputError, match="--column applies to table files"):
        inputs.read_labels("--y-true", '["a"]', "0")


def test_a_pair_of_text_columns_with_header_lines(tmp_path, capsys):
    truth = write(tmp_path, "t.txt", "label\ncat\ndog\ncat\n")
    predicted = write(tmp_path, "p.txt", "prediction\ncat\ncat\ndog\n")
    y_true, y_pred = inputs.read_label_pair(truth, predicted)
    assert y_true.values == ["cat", "dog", "cat"] and y_pred.values == ["cat", "cat", "dog"]
    assert capsys.readouterr().err.count("read as a header") == 2
    # a first sample whose class occurs again is data, not a header
    assert inputs.read_label_pair(predicted, write(tmp_path, "q.txt", "cat\ndog\ncat\ndog\n"))[0].values[0] == "prediction"


def test_decimal_labels_sort_as_numbers():
    (labels,), numbers = inputs.typed_labels(inputs.text_labels(["10", "2.5", "1e1"]))
    assert labels == [10.0, 2.5, 10.0] and numbers
    assert inputs.positive_label("2.5", numbers) == 2.5
    assert inputs.typed_labels(inputs.text_labels(["2.5", "cat"]))[1] is False


def test_score_columns_named_by_a_header(tmp_path):
    table = score_files.read_score_table("--scores", write(tmp_path, "s.csv", "b,a\n0.2500,0.7500\n0.5,0.5\n"))
    assert table == ([[0.25, 0.75], [0.5, 0.5]], ["b", "a"], 1)
    assert score_files.read_score_table("--scores", "[[0.25, 0.75]]").columns is None
    with pytest.raises(InputError, match="the header names 3 columns, the rows hold 2"):
        score_files.read_score_table("--scores", write(tmp_path, "t.csv", "a,b,c\n0.5,0.5\n"))


def test_printed_probabilities_are_accepted_within_their_rounding():
    rows = [[0.3334, 0.3333, 0.3334], [0.5, 0.5, 0.0]]
    fixed = score_files.rounded_probabilities("--scores", rows, 4)
    assert abs(sum(fixed[0]) - 1) < 1e-12 and fixed[1] == [0.5, 0.5, 0.0]
    assert score_files.rounded_probabilities("--scores", [[0.34, 0.34, 0.34]], 2) == [[0.34, 0.34, 0.34]]  # off by 0.02
    assert score_files.rounded_probabilities("--scores", [[2.0, -1.0]], 1) == [[2.0, -1.0]]  # not probabilities
