"""Source positions inside YAML scalars: which line and column a character of a value is at.

Formula errors point at a column inside the formula; the formula may be quoted, escaped,
folded or a block scalar. The load stage records each scalar's span and style; these
functions map a character offset of the parsed value back to the source.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass

from metricc.compiler.errors import Location

__all__ = ["LINE_BREAK", "LineIndex", "Scalar", "location_at", "printable", "scalar_positions"]

# YAML's line breaks (PyYAML counts lines with exactly these), so line numbers agree.
LINE_BREAK = re.compile("\r\n|[\n\r\x85\u2028\u2029]")
BLANK_LINE = re.compile(r"[ \t]*(?:\r\n|[\n\r\x85\u2028\u2029])")


@dataclass(frozen=True)
class Scalar:
    """Where a scalar's text sits in the source: its style and character span."""

    style: str | None  # None (plain), "'", '"', "|" or ">"
    start: int
    end: int


class LineIndex:
    """Line starts of one text, so that each location costs a binary search, not a scan.

    Built once per spec: formulas with thousands of references, or files with thousands of
    values on one line, ask for a location per reference or value, and each excerpt line is
    made printable once.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [match.end() for match in LINE_BREAK.finditer(text)]
        self._printable: dict[int, str] = {}

    def line_text(self, line: int) -> str:
        """The printable text of 0-based ``line`` ("" past the end)."""
        if line not in self._printable:
            if line >= len(self.starts):
                return ""
            start = self.starts[line]
            end = LINE_BREAK.search(self.text, start)
            self._printable[line] = printable(self.text[start : end.start() if end else len(self.text)])
        return self._printable[line]

    def location(self, file: str, index: int) -> Location:
        """Location of character ``index`` (YAML's notion of lines)."""
        line = bisect.bisect_right(self.starts, index) - 1
        return Location(file, line + 1, index - self.starts[line] + 1, self.line_text(line))


def location_at(file: str, text: str, index: int) -> Location:
    """Location of character ``index`` of ``text`` (YAML's notion of lines)."""
    return LineIndex(text).location(file, index)


def scalar_positions(text: str, scalar: Scalar, value: str) -> list[int]:
    """Source index of every character of ``value``, aligning value and source in order.

    Characters equal to the source's are matched one to one (so plain and quoted text,
    ``''`` and escaped quotes map exactly); a line folded into a space maps to the line
    break; an escape maps to its backslash; block scalars skip their indentation.
    """
    pos, end = scalar.start, scalar.end
    indent = 0
    if scalar.style in ("'", '"'):
        pos, end = pos + 1, end - 1
    elif scalar.style in ("|", ">"):
        header = LINE_BREAK.search(text, pos, end)
        pos = header.end() if header else end
        probe = pos
        while probe < end and (blank := BLANK_LINE.match(text, probe)):
            probe = blank.end()  # blank lines do not set the indentation
        indent = len(text[probe:end]) - len(text[probe:end].lstrip(" "))
        pos = _skip_indent(text, pos, end, indent)
    positions = []
    for ch in value:
        if pos < end and text[pos] == ch:
            positions.append(pos)
            pos += 1
            if indent and LINE_BREAK.match(ch):
                pos = _skip_indent(text, pos, end, indent)
        elif ch.isspace():  # folded line break or escape: stay, then skip the blank source
            positions.append(min(pos, end))
            while pos < end and text[pos].isspace():
                pos += 1
        else:
            found = text.find(ch, pos, end)
            positions.append(found if found >= 0 else min(pos, end))
            pos = found + 1 if found >= 0 else pos
    return positions


def _skip_indent(text: str, pos: int, end: int, indent: int) -> int:
    stop = min(pos + indent, end)
    while pos < stop and text[pos] == " ":
        pos += 1
    return pos


def printable(line: str) -> str:
    """A source line safe to echo to a terminal, one character per column.

    Tabs become spaces (so the caret lines up); control and format characters (including
    bidirectional overrides) become U+FFFD.
    """
    out = []
    for ch in line:
        if ch == "\t":
            out.append(" ")
        elif unicodedata.category(ch) in ("Cc", "Cf"):
            out.append("\ufffd")
        else:
            out.append(ch)
    return "".join(out)
