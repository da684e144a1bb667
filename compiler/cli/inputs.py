"""The command line's data inputs: confusion matrices, label files, multi-label indicator rows
and score matrices, read the same way by every command that takes them.

A reader gets the option that supplied the value (``--matrix``, ``--y-true``, ...) and the
value as given: inline JSON when it starts with ``[``, else the path of a JSON, CSV or
plain-text file. Every problem is an :class:`~metricc.runtime.errors.InputError` naming
that option, with the file and line where there is one. Labels stay strings until
:func:`typed_labels` decides, over every group at once, whether they are all integers.

>>> read_matrix("--matrix", "[[5, 1], [2, 4]]")
[[5, 1], [2, 4]]
>>> typed_labels(["10", "9"], None)
([[10, 9], None], True)
>>> positive_label("9", True), positive_label("9", False)
(9, '9')
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from metricc.runtime.errors import InputError

__all__ = ["parse_json", "positive_label", "read_indicators", "read_labels", "read_matrix", "read_scores",
           "typed_labels"]

Label = str | int

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


def read_labels(option: str, value: str) -> list[str]:
    """One label per line, or a single comma-separated line; or an inline JSON array."""
    if value.lstrip().startswith("["):
        labels = parse_json(option, value)
        if not isinstance(labels, list):
            raise InputError(option, "expected a JSON array of labels")
        return [str(label) for label in labels]
    lines = [line.strip() for line in _read_text(option, value).splitlines() if line.strip()]
    if len(lines) == 1:
        lines = [label.strip() for label in lines[0].split(",")]
    elif any("," in line for line in lines):
        raise InputError(option, f"{value}: give one label per line, or all labels on one comma-separated line")
    if not lines:
        raise InputError(option, f"{value}: no labels in the file")
    return lines


def read_indicators(option: str, value: str) -> list:
    """Multi-label 0/1 indicator rows, one sample per row: inline JSON or rows of numbers."""
    if value.lstrip().startswith("["):
        return parse_json(option, value)
    return _rows(option, _read_text(option, value), value)


def typed_labels(*groups: list[str] | None) -> tuple[list[list[Label] | None], bool]:
    """The groups (``None`` kept) as strings, unless every label of every group is an integer:
    then as ints; and whether they are ints. ``"007"`` is not an integer label."""
    every = [label for group in groups if group for label in group]
    integers = all(isinstance(label, str) and _INTEGER.fullmatch(label) for label in every)
    return [None if group is None else [int(x) for x in group] if integers else list(group) for group in groups], integers


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
