"""Indicators of a sample's prediction printed in any of the usual ways, as the sample's counts.

``1(\\hat{y}_i = y_i)`` (scikit-learn), ``\\mathbb{1}[y_i = \\hat{y}_i]``, ``I(...)``,
``[[y_i = \\hat{y}_i]]`` (Iverson), ``\\delta(y_i, \\hat{y}_i)`` (Kronecker): 1 where sample i's
prediction equals its truth. Equality is symmetric, so which operand is the truth never
matters; only two operands of the same sample are read (``y_i`` against ``\\hat{y}_i`` or
``Y_i`` against ``P_i``), anything else is left to the scanner (which refuses it). Over the
labels of a sample, ``\\sum_{j} 1(y_{i,j} \\neq \\hat{y}_{i,j})`` counts the sample's wrong
labels (FP_i + FN_i) and ``=`` its right ones (TP_i + TN_i): the sum over the label index is
read whole, as the count it is. A text rewrite before the scanner, like
:func:`.formula_text.label_sets`; nothing is evaluated.
"""

from __future__ import annotations

import re

from metricc.audit.formula_source import Source

__all__ = ["indicators"]

_HEAD = (r"(?:\\mathbb\s*\{\s*[1I]\s*\}|\\mathbf\s*\{\s*1\s*\}|\\mathbb\s*1|\\mathds\s*\{\s*1\s*\}|\\mathbbm\s*\{\s*1\s*\}"
         r"|(?<![0-9.A-Za-z\\])1|(?<![A-Za-z\\])I|\\delta|\\operatorname\s*\{\s*1\s*\})")
# one operand: a letter, hatted or bold, with the sample's index and perhaps a label's
_OPERAND = (r"(\\(?:hat|widehat|tilde)\s*\{\s*(?:\\mathbf\s*\{\s*[A-Za-z]\s*\}|[A-Za-z])\s*\}|\\(?:hat|widehat|tilde)\s+[A-Za-z]"
            r"|\\mathbf\s*\{\s*[A-Za-z]\s*\}|[A-Za-z])\s*_\s*(?:\{\s*([a-z])\s*,?\s*([a-z])?\s*\}|([a-z]))")
_RELATION = r"\s*(=|\\neq|\\ne(?![A-Za-z])|,)\s*"
_BRACKETS = (r"\(", r"\)"), (r"\[", r"\]"), (r"\\\{", r"\\\}")
_CALL = "|".join(rf"{_HEAD}\s*{left}\s*{_OPERAND}{_RELATION}{_OPERAND}\s*{right}" for left, right in _BRACKETS)
_IVERSON = rf"\[\s*\[\s*{_OPERAND}{_RELATION}{_OPERAND}\s*\]\s*\]|\[\\!\[\s*{_OPERAND}{_RELATION}{_OPERAND}\s*\]\\!\]"
_INDICATOR = re.compile(rf"{_CALL}|{_IVERSON}")
# a sum over one index whose whole body is an indicator (the sum over a sample's labels)
_LABEL_SUM = re.compile(r"\\sum\s*_\s*(?:\{\s*([a-z])\s*(?:=[^{}]*)?\}|([a-z]))\s*"
                        r"(?:\^\s*(?:\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}|[A-Za-z0-9]))?\s*$")


def indicators(source: Source) -> Source:
    """``source`` with each indicator of a sample's prediction replaced by its counts."""
    while True:
        match = _INDICATOR.search(source.text)
        if match is None:
            return source
        replaced = _counts(source, match)
        if replaced is None:
            return source
        start, text = replaced
        head, tail = source.slice(0, start), source.slice(match.end())
        source = Source(head.text + text + tail.text, head.cols[:-1] + (source.cols[start],) * len(text) + tail.cols,
                        source.user)


def _counts(source: Source, match) -> tuple[int, str] | None:
    """(where the replacement starts, its text) of one indicator; None when its operands are
    not one sample's truth and prediction."""
    groups = [g for g in match.groups()]
    filled = [i for i, g in enumerate(groups) if g is not None]
    first = filled[0]
    left, right = (groups[first], groups[first + 1], groups[first + 2], groups[first + 3]), \
        (groups[first + 5], groups[first + 6], groups[first + 7], groups[first + 8])
    relation = groups[first + 4]
    equal = relation in ("=", ",")
    left_name, right_name = _plain(left[0]), _plain(right[0])
    if left_name == right_name:  # y_i = y_i: not a truth beside a prediction
        return None
    left_index = (left[1] or left[3], left[2])
    if left_index != (right[1] or right[3], right[2]):
        return None
    sample, label = left_index
    if label is None:
        return match.start(), ("\\text{SetMatch}_{%s}" if equal else "(1 - \\text{SetMatch}_{%s})") % sample
    before = _LABEL_SUM.search(source.text, 0, match.start())
    if before is None or (before.group(1) or before.group(2)) != label:
        raise source.error(match.start(), f"'{match.group(0)}' is one label of a sample: sum it over the labels "
                                          f"(\\sum_{{{label}}})")
    counts = "(TP_{%s} + TN_{%s})" if equal else "(FP_{%s} + FN_{%s})"
    return before.start(), counts % (sample, sample)


def _plain(operand: str) -> str:
    return re.sub(r"\s+", "", operand)
