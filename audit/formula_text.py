"""Rewrites of a printed formula's text before the scanner of :mod:`.latex_formula` reads it.

Plain text (``--notation text``) becomes the LaTeX subset; multi-label set notation of one
instance becomes its counts; ``G-mean`` becomes one name. All are text rewrites: nothing is
evaluated, and the result goes through the same scanner, bounds and notation as any LaTeX.
"""

from __future__ import annotations

import re

from metricc.audit.formula_source import Source
from metricc.core.errors import InputError

__all__ = ["text_to_latex", "label_sets", "one_name_g_mean", "typeset_operators", "plain_subscripts", "unwrapped", "digit_margins"]

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


def text_to_latex(text: str | Source) -> Source:
    """Plain-text formula -> the LaTeX subset: ``sqrt(x)`` -> ``\\sqrt{x}``, ``abs(x)`` ->
    ``|x|``, ``max(a, b)`` -> ``\\max(a, b)``, ``x**2``, ``x^999`` and ``x^(a+b)`` -> ``x^{...}``,
    ``sum_{i=1}^{C}`` and ``prod_i`` -> ``\\sum``, ``\\prod``. A text rewrite only: nothing is
    evaluated; every character keeps the user's column (:class:`.Source`)."""
    source = Source.of(text) if isinstance(text, str) else text
    text = source.text
    if "\\" in text:
        raise source.error(text.index("\\"), "a LaTeX command in --notation text; use --notation latex for LaTeX")
    out: list[str] = []
    cols: list[int] = []

    def emit(piece: str, at: int) -> None:
        out.append(piece)
        cols.extend([source.cols[at]] * len(piece))

    def emit_source(inner: Source) -> None:
        out.append(inner.text)
        cols.extend(inner.cols[:-1])

    pos = 0
    while pos < len(text):
        word = re.match(r"[A-Za-z]+", text[pos:]) if pos == 0 or not (text[pos - 1].isalnum() or text[pos - 1] == "_") else None
        if word and word.group(0) in ("sum", "prod"):
            emit("\\" + word.group(0), pos)
            pos += len(word.group(0))
            continue
        if word and word.group(0) in _TEXT_FUNCTIONS and text[pos + len(word.group(0)):].lstrip().startswith("("):
            name = word.group(0)
            start = text.index("(", pos + len(name))
            end = _closing(source, start)
            opening, closing = {"sqrt": ("\\sqrt{", "}"), "abs": ("|", "|")}.get(name, (f"{_TEXT_FUNCTIONS[name]}(", ")"))
            emit(opening, pos)
            emit_source(text_to_latex(source.slice(start + 1, end)))
            emit(closing, end)
            pos = end + 1
            continue
        if text.startswith("**", pos) or text.startswith("^", pos):
            after = pos + (2 if text.startswith("**", pos) else 1)
            while after < len(text) and text[after] == " ":
                after += 1
            if text.startswith("(", after):
                end = _closing(source, after)
                emit("^{", pos)
                emit_source(text_to_latex(source.slice(after + 1, end)))
                emit("}", end)
                pos = end + 1
                continue
            power = re.match(r"-?[0-9.]+|[A-Za-z][A-Za-z0-9_]*", text[after:])
            if power:  # x^999 is x to the 999th, not (x^9)99 as in LaTeX
                emit("^{", pos)
                emit_source(source.slice(after, after + len(power.group(0))))
                emit("}", after + len(power.group(0)) - 1)
                pos = after + len(power.group(0))
                continue
            emit("^", pos)
            pos = after
            continue
        emit(text[pos], pos)
        pos += 1
    return Source("".join(out), tuple(cols) + (source.cols[len(text)],), source.user)


def _closing(source: Source, start: int) -> int:
    """The position of the parenthesis that closes the one at ``start``."""
    depth = 0
    for i in range(start, len(source.text)):
        depth += {"(": 1, ")": -1}.get(source.text[i], 0)
        if depth == 0:
            return i
    raise source.error(start, "'(' is never closed")


def label_sets(source: Source) -> Source:
    """Multi-label set notation of instance i (true labels ``Y_i`` or ``C_{y_i}``, predicted
    ``Z_i``, ``\\hat{Y}_i`` or ``C_{h(x_i)}``) -> the instance's counts: ``|Y_i \\cap Z_i|`` is
    TP_i, ``|Y_i \\cup Z_i|`` TP_i + FP_i + FN_i, ``|Y_i \\Delta Z_i|`` FP_i + FN_i, ``|Y_i|``
    TP_i + FN_i, ``|Z_i|`` TP_i + FP_i, ``I(Y_i = Z_i)`` 1 when the sets are equal (Wenzel's
    "where I = \\begin{cases} 1 if ... otherwise\\end{cases}" says the same and is dropped)."""
    source = source.sub(_INDICATOR_CASES, "")
    for pattern, meaning in _SET_OPERATIONS:
        def replace(match, meaning=meaning, current=source):
            indices = {g for g in match.groups() if g and len(g) == 1}
            if len(indices) != 1:
                raise current.error(match.start(), f"'{match.group(0)}' mixes two instances")
            return meaning.format(i=indices.pop())
        source = source.sub(pattern, replace)
    for pattern, meaning in _WHOLE_SETS:
        source = source.sub(pattern, meaning)
    return source


# the sets of one class's (or one binary problem's) samples, printed without an index:
# true y and predicted y-hat, or any two sets A and B where only their meet and union are
# printed (both read the same whichever is the truth)
_WHOLE = r"(?:y|Y|\\hat\{y\}|\\hat\{Y\}|A|B)(?![A-Za-z_{])"
_WHOLE_SETS = (
    (re.compile(rf"\|\s*{_WHOLE}\s*\\cap\s*{_WHOLE}\s*\|"), "TP"),
    (re.compile(rf"\|\s*{_WHOLE}\s*\\cup\s*{_WHOLE}\s*\|"), "(TP + FP + FN)"),
    (re.compile(r"\|\s*(?:y|Y)\s*\|"), "(TP + FN)"),
    (re.compile(r"\|\s*\\hat\{(?:y|Y)\}\s*\|"), "(TP + FP)"),
)


def one_name_g_mean(source: Source) -> Source:
    """``G-mean``, ``G - \\text{mean}``: one name, not G minus mean."""
    return source.sub(_G_MEAN, r"\\text{Gmean}")


# the operators a word processor or a PDF's text prints: times, division, minus and the dashes
# typed for it, the dot operator
_TYPESET = {"\u00d7": " \\times ", "\u22c5": " \\cdot ", "\u00b7": " \\cdot ", "\u00f7": " / ", "\u2215": " / ",
            "\u2212": "-", "\u2013": "-", "\u2014": "-", "\u2010": "-", "\u2011": "-"}
_TYPESET_PATTERN = re.compile("|".join(_TYPESET) + r"|\\not\s*=|\\div(?![A-Za-z])|\\[lr]?vert(?![A-Za-z])")


def typeset_operators(source: Source) -> Source:
    """``(TP + TN) \u00f7 n``, ``Sensitivity \u00d7 Prevalence``, ``1 \u2212 p``: the typeset operators as the
    LaTeX the scanner reads; ``\\not=`` is ``\\neq``, ``\\div`` a division, ``\\lvert x \\rvert`` is ``|x|``."""
    words = {"\\div": " / ", "\\vert": "|", "\\lvert": "|", "\\rvert": "|"}
    return source.sub(_TYPESET_PATTERN, lambda m: _TYPESET.get(m.group(0)) or words.get(m.group(0), " \\neq "))


_FONT_SUBSCRIPT = re.compile(r"_\s*(\{\s*)?\\(?:textit|mathit|mathrm|text|textrm|rm|it)\s*\{([^{}]*)\}(?(1)\s*\}|)")


_DECORATED_SUBSCRIPT = re.compile(r"\\(hat|widehat|bar|tilde)\s*\{\s*([A-Za-z])\s*_\s*(\{[^{}]*\}|[A-Za-z0-9])\s*\}")


def plain_subscripts(source: Source) -> Source:
    """``C_{\\textit {kk}}``, ``n_\\text{samples}``: a subscript set in a font is the subscript;
    ``\\hat{y_{i}}``: a hat over a subscripted letter is the hatted letter's subscript."""
    source = source.sub(_DECORATED_SUBSCRIPT, lambda m: f"\\{m.group(1)}{{{m.group(2)}}}_{m.group(3)}")
    return source.sub(_FONT_SUBSCRIPT, lambda m: "_{" + m.group(2).strip() + "}")


def unwrapped(source: Source) -> Source:
    """``{\\displaystyle {...} = ...}`` (as Wikipedia's source prints it): the braces around the
    whole formula say nothing."""
    text = source.text
    while text.startswith("{") and text.endswith("}"):
        depth = 0
        for i, ch in enumerate(text):
            depth += {"{": 1, "}": -1}.get(ch, 0)
            if depth == 0:
                break
        if i != len(text) - 1:
            break
        source = source.slice(1, len(text) - 1).strip()
        text = source.text
    return source


_DIGIT_MARGIN = re.compile(r"([A-Za-z])_\{\s*(?:([012])\s*(?:\\bullet|\\cdot|\+|\.)|(?:\\bullet|\\cdot|\+|\.)\s*([012]))\s*\}")


def digit_margins(source: Source) -> Source:
    """``n_{1\\bullet}``, ``n_{\\bullet 0}``: a row or column total of a 2 x 2 table whose cells
    are numbered (``n_{10}``), written as the sum of its two cells (0 or 2 the negative class,
    whichever the cells use)."""
    negative = "2" if re.search(r"_\{\s*(2[12]|12)\s*\}|\{\s*2\s*(\\bullet|\\cdot)", source.text) else "0"

    def cells(match):
        letter, row, column = match.groups()
        pairs = (row + "1", row + negative) if row else ("1" + column, negative + column)
        return "(" + " + ".join(f"{letter}_{{{pair}}}" for pair in pairs) + ")"
    return source.sub(_DIGIT_MARGIN, cells)
