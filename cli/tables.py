"""Label and score files as tables: delimiter, header line and the chosen column.

A label file exported from a spreadsheet or pandas has a header line (``label`` or
``y_true,y_pred``) and often several columns. Read as plain labels, the header became a
class of its own. Here a text file is read as rows of fields (``,``, tab or ``;``, the first
of them found on the first line; fields may be quoted), and its first line is a header when:

- ``header="yes"``, or a column is chosen by name; never with ``header="no"``;
- else (``"auto"``) when some column is numbers below a first line that is not a number, or,
  in a table of several columns, when no first-line field occurs again in its column and
  not every first-line field is a number (a header is never guessed from numbers alone).

A single column of text labels cannot tell a header from a class by itself; the command
reads ``--y-true`` and ``--y-pred`` together for that (:func:`.inputs.read_label_pair`).

>>> table = read_table("--y-true", "y.csv", "id,label\\n1,cat\\n2,dog\\n")
>>> table.header, column_values("--y-true", "y.csv", table, "label")
(['id', 'label'], ['cat', 'dog'])
"""

from __future__ import annotations

import csv
import re
from typing import NamedTuple

from metricc.core.errors import InputError

__all__ = ["HEADER_CHOICES", "Table", "column_values", "is_number", "read_table"]

HEADER_CHOICES = ("auto", "yes", "no")
_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


def is_number(text: str) -> bool:
    """Written as a finite decimal number (``3``, ``-0.25``, ``1e-3``); not ``nan`` or ``inf``."""
    return bool(_NUMBER.fullmatch(text.strip()))


class Table(NamedTuple):
    """Rows of fields (header removed), the header's fields or None, and each row's line number."""

    rows: list[list[str]]
    header: list[str] | None
    lines: list[int]


def _delimiter(first_line: str) -> str | None:
    return next((d for d in (",", "\t", ";") if d in first_line), None)


def read_table(option: str, path: str, text: str, header: str = "auto", *, named: bool = False) -> Table:
    """The non-blank lines of ``text`` as a table; ``named``: a column is chosen by name."""
    numbered = [(number, line) for number, line in enumerate(text.splitlines(), 1) if line.strip()]
    if not numbered:
        raise InputError(option, f"{path}: no labels in the file")
    delimiter = _delimiter(numbered[0][1])
    rows, lines = [], []
    for number, line in numbered:
        fields = next(csv.reader([line], delimiter=delimiter, skipinitialspace=True)) if delimiter else [line]
        fields = [field.strip() for field in fields]
        if rows and len(fields) != len(rows[0]):
            raise InputError(option, f"{path}:{number}: {len(fields)} fields, expected {len(rows[0])} like line "
                                     f"{lines[0]}; give one label per line, or a table with the same columns on every line")
        rows.append(fields)
        lines.append(number)
    has_header = header == "yes" or (header == "auto" and (named or _looks_like_header(rows)))
    if header == "no" and named:
        raise InputError(option, "a column chosen by name needs the header line; give its index instead")
    if has_header and len(rows) < 2:
        raise InputError(option, f"{path}: only a header line, no data")
    return Table(rows[1:], rows[0], lines[1:]) if has_header else Table(rows, None, lines)


def _looks_like_header(rows: list[list[str]]) -> bool:
    if len(rows) < 2:
        return False
    first, rest = rows[0], rows[1:]
    for k, name in enumerate(first):
        if not is_number(name) and all(is_number(row[k]) for row in rest):
            return True
    # A header is never guessed from numbers alone: "0,1" over "1,0" and "2,2" is a row of labels.
    return (len(first) > 1 and not all(is_number(name) for name in first)
            and all(name not in {row[k] for row in rest} for k, name in enumerate(first)))


def column_values(option: str, path: str, table: Table, column: str | None) -> list[str]:
    """The fields of one column: by header name, or by index (from 0); the only column by default."""
    width = len(table.rows[0])
    if column is None:
        if width > 1:
            names = f" ({', '.join(table.header)})" if table.header else ""
            raise InputError(option, f"{path}: {width} columns{names}; choose one with --column NAME|INDEX")
        index = 0
    elif table.header is not None and column in table.header:
        index = table.header.index(column)
    elif re.fullmatch(r"\d+", column):
        index = int(column)
        if index >= width:
            raise InputError(option, f"{path}: column {index} does not exist; the file has {width} "
                                     f"(indices 0 to {width - 1})")
    else:
        names = ", ".join(table.header) if table.header else "none: the file has no header line"
        raise InputError(option, f"{path}: no column named {column!r} (columns: {names})")
    values = [row[index] for row in table.rows]
    for number, value in zip(table.lines, values):
        if not value:
            raise InputError(option, f"{path}:{number}: the label in column {index} is empty; every sample needs a label")
    return values
