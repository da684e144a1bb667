"""The input readers of ``metricc eval``: confusion matrices, label files, indicator rows and scores."""

from __future__ import annotations

import json
import re
from pathlib import Path

from metricc.runtime.errors import InputError

_INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")  # canonical only: "007" stays a string label


def _read(option: str, path: str) -> str:
    try:
        return Path(path).read_text("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(option, f"{path}: not UTF-8 text") from None
    except OSError as error:
        raise InputError(option, f"cannot read {path}: {error.strerror or error}") from None


def _json(option: str, text: str, where: str):
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
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip() and not line.lstrip().startswith("#"):
            tokens = [t for t in re.split(r"[\s,;]+", line.strip()) if t]
            rows.append([_number(option, t, f"{path}:{number}: ") for t in tokens])
            if len(rows[-1]) != len(rows[0]):
                raise InputError(option, f"{path}:{number}: {len(rows[-1])} values, expected {len(rows[0])} like line 1")
    if not rows:
        raise InputError(option, f"{path}: no numbers in the file")
    return rows


def _load_matrix(value: str):
    if value.lstrip().startswith("["):
        matrix = _json("--matrix", value, "")
    else:
        text = _read("--matrix", value)
        is_json = value.endswith(".json") or text.lstrip().startswith(("[", "{"))
        matrix = _json("--matrix", text, f"{value}: ") if is_json else _rows("--matrix", text, value)
    if not isinstance(matrix, list):
        raise InputError("--matrix", f"expected a JSON array of rows, got {type(matrix).__name__}")
    return matrix


def _load_labels(option: str, value: str) -> list[str]:
    """One label per line, or a single comma-separated line; or an inline JSON array."""
    if value.lstrip().startswith("["):
        labels = _json(option, value, "")
        if not isinstance(labels, list):
            raise InputError(option, "expected a JSON array of labels")
        return [str(label) for label in labels]
    lines = [line.strip() for line in _read(option, value).splitlines() if line.strip()]
    if len(lines) == 1:
        lines = [label.strip() for label in lines[0].split(",")]
    elif any("," in line for line in lines):
        raise InputError(option, f"{value}: give one label per line, or all labels on one comma-separated line")
    if not lines:
        raise InputError(option, f"{value}: no labels in the file")
    return lines


def _load_indicators(option: str, value: str) -> list[list]:
    if value.lstrip().startswith("["):
        return _json(option, value, "")
    return _rows(option, _read(option, value), value)


def _as_labels(*groups: list[str] | None) -> tuple[list[list | None], bool]:
    """Strings, unless every label of every group is an integer: then ints (and True)."""
    every = [label for group in groups if group for label in group]
    integers = all(isinstance(label, str) and _INTEGER.fullmatch(label) for label in every)
    return [None if group is None else [int(x) for x in group] if integers else list(group) for group in groups], integers


def _pos_label(text: str | None, integers: bool):
    """``--pos-label`` like the labels: an int when they are ints (or index a matrix)."""
    if text is not None and integers and _INTEGER.fullmatch(text):
        return int(text)
    return text


def _load_scores(value: str) -> list:
    if value.lstrip().startswith("["):
        scores = _json("--scores", value, "")
    else:
        text = _read("--scores", value)
        is_json = value.endswith(".json") or text.lstrip().startswith("[")
        scores = _json("--scores", text, f"{value}: ") if is_json else _rows("--scores", text, value)
    if not isinstance(scores, list):
        raise InputError("--scores", f"expected a JSON array of rows, got {type(scores).__name__}")
    return [row[0] if isinstance(row, list) and len(row) == 1 else row for row in scores]
