"""The output formats of run-time results, in one registry (:data:`FORMATS`): how a
:class:`~metricc.api.report.Report` prints in each (text, Markdown, CSV, JSON, LaTeX, HTML) and,
for the formats ``metricc eval --format`` offers, how its :class:`Values` print. Each reads the
numbers and lays them out; none computes anything. A new format is one entry of :data:`FORMATS`.

Undefined values print as ``nan`` (``NaN`` in JSON, as ``metricc eval`` writes them, and in
LaTeX); counts print as integers when they are whole (weighted matrices keep their decimals).
"""

from __future__ import annotations

import csv
import html
import io
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from metricc.api.value_formats import Values, values_json, values_text

__all__ = ["FORMATS", "Format", "Values", "as_dict", "csv_text", "html_page", "json_text", "latex", "markdown",
           "table_rows", "text"]

_AVERAGE_ROW = "{} avg"
_MATRIX_TITLE = "confusion matrix (rows: true class, columns: predicted class)"


def table_rows(report) -> list[tuple[object, list[float]]]:
    """The class table: ``(class label, [metric values..., support])`` per class, then the
    averaged rows (``"macro avg"``; NaN where a metric has no such average)."""
    rows = [(label, [float(report.per_class[m][k]) for m in report.class_metrics] + [float(report.support[k])])
            for k, label in enumerate(report.labels)]
    total = float(report.support.sum())
    for mode, values in report.averages.items():
        rows.append((_AVERAGE_ROW.format(mode), [values.get(m, math.nan) for m in report.class_metrics] + [total]))
    return rows


def _number(value: float, digits: int) -> str:
    return "nan" if math.isnan(value) else f"{value:.{digits}f}"


def _count(value: float, digits: int) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.{digits}f}"


def bounds(report, key: tuple, index: int | None = None) -> tuple[float, float] | None:
    """The interval of one value (``key`` as in ``Report.intervals``; ``index``: the class), or None."""
    found = report.intervals.get(key)
    if found is None:
        return None
    lower, upper = found
    if index is not None:
        lower, upper = lower[..., index], upper[..., index]
    return float(lower), float(upper)


def _shown(value: float, interval: tuple[float, float] | None, digits: int) -> str:
    """``0.8333``, or with an interval ``0.8333 [0.5500, 0.9500]``."""
    text = _number(value, digits)
    return text if interval is None else f"{text} [{_number(interval[0], digits)}, {_number(interval[1], digits)}]"


def _overall(report, name: str, value: float, digits: int) -> str:
    return _shown(value, bounds(report, ("overall", name)), digits)


def _cells(report, digits: int) -> list[tuple[str, list[str]]]:
    """The class table as strings; a metric without an average is blank in that row."""
    modes = [None] * len(report.labels) + list(report.averages)
    out = []
    for row, (mode, (name, values)) in enumerate(zip(modes, table_rows(report))):
        key = (lambda m: ("class", m)) if mode is None else (lambda m, mode=mode: ("average", mode, m))
        index = row if mode is None else None
        cells = ["" if mode is not None and metric not in report.averages[mode]
                 else _shown(v, bounds(report, key(metric), index), digits)
                 for metric, v in zip(report.class_metrics, values)]
        out.append((str(name), cells + [_count(values[-1], digits)]))
    return out


def _interval_note(report) -> str | None:
    """What the bracketed numbers are, and which values have none (and why)."""
    if report.interval is None:
        return None
    note = f"[lower, upper]: {100 * report.confidence:g}% confidence interval ({report.interval})"
    skipped = "; ".join(f"{name}: {why}" for name, why in report.no_interval.items())
    return note + (f"; none for {skipped}" if skipped else "")


def _matrix_cells(report, digits: int) -> list[list[str]]:
    return [[_count(v, digits) for v in row] for row in report.matrix.tolist()]


# ---------------------------------------------------------------- text and Markdown

def text(report, digits: int) -> str:
    cells = _cells(report, digits)
    header = [*report.class_metrics, "support"]
    first = max([len(name) for name, _ in cells] + [len(name) for name in report.overall] + [0])
    widths = [max([len(h)] + [len(row[k]) for _, row in cells]) for k, h in enumerate(header)]
    lines = []
    if report.class_metrics:
        lines.append(" " * first + "".join(f"  {h:>{w}}" for h, w in zip(header, widths)))
        lines += [f"{name:<{first}}" + "".join(f"  {c:>{w}}" for c, w in zip(row, widths)) for name, row in cells]
    if report.overall:
        lines += [""] if lines else []
        value_width = max(len(_overall(report, name, v, digits)) for name, v in report.overall.items())
        lines += [f"{name:<{first}}  {_overall(report, name, v, digits):>{max(value_width, widths[0] if widths else 0)}}"
                  for name, v in report.overall.items()]
    if _interval_note(report):
        lines += ["", _interval_note(report)]
    names = [str(label) for label in report.labels]
    matrix = _matrix_cells(report, digits)
    side = max(len(n) for n in names)
    col = [max(len(n), *(len(row[k]) for row in matrix)) for k, n in enumerate(names)]
    lines += ["", _MATRIX_TITLE, " " * side + "".join(f"  {n:>{w}}" for n, w in zip(names, col))]
    lines += [f"{n:<{side}}" + "".join(f"  {c:>{w}}" for c, w in zip(row, col)) for n, row in zip(names, matrix)]
    return "\n".join(lines)


def _md(cell: str) -> str:
    return cell.replace("\\", "\\\\").replace("|", "\\|")


def markdown(report, digits: int) -> str:
    parts = []
    if report.class_metrics:
        header = ["class", *report.class_metrics, "support"]
        rows = [f"| {' | '.join(_md(c) for c in header)} |", "|---|" + "---:|" * (len(header) - 1)]
        rows += [f"| {_md(name)} | {' | '.join(row)} |" for name, row in _cells(report, digits)]
        parts.append("\n".join(rows))
    if report.overall:
        rows = ["| metric | value |", "|---|---:|"]
        rows += [f"| {_md(name)} | {_overall(report, name, v, digits)} |" for name, v in report.overall.items()]
        parts.append("\n".join(rows))
    if _interval_note(report):
        parts.append(_md(_interval_note(report)))
    names = [_md(str(label)) for label in report.labels]
    rows = [f"| true \\\\ predicted | {' | '.join(names)} |", "|---|" + "---:|" * len(names)]
    rows += [f"| {n} | {' | '.join(row)} |" for n, row in zip(names, _matrix_cells(report, digits))]
    parts.append("\n".join(rows))
    return "\n\n".join(parts)


# ---------------------------------------------------------------- CSV and JSON

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(value) -> str:
    """A text cell as spreadsheet tools expect it escaped (OWASP, "CSV injection"): a cell that
    starts like a formula (``=cmd|...``, ``+``, ``-``, ``@``, tab, carriage return) and is not a
    number gets a leading ``'``, so a class label is never run as a formula."""
    text = str(value)
    if text.startswith(_FORMULA_START):
        try:
            float(text)
        except ValueError:
            return "'" + text
    return text


def csv_text(report) -> str:
    """Long form, one value per line; with intervals two more columns, ``lower,upper`` (empty
    where a value has none)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    with_bounds = report.interval is not None

    def row(section, name, column, value, interval=None):
        extra = [] if not with_bounds else ["", ""] if interval is None else [repr(interval[0]), repr(interval[1])]
        writer.writerow([section, name, column, value, *extra])

    writer.writerow(["section", "row", "column", "value", *(["lower", "upper"] if with_bounds else [])])
    for k, label in enumerate(report.labels):
        shown = _cell(label)
        for m in report.class_metrics:
            row("class", shown, _cell(m), repr(float(report.per_class[m][k])), bounds(report, ("class", m), k))
        row("class", shown, "support", _count(float(report.support[k]), 17))
    for mode, values in report.averages.items():
        for m, v in values.items():
            row("average", mode, _cell(m), repr(v), bounds(report, ("average", mode, m)))
    for m, v in report.overall.items():
        row("overall", "", _cell(m), repr(v), bounds(report, ("overall", m)))
    for true, values in zip(report.labels, report.matrix.tolist()):
        for predicted, v in zip(report.labels, values):
            row("matrix", _cell(true), _cell(predicted), _count(v, 17))
    return out.getvalue()


def _plain_count(value):
    value = float(value)
    return int(value) if value.is_integer() else value


def as_dict(report) -> dict:
    keys = [str(label) for label in report.labels]
    return {
        "labels": list(report.labels),
        "per_class": {key: {**{m: float(report.per_class[m][k]) for m in report.class_metrics},
                            "support": _plain_count(report.support[k])} for k, key in enumerate(keys)},
        "averages": {mode: dict(values) for mode, values in report.averages.items()},
        "overall": dict(report.overall),
        "confusion_matrix": {true: {predicted: _plain_count(v) for predicted, v in zip(keys, row)}
                             for true, row in zip(keys, report.matrix.tolist())},
        **({} if report.interval is None else {"intervals": _interval_dict(report, keys)}),
    }


def _interval_dict(report, keys: list[str]) -> dict:
    """``[lower, upper]`` in the shape of the values, with the method, level and the values without one."""
    def pair(key, index=None):
        found = bounds(report, key, index)
        return None if found is None else list(found)

    return {
        "method": report.interval, "confidence": report.confidence,
        "per_class": {key: {m: pair(("class", m), k) for m in report.class_metrics} for k, key in enumerate(keys)},
        "averages": {mode: {m: pair(("average", mode, m)) for m in values} for mode, values in report.averages.items()},
        "overall": {m: pair(("overall", m)) for m in report.overall},
        "not_applied": dict(report.no_interval),
    }


def json_text(report, indent: int | None) -> str:
    return json.dumps(as_dict(report), indent=indent)


# ---------------------------------------------------------------- LaTeX and HTML

_TEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
        "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def _tex(cell: str) -> str:
    return "".join(_TEX.get(ch, ch) for ch in cell)


def latex(report, digits: int) -> str:
    """Needs ``\\usepackage{booktabs}``; undefined values print as NaN."""
    parts = []
    if report.class_metrics or report.overall:
        header = ["class", *report.class_metrics, "support"] if report.class_metrics else ["metric", "value"]
        lines = [rf"\begin{{tabular}}{{l{'r' * (len(header) - 1)}}}", r"\toprule",
                 " & ".join(_tex(h) for h in header) + r" \\", r"\midrule"]
        cells = _cells(report, digits) if report.class_metrics else []
        for k, (name, row) in enumerate(cells):
            if k == len(report.labels):
                lines.append(r"\midrule")
            lines.append(" & ".join([_tex(name), *(c.replace("nan", "NaN") for c in row)]) + r" \\")
        if report.overall:
            if cells:
                lines.append(r"\midrule")
            blanks = " &" * (len(header) - 2)
            lines += [f"{_tex(name)} & {_overall(report, name, v, digits).replace('nan', 'NaN')}{blanks}" + r" \\"
                      for name, v in report.overall.items()]
        lines += [r"\bottomrule", r"\end{tabular}"]
        parts.append("\n".join(lines))
    if _interval_note(report):
        parts.append(_tex(_interval_note(report)))
    names = [_tex(str(label)) for label in report.labels]
    lines = [rf"\begin{{tabular}}{{l{'r' * len(names)}}}", r"\toprule",
             r"true $\backslash$ predicted & " + " & ".join(names) + r" \\", r"\midrule"]
    lines += [f"{n} & " + " & ".join(row) + r" \\" for n, row in zip(names, _matrix_cells(report, digits))]
    lines += [r"\bottomrule", r"\end{tabular}"]
    parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


_STYLE = """body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 0 0 2em 0; }
caption { text-align: left; font-weight: 600; padding-bottom: .4em; }
th, td { padding: .25em .8em; border-bottom: 1px solid #ddd; }
td { text-align: right; font-variant-numeric: tabular-nums; }
th[scope=row] { text-align: left; font-weight: normal; }
tr.average th, tr.average td { background: #f4f4f4; }
td.nan { color: #a00; }"""


def _html_table(caption: str, header: list[str], rows: list[tuple[str, list[str], str]]) -> str:
    out = [f"<table>\n<caption>{html.escape(caption)}</caption>",
           "<tr>" + "".join(f'<th scope="col">{html.escape(h)}</th>' for h in header) + "</tr>"]
    for name, cells, css in rows:
        tds = "".join(f'<td class="nan">{c}</td>' if c == "nan" else f"<td>{html.escape(c)}</td>" for c in cells)
        out.append(f'<tr{f" class={css!r}" if css else ""}><th scope="row">{html.escape(name)}</th>{tds}</tr>')
    return "\n".join(out + ["</table>"])


def html_page(report, digits: int, title: str) -> str:
    tables = []
    if report.class_metrics:
        cells = _cells(report, digits)
        rows = [(name, row, "average" if k >= len(report.labels) else "") for k, (name, row) in enumerate(cells)]
        tables.append(_html_table("Per class", ["class", *report.class_metrics, "support"], rows))
    if report.overall:
        rows = [(name, [_overall(report, name, v, digits)], "") for name, v in report.overall.items()]
        tables.append(_html_table("Overall", ["metric", "value"], rows))
    if _interval_note(report):
        tables.append(f"<p>{html.escape(_interval_note(report))}</p>")
    names = [str(label) for label in report.labels]
    rows = [(n, row, "") for n, row in zip(names, _matrix_cells(report, digits))]
    tables.append(_html_table("Confusion matrix (rows: true class, columns: predicted class)",
                              ["true \\ predicted", *names], rows))
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>{html.escape(title)}</title>\n'
            f"<style>\n{_STYLE}\n</style>\n</head>\n<body>\n<h1>{html.escape(title)}</h1>\n"
            + "\n".join(tables) + "\n</body>\n</html>\n")


# ---------------------------------------------------------------- the registry

@dataclass(frozen=True)
class Format:
    """One output format: ``report(report, digits)`` prints a Report; ``values`` prints the
    values of ``metricc eval`` (None: eval does not offer this format)."""

    name: str
    report: Callable[[object, int], str]
    values: Callable[[Values], str] | None = None


FORMATS: Mapping[str, Format] = MappingProxyType({f.name: f for f in (
    Format("text", text, values_text),
    Format("markdown", markdown),
    Format("csv", lambda report, digits: csv_text(report)),
    Format("json", lambda report, digits: json_text(report, 2), values_json),
    Format("latex", latex),
    Format("html", lambda report, digits: html_page(report, digits, "Classification report")),
)})
