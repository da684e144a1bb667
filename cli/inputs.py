"""The command line's data inputs: confusion matrices, label files, multi-label indicator rows
and score matrices, read the same way by every command that takes them.

A reader gets the option that supplied the value (``--matrix``, ``--y-true``, ...) and the
value as given: inline JSON when it starts with ``[``, else the path of a JSON, CSV or
plain-text file. Every problem is an :class:`~metricc.core.errors.InputError` naming
that option, with the file and line where there is one.

What a label is, on the command line as in the Python API: a number or a non-empty string;
JSON ``null``, an empty field (``a,,b``) or an empty string are errors naming the file (or
option) and position. Labels read as text (files, ``--labels``) stay strings until
:func:`typed_labels` decides, over every group at once, whether they are all integers; labels
given as inline JSON keep their JSON types, so ``[1, "1"]`` are two labels, as in the API.

>>> read_matrix("--matrix", "[[5, 1], [2, 4]]")
[[5, 1], [2, 4]]
>>> typed_labels(Labels(["10", "9"], text=True), None)
([[10, 9], None], True)
>>> typed_labels(Labels([1, "1"], text=False))
([[1, '1']], False)
>>> typed_labels(Labels(["2.5", "10"], text=True))
([[2.5, 10.0]], True)
>>> positive_label("9", True), positive_label("9", False)
(9, '9')

Label files may be tables with a header line and several columns (:mod:`.tables`): the
header is detected, ``--column NAME|INDEX`` picks a column. Score files are read by
:mod:`.score_files`.
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path
from typing import NamedTuple

from metricc.cli import tables
from metricc.cli.npy_files import read_npy
from metricc.core.errors import InputError

__all__ = ["Column", "Labels", "checked_text_labels", "header_lines", "json_labels", "note_header", "parse_json",
           "positive_label", "read_indicators", "read_label_pair", "read_labels", "read_matrix", "read_npy",
           "read_rows", "read_text", "text_labels", "typed_labels"]

Label = str | int | float

INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")  # canonical only: "007" stays a string label
_DECIMAL = re.compile(r"-?([0-9]+\.[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?|-?[0-9]+[eE][-+]?[0-9]+")


def read_text(option: str, path: str) -> str:
    """A file's text (UTF-8, a byte-order mark dropped)."""
    try:
        return Path(path).read_text("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(option, f"{path}: not UTF-8 text") from None
    except OSError as error:
        raise InputError(option, f"cannot read {path}: {error.strerror or error}") from None


# Python refuses to read integers of more digits than this (``sys.get_int_max_str_digits``);
# no count, label or parameter of metricc comes near it (counts stop at 2**53, 16 digits).
MAX_DIGITS = 4300


def _json_int(option: str, where: str):
    def read(text: str) -> int:
        if len(text.lstrip("-")) > MAX_DIGITS:
            raise InputError(option, f"{where}an integer of {len(text.lstrip('-')):,} digits; metricc reads "
                                     f"integers of at most {MAX_DIGITS:,} digits (counts stop at 2**53, 16 digits)")
        return int(text)
    return read


def _json_float(option: str, where: str):
    def read(text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            raise InputError(option, f"{where}the number {_short(text)} is beyond float64's range (about 1.8e308); "
                                     "it would be read as infinity")
        return value
    return read


def _json_constant(option: str, where: str):
    def read(text: str):
        raise InputError(option, f"{where}{text} is not a JSON number; write a finite number")
    return read


def _short(text: str) -> str:
    return text if len(text) <= 40 else f"{text[:20]}...{text[-10:]} ({len(text):,} characters)"


def parse_json(option: str, text: str, where: str = ""):
    """``json.loads``; an error starts with ``where`` (e.g. ``"m.json: "``). Numbers beyond
    float64 (``1e400``), ``NaN``/``Infinity`` and integers past Python's digit limit are errors,
    never infinities or internal errors."""
    try:
        return json.loads(text, parse_int=_json_int(option, where), parse_float=_json_float(option, where),
                          parse_constant=_json_constant(option, where))
    except json.JSONDecodeError as error:
        raise InputError(option, f"{where}not valid JSON ({error})") from None
    except RecursionError:  # the decoder recurses once per '[' or '{'
        raise InputError(option, f"{where}JSON nested too deeply for Python's decoder; no input "
                                 "of metricc takes more than three levels of brackets") from None


def _number(option: str, token: str, where: str):
    if re.fullmatch(r"[-+]?[0-9]+", token):
        return _json_int(option, where)(token.lstrip("+"))
    try:
        value = float(token)
    except ValueError:
        raise InputError(option, f"{where}{_short(token)!r} is not a number") from None
    if not math.isfinite(value) and tables.is_number(token):
        raise InputError(option, f"{where}the number {_short(token)} is beyond float64's range (about 1.8e308)")
    return value


def read_rows(option: str, text: str, path: str) -> list[list]:
    """CSV or whitespace-separated numbers, one row per line (blank and # lines skipped)."""
    rows, first = [], 0
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip() and not line.lstrip().startswith("#"):
            tokens = [t for t in re.split(r"[\s,;]+", line.strip()) if t]
            rows.append([_number(option, t, f"{path}:{number}: ") for t in tokens])
            first = first or number
            if len(rows[-1]) != len(rows[0]):
                raise InputError(option, f"{path}:{number}: {len(rows[-1])} values, "
                                 f"expected {len(rows[0])} like line {first}")
    if not rows:
        raise InputError(option, f"{path}: no numbers in the file")
    return rows


def is_npy(value: str) -> bool:
    return value.lower().endswith(".npy")


def read_matrix(option: str, value: str) -> list:
    """A confusion matrix (or a batch of them): inline JSON, a JSON or ``.npy`` file, or rows of numbers.

    The shape is the runtime's to check; this only reads the numbers.
    """
    if is_npy(value):
        return read_npy(option, value)
    if value.lstrip().startswith("["):
        matrix = parse_json(option, value)
    else:
        text = read_text(option, value)
        is_json = value.endswith(".json") or text.lstrip().startswith(("[", "{"))
        matrix = parse_json(option, text, f"{value}: ") if is_json else read_rows(option, text, value)
    if not isinstance(matrix, list):
        raise InputError(option, f"expected a JSON array of rows, got {type(matrix).__name__}")
    return matrix


class Labels(NamedTuple):
    """Labels as read: ``text`` if they came from text (a file, ``--labels``) and are all strings
    until :func:`typed_labels` types them; else JSON values that keep their types."""

    values: list
    text: bool


def json_labels(option: str, labels, where: str, first: int = 0) -> Labels:  # first: the index of labels[0]
    if not isinstance(labels, list):
        raise InputError(option, f"{where}expected a JSON array of labels, got {type(labels).__name__}")
    for index, label in enumerate(labels, first):
        if label is None:
            raise InputError(option, f"{where}label {index} is null; every sample needs a label")
        if isinstance(label, (list, dict)):
            raise InputError(option, f"{where}label {index} is a JSON {type(label).__name__}; "
                                     "a label is a number or a string")
        if isinstance(label, str) and not label.strip():
            raise InputError(option, f"{where}label {index} is empty; every sample needs a label")
    return Labels(labels, text=False)


def read_labels(option: str, value: str, column: str | None = None, header: str = "auto") -> Labels:
    """One label per line (blank lines skipped), a single comma-separated line, or a column of
    a table (a header line detected, ``column`` a name or an index from 0); or a JSON array,
    inline or in a file. Null and empty labels are refused with their position."""
    return _read_label_file(option, value, column, header)[0]


def _read_label_file(option: str, value: str, column: str | None, header: str):
    """-> (labels, the table they came from or None)."""
    if value.lstrip().startswith("["):
        _no_column(option, column, "inline JSON")
        return json_labels(option, parse_json(option, value), ""), None
    if is_npy(value):
        labels = read_npy(option, value)
        if isinstance(labels, list) and labels and all(isinstance(row, list) and len(row) == 1 for row in labels):
            labels = [row[0] for row in labels]  # (n, 1): one label per sample
        _no_column(option, column, "a .npy file")
        return json_labels(option, labels, f"{value}: "), None
    text = read_text(option, value)
    if value.endswith(".json") or text.lstrip().startswith("["):
        _no_column(option, column, "a JSON file")
        return json_labels(option, parse_json(option, text, f"{value}: "), f"{value}: "), None
    lines = [(number, line.strip()) for number, line in enumerate(text.splitlines(), 1) if line.strip()]
    if len(lines) == 1 and column is None and header != "yes":
        number, line = lines[0]
        labels = [label.strip() for label in line.split(",")]
        empty = [k for k, label in enumerate(labels) if not label]
        if empty:
            raise InputError(option, f"{value}:{number}: label {empty[0] + 1} of the line is empty; "
                                     "every sample needs a label")
        return checked_text_labels(option, labels), None
    named = column is not None and not column.isdigit()
    table = tables.read_table(option, value, text, header, named=named)
    if table.header is not None and header == "auto" and not named:
        note_header(option, value, table.header)
    return checked_text_labels(option, tables.column_values(option, value, table, column)), table


def _no_column(option: str, column: str | None, what: str) -> None:
    if column is not None:
        raise InputError(option, f"--column applies to table files; {what} holds the labels themselves")


def note_header(option: str, path: str, header: list[str]) -> None:
    """Say which line was taken as a header, so that a guess is never silent."""
    print(f"metricc: note: {option}: {path}: line 1 ({','.join(header)}) read as a header; "
          "--header no reads it as labels", file=sys.stderr)


def read_label_pair(y_true: str, y_pred: str | None, column: str | None = None, header: str = "auto",
                    *, pred_column: str | None = None, rows: int | None = None,
                    true_option: str = "--y-true") -> tuple[Labels, Labels | None]:
    """``--y-true`` and ``--y-pred`` read together, by the same rules in every command.

    A single column of text labels cannot say by itself whether its first line is a header,
    so the files are read together (``--header auto``). The first line of such a file is a
    header only when it is not a number (a header is never guessed from numbers alone) and:

    - it makes the file one line longer than the other label file, or than ``rows`` (the
      rows of ``--scores``), and occurs nowhere else in the file;
    - or, of two files of equal length, both first lines occur nowhere else in either file
      (``label`` / ``prediction``);
    - or, of a file read alone (``suggest``), it occurs nowhere else and every other label
      occurs at least twice.

    ``--y-pred-column`` without ``--y-pred`` takes the predictions from the ``--y-true`` table.
    """
    if y_pred is None and pred_column is not None:
        y_pred = y_true
    truth, true_table = _read_label_file(true_option, y_true, column, header)
    predicted, pred_table = (None, None) if y_pred is None else _read_label_file(
        "--y-pred", y_pred, pred_column or column, header)
    if header != "auto":
        return truth, predicted
    files = [(truth, true_table, true_option, y_true), (predicted, pred_table, "--y-pred", y_pred)]
    columns = [None if labels is None else Column(labels.values[0] if labels.values else None, len(labels.values),
                                                 _counts(labels.values), _guessable(labels, table))
               for labels, table, _, _ in files]
    headed = header_lines(columns[0], columns[1], rows)
    return tuple(_headed(file) if first else file[0] for file, first in zip(files, headed))


class Column(NamedTuple):
    """What the header guess reads of a label file (whether it applies: :func:`_guessable`)."""

    first: Label
    length: int
    counts: dict
    guessable: bool


def header_lines(truth: Column, predicted: Column | None, rows: int | None) -> tuple[bool, bool]:
    """Whether the first line of each file is a header, by the rules of :func:`read_label_pair`;
    from counts alone, so a file counted in chunks (:mod:`.label_stream`) is judged alike."""
    def elsewhere(label, column: Column) -> int:  # occurrences after the first line
        return column.counts.get(label, 0) - (label == column.first)

    columns = (truth, predicted)
    if predicted is not None and truth.guessable and predicted.guessable and truth.length == predicted.length:
        both = all(elsewhere(c.first, truth) + elsewhere(c.first, predicted) == 0 for c in columns)
        return both, both
    out = []
    for k, column in enumerate(columns):
        if column is None or not column.guessable:
            out.append(False)
            continue
        against = rows if predicted is None else columns[1 - k].length
        unique = elsewhere(column.first, column) == 0
        if against is not None:
            out.append(column.length == against + 1 and unique)
        else:
            rest = [n - (label == column.first) for label, n in column.counts.items()]
            out.append(unique and column.length >= 3 and min(n for n in rest if n) >= 2)
    return out[0], out[1]


def _guessable(labels: Labels | None, table) -> bool:
    """A single column of text read from a file, whose first line is not a number."""
    return (labels is not None and table is not None and table.header is None and len(table.rows[0]) == 1
            and len(labels.values) > 1 and not tables.is_number(labels.values[0]))


def _counts(values: list) -> dict:
    counts: dict = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return counts


def _headed(file) -> Labels:
    """The labels without their first line, which is reported as the header it was taken for."""
    labels, _, option, path = file
    note_header(option, path, [labels.values[0]])
    return Labels(labels.values[1:], True)


def no_label_columns(column: str | None, pred_column: str | None) -> None:
    """``--column`` and ``--y-pred-column`` pick a label column; multi-label files have none."""
    if column is not None or pred_column is not None:
        raise InputError("--column", "not used with --multilabel: indicator files hold one column per class")


def read_indicators(option: str, value: str) -> list:
    """Multi-label 0/1 indicator rows, one sample per row: inline JSON or rows of numbers."""
    if value.lstrip().startswith("["):
        return parse_json(option, value)
    if is_npy(value):
        return read_npy(option, value)
    return read_rows(option, read_text(option, value), value)


def text_labels(values: list[str] | None) -> Labels | None:
    """Labels given as text on the command line (``--labels a b``)."""
    return None if values is None else checked_text_labels("--labels", values)


def typed_labels(*groups: Labels | None) -> tuple[list[list[Label] | None], bool]:
    """The groups' values (``None`` kept), and whether the labels are numbers.

    Text labels become ints when every text label is written as an integer (``"007"`` is not)
    and every JSON label is an int; floats when every text label is a decimal number
    (``2.5``, ``1e-3``) and every JSON label a number: so they sort as numbers (2 before 10).
    Otherwise they stay strings. JSON labels keep their types.
    """
    text = [label for group in groups if group and group.text for label in group.values]
    typed = [label for group in groups if group and not group.text for label in group.values]
    numeric = all(isinstance(label, (int, float)) and not isinstance(label, bool) for label in typed)
    integers = (all(INTEGER.fullmatch(label) for label in text)
                and all(isinstance(label, int) and not isinstance(label, bool) for label in typed))
    decimals = not integers and bool(text) and numeric and all(INTEGER.fullmatch(label) or _DECIMAL.fullmatch(label)
                                                              for label in text)
    convert = int if integers else float if decimals else None
    return [None if group is None else [convert(x) for x in group.values] if convert and group.text
            else list(group.values) for group in groups], integers or decimals


def checked_text_labels(option: str, values: list[str], *, distinct: bool = False) -> Labels:
    """Labels read as text, checked for numbers Python and float64 cannot hold: an integer of
    5,000 digits, or ``1e400`` in a file of numbers (the class ``inf``), is refused with its
    position (``distinct``: the values are a file's distinct labels, which have none), never an
    internal error or a silent infinity."""
    numbers = all(INTEGER.fullmatch(label) or _DECIMAL.fullmatch(label) for label in values)
    for k, label in enumerate(values):
        digits = len(label.lstrip("-"))
        name = "a label" if distinct else f"label {k + 1}"
        if INTEGER.fullmatch(label) and digits > MAX_DIGITS:
            raise InputError(option, f"{name} is an integer of {digits:,} digits; metricc reads "
                                     f"integers of at most {MAX_DIGITS:,} digits")
        if numbers and _DECIMAL.fullmatch(label) and not math.isfinite(float(label)):
            raise InputError(option, f"{name} ({_short(label)}) is beyond float64's range and "
                                     "would be the class inf")
    return Labels(values, text=True)


def positive_label(text: str | None, numbers: bool) -> Label | None:
    """``--pos-label`` typed like the labels: a number when they are numbers (or it indexes a matrix)."""
    if text is not None and numbers and INTEGER.fullmatch(text):
        return _json_int("--pos-label", "")(text)
    if text is not None and numbers and _DECIMAL.fullmatch(text):
        return float(text)
    return text
