"""Rewrites of a printed formula's text before the scanner of :mod:`.latex_formula` reads it.

Plain text (``--notation text``) becomes the LaTeX subset; multi-label set notation of one
instance becomes its counts; ``G-mean`` becomes one name. All are text rewrites: nothing is
evaluated, and the result goes through the same scanner, bounds and notation as any LaTeX.
"""

from __future__ import annotations

import re

from metricc.runtime.errors import InputError

__all__ = ["text_to_latex", "label_sets", "one_name_g_mean"]

_G_MEAN = re.compile(r"\\text\{\s*G\s*-\s*mean\s*\}|G\s*-\s*(\\(text|mathrm)\{\s*mean\s*\}|mean\b)")
_TRUE_SET = r"(?:Y_\{?([a-z])\}?|C_\{\s*y_\{?([a-z])\}?\s*\})"  # Y_i, Wenzel's C_{y_i}
_PREDICTED_SET = r"(?:Z_\{?([a-z])\}?|\\hat\{Y\}_\{?([a-z])\}?|C_\{\s*h\(x_\{?([a-z])\}?\)\s*\})"  # Z_i, C_{h(x_i)}
_SET = rf"(?:{_TRUE_SET}|{_PREDICTED_SET})"
_SET_OPERATIONS = (  # (pattern, meaning over the instance's counts) of multi-label set notation
    (re.compile(rf"\|\s*{_SET}\s*\\cap\s*{_SET}\s*\|"), "TP_{{{i}}}"),
    (re.compile(rf"\|\s*{_SET}\s*\\cup\s*{_SET}\s*\|"), "(TP_{{{i}}} + FP_{{{i}}} + FN_{{{i}}})"),
    (re.compile(rf"\|\s*{_SET}\s*\\(Delta|triangle|ominus|bigtriangleup)\s*{_SET}\s*\|"), "(FP_{{{i}}} + FN_{{{i}}})"),
    (re.compile(rf"\|\s*{_TRUE_SET}\s*\|"), "(TP_{{{i}}} + FN_{{{i}}})"),
    (re.compile(rf"\|\s*{_PREDICTED_SET}\s*\|"), "(TP_{{{i}}} + FP_{{{i}}})"),
    (re.compile(rf"(?:I|\\mathbb\{{1\}}|\\mathbf\{{1\}})\s*(?:\(|\\left\()\s*{_SET}\s*[,=]\s*{_SET}\s*(?:\)|\\right\))"),
     "\\text{{SetMatch}}_{{{i}}}"),
)
_INDICATOR_CASES = re.compile(r",?\s*(\\quad)?\s*(\\text\{\s*where\s*\}|where)?\s*I\s*=\s*\\begin\{cases\}.*?otherwise.*?\\end\{cases\}", re.S)


_TEXT_FUNCTIONS = {"sqrt": "\\sqrt", "max": "\\max", "min": "\\min", "log": "\\log", "ln": "\\ln", "abs": "|"}


def text_to_latex(text: str) -> str:
    """Plain-text formula -> the LaTeX subset: ``sqrt(x)`` -> ``\\sqrt{x}``, ``abs(x)`` ->
    ``|x|``, ``max(a, b)`` -> ``\\max(a, b)``, ``x**2`` and ``x^(a+b)`` -> ``x^{...}``, ``sum_{i=1}^{C}``
    and ``prod_i`` -> ``\\sum``, ``\\prod``. A text rewrite only: nothing is evaluated."""
    if "\\" in text:
        raise InputError("FORMULA", f"column {text.index(chr(92)) + 1}: a LaTeX command in --notation text; "
                                    "use --notation latex for LaTeX")
    out, pos = [], 0
    text = text.replace("**", "^")
    while pos < len(text):
        word = re.match(r"[A-Za-z]+", text[pos:]) if pos == 0 or not (text[pos - 1].isalnum() or text[pos - 1] == "_") else None
        if word and word.group(0) in ("sum", "prod"):
            out.append("\\" + word.group(0))
            pos += len(word.group(0))
            continue
        if word and word.group(0) in _TEXT_FUNCTIONS and text[pos + len(word.group(0)):].lstrip().startswith("("):
            name = word.group(0)
            start = text.index("(", pos + len(name))
            end = _closing(text, start)
            inner = text_to_latex(text[start + 1:end])
            out.append({"sqrt": f"\\sqrt{{{inner}}}", "abs": f"|{inner}|"}.get(name, f"{_TEXT_FUNCTIONS[name]}({inner})"))
            pos = end + 1
            continue
        if text.startswith("^(", pos):
            end = _closing(text, pos + 1)
            out.append("^{" + text_to_latex(text[pos + 2:end]) + "}")
            pos = end + 1
            continue
        out.append(text[pos])
        pos += 1
    return "".join(out)


def _closing(text: str, start: int) -> int:
    """The position of the parenthesis that closes the one at ``start``."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return i
    raise InputError("FORMULA", f"column {start + 1}: unbalanced '('")


def label_sets(text: str) -> str:
    """Multi-label set notation of instance i (true labels ``Y_i`` or ``C_{y_i}``, predicted
    ``Z_i``, ``\\hat{Y}_i`` or ``C_{h(x_i)}``) -> the instance's counts: ``|Y_i \\cap Z_i|`` is
    TP_i, ``|Y_i \\cup Z_i|`` TP_i + FP_i + FN_i, ``|Y_i \\Delta Z_i|`` FP_i + FN_i, ``|Y_i|``
    TP_i + FN_i, ``|Z_i|`` TP_i + FP_i, ``I(Y_i = Z_i)`` 1 when the sets are equal (Wenzel's
    "where I = \\begin{cases} 1 if ... otherwise\\end{cases}" says the same and is dropped)."""
    text = _INDICATOR_CASES.sub("", text)
    for pattern, meaning in _SET_OPERATIONS:
        def replace(match, meaning=meaning):
            indices = {g for g in match.groups() if g and len(g) == 1}
            if len(indices) != 1:
                raise InputError("FORMULA", f"column {match.start() + 1}: '{match.group(0)}' mixes two instances")
            return meaning.format(i=indices.pop())
        text = pattern.sub(replace, text)
    return text


def one_name_g_mean(text: str) -> str:
    """``G-mean``, ``G - \\text{mean}``: one name, not G minus mean."""
    return _G_MEAN.sub(r"\\text{Gmean}", text)

