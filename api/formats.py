"""The formats results are written in, in one table (:data:`FORMATS`), for every command that
writes a result document (``report``, ``eval``, ``review``...).

A result is a :class:`Document`: its numbers as JSON-ready ``data()`` and its layout as
``blocks()``, a sequence of :class:`Table` and :class:`Note`. Each :class:`Format` renders any
document from those two, so a new format is one entry of :data:`FORMATS` and every document
gets it. A document may keep a hand-made layout for a format (``own_layouts()``: the aligned
text of ``metricc report``, the ``key: value`` lines of ``metricc eval``); :func:`render`
uses it in place of the format's own rendering. The escaping of CSV cells (spreadsheet
formulas), Markdown, LaTeX and HTML, and the JSON writer, live here and nowhere else.
"""

from __future__ import annotations

import csv
import html
import io
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Protocol

__all__ = ["FORMATS", "Document", "Format", "Note", "Result", "Table", "csv_cell", "html_page", "json_text",
           "markdown_cell", "render", "tex"]


@dataclass(frozen=True)
class Table:
    """Shown cells: ``header`` names the columns (the first that of the row names); each row
    starts with its name. ``set_apart`` rows (averages under the classes) are styled apart."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    caption: str = ""
    set_apart: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Note:
    """A sentence under the tables (what the brackets mean, what was left out)."""

    text: str


Block = Table | Note


class Document(Protocol):
    """A result any format can write: ``title`` heads a page; ``json_indent`` and
    ``json_ascii`` say how :func:`json_text` writes ``data()``."""

    title: str
    json_indent: int | None
    json_ascii: bool

    def data(self) -> object:
        """The numbers as JSON-ready data (what the ``json`` format writes)."""

    def blocks(self, digits: int) -> Sequence[Block]:
        """The layout every other format renders, numbers shown with ``digits`` decimals."""

    def own_layouts(self) -> Mapping[str, Callable[[int], str]]:
        """Hand-made layouts by format name, ``layout(digits) -> str``, used instead of the format's."""


@dataclass(frozen=True)
class Result:
    """A document given by its parts, for a command whose result has no class of its own:
    ``content`` (the JSON data), ``tables`` (its blocks, whatever the digits) and ``layouts``
    (its own, by format name)."""

    title: str
    content: object
    tables: tuple[Block, ...]
    layouts: Mapping[str, Callable[[int], str]] = field(default_factory=dict)
    json_indent: int | None = 2
    json_ascii: bool = True

    def data(self) -> object:
        return self.content

    def blocks(self, digits: int) -> Sequence[Block]:
        return self.tables

    def own_layouts(self) -> Mapping[str, Callable[[int], str]]:
        return self.layouts


@dataclass(frozen=True)
class Format:
    """One output format: its ``name`` (the ``--format`` choice), its ``media_type``, and how it
    renders a :class:`Document` (``render(document, digits) -> str``)."""

    name: str
    media_type: str
    render: Callable[[Document, int], str]


def render(document: Document, name: str, digits: int = 4) -> str:
    """``document`` in the format called ``name``: its own layout for that format, if it has one."""
    found = FORMATS.get(name)
    if found is None:
        raise ValueError(f"unknown format {name!r}; expected one of {', '.join(FORMATS)}")
    own = document.own_layouts().get(name)
    return own(digits) if own is not None else found.render(document, digits)


# ---------------------------------------------------------------- escaping, one place each

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value) -> str:
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


def markdown_cell(cell: str) -> str:
    return cell.replace("\\", "\\\\").replace("|", "\\|")


_TEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
        "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def tex(cell: str) -> str:
    return "".join(_TEX.get(ch, ch) for ch in cell)


def json_text(data, indent: int | None = 2, ascii_only: bool = True) -> str:
    """The one JSON writer of results: NaN stays ``NaN``, as ``metricc eval`` has always written it."""
    return json.dumps(data, indent=indent, ensure_ascii=ascii_only)


# ---------------------------------------------------------------- the formats

def _joined(document: Document, digits: int, table: Callable[[Table], str], note: Callable[[str], str]) -> str:
    """The blocks one after the other, a blank line between them."""
    return "\n\n".join(note(b.text) if isinstance(b, Note) else table(b) for b in document.blocks(digits))


def _text_table(table: Table) -> str:
    """Aligned columns: row names to the left, cells to the right, the caption above."""
    widths = [max(len(row[k]) for row in (table.header, *table.rows)) for k in range(len(table.header))]
    lines = [(f"{row[0]:<{widths[0]}}" + "".join(f"  {c:>{w}}" for c, w in zip(row[1:], widths[1:]))).rstrip()
             for row in (table.header, *table.rows)]
    return "\n".join([table.caption, *lines] if table.caption else lines)


def _markdown_table(table: Table) -> str:
    rows = [f"**{markdown_cell(table.caption)}**", ""] if table.caption else []
    rows += [f"| {' | '.join(markdown_cell(c) for c in table.header)} |", "|---|" + "---:|" * (len(table.header) - 1)]
    return "\n".join(rows + [f"| {' | '.join(markdown_cell(c) for c in row)} |" for row in table.rows])


def _csv(document: Document, digits: int) -> str:
    """Long form, one cell per line: ``section,row,column,value`` (section: the table's caption;
    a note is a ``note`` line)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["section", "row", "column", "value"])
    for block in document.blocks(digits):
        if isinstance(block, Note):
            writer.writerow(["note", "", "", csv_cell(block.text)])
            continue
        for row in block.rows:
            for column, cell in zip(block.header[1:], row[1:]):
                writer.writerow([csv_cell(block.caption), csv_cell(row[0]), csv_cell(column), csv_cell(cell)])
    return out.getvalue()


def _latex_table(table: Table) -> str:
    """A booktabs ``tabular`` (``\\usepackage{booktabs}``), the caption above it."""
    lines = [tex(table.caption)] if table.caption else []
    lines += [rf"\begin{{tabular}}{{l{'r' * (len(table.header) - 1)}}}", r"\toprule",
              " & ".join(tex(h) for h in table.header) + r" \\", r"\midrule"]
    lines += [" & ".join(tex(c) for c in row) + r" \\" for row in table.rows]
    return "\n".join(lines + [r"\bottomrule", r"\end{tabular}"])


_STYLE = """body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 0 0 2em 0; }
caption { text-align: left; font-weight: 600; padding-bottom: .4em; }
th, td { padding: .25em .8em; border-bottom: 1px solid #ddd; }
td { text-align: right; font-variant-numeric: tabular-nums; }
th[scope=row] { text-align: left; font-weight: normal; }
tr.average th, tr.average td { background: #f4f4f4; }
td.nan { color: #a00; }"""


def _html_table(table: Table) -> str:
    out = ["<table>" + (f"\n<caption>{html.escape(table.caption)}</caption>" if table.caption else ""),
           "<tr>" + "".join(f'<th scope="col">{html.escape(h)}</th>' for h in table.header) + "</tr>"]
    for k, (name, *cells) in enumerate(table.rows):
        tds = "".join(f'<td class="nan">{c}</td>' if c == "nan" else f"<td>{html.escape(c)}</td>" for c in cells)
        css = " class='average'" if k in table.set_apart else ""
        out.append(f'<tr{css}><th scope="row">{html.escape(name)}</th>{tds}</tr>')
    return "\n".join(out + ["</table>"])


def html_page(blocks: Sequence[Block], title: str) -> str:
    """A self-contained page (inline style, no scripts, no network)."""
    body = [_html_table(b) if isinstance(b, Table) else f"<p>{html.escape(b.text)}</p>" for b in blocks]
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>{html.escape(title)}</title>\n'
            f"<style>\n{_STYLE}\n</style>\n</head>\n<body>\n<h1>{html.escape(title)}</h1>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")


FORMATS: Mapping[str, Format] = MappingProxyType({f.name: f for f in (
    Format("text", "text/plain", lambda document, digits: _joined(document, digits, _text_table, str)),
    Format("markdown", "text/markdown", lambda document, digits: _joined(document, digits, _markdown_table, markdown_cell)),
    Format("csv", "text/csv", _csv),
    Format("json", "application/json",
           lambda document, digits: json_text(document.data(), document.json_indent, document.json_ascii)),
    Format("latex", "application/x-latex", lambda document, digits: _joined(document, digits, _latex_table, tex) + "\n"),
    Format("html", "text/html", lambda document, digits: html_page(document.blocks(digits), document.title)),
)})
