"""Indicators of a sample's class summed over the samples: Spark's ``\\hat{\\delta}(\\mathbf{y}_i - \\ell)``.

Spark's guide defines a modified delta, ``\\hat{\\delta}(x) = 1`` if x = 0 else 0, and writes a
class's counts as sums over the samples of indicators that a sample's truth or prediction is
the class: ``\\sum_i \\hat{\\delta}(\\hat{\\mathbf{y}}_i - \\ell) \\cdot \\hat{\\delta}(\\mathbf{y}_i -
\\ell)`` (TP of class l), ``\\sum_i \\hat{\\delta}(\\mathbf{y}_i - \\ell)`` (its true count),
``\\sum_k \\hat{\\delta}(\\mathbf{y}_k - \\ell_i) \\cdot \\hat{\\delta}(\\hat{\\mathbf{y}}_k - \\ell_j)``
(the matrix cell C_ij). Others print the same as ``1(y_i = k)``, ``\\mathbb{1}[\\hat{y}_i = j]``,
``[[y_i = k]]`` or ``\\delta(y_i, k)``. A sum over one sample index whose whole body is one or two
such indicators is read whole, as the count it is: the truth's indicator alone is TP + FN of
the class, the prediction's TP + FP, both of one class TP, of two classes the cell (truth's
class, prediction's class). The hat tells the prediction from the truth. A delta of a
difference of one sample's truth and prediction (``\\hat{\\delta}(\\hat{\\mathbf{y}}_i -
\\mathbf{y}_i)``) is the Kronecker delta of the two, left to :mod:`.formula_indicators`. ``\\ell``
is a letter (a class index), and a metric called with a class index (``PPV(\\ell)``) is that
class's value (``PPV_{l}``). A text rewrite before the scanner; nothing is evaluated.
"""

from __future__ import annotations

import re

from metricc.audit.formula_source import Source

__all__ = ["memberships"]

_DELTA = r"(?:\\(?:hat|widehat)\s*\{\s*\\delta\s*\}|\\(?:hat|widehat)\s*\\delta|\\delta)(?![A-Za-z])"
_INDICATOR = (r"(?:\\mathbb\s*\{\s*[1I]\s*\}|\\mathbf\s*\{\s*1\s*\}|\\mathbb\s*1|\\mathds\s*\{\s*1\s*\}"
              r"|(?<![0-9.A-Za-z\\])1|(?<![A-Za-z\\])I)")


def _sample(tag: str) -> str:
    """One sample's truth or prediction: y_i, \\hat{y}_i, \\mathbf{y}_i, \\hat{\\mathbf{y}}_i."""
    return (rf"(?P<{tag}hat>\\(?:hat|widehat)\s*\{{\s*)?(?:\\(?:mathbf|boldsymbol)\s*\{{\s*[A-Za-z]\s*\}}|[A-Za-z])"
            rf"(?({tag}hat)\s*\}}|)\s*_\s*(?:\{{\s*(?P<{tag}i>[a-z])\s*\}}|(?P<{tag}j>[a-z]))")


def _class(tag: str) -> str:
    """A class: a letter, or a letter with a class index (``l_i``, ``\\ell_j`` once ``\\ell`` is a letter)."""
    return rf"(?P<{tag}c>[a-z])(?:\s*_\s*(?:\{{\s*(?P<{tag}ci>[a-z])\s*\}}|(?P<{tag}cj>[a-z])))?"


def _member(name: str) -> str:
    """One indicator that a sample's truth or prediction is a class, in any of the ways (the
    groups of form n are named ``{name}{n}...``)."""
    forms = []
    for n in range(3):
        tag = f"{name}{n}"
        sample, klass = _sample(tag), _class(tag)
        forms.append((rf"{_DELTA}\s*\(\s*{sample}\s*[-,]\s*{klass}\s*\)",
                      rf"{_INDICATOR}\s*[(\[]\s*{sample}\s*=\s*{klass}\s*[)\]]",
                      rf"\[\s*\[\s*{sample}\s*=\s*{klass}\s*\]\s*\]")[n])
    return "(?:" + "|".join(f"(?P<{name}{n}f>{form})" for n, form in enumerate(forms)) + ")"


_SUM = re.compile(r"\\sum\s*_\s*(?:\{\s*(?P<index>[a-z])\s*(?:=\s*[01]\s*)?\}|(?P<bare>[a-z]))"
                  r"\s*(?:\^\s*(?:\{[^{}]*\}|[A-Za-z0-9]))?\s*"
                  + _member("a") + r"(?:\s*(?:\\cdot|\\times|\*)?\s*" + _member("b") + r")?"
                  r"(?=\s*($|[})+\-\\]|\\cdot|\\times))")
_DIFFERENCE = re.compile(rf"{_DELTA}\s*\(\s*(?P<left>{_sample('l')})\s*-\s*(?P<right>{_sample('r')})\s*\)")
_ELL = re.compile(r"\\ell(?![A-Za-z])")
_CALL = re.compile(r"(?<![A-Za-z\\])(?P<name>[A-Z][A-Za-z]{1,7}|\\(?:text|mathrm|operatorname)\s*\{\s*[A-Za-z][A-Za-z0-9 ]*\})"
                   r"\s*\(\s*(?P<index>[a-z])\s*\)")


def memberships(source: Source) -> Source:
    """``source`` with ``\\ell`` a letter, sums of class indicators as counts and ``PPV(l)`` as ``PPV_{l}``."""
    if _ELL.search(source.text):
        letter = next(x for x in "lkmuvw" if not re.search(rf"(?<![A-Za-z\\]){x}(?![A-Za-z])", source.text))
        source = source.sub(_ELL, lambda m: letter)
    source = source.sub(_SUM, _counts)
    source = source.sub(_DIFFERENCE, lambda m: f"\\delta({m.group('left')}, {m.group('right')})")
    bound = set(re.findall(r"\\sum\s*_\s*\{?\s*([a-z])", source.text))
    return source.sub(_CALL, lambda m: f"{m.group('name')}_{{{m.group('index')}}}"
                      if m.group("index") in bound else m.group(0))


def _role(match, name: str) -> tuple[str, str, bool] | None:
    """(sample index, class, is the prediction) of one indicator; None when it is absent."""
    tag = next((f"{name}{n}" for n in range(3) if match.group(f"{name}{n}f")), None)
    if tag is None:
        return None
    return (match.group(f"{tag}i") or match.group(f"{tag}j"), match.group(f"{tag}ci") or match.group(f"{tag}cj")
            or match.group(f"{tag}c"), bool(match.group(f"{tag}hat")))


def _counts(match) -> str:
    """The count a sum of one or two class indicators over the samples stands for."""
    index = match.group("index") or match.group("bare")
    roles = [r for r in (_role(match, "a"), _role(match, "b")) if r is not None]
    if any(sample != index or klass == index for sample, klass, _ in roles):
        return match.group(0)  # not a sum over these samples' classes: left to the scanner
    if len(roles) == 1:
        _, klass, predicted = roles[0]
        return f"(TP_{{{klass}}} + {'FP' if predicted else 'FN'}_{{{klass}}})"
    (_, first, first_predicted), (_, second, second_predicted) = roles
    if first_predicted == second_predicted:
        return match.group(0)  # two indicators of the truth (or of the prediction): not a cell
    truth, predicted = (second, first) if first_predicted else (first, second)
    return f"TP_{{{truth}}}" if truth == predicted else f"C_{{{truth}{predicted}}}"
