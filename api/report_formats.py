"""How a :class:`~metricc.api.report.Report` is laid out as a document of
:mod:`metricc.api.formats`: its blocks (the class table, the overall rows, the interval note,
the confusion matrix) for every format, and the hand-made layouts it keeps for text, Markdown,
CSV and LaTeX. Each reads the numbers and lays them out; none computes anything.

Undefined values print as ``nan`` (``NaN`` in JSON, as ``metricc eval`` writes them, and in
LaTeX); counts print as integers when they are whole (weighted matrices keep their decimals).
"""

from __future__ import annotations

import csv
import io
import math

from metricc.api.formats import Note, Table, csv_cell, markdown_cell, tex

__all__ = ["as_dict", "blocks", "csv_text", "latex", "markdown", "table_rows", "text"]

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


def markdown(report, digits: int) -> str:
    parts = []
    if report.class_metrics:
        header = ["class", *report.class_metrics, "support"]
        rows = [f"| {' | '.join(markdown_cell(c) for c in header)} |", "|---|" + "---:|" * (len(header) - 1)]
        rows += [f"| {markdown_cell(name)} | {' | '.join(row)} |" for name, row in _cells(report, digits)]
        parts.append("\n".join(rows))
    if report.overall:
        rows = ["| metric | value |", "|---|---:|"]
        rows += [f"| {markdown_cell(name)} | {_overall(report, name, v, digits)} |" for name, v in report.overall.items()]
        parts.append("\n".join(rows))
    if _interval_note(report):
        parts.append(markdown_cell(_interval_note(report)))
    names = [markdown_cell(str(label)) for label in report.labels]
    rows = [f"| true \\\\ predicted | {' | '.join(names)} |", "|---|" + "---:|" * len(names)]
    rows += [f"| {n} | {' | '.join(row)} |" for n, row in zip(names, _matrix_cells(report, digits))]
    parts.append("\n".join(rows))
    return "\n\n".join(parts)


# ---------------------------------------------------------------- CSV and JSON

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
        shown = csv_cell(label)
        for m in report.class_metrics:
            row("class", shown, csv_cell(m), repr(float(report.per_class[m][k])), bounds(report, ("class", m), k))
        row("class", shown, "support", _count(float(report.support[k]), 17))
    for mode, values in report.averages.items():
        for m, v in values.items():
            row("average", mode, csv_cell(m), repr(v), bounds(report, ("average", mode, m)))
    for m, v in report.overall.items():
        row("overall", "", csv_cell(m), repr(v), bounds(report, ("overall", m)))
    for true, values in zip(report.labels, report.matrix.tolist()):
        for predicted, v in zip(report.labels, values):
            row("matrix", csv_cell(true), csv_cell(predicted), _count(v, 17))
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


# ---------------------------------------------------------------- LaTeX and HTML

def latex(report, digits: int) -> str:
    """Needs ``\\usepackage{booktabs}``; undefined values print as NaN."""
    parts = []
    if report.class_metrics or report.overall:
        header = ["class", *report.class_metrics, "support"] if report.class_metrics else ["metric", "value"]
        lines = [rf"\begin{{tabular}}{{l{'r' * (len(header) - 1)}}}", r"\toprule",
                 " & ".join(tex(h) for h in header) + r" \\", r"\midrule"]
        cells = _cells(report, digits) if report.class_metrics else []
        for k, (name, row) in enumerate(cells):
            if k == len(report.labels):
                lines.append(r"\midrule")
            lines.append(" & ".join([tex(name), *(c.replace("nan", "NaN") for c in row)]) + r" \\")
        if report.overall:
            if cells:
                lines.append(r"\midrule")
            blanks = " &" * (len(header) - 2)
            lines += [f"{tex(name)} & {_overall(report, name, v, digits).replace('nan', 'NaN')}{blanks}" + r" \\"
                      for name, v in report.overall.items()]
        lines += [r"\bottomrule", r"\end{tabular}"]
        parts.append("\n".join(lines))
    if _interval_note(report):
        parts.append(tex(_interval_note(report)))
    names = [tex(str(label)) for label in report.labels]
    lines = [rf"\begin{{tabular}}{{l{'r' * len(names)}}}", r"\toprule",
             r"true $\backslash$ predicted & " + " & ".join(names) + r" \\", r"\midrule"]
    lines += [f"{n} & " + " & ".join(row) + r" \\" for n, row in zip(names, _matrix_cells(report, digits))]
    lines += [r"\bottomrule", r"\end{tabular}"]
    parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def blocks(report, digits: int) -> list:
    """The class table (averages set apart), the overall rows, the interval note, the matrix."""
    out = []
    if report.class_metrics:
        cells = _cells(report, digits)
        out.append(Table(("class", *report.class_metrics, "support"), tuple((name, *row) for name, row in cells),
                         "Per class", frozenset(range(len(report.labels), len(cells)))))
    if report.overall:
        out.append(Table(("metric", "value"), tuple((name, _overall(report, name, v, digits))
                                                    for name, v in report.overall.items()), "Overall"))
    if _interval_note(report):
        out.append(Note(_interval_note(report)))
    names = [str(label) for label in report.labels]
    out.append(Table(("true \\ predicted", *names),
                     tuple((n, *row) for n, row in zip(names, _matrix_cells(report, digits))),
                     "Confusion matrix (rows: true class, columns: predicted class)"))
    return out
