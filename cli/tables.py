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

__all__ = ["HEADER_CHOICES", "Table", "column_index", "column_values", "empty_label", "first_delimiter", "is_number",
           "looks_like_header", "read_table", "split_fields"]

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


def first_delimiter(first_line: str) -> str | None:
    """The table's delimiter: the first of ``,``, tab and ``;`` on its first line (None: one column)."""
    return next((d for d in (",", "\t", ";") if d in first_line), None)


def split_fields(line: str, delimiter: str | None) -> list[str]:
    """A line's fields, stripped (quoted fields as CSV reads them)."""
    fields = next(csv.reader([line], delimiter=delimiter, skipinitialspace=True)) if delimiter else [line]
    return [field.strip() for field in fields]


def read_table(option: str, path: str, text: str, header: str = "auto", *, named: bool = False) -> Table:
    """The non-blank lines of ``text`` as a table; ``named``: a column is chosen by name."""
    numbered = [(number, line) for number, line in enumerate(text.splitlines(), 1) if line.strip()]
    if not numbered:
        raise InputError(option, f"{path}: no labels in the file")
    delimiter = first_delimiter(numbered[0][1])
    rows, lines = [], []
    for number, line in numbered:
        fields = split_fields(line, delimiter)
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
    first, rest = rows[0], rows[1:]
    numbers = [all(is_number(row[k]) for row in rest) for k in range(len(first))]
    again = [any(row[k] == name for row in rest) for k, name in enumerate(first)]
    return looks_like_header(first, len(rest), numbers, again)


def looks_like_header(first: list[str], rest: int, numbers: list[bool], again: list[bool]) -> bool:
    """The ``"auto"`` header rule from a summary of the columns: the first line's fields,
    how many lines follow, per column whether every later field is a number and whether the
    first line's field occurs again (what a reader in chunks can keep)."""
    if rest < 1:
        return False
    if any(not is_number(name) and number for name, number in zip(first, numbers)):
        return True
    # A header is never guessed from numbers alone: "0,1" over "1,0" and "2,2" is a row of labels.
    return len(first) > 1 and not all(is_number(name) for name in first) and not any(again)


def column_index(option: str, path: str, width: int, header: list[str] | None, column: str | None) -> int:
    """The index of the column chosen by header name or by index (from 0); the only column by default."""
    if column is None:
        if width > 1:
            names = f" ({', '.join(header)})" if header else ""
            raise InputError(option, f"{path}: {width} columns{names}; choose one with --column NAME|INDEX")
        return 0
    if header is not None and column in header:
        return header.index(column)
    if re.fullmatch(r"\d+", column):
        index = int(column)
        if index >= width:
            raise InputError(option, f"{path}: column {index} does not exist; the file has {width} "
                                     f"(indices 0 to {width - 1})")
        return index
    names = ", ".join(header) if header else "none: the file has no header line"
    raise InputError(option, f"{path}: no column named {column!r} (columns: {names})")


def column_values(option: str, path: str, table: Table, column: str | None) -> list[str]:
    """The fields of one column (:func:`column_index`), none of them empty."""
    index = column_index(option, path, len(table.rows[0]), table.header, column)
    values = [row[index] for row in table.rows]
    for number, value in zip(table.lines, values):
        if not value:
            raise InputError(option, empty_label(path, number, index))
    return values


def empty_label(path: str, number: int, index: int) -> str:
    return f"{path}:{number}: the label in column {index} is empty; every sample needs a label"
