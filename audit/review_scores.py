"""Finding the scores a paper prints, for ``metricc review``.

- :class:`~.review_items.Claim`: every score printed in running text (a chain
  ``$r_\\mu = ... = \\frac{7}{10}$``, a displayed chain of worked values, "an accuracy of 0.84")
  or in a table cell under a metric's name, with the matrix it is about (the nearest preceding
  mention of the matrix's name in its section, or the table column it stands under), and the
  worked values of its chain (:attr:`~.review_items.Claim.workings`);
- :class:`~.review_items.ScoreSet`: the scores of one column or row of a results table that no
  printed matrix explains, with the class totals or sample count the paper states nearby.
"""

from __future__ import annotations

import bisect
import re

from metricc.audit.review_items import TAG, Claim, Matrix, ScoreSet, integer_cell, top_level_split
from metricc.audit.review_numbers import Number, arithmetic, metric_name, printed_number, rounding_slack
from metricc.audit.review_read import Paper, Table

__all__ = ["score_tables", "text_claims"]

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
    paragraph, else in its section, within 40 lines; and the others its paragraph names there."""
    first, last = paper.paragraph_of(line)
    section = paper.section(line)
    window = references[bisect.bisect_left(references, (line - 40,)):bisect.bisect_right(references, (line + 40, 1 << 62))]
    before = [r for r in window if (r[0], r[1]) < (line, column) and paper.section(r[0]) == section]
    in_paragraph = [r for r in before if r[0] >= first]
    chosen = (in_paragraph or before or [None])[-1]
    # a paragraph that names no matrix may mean any one its section named before ("the balanced example")
    pool = [r for r in window if first <= r[0] <= last] if in_paragraph else before
    nearby = tuple(dict.fromkeys(r[2] for r in reversed(pool) if chosen is None or r[2] is not chosen[2]))
    return (chosen[2] if chosen else None), nearby


def text_claims(paper: Paper, matrices: list[Matrix], glossary=None) -> list:
    usable = [m for m in matrices if not m.problem]
    if not usable:
        return []
    references = sorted(((line, column, id(matrix), matrix) for line, column, matrix in _references(paper, usable)),
                        key=lambda r: r[:3])
    references = [(line, column, matrix) for line, column, _, matrix in references]
    table_lines = {n for t in paper.tables for n in range(t.first, t.last + 1)}
    claims = []
    for number, text in enumerate(paper.lines, 1):
        if number in table_lines:
            continue
        display = re.fullmatch(r"\s*\$\$(.+?)\$\$\s*", text)
        if display:  # a displayed chain of worked values; definitions have no numbers and give no claims
            matrix, nearby = _attach(paper, references, number, 0)
            if matrix is not None:
                claims += _chain_claims(number, TAG.sub("", display.group(1)), matrix, nearby, glossary)
            continue
        for match in _MATH.finditer(text):
            matrix, nearby = _attach(paper, references, number, match.start())
            if matrix is not None:
                claims += _chain_claims(number, match.group(1), matrix, nearby, glossary)
        plain = _MATH.sub(" ", text)
        for match in _WORD_CLAIM.finditer(plain):
            claim = _word_claim(number, match, paper, references, glossary)
            if claim:
                claims.append(claim)
    return claims


def _chain_claims(line: int, math: str, matrix: Matrix, nearby, glossary=None) -> list[Claim]:
    """``r_\\mu = \\frac{...}{...} = \\frac{7}{10} = r_w \\neq r_M = ... \\approx 0.745``: each
    group between ``\\neq`` gives its labels the group's printed value (the last literal, else
    the last worked value); the other worked values are kept to find contradictions."""
    claims = []
    chains = [c.strip().strip(",;").strip() for c in top_level_split(math, ("\\qquad", "\\quad", ";"))]
    groups = [g for chain in chains for g in top_level_split(chain, ("\\neq", "\\ne ", "≠"))]
    for group in groups:
        segments = [s.strip() for s in top_level_split(group, ("=", "\\approx", "≈", "\\simeq", "\\sim "))]
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
            named = metric_name(segment, glossary)
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


def _word_claim(line: int, match, paper: Paper, references, glossary=None) -> Claim | None:
    name = match.group("name").strip()
    words = name.split()
    for size in range(min(3, len(words)), 0, -1):
        named = metric_name(" ".join(words[-size:]), glossary)
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


def score_tables(paper: Paper, matrices, samples, class_totals, glossary=None):
    claims, sets = [], []
    by_name = {}
    for matrix in matrices:
        if not matrix.problem:
            for part in [matrix.name] + matrix.name.split(", "):
                by_name.setdefault(_key(part), matrix)
    for table in paper.tables:
        in_rows = [(i, metric_name(row[0], glossary)) for i, row in enumerate(table.rows) if row and metric_name(row[0], glossary)]
        header_index = next((i for i, row in enumerate(table.rows) if sum(1 for c in row if metric_name(c, glossary)) >= 2), None)
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
                scores = [(table.lines[i], header[c], metric_name(header[c], glossary), row[c].strip(), printed_number(row[c]))
                          for c in range(min(len(row), len(header))) if metric_name(header[c], glossary) and printed_number(row[c])]
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
                samples = integer_cell(row[samples_col])
                classes = integer_cell(row[classes_col]) if classes_col is not None and classes_col < len(row) else None
                if samples:
                    return samples, classes, f"{table.name or 'table'} (line {line}): {row[0].strip()}"
    return None
