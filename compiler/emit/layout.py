"""Lay out a long generated statement over lines within :data:`WIDTH` columns, as black would.

The printers write each expression on one line; the module emitter passes every statement
through :func:`layout` so that generated files read like formatted code. Printed code spaces
every binary operator and no unary one, which is all the splitting below relies on.
"""

from __future__ import annotations

__all__ = ["layout", "scan", "WIDTH"]

WIDTH = 100  # columns of generated code
_OPENING, _CLOSING = "([{", ")]}"
# Binary operators by priority, lowest first: a long expression breaks at its lowest one.
_OPERATORS = (("==", "!=", "<=", ">=", "<", ">"), ("|",), ("&",), ("+", "-"), ("*", "/", "//", "%"), ("**",))


def layout(head: str, code: str, tail: str = "") -> list[str]:
    """The lines of ``head + code + tail`` within :data:`WIDTH` columns, broken as black would.

    ``head`` starts with the indentation (``"    value = "``, ``"    return "``); ``code`` is
    an expression or a comma-separated list. A long expression is parenthesized and broken
    before its lowest-priority operators; a call or literal breaks inside its brackets, one
    item a line with a trailing comma. What cannot break (a long string) stays as it is.
    """
    indent = head[: len(head) - len(head.lstrip())]
    return _fit(code, indent, head[len(indent):], tail, bracketed=False)


def _fit(code: str, indent: str, head: str, tail: str, bracketed: bool) -> list[str]:
    """``bracketed``: the line is inside brackets already, so it breaks without new ones."""
    line = f"{indent}{head}{code}{tail}"
    if len(line) <= WIDTH:
        return [line]
    parts = _split(code)
    if len(parts) > 1 and bracketed:
        return _delimited(parts, indent, head, tail)
    inner = indent + "    "
    if len(parts) > 1:
        body = [inner + code] if len(inner) + len(code) <= WIDTH else _delimited(parts, inner, "", "")
        return [f"{indent}{head}(", *body, f"{indent}){tail}"]
    if _is_string(code):
        return [f"{indent}{head}(", *_string_lines(code, inner), f"{indent}){tail}"]
    opening = _opening_of_last(code)
    if opening is None:
        return [line]
    return [f"{indent}{head}{code[: opening + 1]}", *_body(code[opening + 1 : -1], inner), f"{indent}{code[-1]}{tail}"]


def _is_string(code: str) -> bool:
    """``code`` is one string literal: its opening quote is all that lies outside strings."""
    return code.startswith('"') and [position for position, _, _ in scan(code)] == [0]


def _string_lines(code: str, indent: str) -> list[str]:
    """A long string literal as adjacent literals cut after spaces, each line within the width."""
    words = code[1:-1].split(" ")
    room = WIDTH - len(indent) - 2
    lines, chunk = [], ""
    for word in words:
        piece = word if not chunk else f"{chunk} {word}"
        if chunk and len(piece) + 1 > room:
            lines.append(f'{indent}"{chunk} "')
            chunk = word
        else:
            chunk = piece
    return lines + [f'{indent}"{chunk}"']


def _body(code: str, indent: str) -> list[str]:
    """The content of a bracket, broken over lines at ``indent``."""
    if len(indent) + len(code) <= WIDTH:
        return [indent + code]
    return _delimited(_split(code), indent, "", "")


def _delimited(parts: list[tuple[str, str]], indent: str, head: str, tail: str) -> list[str]:
    """One line (or more) per part; comma-separated items each end with a comma."""
    if parts[0][0] == ",":
        return [line for _, part in parts for line in _fit(part, indent, "", ",", bracketed=True)]
    lines = []
    for number, (operator, part) in enumerate(parts):
        first, last = number == 0, number == len(parts) - 1
        lines += _fit(part, indent, head if first else f"{operator} ", tail if last else "", bracketed=True)
    return lines


def scan(code: str):
    """``(position, depth, char)`` of every character outside string literals."""
    depth, quote, escaped = 0, "", False
    for position, char in enumerate(code):
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
            continue
        if char in "\"'":
            quote = char
        elif char in _OPENING:
            depth += 1
        elif char in _CLOSING:
            depth -= 1
        yield position, depth, char


def _split(code: str) -> list[tuple[str, str]]:
    """``code`` cut at its top-level commas, else before its lowest-priority binary operators:
    ``[(delimiter, part), ...]`` (the first part's delimiter is that of the cut). Printed
    code spaces every binary operator and no unary one."""
    top = [position for position, depth, char in scan(code) if depth == 0 and char in ", "]
    commas = [position for position in top if code[position] == ","]
    if commas:
        bounds = [-1, *commas, len(code)]
        parts = [code[a + 1 : b].strip() for a, b in zip(bounds, bounds[1:])]
        return [(",", part) for part in parts if part]
    spaces = [position for position in top if code[position] == " "]
    for group in _OPERATORS:
        cuts = [(a, b) for a, b in zip(spaces, spaces[1:]) if code[a + 1 : b] in group]
        if cuts:
            parts, start, operator = [], 0, code[cuts[0][0] + 1 : cuts[0][1]]
            for a, b in cuts:
                parts.append((operator, code[start:a]))
                start, operator = b + 1, code[a + 1 : b]
            return parts + [(operator, code[start:])]
    return [("", code)]


def _opening_of_last(code: str) -> int | None:
    """Where the bracket that ends ``code`` opens, if ``code`` ends with a closing bracket."""
    if not code or code[-1] not in _CLOSING:
        return None
    stack = []
    for position, _, char in scan(code):
        if char in _OPENING:
            stack.append(position)
        elif char in _CLOSING and stack:
            opening = stack.pop()
            if position == len(code) - 1:
                return opening
    return None
