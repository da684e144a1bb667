"""Numbers and metric names as papers print them, for ``metricc review``'s finding stage.

- :func:`printed_number`: a literal as printed (``0.82``, ``36.5%``, ``7/10``, ``\\frac{7}{10}``,
  ``0.7586 (5)`` with a rank in brackets) -> its value and the tolerance its digits allow;
- :func:`arithmetic`: a worked expression of numbers only (``\\frac{9+6+7}{9+4+6+3+7+1}``,
  ``\\frac{1}{3}(\\frac{9}{10} + \\frac{6}{10})``, ``(22+52)/90``), computed exactly with
  fractions by a small recursive-descent reader, never ``eval``;
- :func:`metric_name`: the catalog metric and averaging a printed name means (``p_\\mu``,
  ``Acc_M``, ``Rec_M``, ``F_{1\\mu}``, ``balanced accuracy``, ``MacroF_1``, ``matthews_correlation_coefficient``),
  through the catalog's own names and aliases and identify's label reader.
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction

from metricc.audit.review_tools import label_names
from metricc.core.errors import InputError
from metricc.api.evaluate import catalog
from metricc.runtime.registry import name_key

__all__ = ["Number", "arithmetic", "glossary_key", "metric_name", "printed_number", "rounding_slack"]

_MAX_DIGITS = 40
_CLEAN = re.compile(r"</?(?:b|i|sub|sup|em|strong)>|\*\*|\\textbf|\\mathbf|\\boldsymbol")
_LITERAL = re.compile(r"^[~≈]?\s*(-?\d{1,20}(?:\.(\d{1,20}))?)\s*(\\?%)?(?:\s*\(\d+\))?[¹²³⁴⁵⁶⁷⁸⁹⁰]*\s*$")
_FRACTION = re.compile(r"^\\[dt]?frac\{\s*(\d{1,20})\s*\}\{\s*(\d{1,20})\s*\}$|^(\d{1,20})\s*/\s*(\d{1,20})$")


class Number(tuple):
    """(value, tolerance, exact): exact is True for a printed fraction."""

    __slots__ = ()

    def __new__(cls, value: float, tolerance: float, exact: bool = False):
        return super().__new__(cls, (value, tolerance, exact))

    value = property(lambda self: self[0])
    tolerance = property(lambda self: self[1])
    exact = property(lambda self: self[2])


def printed_number(text: str) -> Number | None:
    """A literal number as printed, or None when ``text`` is not one."""
    text = _CLEAN.sub("", str(text)).strip().strip("$ ").replace("\\,", "").replace("−", "-")
    while text.startswith("{") and text.endswith("}") and text.count("{") == 1:
        text = text[1:-1].strip()
    if not text or len(text) > _MAX_DIGITS + 10:
        return None
    literal = _LITERAL.match(text)
    if literal:
        decimals = len(literal.group(2) or "")
        scale = 100.0 if literal.group(3) else 1.0
        return Number(float(literal.group(1)) / scale, 0.5 * 10.0 ** -decimals / scale)
    fraction = _FRACTION.match(text)
    if fraction:
        top, bottom = (fraction.group(1), fraction.group(2)) if fraction.group(1) else (fraction.group(3), fraction.group(4))
        if int(bottom) == 0:
            return None
        return Number(float(Fraction(int(top), int(bottom))), 1e-9, True)
    return None


class _Reader:
    """Numbers, + - * / ^, \\cdot, \\times, brackets, \\frac{}{}, implicit products."""

    _TOKEN = re.compile(r"\s*(\\[dt]?frac|\\cdot|\\times|\\left|\\right|\d+(?:\.\d+)?|[-+*/^(){}\[\]])")

    def __init__(self, text: str):
        self.tokens, position = [], 0
        text = text.replace("\\,", " ").replace("\\;", " ").replace("\\!", "").strip()
        while position < len(text):
            match = self._TOKEN.match(text, position)
            if not match:
                raise ValueError(text[position:])
            token = match.group(1)
            if token not in ("\\left", "\\right"):
                self.tokens.append(token)
            position = match.end()
        self.at = 0

    def peek(self):
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, expected=None):
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise ValueError(f"expected {expected}")
        self.at += 1
        return token

    def sum(self):
        value = self.product()
        while self.peek() in ("+", "-"):
            value = value + self.product() if self.take() == "+" else value - self.product()
        return value

    def product(self):
        value = self.power()
        while True:
            token = self.peek()
            if token in ("*", "\\cdot", "\\times", "/"):
                self.take()
                right = self.power()
                if token == "/":
                    if right == 0:
                        raise ValueError("division by zero")
                    value = value / right
                else:
                    value = value * right
            elif token in ("(", "[", "\\frac", "\\dfrac", "\\tfrac"):
                value = value * self.power()
            else:
                return value

    def power(self):
        base = self.atom()
        if self.peek() == "^":
            self.take()
            exponent = self.atom()
            if exponent.denominator != 1 or abs(exponent) > 4:
                raise ValueError("exponent")
            base = base ** int(exponent)
        return base

    def atom(self):
        token = self.take()
        if token == "-":
            return -self.atom()
        if token in ("(", "[", "{"):
            value = self.sum()
            self.take({"(": ")", "[": "]", "{": "}"}[token])
            return value
        if token.endswith("frac"):
            self.take("{")
            top = self.sum()
            self.take("}")
            self.take("{")
            bottom = self.sum()
            self.take("}")
            if bottom == 0:
                raise ValueError("division by zero")
            return top / bottom
        if token[0].isdigit():
            if len(token) > _MAX_DIGITS:
                raise ValueError("too long")
            return Fraction(token)
        raise ValueError(token)


_COMMANDS = re.compile(r"\\(?:[dt]?frac|cdot|times|left|right|[,;!])")


def arithmetic(text: str) -> Fraction | None:
    """The exact value of a worked expression of numbers only, or None."""
    text = str(text).strip()
    if not text or len(text) > 400 or not re.search(r"\d", text) or re.search(r"[A-Za-z\\%]", _COMMANDS.sub("", text)):
        return None
    try:
        reader = _Reader(text)
        value = reader.sum()
        return value if reader.peek() is None else None
    except (ValueError, ZeroDivisionError, OverflowError, RecursionError):
        return None


_PER_CLASS_INDEX = re.compile(r"_\{?\d?[ijk]\}?$|_\{?\d?[ijk]\}?\^")
_MODE_WORDS = {"macro": "macro", "micro": "micro", "weighted": "weighted", "binary": "binary"}
_NAME_CHARS = re.compile(r"[^A-Za-z0-9_ \\{}^-]")


def glossary_key(label: str) -> str:
    """A printed label as the paper's own glossary looks it up: ``$AvF_1$``, ``AvF_{1}`` -> ``avf1``."""
    text = re.sub(r"\\(?:text|mathrm|mathit|operatorname)\b", "", _CLEAN.sub("", str(label)))
    return re.sub(r"[\s${}]", "", text).lower()  # \mathcal{F}_1 and \mathbb{F}_1 stay two names


def metric_name(text: str, glossary: dict | None = None) -> tuple[str, str | None] | None:
    """(metric id, averaging or None) that a printed name means, or None. ``glossary``: the
    paper's own labels (:func:`glossary_key` -> (metric, averaging)), from its identified
    definitions, for the names the catalog does not know."""
    named = _metric_name(str(text))
    return named if named or not glossary else glossary.get(glossary_key(text))


@functools.lru_cache(maxsize=4096)
def _metric_name(text: str) -> tuple[str, str | None] | None:
    raw = _CLEAN.sub("", str(text)).strip().strip("$ ").strip()
    raw = re.sub(r"[¹²³⁴⁵⁶⁷⁸⁹⁰]+$", "", raw).strip()
    if not raw or len(raw) > 60 or re.search(r"\d\.\d|\\frac|\\sum|[=+*/]", raw):
        return None
    if _PER_CLASS_INDEX.search(raw):  # rec_i, F_{1i}: one value per class, not one number
        return None
    found = _catalog_name(raw)
    if found:
        return found
    metric_id, mode = label_names(raw)
    if metric_id:
        return metric_id, mode
    return None


@functools.lru_cache(maxsize=1)
def _catalog_keys() -> re.Pattern:
    keys = {name_key(n) for info in catalog().values() for n in (info.id, info.name, *info.aliases)}
    return re.compile("|".join(re.escape(k) for k in sorted(keys, key=len, reverse=True) if k))


def _may_name_a_metric(candidate: str) -> bool:
    """A cheap necessary condition for the catalog's lookup to succeed: the name's key holds a
    metric's key (it may add an averaging word or a task prefix)."""
    key = name_key(candidate)
    return 0 < len(key) < 60 and _catalog_keys().search(key) is not None


def _catalog_name(raw: str) -> tuple[str, str | None] | None:
    words = re.sub(r"\\(?:text|mathrm|mathit|operatorname)\{([^{}]*)\}", r"\1", raw)
    if "\\" in words or "{" in words or "^" in words:
        return None
    words = words.replace("-", " ").replace("_", " ").strip()
    mode = None
    parts = [w for w in words.split() if w.lower() not in ("averaged", "average", "avg")]
    if parts and parts[0].lower() in _MODE_WORDS:
        mode, parts = _MODE_WORDS[parts[0].lower()], parts[1:]
    elif parts and parts[-1].lower() in _MODE_WORDS:
        mode, parts = _MODE_WORDS[parts[-1].lower()], parts[:-1]
    joined = " ".join(parts)
    if not joined:
        return None
    if mode is None:  # MacroF_1, macroF1
        lowered = joined.lower().replace(" ", "")
        for word, name in _MODE_WORDS.items():
            if lowered.startswith(word) and len(lowered) > len(word):
                mode, joined = name, joined[len(word):].strip()
                break
    for candidate in (joined, joined.replace(" ", "_"), joined.replace(" ", "")):
        if not _may_name_a_metric(candidate):
            continue  # the catalog's lookup of a miss suggests spellings (difflib): slow on every word of a paper
        try:
            info, named_mode = catalog().find(candidate)
        except (InputError, KeyError):
            continue
        return info.id, mode or named_mode
    return None


_DECIMAL = re.compile(r"(?<![\d.])(\d+)\.(\d+)")


def rounding_slack(text: str) -> float:
    """How far a worked expression can move when each rounded decimal in it (``0.682``)
    moves within half a unit of its last digit: the extremes over every corner (at most six
    decimals; beyond, the sum of the half units times the value)."""
    literals = list(_DECIMAL.finditer(text))
    base = arithmetic(text)
    if not literals or base is None:
        return 0.0
    if len(literals) > 6:
        return float(sum(Fraction(1, 2 * 10 ** len(m.group(2))) for m in literals)) * max(1.0, abs(float(base)))
    worst = 0.0
    for corner in range(1 << len(literals)):
        pieces, last = [], 0
        for bit, match in enumerate(literals):
            half = Fraction(1, 2 * 10 ** len(match.group(2)))
            value = Fraction(match.group(0)) + (half if corner >> bit & 1 else -half)
            pieces += [text[last:match.start()], f"\\frac{{{value.numerator}}}{{{value.denominator}}}"]
            last = match.end()
        moved = arithmetic("".join(pieces) + text[last:])
        if moved is not None:
            worst = max(worst, abs(float(moved - base)))
    return worst
