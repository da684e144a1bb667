"""What ``metricc review`` finds in a paper: the records the finding stage hands to the
checking stage, and the small text utilities both finders share.

The checking stage answers each with a :class:`Finding`. An :class:`Equation` is a displayed equation that defines a metric; a :class:`Matrix`, a printed
confusion matrix (rows = true classes); a :class:`Claim`, a score printed for a matrix; a
:class:`ScoreSet`, the scores of a results table that no printed matrix explains.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from metricc.audit.review_numbers import Number

__all__ = ["Claim", "Equation", "Findings", "Matrix", "ScoreSet", "TAG", "integer_cell", "line_at", "line_starts",
           "top_level_split"]

TAG = re.compile(r"\\tag\{([^{}]{1,12})\}|(?:\\quad|\\qquad|\s)\s*\((\d{1,3}(?:\.\d{1,3})?[a-z]?|[A-Z]\.\d{1,3})\)\.?\s*$")


@dataclass(frozen=True)
class Equation:
    line: int
    number: str  # as the paper numbers it ("16", "A.3"), "" when unnumbered
    label: str
    formula: str  # what identify reads: "LABEL = DEFINITION[, where ...]"
    printed: str
    where: str = ""  # a table's name when the equation is a table cell


@dataclass(frozen=True)
class Matrix:
    line: int
    name: str  # "Figure 6", "Table 2, Case 1", "matrix at line 40"
    rows: tuple[tuple[int, ...], ...]  # rows = TRUE classes (turned when printed otherwise)
    orientation: str  # as printed: "true-rows" | "pred-rows" | "assumed true-rows"
    printed: str
    problem: str = ""  # why it cannot be used (not square, too large)


@dataclass(frozen=True)
class Claim:
    line: int
    label: str  # the name as printed
    metric: str
    average: str | None
    printed: str
    value: Number
    matrix: Matrix | None
    nearby: tuple[Matrix, ...] = ()  # other matrices the same paragraph names
    workings: tuple[tuple[str, float, float], ...] = ()  # other values of the same chain, and their rounding slack
    where: str = ""  # table name and column, when the claim is a table cell


@dataclass(frozen=True)
class ScoreSet:
    line: int
    name: str  # "Table 6, Bagging"
    scores: tuple[tuple[str, str | None, str, str], ...]  # (metric, average, printed, label)
    class_totals: tuple[int, ...] | None
    samples: int | None
    classes: int | None
    totals_from: str  # the sentence or table the totals come from, "" when none


@dataclass(frozen=True)
class Findings:
    equations: tuple[Equation, ...]
    matrices: tuple[Matrix, ...]
    claims: tuple[Claim, ...]
    score_sets: tuple[ScoreSet, ...]
    skipped_equations: int = 0
    notes: tuple[tuple[int, str], ...] = field(default=())


def integer_cell(cell: str) -> int | None:
    cell = re.sub(r"</?b>|\*\*", "", cell).strip()
    return int(cell) if re.fullmatch(r"\d{1,12}", cell) else None


def top_level_split(text: str, separators) -> list[str]:
    """``text`` split at separators outside braces and brackets."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        ch = text[i]
        if ch in "{([":
            depth += 1
        elif ch in "})]":
            depth = max(0, depth - 1)
        elif depth == 0:
            for sep in separators:
                if text.startswith(sep, i) and not (sep == "=" and i > 0 and text[i - 1] in "<>!\\"):
                    parts.append(text[start:i])
                    start = i + len(sep)
                    i = start - 1
                    break
        i += 1
    parts.append(text[start:])
    return parts


def line_starts(paper) -> list[int]:
    starts, position = [], 0
    for line in paper.lines:
        starts.append(position)
        position += len(line) + 1
    return starts


def line_at(starts: list[int], offset: int) -> int:
    low, high = 0, len(starts) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if starts[middle] <= offset:
            low = middle
        else:
            high = middle - 1
    return low + 1


STATUSES = ("ok", "explained", "wrong", "unreadable", "unchecked")
SEVERITIES = ("wrong number", "wrong formula", "contradiction")


@dataclass(frozen=True)
class Finding:
    kind: str  # formula | number | consistency
    status: str  # ok | wrong | explained | unreadable | unchecked
    line: int
    section: str
    name: str  # the equation, table or figure as the paper names it ("Eq. (16)", "Figure 8")
    printed: str
    computed: str | None
    sentence: str
    severity: str | None = None
    explained_by: str | None = None
    metric: str | None = None
    matrices: tuple = field(default=())  # number: the matrix recomputed on; consistency: matrices giving the scores
    data: str = ""  # the printed matrix a number was recomputed on

    @property
    def failed(self) -> bool:
        return self.status in ("wrong", "explained")
