"""The user's formula text with, for every character of every rewrite, the column it came from.

The reader rewrites the printed text several times (plain text into LaTeX, ``\\left`` and
equation numbers dropped, set notation into counts) before its scanner and sympy's parser see
it. A :class:`Source` keeps the user's column of each character through those rewrites, so an
error names the column in the user's own text and quotes that text, never the internal LaTeX.
The checks here (nesting depth, brackets, operators) run before the parser, on that text.
"""

from __future__ import annotations

import dataclasses
import re

from metricc.core.errors import InputError

__all__ = ["Source", "MAX_NESTING", "MAX_SUMS", "MAX_FRACTIONS", "MAX_FRACTION_DEPTH", "check_nesting", "check_fractions", "check_brackets",
           "check_operators"]

MAX_NESTING = 40  # levels of ( [ { : deeper than any printed formula, far below Python's recursion limit
_OPEN, _CLOSE = "([{", ")]}"
# (the '-' of PyCM's Matrix(i,-), a whole row or column, is no operator)
_OPERATOR_RUN = re.compile(r"([+*/^=]|(?<![(,])(?<![(,]\s)-|\\cdot|\\times)\s*([+*/^=)\]}]|\\cdot|\\times|$)")
_NOTHING_BEFORE = re.compile(r"([(\[{]|^)\s*([*/^=]|\\cdot|\\times)")


@dataclasses.dataclass(frozen=True)
class Source:
    """``text`` and, per character and for its end, the index in ``user`` it came from."""

    text: str
    cols: tuple[int, ...]
    user: str

    @classmethod
    def of(cls, text: str) -> "Source":
        return cls(text, tuple(range(len(text) + 1)), text)

    def __len__(self) -> int:
        return len(self.text)

    def slice(self, start: int, end: int | None = None) -> "Source":
        end = len(self.text) if end is None else end
        return Source(self.text[start:end], self.cols[start:end] + (self.cols[end],), self.user)

    def sub(self, pattern: re.Pattern, repl) -> "Source":
        """``pattern.sub(repl, text)``; a replacement's characters come from its match's start
        (a match replaced by itself keeps its columns)."""
        out, cols, last = [], [], 0
        for match in pattern.finditer(self.text):
            out.append(self.text[last:match.start()])
            cols.extend(self.cols[last:match.start()])
            new = repl(match) if callable(repl) else match.expand(repl)
            out.append(new)
            unchanged = new == match.group(0)  # a match left as it was keeps its own columns
            cols.extend(self.cols[match.start():match.end()] if unchanged else [self.cols[match.start()]] * len(new))
            last = match.end()
        out.append(self.text[last:])
        cols.extend(self.cols[last:])
        return Source("".join(out), tuple(cols), self.user)

    def strip(self) -> "Source":
        start = len(self.text) - len(self.text.lstrip())
        return self.slice(start, len(self.text.rstrip()))

    def column(self, index: int) -> int:
        """The user's 1-based column of the character at ``index``."""
        return self.cols[min(max(index, 0), len(self.text))] + 1

    def error(self, index: int, message: str) -> InputError:
        return InputError("FORMULA", f"column {self.column(index)}: {message}")

    def quoted(self) -> str:
        """The user's own text this source was made from (its first to its last character)."""
        if not self.text:
            return ""
        return self.user[self.cols[0]:max(self.cols[:-1]) + 1].strip()

    def near(self, index: int, width: int = 12) -> str:
        """The user's text around ``index``."""
        at = self.cols[min(max(index, 0), len(self.text))]
        return self.user[max(at - width, 0):at + width].strip()


def check_nesting(text: str) -> None:
    """At most :data:`MAX_NESTING` levels of brackets (of the user's text, before any rewrite)."""
    depth = 0
    for index, ch in enumerate(text):
        if ch in _OPEN:
            depth += 1
            if depth > MAX_NESTING:
                raise InputError("FORMULA", f"column {index + 1}: nested too deeply (at most {MAX_NESTING} "
                                            "levels of brackets)")
        elif ch in _CLOSE:
            depth = max(depth - 1, 0)


MAX_SUMS = 12  # \sum and \prod of one formula: Wang's longest prints 4
MAX_FRACTIONS = 24  # \frac and / of one formula: more than any printed metric; parsing more takes seconds
MAX_FRACTION_DEPTH = 8  # \frac inside \frac: a continued fraction 8 deep is within `metricc check`'s budget


def check_fractions(text: str) -> None:
    """At most :data:`MAX_FRACTIONS` fractions and :data:`MAX_FRACTION_DEPTH` nested ones in
    one formula (of the user's text, before sympy's parser, whose time grows fast with both),
    and at most :data:`MAX_SUMS` sums and products (50 nested sums took minutes)."""
    sums = len(re.findall(r"\\(sum|prod)(?![A-Za-z])|(?<![A-Za-z\\])(sum|prod)(?=_|\s*\()", text))
    if sums > MAX_SUMS:
        raise InputError("FORMULA", f"{sums} sums and products in one formula (at most {MAX_SUMS}): a printed metric "
                                    "has far fewer")
    count = len(re.findall(r"\\[dt]?frac(?![A-Za-z])|(?<![/*])/(?![/*])", text))
    if count > MAX_FRACTIONS:
        raise InputError("FORMULA", f"{count} fractions in one formula (at most {MAX_FRACTIONS}): a printed metric "
                                    "has far fewer; split it into definitions ('..., X = ...')")
    stack: list[bool] = []  # per open brace: whether it is an argument of a \frac
    pending, depth = 0, 0
    for match in re.finditer(r"\\[dt]?frac(?![A-Za-z])|\\[{}]|[{}]", text):
        token = match.group(0)
        if token.endswith("frac"):
            pending = 2
        elif token == "{":
            stack.append(pending > 0)
            pending = max(pending - 1, 0)
            depth = max(depth, sum(stack))
            if depth > MAX_FRACTION_DEPTH:
                raise InputError("FORMULA", f"column {match.start() + 1}: fractions nested more than "
                                            f"{MAX_FRACTION_DEPTH} deep: a printed metric has far fewer; write the "
                                            "inner part as a definition ('..., X = ...')")
        elif token == "}" and stack:
            stack.pop()


def check_brackets(source: Source) -> None:
    """Every ( [ { closed by its own kind (``\\{`` and ``\\}`` are literal braces)."""
    stack: list[int] = []
    text = source.text
    for index, ch in enumerate(text):
        if index and text[index - 1] == "\\":
            continue
        if ch in _OPEN:
            stack.append(index)
        elif ch in _CLOSE:
            if not stack:
                raise source.error(index, f"'{ch}' closes no '{_OPEN[_CLOSE.index(ch)]}'")
            opened = stack.pop()
            if _CLOSE.index(ch) != _OPEN.index(text[opened]):
                raise source.error(index, f"'{ch}' closes the '{text[opened]}' of column {source.column(opened)}")
    if stack:
        raise source.error(stack[-1], f"'{text[stack[-1]]}' is never closed")


def check_operators(source: Source) -> None:
    """No operator without an operand: ``TP ++ FP``, ``TP /``, ``(* FP)``."""
    match = _OPERATOR_RUN.search(source.text)
    if match:
        follower = match.group(2)
        what = f"is followed by '{follower}'" if follower else "has nothing after it"
        raise source.error(match.start(1), f"'{match.group(1)}' {what}: an operand is missing")
    match = _NOTHING_BEFORE.search(source.text)
    if match:
        raise source.error(match.start(2), f"'{match.group(2)}' has nothing before it: an operand is missing")
