"""Reading a paper's text for ``metricc review``: lines, sections, paragraphs, tables, captions.

The first stage of the review (read -> find -> check -> render). A paper arrives as LaTeX
source, Markdown, or plain text extracted from a PDF (tables as tab-separated lines, as the
source papers in ``shared/seeds`` are); this stage knows nothing of metrics. It records, for
every line, the section the paper puts it in (``\\section{...}``, ``## 3.1 Title``, or a
numbered heading line ``3.1.2 False Positive Rates.``), splits the text into paragraphs and
tables (rows of cells: tabs, Markdown pipes, or LaTeX ``&`` ... ``\\\\``) and finds the captions
(``Figure 5: ...``, ``Table 4. ...``, ``\\caption{...}``) that name them.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from pathlib import Path

from metricc.core.errors import InputError

__all__ = ["MAX_BYTES", "Paper", "Table", "read_paper", "paper_from_text"]

MAX_BYTES = 5_000_000  # a paper's text: the longest source paper is 83 kB
MAX_LINE = 20_000  # characters of one line (a table row of a PDF extraction is a few hundred)

_LATEX_SECTION = re.compile(r"\\(?:sub)*section\*?\{([^{}]*)\}")
_MARKDOWN_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
_NUMBERED_HEADING = re.compile(r"^((?:\d+\.)*\d+)\.?\s+([A-Z][^.:\t]{1,80})(?:[.:]|\s*$)")
_CAPTION = re.compile(r"^\s*(?:\*\*)?((?:Figure|Fig\.|Table)\s+([A-Z]?\d+(?:\.\d+)*))\s*[.:]", re.IGNORECASE)
_LATEX_CAPTION = re.compile(r"\\caption\{([^{}]*)")
_PIPE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


@dataclass(frozen=True)
class Table:
    """Rows of cells as printed, from ``first`` to ``last`` (1-based lines), and the
    caption that names it (``Table 4``, ``Figure 5``) with the caption's line."""

    first: int
    last: int
    rows: tuple[tuple[str, ...], ...]
    lines: tuple[int, ...]
    name: str = ""
    caption: str = ""


@dataclass(frozen=True)
class Paper:
    name: str
    lines: tuple[str, ...]
    sections: tuple[str, ...]  # per line: the section it stands in ("" before the first)
    tables: tuple[Table, ...] = ()
    paragraphs: tuple[tuple[int, int], ...] = ()  # (first, last) lines of running text
    captions: tuple[tuple[int, str, str], ...] = field(default=())  # (line, name, caption text)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def section(self, line: int) -> str:
        return self.sections[line - 1] if 0 < line <= len(self.sections) else ""

    def paragraph_of(self, line: int) -> tuple[int, int]:
        at = bisect.bisect_right(self.paragraphs, (line, 1 << 62)) - 1
        if at >= 0 and self.paragraphs[at][0] <= line <= self.paragraphs[at][1]:
            return self.paragraphs[at]
        return line, line


def read_paper(path: str | Path) -> Paper:
    """The paper at ``path``; an InputError (exit 2) says why a file cannot be read."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError("FILE", f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError("FILE", f"{path}: a folder, not a paper's text (give one .tex, .md or .txt file)") from None
    except OSError as error:
        raise InputError("FILE", f"{path}: cannot read: {error.strerror}") from None
    if len(data) > MAX_BYTES:
        raise InputError("FILE", f"{path}: {len(data):,} bytes; at most {MAX_BYTES:,} (a paper's text, not its PDF)")
    if b"\x00" in data[:4096] or data.startswith(b"%PDF"):
        raise InputError("FILE", f"{path}: a binary file (a PDF?); give the paper's text: LaTeX source, Markdown, "
                                 "or text extracted from the PDF (e.g. pdftotext -layout)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise InputError("FILE", f"{path}:{line}: not UTF-8 text (byte {data[error.start]:#x})") from None
    return paper_from_text(text, path.name)


def paper_from_text(text: str, name: str = "<text>") -> Paper:
    """The paper of ``text``: lines, sections, tables, paragraphs and captions."""
    if not isinstance(text, str):
        raise TypeError(f"the paper's text is a str, got {type(text).__name__}")
    if len(text.encode("utf-8", "replace")) > MAX_BYTES:
        raise InputError("FILE", f"{name}: more than {MAX_BYTES:,} bytes of text")
    lines = tuple(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    long = next((i for i, line in enumerate(lines, 1) if len(line) > MAX_LINE), None)
    if long:
        raise InputError("FILE", f"{name}:{long}: a line of {len(lines[long - 1]):,} characters; at most {MAX_LINE:,}")
    if not text.strip():
        raise InputError("FILE", f"{name}: the file is empty")
    captions = tuple(_captions(lines))
    tables = tuple(_name_tables(_tables(lines), captions))
    table_lines = {line for table in tables for line in range(table.first, table.last + 1)}
    return Paper(name, lines, tuple(_sections(lines)), tables, tuple(_paragraphs(lines, table_lines)), captions)


def _sections(lines) -> list[str]:
    current, out, in_math = "", [], False
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("$$") and not (len(stripped) > 2 and stripped.endswith("$$")):
            in_math = not in_math
        heading = None
        if not in_math:
            latex = _LATEX_SECTION.search(line)
            markdown = _MARKDOWN_HEADING.match(line)
            numbered = _NUMBERED_HEADING.match(stripped) if "\t" not in line and "$" not in line else None
            if latex:
                heading = latex.group(1)
            elif markdown:
                heading = markdown.group(1).strip("*_ ")
            elif numbered and not _CAPTION.match(stripped):
                heading = f"{numbered.group(1)} {numbered.group(2).strip()}"
        if heading:
            current = heading.strip()
        out.append(current)
    return out


def _cells(line: str) -> list[str] | None:
    """A line's cells when it is a table row: tabs, Markdown pipes, or LaTeX ``&``."""
    if "\t" in line:
        return [c.strip() for c in line.split("\t")]
    stripped = line.strip()
    if stripped.startswith("|") and stripped.count("|") >= 3:
        if _PIPE_RULE.match(stripped):
            return []
        return [c.strip() for c in stripped.strip("|").split("|")]
    if "&" in stripped and stripped.rstrip().endswith("\\\\") and not stripped.startswith("$"):
        body = re.sub(r"\\(?:hline|midrule|toprule|bottomrule)", "", stripped.rstrip()[:-2])
        return [c.strip() for c in body.split("&")]
    return None


def _tables(lines):
    rows, numbers, first = [], [], None
    for number, line in enumerate(lines, 1):
        cells = _cells(line)
        if cells is not None:
            if first is None:
                first = number
            if cells:
                rows.append(tuple(cells))
                numbers.append(number)
            continue
        if first is not None and rows and len(rows) >= 2:
            yield Table(first, number - 1, tuple(rows), tuple(numbers))
        rows, numbers, first = [], [], None
    if first is not None and len(rows) >= 2:
        yield Table(first, len(lines), tuple(rows), tuple(numbers))


def _captions(lines):
    for number, line in enumerate(lines, 1):
        match = _CAPTION.match(line)
        if match:
            yield number, _normal_name(match.group(1)), line.strip()
            continue
        latex = _LATEX_CAPTION.search(line)
        if latex:
            yield number, "", latex.group(1).strip()


def _normal_name(name: str) -> str:
    word, number = name.split(maxsplit=1)
    return ("Figure" if word.lower().startswith("fig") else "Table") + " " + number


def _name_tables(tables, captions):
    """Each table's caption: a "Table" caption just above it or a "Figure" caption just below
    (as journals set them), else the nearest within four lines; a LaTeX caption counts too."""
    for table in tables:
        near = []
        for line, name, text in captions:
            before, after = table.first - line, line - table.last
            distance = before if line < table.first else after
            if 0 < distance <= 4:
                usual = (line < table.first) == (name or _caption_name(text)).startswith("Table")
                near.append((not usual, distance, line < table.first, name, text))
        if not near:
            yield table
            continue
        _, _, _, name, text = min(near)
        yield Table(table.first, table.last, table.rows, table.lines, name or _caption_name(text), text)


def _caption_name(text: str) -> str:
    match = re.search(r"\b(Figure|Fig\.|Table)\s+(\d+)", text)
    return _normal_name(match.group(0)) if match else text[:40]


def _paragraphs(lines, table_lines):
    first = None
    for number, line in enumerate(lines, 1):
        blank = not line.strip() or number in table_lines
        if blank and first is not None:
            yield first, number - 1
            first = None
        elif not blank and first is None:
            first = number
    if first is not None:
        yield first, len(lines)
