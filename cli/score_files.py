"""Score files of the command line: one row per sample and one column per class (CSV, TSV,
whitespace, JSON or ``.npy``), the class names of a header line, and printed probabilities
renormalised within their rounding. The rules are those of every other input
(:mod:`.inputs`, :mod:`metricc.runtime.inputs`): columns named by a header are matched to
the classes by name.

>>> read_scores("--scores", "[[0.2, 0.8], [0.6, 0.4]]")
[[0.2, 0.8], [0.6, 0.4]]
"""

from __future__ import annotations

import re
import sys
from typing import NamedTuple

from metricc.cli import inputs, tables
from metricc.core.errors import InputError

__all__ = ["ScoreTable", "read_score_table", "read_scores", "rounded_probabilities"]


class ScoreTable(NamedTuple):
    """A score matrix as read: rows, the column names of a header line (or None), and the
    fewest decimals any fractional entry is printed with (None: no fractions printed)."""

    rows: list
    columns: list[str] | None
    decimals: int | None


def read_scores(option: str, value: str) -> list:
    """Class scores, one row per sample and one column per class; a one-column file gives a
    flat list (the positive class's score of a two-class task)."""
    return read_score_table(option, value).rows


def read_score_table(option: str, value: str, header: str = "auto", classes: set[str] | None = None) -> ScoreTable:
    """:func:`read_scores` with the header: a first line that is not all numbers names the columns
    (numeric class names are written quoted: ``"10","2","1"``). pandas writes numeric class
    names unquoted (``0,1,2``): such a line is a header too when ``classes`` (the labels as
    text) are exactly its fields, each once, and the rows below are not all integers; or
    when ``header`` is ``"yes"``. ``header="no"`` reads every line as scores."""
    columns = None
    if value.lstrip().startswith("["):
        text = value
        scores = inputs.parse_json(option, value)
    elif inputs.is_npy(value):
        text, scores = "", inputs.read_npy(option, value)  # full precision: no printed rounding to undo
    else:
        text = inputs.read_text(option, value)
        is_json = value.endswith(".json") or text.lstrip().startswith("[")
        if not is_json and header != "no":
            text, columns = _score_header(option, value, text, header, classes)
        scores = inputs.parse_json(option, text, f"{value}: ") if is_json else inputs.read_rows(option, text, value)
    if not isinstance(scores, list):
        raise InputError(option, f"expected a JSON array of rows, got {type(scores).__name__}")
    if columns is not None and scores and isinstance(scores[0], list) and len(columns) != len(scores[0]):
        raise InputError(option, f"{value}: the header names {len(columns)} columns, the rows hold {len(scores[0])}")
    printed = [len(fraction) for fraction in re.findall(r"[0-9]*\.([0-9]+)", text)]
    rows = [row[0] if isinstance(row, list) and len(row) == 1 else row for row in scores]
    return ScoreTable(rows, columns, min(printed) if printed else None)


def _score_header(option: str, path: str, text: str, header: str,
                  classes: set[str] | None) -> tuple[str, list[str] | None]:
    """The text with its header line blanked (line numbers kept), and the header's names."""
    lines = text.splitlines()
    for k, line in enumerate(lines):
        if line.strip() and not line.lstrip().startswith("#"):
            names = [n.strip().strip('"') for n in re.split(r"[,;\t]|\s+", line.strip()) if n.strip()]
            if header == "auto" and '"' not in line and all(tables.is_number(n) for n in names):
                if not _numeric_header(names, lines[k + 1:], classes):
                    return text, None
                print(f"metricc: note: {option}: {path}: line {k + 1} ({','.join(names)}) read as the class names "
                      "of the columns; --scores-header no reads it as scores", file=sys.stderr)
            return "\n".join(lines[:k] + [""] + lines[k + 1:]), names
    return text, None


def _numeric_header(names: list[str], rest: list[str], classes: set[str] | None) -> bool:
    """Unquoted numeric class names (pandas' ``to_csv``): the classes, each once, over rows of
    scores that are not all integers. Never guessed from the numbers alone: the classes decide."""
    if classes is None or len(set(names)) != len(names) or set(names) != classes:
        return False
    if not all(inputs.INTEGER.fullmatch(name) for name in names):
        return False
    return any(not re.fullmatch(r"\s*[-+]?[0-9]+\s*", field)
               for line in rest if line.strip() and not line.lstrip().startswith("#")
               for field in re.split(r"[,;\t]|\s+", line.strip()) if field)


def rounded_probabilities(option: str, rows: list, decimals: int | None) -> list:
    """Rows of printed probabilities, renormalised when they miss 1 only by their rounding.

    A row of ``C`` probabilities printed with ``d`` decimals can sum to 1 +- ``C * 0.5e-d``
    (0.2500, 0.2500, 0.5001). Rows within that tolerance are divided by their sum, so that
    the runtime's check (1e-6) and the metrics see probabilities; anything else (other scores,
    or a row further off) is returned unchanged for the metric to judge.
    """
    import numpy as np

    try:
        values = np.asarray(rows, dtype=float)
    except (TypeError, ValueError):
        return rows
    if values.ndim != 2 or values.shape[1] < 2 or decimals is None or not np.isfinite(values).all():
        return rows
    if (values < 0).any() or (values > 1).any():
        return rows
    tolerance = values.shape[1] * 0.5 * 10.0 ** -decimals
    sums = values.sum(axis=1)
    if (np.abs(sums - 1) > tolerance + 1e-12).any():
        return rows
    return (values / sums[:, None]).tolist()
