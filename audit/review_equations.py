"""Finding the equations and confusion matrices a paper prints, for ``metricc review``.

- :class:`~.review_items.Equation`: every displayed equation (``$$...$$``, ``\\[...\\]``,
  ``equation`` and ``align`` environments, a display that prints several numbered equations,
  and the definition cells of a table whose rows name metrics) with its number (``\\tag{3}``,
  a trailing ``(3)``, or the environment's count) and its label; worked numbers are left to
  :mod:`.review_scores`;
- :class:`~.review_items.Matrix`: a square block of counts in a table whose caption or headers
  say it is a confusion matrix (a total row and column dropped where they add up; rows are
  predicted classes when the row headers say "predicted" or the column headers "actual"/"true"),
  or inline (``[[9, 1], [2, 8]]``, ``\\begin{pmatrix}...``), named by the caption or the header
  above it.
"""

from __future__ import annotations

import re

from metricc.audit.review_items import TAG, Equation, Matrix, integer_cell, line_at, line_starts, top_level_split
from metricc.audit.review_numbers import arithmetic, metric_name, printed_number
from metricc.audit.review_read import Paper, Table

__all__ = ["COUNT_NAMES", "MAX_CLASSES", "equations", "matrices"]

MAX_CLASSES = 50  # a printed confusion matrix beyond this is reported unreadable
COUNT_NAMES = re.compile(r"\b(?:TP|FP|FN|TN|mat)(?![a-z])|\b(?:precision|recall)", re.IGNORECASE)

_DISPLAY = re.compile(r"\$\$(.+?)\$\$|\\\[(.+?)\\\]|\\begin\{(equation|align|eqnarray|multline|gather)(\*?)\}(.+?)\\end\{\3\4\}", re.S)
_LABEL_COMMAND = re.compile(r"\\label\{[^{}]*\}|\\nonumber|\\notag")


def equations(paper: Paper):
    text = paper.text
    starts = line_starts(paper)
    counter, found, skipped = 0, [], 0
    for match in _DISPLAY.finditer(text):
        body = next(g for g in (match.group(1), match.group(2), match.group(5)) if g is not None)
        line = line_at(starts, match.start())
        numbered_env = match.group(3) is not None and not match.group(4)
        parts = re.split(r"\\\\\s*(?:\n|$)", body) if match.group(3) in ("align", "eqnarray", "gather") else _tagged_parts(body)
        for part in parts:
            number = ""
            tag = TAG.search(part)
            if tag:
                number = tag.group(1) or tag.group(2)
                part = part[:tag.start()] + part[tag.end():]
            elif numbered_env and "\\nonumber" not in part and "\\notag" not in part:
                counter += 1
                number = str(counter)
            part = _LABEL_COMMAND.sub("", part).replace("&", "").strip().rstrip(".,;")
            equation = _equation(line, number, part, match.group(0).strip())
            if equation:
                found.append(equation)
            else:
                skipped += 1
    for table in paper.tables:
        for row, line in zip(table.rows, table.lines):
            if len(row) < 2:
                continue
            named = metric_name(row[0])
            formulas = [c for c in row[1:] if c.count("$") >= 2 and COUNT_NAMES.search(c)]
            if named and formulas:  # the definition column: the last cell of math over counts
                label = row[0].strip("$ ")
                body = formulas[-1].replace("$", " ").strip()
                where = ", ".join(p for p in (table.name, label) if p)
                found.append(Equation(line, "", label, f"{label} = {body}", "\t".join(row), where))
    return sorted(found, key=lambda e: e.line), skipped


_INNERTAG = re.compile(r"\\q?quad\s*\((\d{1,3}(?:\.\d{1,3})?[a-z]?)\)\s*(?:,\s*)?(?:\\q?quad)?")


def _tagged_parts(body: str) -> list[str]:
    """``A = ... \\quad (1) \\quad B = ... \\quad (2)``: one equation per number."""
    tags = list(_INNERTAG.finditer(body))
    if len(tags) < 2:
        return [body]
    parts, start = [], 0
    for tag in tags:
        parts.append(body[start:tag.start()] + f" \\quad ({tag.group(1)})")
        start = tag.end()
    if body[start:].strip():
        parts.append(body[start:])
    return parts


def _equation(line: int, number: str, body: str, printed: str) -> Equation | None:
    """A displayed equation that defines a metric: a label and a definition over counts or
    metric names; None for the others (data, sums of probabilities, ...)."""
    head, sep, definitions = _split_where(body)
    if any(arithmetic(part) is not None or printed_number(part) is not None
           for part in top_level_split(head, ("=", "\\approx", "≈"))):
        return None  # a worked number (a chain of values), read as printed scores instead
    segments = top_level_split(head, ("=",))
    if len(segments) < 2:
        return None
    label = segments[0].strip()
    definition = segments[-1].strip()
    if not label or len(label) > 60 or not definition:
        return None
    named = metric_name(label)
    if not named and not COUNT_NAMES.search(definition):
        return None
    if arithmetic(definition) is not None:  # a worked number, not a definition
        return None
    forms = " = ".join(s.strip() for s in segments[1:])  # every form of a chain: identify compares them
    return Equation(line, number, label, f"{label} = {forms}{sep}{definitions}", printed)


def _split_where(body: str) -> tuple[str, str, str]:
    match = re.search(r",?\s*(?:\\quad\s*)?(?:\\text\{\s*)?\b(where|with)\b", body)
    if not match:
        return body, "", ""
    return body[:match.start()], ", where ", body[match.end():].lstrip("} ")




# ------------------------------------------------------------------------------ matrices

def _runs(row) -> list[tuple[int, list[int]]]:
    """(first column, integers) of each run of two or more integer cells in a row."""
    runs, start, values = [], None, []
    for column, cell in enumerate(list(row) + [""]):
        value = integer_cell(cell)
        if value is not None:
            start = column if start is None else start
            values.append(value)
            continue
        if start is not None and len(values) >= 2:
            runs.append((start, values))
        start, values = None, []
    return runs


def _blocks(table: Table):
    """Blocks of consecutive rows with an integer run of one length at one column."""
    open_blocks, done = {}, []
    for index, row in enumerate(table.rows):
        runs = {(start, len(values)): values for start, values in _runs(row)}
        for key in list(open_blocks):
            if key not in runs:
                done.append((key, open_blocks.pop(key)))
        for key, values in runs.items():
            open_blocks.setdefault(key, []).append((index, values))
    done.extend(open_blocks.items())
    return sorted(((key, rows) for key, rows in done if len(rows) >= 2), key=lambda item: (item[1][0][0], item[0][0]))


def _drop_totals(rows: list[list[int]]) -> list[list[int]]:
    if len(rows[0]) > 2 and all(r[-1] == sum(r[:-1]) for r in rows):
        rows = [r[:-1] for r in rows]
    if len(rows) > 2 and all(rows[-1][j] == sum(r[j] for r in rows[:-1]) for j in range(len(rows[0]))):
        rows = rows[:-1]
    return rows


def _orientation(table: Table, first_row: int, rows: int, column: int) -> str:
    left = " ".join(c for r in table.rows[first_row:first_row + rows] for c in r[:column]).lower()
    above = " ".join(c for r in table.rows[max(0, first_row - 3):first_row] for c in r[column:]).lower()
    if re.search(r"predict|\bpred|^pc?\d|\bpc\d", left) or re.search(r"actual|\btrues?\b|\breal\b|reference|instances per class|\btc\d", above):
        return "pred-rows"
    if re.search(r"actual|\btrues?\b|\breal\b|reference|\btc\d", left) or re.search(r"predict|\bpreds?\b|\bpc\d", above):
        return "true-rows"
    return "assumed true-rows"


def _header_name(table: Table, first_row: int, column: int) -> str:
    """The nearest header cell above the block, at or left of its first column."""
    for row in reversed(table.rows[max(0, first_row - 3):first_row]):
        for c in range(min(column, len(row) - 1), -1, -1):
            cell = re.sub(r"<[^>]*>|\$", "", row[c]).strip()
            if cell and not re.search(r"predict|actual|true|class|preds?$", cell, re.I):
                return cell
    return ""


def matrices(paper: Paper) -> list[Matrix]:
    found = []
    for table in paper.tables:
        candidates = []
        for (column, _), rows in _blocks(table):
            first_row = rows[0][0]
            orientation = _orientation(table, first_row, len(rows), column)
            said = re.search(r"confusion|contingency|\bmatri(?:x|ces)\b", table.caption, re.I)
            if orientation.startswith("assumed") and not said or _per_class_header(table, first_row, column):
                continue  # counts of something else (data sets, results): not a confusion matrix
            candidates.append((column, rows, orientation))
        for column, rows, orientation in candidates:
            first_row = rows[0][0]
            values = _drop_totals([list(v) for _, v in rows])
            line = table.lines[first_row]
            header = _header_name(table, first_row, column) if len(candidates) > 1 else ""
            name = ", ".join(p for p in (table.name, header) if p) or f"the table at line {line}"
            printed = "\n".join("\t".join(table.rows[i]) for i, _ in rows)
            if len(values) != len(values[0]):
                found.append(Matrix(line, name, (), orientation, printed,
                                    f"a {len(values)} x {len(values[0])} block of counts: not square, "
                                    "a row or column may be lost in the text"))
                continue
            if len(values) > MAX_CLASSES:
                found.append(Matrix(line, name, (), orientation, printed, f"{len(values)} classes; at most {MAX_CLASSES}"))
                continue
            if sum(map(sum, values)) == 0:
                continue
            rows_true = [list(r) for r in zip(*values)] if orientation == "pred-rows" else values
            found.append(Matrix(line, name, tuple(tuple(r) for r in rows_true), orientation, printed))
    found += _inline_matrices(paper)
    return sorted(found, key=lambda m: m.line)


def _per_class_header(table: Table, first_row: int, column: int) -> bool:
    """A per-class count table (TP, TN, FP, FN columns), not a confusion matrix."""
    above = " ".join(c for r in table.rows[max(0, first_row - 2):first_row] for c in r[max(0, column - 1):column + 5])
    return bool(re.search(r"\bTP\b.*\b(TN|FP|FN)\b", above))


_INLINE = re.compile(r"\[\s*(\[\s*\d+(?:\s*,\s*\d+)+\s*\](?:\s*,\s*\[\s*\d+(?:\s*,\s*\d+)+\s*\])+)\s*\]"
                     r"|\\begin\{[pb]matrix\}(.+?)\\end\{[pb]matrix\}", re.S)


def _inline_matrices(paper: Paper) -> list[Matrix]:
    starts, found = line_starts(paper), []
    for match in _INLINE.finditer(paper.text):
        if match.group(1):
            rows = [[int(x) for x in re.findall(r"\d+", r)] for r in re.findall(r"\[([^\[\]]*)\]", match.group(1))]
        else:
            rows = [[int(x) for x in re.findall(r"\d+", r)] for r in re.split(r"\\\\", match.group(2)) if r.strip()]
            if any(re.search(r"[A-Za-z]", r.replace("\\", "")) for r in re.split(r"\\\\", match.group(2))):
                continue
        line = line_at(starts, match.start())
        if not rows or any(len(r) != len(rows) for r in rows) or len(rows) < 2:
            continue
        paragraph = " ".join(paper.lines[line - 1:line])
        orientation = "pred-rows" if re.search(r"rows?\s+(?:are|=)\s+(?:the\s+)?predict", paragraph, re.I) else "assumed true-rows"
        values = [list(r) for r in zip(*rows)] if orientation == "pred-rows" else rows
        name = _mentioned_name(paper, line) or f"the matrix at line {line}"
        found.append(Matrix(line, name, tuple(tuple(r) for r in values), orientation, match.group(0)))
    return found


def _mentioned_name(paper: Paper, line: int) -> str:
    match = re.search(r"\b(?:matrix|Matrix)\s+\*?([A-Za-z]{1,4}\d{0,3})\*?\s*(?:=|:)", paper.lines[line - 1])
    return match.group(1) if match else ""
