"""Finding what a paper states for ``metricc review``: equations, matrices, printed scores.

The second stage (read -> find -> check -> render). From a :class:`~.review_read.Paper` it
collects

- :class:`Equation`: every displayed equation (``$$...$$``, ``\\[...\\]``, ``equation`` and
  ``align`` environments, and formula cells of a table whose row names a metric) with its number
  (``\\tag{3}``, a trailing ``(3)``, or the environment's count) and its label;
- :class:`Matrix`: every confusion matrix printed: a square block of counts in a table (a
  total row and column dropped where they add up; rows are predicted classes when the row
  headers say "predicted" or the column headers "actual"/"true"), or inline
  (``[[9, 1], [2, 8]]``, ``\\begin{pmatrix}...``), named by the caption or the header above it;
- :class:`Claim`: every score printed in running text (a chain ``$r_\\mu = ... = \\frac{7}{10}$``,
  "an accuracy of 0.84") or a table cell under a metric's name, with the matrix it is about
  (the nearest preceding mention of the matrix's name in its section, or the table column it
  stands under), and the worked values of its chain (:attr:`Claim.workings`);
- :class:`ScoreSet`: the scores of one column or row of a results table that no printed
  matrix explains, with the class totals or sample count the paper states nearby.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from metricc.compiler.audit.review_numbers import Number, arithmetic, metric_name, printed_number, rounding_slack
from metricc.compiler.audit.review_read import Paper, Table

__all__ = ["Claim", "Equation", "Findings", "Matrix", "ScoreSet", "find"]

MAX_CLASSES = 50  # a printed confusion matrix beyond this is reported unreadable
_COUNT_NAMES = re.compile(r"\b(?:TP|FP|FN|TN|mat)(?![a-z])|\b(?:precision|recall)", re.IGNORECASE)


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


def find(paper: Paper, samples: int | None = None, class_totals=None) -> Findings:
    """Everything the checking stage recomputes, in the order of the paper."""
    equations, skipped = _equations(paper)
    matrices = _matrices(paper)
    claims = _text_claims(paper, matrices)
    table_claims, score_sets = _score_tables(paper, matrices, samples, class_totals)
    claims = tuple(sorted(claims + table_claims, key=lambda c: c.line))
    return Findings(tuple(equations), tuple(matrices), claims, tuple(score_sets), skipped)


# ----------------------------------------------------------------------------- equations

_DISPLAY = re.compile(r"\$\$(.+?)\$\$|\\\[(.+?)\\\]|\\begin\{(equation|align|eqnarray|multline|gather)(\*?)\}(.+?)\\end\{\3\4\}", re.S)
_TAG = re.compile(r"\\tag\{([^{}]{1,12})\}|(?:\\quad|\\qquad|\s)\s*\((\d{1,3}(?:\.\d{1,3})?[a-z]?|[A-Z]\.\d{1,3})\)\.?\s*$")
_LABEL_COMMAND = re.compile(r"\\label\{[^{}]*\}|\\nonumber|\\notag")


def _equations(paper: Paper):
    text = paper.text
    starts = _line_starts(paper)
    counter, found, skipped = 0, [], 0
    for match in _DISPLAY.finditer(text):
        body = next(g for g in (match.group(1), match.group(2), match.group(5)) if g is not None)
        line = _line_at(starts, match.start())
        numbered_env = match.group(3) is not None and not match.group(4)
        parts = re.split(r"\\\\\s*(?:\n|$)", body) if match.group(3) in ("align", "eqnarray", "gather") else _tagged_parts(body)
        for part in parts:
            number = ""
            tag = _TAG.search(part)
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
            formulas = [c for c in row[1:] if c.count("$") >= 2 and _COUNT_NAMES.search(c)]
            if named and formulas:  # the definition column: the last cell of math over counts
                label = row[0].strip("$ ")
                body = formulas[-1].replace("$", " ").strip()
                where = ", ".join(p for p in (table.name, label) if p)
                found.append(Equation(line, "", label, f"{label} = {body}", "\t".join(row), where))
    return sorted(found, key=lambda e: e.line), skipped


_INNER_TAG = re.compile(r"\\q?quad\s*\((\d{1,3}(?:\.\d{1,3})?[a-z]?)\)\s*(?:,\s*)?(?:\\q?quad)?")


def _tagged_parts(body: str) -> list[str]:
    """``A = ... \\quad (1) \\quad B = ... \\quad (2)``: one equation per number."""
    tags = list(_INNER_TAG.finditer(body))
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
           for part in _top_level_split(head, ("=", "\\approx", "≈"))):
        return None  # a worked number (a chain of values), read as printed scores instead
    segments = _top_level_split(head, ("=",))
    if len(segments) < 2:
        return None
    label = segments[0].strip()
    definition = segments[-1].strip()
    if not label or len(label) > 60 or not definition:
        return None
    named = metric_name(label)
    if not named and not _COUNT_NAMES.search(definition):
        return None
    if arithmetic(definition) is not None:  # a worked number, not a definition
        return None
    return Equation(line, number, label, f"{label} = {definition}{sep}{definitions}", printed)


def _split_where(body: str) -> tuple[str, str, str]:
    match = re.search(r",?\s*(?:\\quad\s*)?(?:\\text\{\s*)?\b(where|with)\b", body)
    if not match:
        return body, "", ""
    return body[:match.start()], ", where ", body[match.end():].lstrip("} ")


def _top_level_split(text: str, separators) -> list[str]:
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


def _line_starts(paper: Paper) -> list[int]:
    starts, position = [], 0
    for line in paper.lines:
        starts.append(position)
        position += len(line) + 1
    return starts


def _line_at(starts: list[int], offset: int) -> int:
    low, high = 0, len(starts) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if starts[middle] <= offset:
            low = middle
        else:
            high = middle - 1
    return low + 1


# ------------------------------------------------------------------------------ matrices

def _integer(cell: str) -> int | None:
    cell = re.sub(r"</?b>|\*\*", "", cell).strip()
    return int(cell) if re.fullmatch(r"\d{1,12}", cell) else None


def _runs(row) -> list[tuple[int, list[int]]]:
    """(first column, integers) of each run of two or more integer cells in a row."""
    runs, start, values = [], None, []
    for column, cell in enumerate(list(row) + [""]):
        value = _integer(cell)
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


def _matrices(paper: Paper) -> list[Matrix]:
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
    starts, found = _line_starts(paper), []
    for match in _INLINE.finditer(paper.text):
        if match.group(1):
            rows = [[int(x) for x in re.findall(r"\d+", r)] for r in re.findall(r"\[([^\[\]]*)\]", match.group(1))]
        else:
            rows = [[int(x) for x in re.findall(r"\d+", r)] for r in re.split(r"\\\\", match.group(2)) if r.strip()]
            if any(re.search(r"[A-Za-z]", r.replace("\\", "")) for r in re.split(r"\\\\", match.group(2))):
                continue
        line = _line_at(starts, match.start())
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


# ------------------------------------------------------------------------ claims in text

_MATH = re.compile(r"(?<!\$)\$([^$]{1,2000})\$(?!\$)")
_REFERENCE = re.compile(r"\b(Figure|Fig\.|Table)s?\s+(\d+)((?:\s*(?:,|and|&)\s*\d+)*)", re.I)
_WORD_CLAIM = re.compile(
    r"(?P<name>(?:(?:macro|micro|weighted)[- ](?:averaged\s+)?)?[A-Za-z][A-Za-z0-9_'\-]*(?:\s+[A-Za-z][A-Za-z0-9_\-]*){0,2})"
    r"\s*(?:\([^()]{0,60}\)\s*)?(?:score\s+)?(?:is|of|was|=|:|equals|reaches|reached|achieves|gives)\s+(?:about\s+|approximately\s+)?"
    r"(?P<number>\d+(?:\.\d+)?\s*%?|\d+\s*/\s*\d+)(?![\d.]*\s*(?:instances|samples|classes|examples|times))")


def _references(paper: Paper, matrices: list[Matrix]):
    """(line, column, matrix) of every mention of a matrix's name in the running text."""
    names = {}
    for matrix in matrices:
        for part in [matrix.name] + matrix.name.split(", "):
            names.setdefault(part.lower(), matrix)
    for number, line in enumerate(paper.lines, 1):
        for match in _REFERENCE.finditer(line):
            word = "Figure" if match.group(1).lower().startswith("fig") else "Table"
            for n in [match.group(2)] + re.findall(r"\d+", match.group(3) or ""):
                target = names.get(f"{word} {n}".lower())
                if target:
                    yield number, match.start(), target
        for name, target in names.items():
            if not name.startswith(("figure ", "table ", "the ")) and len(name) >= 3:
                for match in re.finditer(rf"\b{re.escape(name)}\b", line, re.I):
                    yield number, match.start(), target


def _attach(paper: Paper, references, line: int, column: int):
    """The matrix a number at (line, column) is about: the nearest preceding mention in its
    paragraph, else in its section within 40 lines; and the others its paragraph names."""
    first, last = paper.paragraph_of(line)
    section = paper.section(line)
    before = [r for r in references if (r[0], r[1]) < (line, column) and r[0] >= line - 40 and paper.section(r[0]) == section]
    in_paragraph = [r for r in before if r[0] >= first]
    chosen = (in_paragraph or before or [None])[-1]
    # a paragraph that names no matrix may mean any one its section named before ("the balanced example")
    pool = [r for r in references if first <= r[0] <= last] if in_paragraph else before
    nearby = tuple(dict.fromkeys(r[2] for r in reversed(pool) if chosen is None or r[2] is not chosen[2]))
    return (chosen[2] if chosen else None), nearby


def _text_claims(paper: Paper, matrices: list[Matrix]) -> list:
    usable = [m for m in matrices if not m.problem]
    if not usable:
        return []
    references = sorted(_references(paper, usable), key=lambda r: (r[0], r[1]))
    table_lines = {n for t in paper.tables for n in range(t.first, t.last + 1)}
    claims = []
    for number, text in enumerate(paper.lines, 1):
        if number in table_lines:
            continue
        display = re.fullmatch(r"\s*\$\$(.+?)\$\$\s*", text)
        if display:  # a displayed chain of worked values; definitions have no numbers and give no claims
            matrix, nearby = _attach(paper, references, number, 0)
            if matrix is not None:
                claims += _chain_claims(number, _TAG.sub("", display.group(1)), matrix, nearby)
            continue
        for match in _MATH.finditer(text):
            matrix, nearby = _attach(paper, references, number, match.start())
            if matrix is not None:
                claims += _chain_claims(number, match.group(1), matrix, nearby)
        plain = _MATH.sub(" ", text)
        for match in _WORD_CLAIM.finditer(plain):
            claim = _word_claim(number, match, paper, references)
            if claim:
                claims.append(claim)
    return claims


def _chain_claims(line: int, math: str, matrix: Matrix, nearby) -> list[Claim]:
    """``r_\\mu = \\frac{...}{...} = \\frac{7}{10} = r_w \\neq r_M = ... \\approx 0.745``: each
    group between ``\\neq`` gives its labels the group's printed value (the last literal, else
    the last worked value); the other worked values are kept to find contradictions."""
    claims = []
    chains = [c.strip().strip(",;").strip() for c in _top_level_split(math, ("\\qquad", "\\quad", ";"))]
    groups = [g for chain in chains for g in _top_level_split(chain, ("\\neq", "\\ne ", "≠"))]
    for group in groups:
        segments = [s.strip() for s in _top_level_split(group, ("=", "\\approx", "≈", "\\simeq", "\\sim "))]
        labels, literals, worked = [], [], []
        for segment in segments:
            literal = printed_number(segment)
            if literal is not None:
                literals.append((segment, literal))
                continue
            exact = arithmetic(segment)
            if exact is not None:
                worked.append((segment, float(exact), rounding_slack(segment)))
                continue
            named = metric_name(segment)
            if named:
                labels.append((segment, named))
        if not labels or not (literals or worked):
            continue
        if literals:
            printed, value = literals[-1]
        else:
            printed, exact, slack = worked[-1]
            value = Number(exact, 1e-9 + slack, not slack)
            worked = worked[:-1]
        workings = tuple(worked + [(s, n.value, 0.0) for s, n in literals[:-1] if n.exact])
        for label, (metric, average) in labels:
            claims.append(Claim(line, label, metric, average, printed, value, matrix, tuple(nearby), workings))
    return claims


def _word_claim(line: int, match, paper: Paper, references) -> Claim | None:
    name = match.group("name").strip()
    words = name.split()
    for size in range(min(3, len(words)), 0, -1):
        named = metric_name(" ".join(words[-size:]))
        if named:
            break
    else:
        return None
    number = printed_number(match.group("number"))
    if number is None:
        return None
    matrix, nearby = _attach(paper, references, line, match.start())
    if matrix is None:
        return None
    return Claim(line, " ".join(words[-size:]), named[0], named[1], match.group("number").strip(), number, matrix, nearby)


# --------------------------------------------------------------------- results tables

_VALUE_HEADER = re.compile(r"^(?:value|score|result)s?$", re.I)


def _score_tables(paper: Paper, matrices, samples, class_totals):
    claims, sets = [], []
    by_name = {}
    for matrix in matrices:
        if not matrix.problem:
            for part in [matrix.name] + matrix.name.split(", "):
                by_name.setdefault(_key(part), matrix)
    for table in paper.tables:
        in_rows = [(i, metric_name(row[0])) for i, row in enumerate(table.rows) if row and metric_name(row[0])]
        header_index = next((i for i, row in enumerate(table.rows) if sum(1 for c in row if metric_name(c)) >= 2), None)
        if len(in_rows) >= 2:
            first_data = next((i for i, row in enumerate(table.rows) if any(printed_number(c) for c in row[1:])), in_rows[0][0])
            groups = _column_groups(table, first_data)
            for group, columns in groups.items():
                scores = []
                for i, named in in_rows:
                    row = table.rows[i]
                    for column in columns:
                        number = printed_number(row[column]) if column < len(row) else None
                        if number is not None:
                            scores.append((table.lines[i], row[0], named, row[column].strip(), number))
                            break
                _add(claims, sets, paper, table, group, scores, by_name, samples, class_totals)
        elif header_index is not None:
            header = table.rows[header_index]
            for i in range(header_index + 1, len(table.rows)):
                row = table.rows[i]
                scores = [(table.lines[i], header[c], metric_name(header[c]), row[c].strip(), printed_number(row[c]))
                          for c in range(min(len(row), len(header))) if metric_name(header[c]) and printed_number(row[c])]
                group = _plain(row[0]) if row and printed_number(row[0]) is None else ""
                _add(claims, sets, paper, table, group, scores, by_name, samples, class_totals)
    return claims, sets


def _plain(cell: str) -> str:
    return re.sub(r"<[^>]*>|[¹²³⁴⁵⁶⁷⁸⁹⁰*$]", "", cell).strip()


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _column_groups(table: Table, first_data_row: int) -> dict[str, list[int]]:
    """Value columns under each group header ("Case 1"), preferring a "Value" sub-column."""
    width = max(len(r) for r in table.rows)
    headers = table.rows[:first_data_row]
    groups: dict[str, list[tuple[int, str]]] = {}
    for column in range(1, width):
        top = headers[0] if headers else ()
        group = next((top[c].strip() for c in range(min(column, len(top) - 1), 0, -1) if top[c].strip()), "")
        last = headers[-1] if len(headers) > 1 else ()
        sub = last[column].strip() if column < len(last) else ""
        groups.setdefault(_plain(group), []).append((column, sub))
    chosen = {}
    for group, columns in groups.items():
        values = [c for c, sub in columns if _VALUE_HEADER.match(sub)]
        chosen[group] = values or [c for c, _ in columns]
    return chosen


def _add(claims, sets, paper, table, group, scores, by_name, samples, class_totals):
    if not scores:
        return
    matrix = by_name.get(_key(group)) if group else None
    if matrix is None and not group and len(by_name) == 1 and table.name and table.name.split(",")[0] in next(iter(by_name.values())).name:
        matrix = next(iter(by_name.values()))
    where = ", ".join(p for p in (table.name, group) if p)
    if matrix is not None:
        for line, label, (metric, average), printed, number in scores:
            claims.append(Claim(line, label, metric, average, printed, number, matrix, (), (), where))
        return
    if len(scores) < 2:
        return
    totals, stated_samples, classes, source = _stated_totals(paper, table, group)
    sets.append(ScoreSet(scores[0][0], where or f"the table at line {table.first}",
                         tuple((m, a, p, label) for _, label, (m, a), p, _ in scores),
                         tuple(class_totals) if class_totals else totals,
                         samples if samples is not None else stated_samples, classes,
                         "--class-totals" if class_totals else "--samples" if samples is not None else source))


_TOTAL = re.compile(r"(\d[\d,]{0,12})\s+(?:instances|samples|examples|cases|patients|records|observations)\b")
_INTEGER = re.compile(r"(?<![\w.,])(\d[\d,]{0,12})(?![\d.]|,\d)")
_PER_CLASS = re.compile(r"(\d[\d,]{0,12})\s+(?:(?:'[^']{1,30}'|\"[^\"]{1,30}\"|[A-Za-z-]{1,20})\s+){0,2}"
                        r"(?:labels?|instances|samples|examples|cases|positives?|negatives?)\b")


def _stated_totals(paper: Paper, table: Table, group: str):
    """Class totals (or a sample count) stated in the text before the table in its section
    (integers that add up to a stated total, or counts each followed by "labels",
    "instances", ...), or in a data-set table whose row names the table's data set."""
    section = paper.section(table.first)
    for line in range(table.first - 1, max(0, table.first - 30), -1):
        if paper.section(line) != section:
            break
        text = paper.lines[line - 1]
        for sentence in re.split(r"(?<=[.;])\s+(?=[A-Z])", text):
            totals = [int(m.group(1).replace(",", "")) for m in _TOTAL.finditer(sentence)]
            integers = [int(m.group(1).replace(",", "")) for m in _INTEGER.finditer(sentence)]
            parts = [n for n in integers if n not in totals]
            if totals and len(parts) >= 2 and sum(parts) in totals:
                return tuple(parts), None, len(parts), f"line {line}: {sentence.strip()[:160]}"
            counted = [int(m.group(1).replace(",", "")) for m in _PER_CLASS.finditer(sentence)]
            counted = [n for n in counted if n not in totals]
            if not totals and len(counted) >= 2:
                return tuple(counted), None, len(counted), f"line {line}: {sentence.strip()[:160]}"
    dataset = _dataset_row(paper, table)
    if dataset:
        return None, dataset[0], dataset[1], dataset[2]
    return None, None, None, ""


def _dataset_row(paper: Paper, results: Table):
    """(samples, classes, source) from a data-set table whose first column names a data set
    the results table's caption names."""
    caption = results.caption.lower()
    for table in paper.tables:
        header = [c.lower() for c in table.rows[0]]
        samples_col = next((i for i, c in enumerate(header) if re.search(r"samples|instances|examples|size", c)
                            and not re.search(r"percent|per class|%", c)), None)
        classes_col = next((i for i, c in enumerate(header) if re.search(r"classes", c) and not re.search(r"percent|per class", c)), None)
        if samples_col is None:
            continue
        for row, line in zip(table.rows[1:], table.lines[1:]):
            name = row[0].strip().lower()
            if name and re.search(rf"\b{re.escape(name)}\b", caption) and samples_col < len(row):
                samples = _integer(row[samples_col])
                classes = _integer(row[classes_col]) if classes_col is not None and classes_col < len(row) else None
                if samples:
                    return samples, classes, f"{table.name or 'table'} (line {line}): {row[0].strip()}"
    return None
