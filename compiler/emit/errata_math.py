"""Errata text with its formulas typeset: ``p_w = 1/n * sum_j (TP_j + FP_j) * TP_j / ...`` as
math, the prose around it as escaped text.

Errata quote papers in a plain ASCII notation mixed with prose (``docs/errata.yaml``). A run of
formula tokens (symbols, numbers, operators, brackets) that holds an operator and an operand
and whose brackets balance is set as inline math; everything else is text, escaped.
"""

from __future__ import annotations

import re

from metricc.compiler.emit.text import latex_escape

__all__ = ["errata_latex"]

_TOKEN = re.compile(r"\s+|sum_\([^)]*\)|sum_[A-Za-z]\b|[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+|_\([^)]*\))?"
                    r"|\d+(?:\.\d+)?|!=|<=|>=|\.\.\.|[=+\-*/^~<>]|[()\[\],|]|.")
_OPERATORS = {"=": "=", "+": "+", "-": "-", "*": r"\cdot", "/": "/", "^": "^", "~": r"\approx",
              "!=": r"\neq", "<=": r"\leq", ">=": r"\geq", "<": "<", ">": ">"}
_PUNCTUATION = {"(", ")", "[", "]", ",", "|"}
_FUNCTIONS = {"sqrt": r"\operatorname{sqrt}", "max": r"\max", "min": r"\min", "log": r"\log", "sum": r"\sum"}
_GREEK = {"alpha", "beta", "gamma", "kappa", "phi", "mu", "sigma", "theta"}
_PROSE = {"the", "and", "of", "is", "for", "as", "in", "to", "a", "on", "by", "its", "not", "are", "all", "row",
          "one", "see", "has", "two", "be", "an", "or", "at", "it", "i.e", "so", "with", "was", "per"}


def _is_symbol(token: str) -> bool:
    if token in _FUNCTIONS or token in _GREEK or token.startswith("sum_"):
        return True
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9]*(?:_.+)?", token) or token.lower() in _PROSE:
        return False
    return "_" in token or len(token) <= 2 or any(c.isdigit() for c in token) or sum(c.isupper() for c in token) >= 2


def _kind(token: str) -> str:
    if token.isspace():
        return "space"
    if token in _OPERATORS:
        return "operator"
    if token in _PUNCTUATION:
        return "punctuation"
    if re.fullmatch(r"\d+(?:\.\d+)?", token) or _is_symbol(token):
        return "operand"
    return "prose"


def _name(text: str) -> str:
    if text in _GREEK:
        return "\\" + text
    return text if len(text) == 1 else rf"\mathit{{{text}}}"


def _symbol(token: str) -> str:
    if token in _FUNCTIONS:
        return _FUNCTIONS[token]
    if re.fullmatch(r"\d+(?:\.\d+)?", token):
        return token
    base, _, sub = token.partition("_")
    if len(base) >= 3 and re.fullmatch(r"[a-z]{3,}", sub):  # a code identifier: class_accuracy
        return r"\mathrm{" + token.replace("_", r"\_") + "}"
    if base == "sum":
        return r"\sum_{" + _math_of(sub.strip("()")) + "}"
    return _name(base) + ("_{" + _math_of(sub.strip("()")) + "}" if sub else "")


def _math_of(text: str) -> str:
    return _math([t for t in _TOKEN.findall(text)])


def _math(tokens: list[str]) -> str:
    out, raise_next = [], False
    for token in tokens:
        if token.isspace():
            continue
        if token in _OPERATORS:
            if token == "^":
                raise_next = True
                continue
            out.append(_OPERATORS[token])
        elif token in _PUNCTUATION:
            out.append(token)
        else:
            out.append(_symbol(token))
        if raise_next:
            out[-1] = "^{" + out[-1] + "}"
            raise_next = False
    return " ".join(out)


def _balanced(tokens: list[str]) -> bool:
    depth = 0
    for token in tokens:
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(token, 0)
        if depth < 0:
            return False
    return depth == 0


def _flush(run: list[str], out: list[str]) -> None:
    while run and (run[-1].isspace() or run[-1] in {",", "("}):  # a trailing comma is the sentence's
        tail = run.pop()
        _flush(run, out)
        out.append(latex_escape(tail))
        return
    kinds = {_kind(t) for t in run}
    if "operator" in kinds and "operand" in kinds and _balanced(run):
        out.append("$" + _math(run) + "$")
    else:
        out.extend(latex_escape(t) for t in run)


def errata_latex(text: str) -> str:
    """LaTeX of an errata field: formula runs as inline math, the rest as escaped text."""
    out: list[str] = []
    run: list[str] = []
    for token in _TOKEN.findall(str(text)):
        kind = _kind(token)
        if kind == "prose":
            _flush(run, out)
            run = []
            out.append(latex_escape(token))
        elif kind == "space" and not run:
            out.append(" ")
        else:
            run.append(token)
    _flush(run, out)
    return "".join(out)
