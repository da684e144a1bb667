"""The command line's data inputs: confusion matrices, label files, multi-label indicator rows
and score matrices, read the same way by every command that takes them.

A reader gets the option that supplied the value (``--matrix``, ``--y-true``, ...) and the
value as given: inline JSON when it starts with ``[``, else the path of a JSON, CSV or
plain-text file. Every problem is an :class:`~metricc.runtime.errors.InputError` naming
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
>>> positive_label("9", True), positive_label("9", False)
(9, '9')
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import NamedTuple

from metricc.runtime.errors import InputError

__all__ = ["Labels", "parse_json", "positive_label", "read_indicators", "read_labels", "read_matrix", "read_scores",
           "text_labels", "typed_labels"]

Label = str | int | float  # floats only from JSON

_INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")  # canonical only: "007" stays a string label


def _read_text(option: str, path: str) -> str:
    """A file's text (UTF-8, a byte-order mark dropped)."""
    try:
        return Path(path).read_text("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(option, f"{path}: not UTF-8 text") from None
    except OSError as error:
        raise InputError(option, f"cannot read {path}: {error.strerror or error}") from None


def parse_json(option: str, text: str, where: str = ""):
    """``json.loads``; an error starts with ``where`` (e.g. ``"m.json: "``)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(option, f"{where}not valid JSON ({error})") from None


def _number(option: str, token: str, where: str):
    try:
        return int(token)
    except ValueError:
        try:
            return float(token)
        except ValueError:
            raise InputError(option, f"{where}{token!r} is not a number") from None


def _rows(option: str, text: str, path: str) -> list[list]:
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


def read_matrix(option: str, value: str) -> list:
    """A confusion matrix (or a batch of them): inline JSON, a JSON file, or rows of numbers.

    The shape is the runtime's to check; this only reads the numbers.
    """
    if value.lstrip().startswith("["):
        matrix = parse_json(option, value)
    else:
        text = _read_text(option, value)
        is_json = value.endswith(".json") or text.lstrip().startswith(("[", "{"))
        matrix = parse_json(option, text, f"{value}: ") if is_json else _rows(option, text, value)
    if not isinstance(matrix, list):
        raise InputError(option, f"expected a JSON array of rows, got {type(matrix).__name__}")
    return matrix


class Labels(NamedTuple):
    """Labels as read: ``text`` if they came from text (a file, ``--labels``) and are all strings
    until :func:`typed_labels` types them; else JSON values that keep their types."""

    values: list
    text: bool


def _json_labels(option: str, labels, where: str) -> Labels:
    if not isinstance(labels, list):
        raise InputError(option, f"{where}expected a JSON array of labels, got {type(labels).__name__}")
    for index, label in enumerate(labels):
        if label is None:
            raise InputError(option, f"{where}label {index} is null; every sample needs a label")
        if isinstance(label, (list, dict)):
            raise InputError(option, f"{where}label {index} is a JSON {type(label).__name__}; "
                                     "a label is a number or a string")
        if isinstance(label, str) and not label.strip():
            raise InputError(option, f"{where}label {index} is empty; every sample needs a label")
    return Labels(labels, text=False)


def read_labels(option: str, value: str) -> Labels:
    """One label per line (blank lines skipped), or a single comma-separated line; or a JSON
    array, inline or in a file. Null and empty labels are refused with their position."""
    if value.lstrip().startswith("["):
        return _json_labels(option, parse_json(option, value), "")
    text = _read_text(option, value)
    if value.endswith(".json") or text.lstrip().startswith("["):
        return _json_labels(option, parse_json(option, text, f"{value}: "), f"{value}: ")
    lines = [(number, line.strip()) for number, line in enumerate(text.splitlines(), 1) if line.strip()]
    if len(lines) == 1:
        number, line = lines[0]
        lines = [(number, label.strip()) for label in line.split(",")]
        empty = [k for k, (_, label) in enumerate(lines) if not label]
        if empty:
            raise InputError(option, f"{value}:{number}: label {empty[0] + 1} of the line is empty; "
                                     "every sample needs a label")
    elif any("," in line for _, line in lines):
        raise InputError(option, f"{value}: give one label per line, or all labels on one comma-separated line")
    if not lines:
        raise InputError(option, f"{value}: no labels in the file")
    return Labels([label for _, label in lines], text=True)


def read_indicators(option: str, value: str) -> list:
    """Multi-label 0/1 indicator rows, one sample per row: inline JSON or rows of numbers."""
    if value.lstrip().startswith("["):
        return parse_json(option, value)
    return _rows(option, _read_text(option, value), value)


def text_labels(values: list[str] | None) -> Labels | None:
    """Labels given as text on the command line (``--labels a b``)."""
    return None if values is None else Labels(values, text=True)


def typed_labels(*groups: Labels | None) -> tuple[list[list[Label] | None], bool]:
    """The groups' values (``None`` kept), and whether the labels are integers.

    Text labels become ints when every text label is written as an integer (``"007"`` is not)
    and every JSON label is an int; otherwise they stay strings. JSON labels keep their types.
    """
    text = [label for group in groups if group and group.text for label in group.values]
    typed = [label for group in groups if group and not group.text for label in group.values]
    integers = (all(_INTEGER.fullmatch(label) for label in text)
                and all(isinstance(label, int) and not isinstance(label, bool) for label in typed))
    return [None if group is None else [int(x) for x in group.values] if integers and group.text
            else list(group.values) for group in groups], integers


def positive_label(text: str | None, integers: bool) -> Label | None:
    """``--pos-label`` typed like the labels: an int when they are ints (or it indexes a matrix)."""
    if text is not None and integers and _INTEGER.fullmatch(text):
        return int(text)
    return text


def read_scores(option: str, value: str) -> list:
    """Class scores, one row per sample and one column per class; a one-column file gives a
    flat list (the positive class's score of a two-class task)."""
    if value.lstrip().startswith("["):
        scores = parse_json(option, value)
    else:
        text = _read_text(option, value)
        is_json = value.endswith(".json") or text.lstrip().startswith("[")
        scores = parse_json(option, text, f"{value}: ") if is_json else _rows(option, text, value)
    if not isinstance(scores, list):
        raise InputError(option, f"expected a JSON array of rows, got {type(scores).__name__}")
    return [row[0] if isinstance(row, list) and len(row) == 1 else row for row in scores]
